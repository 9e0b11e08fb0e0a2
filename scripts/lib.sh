# Shared helpers for the build and run scripts.  Source, don't execute.
# shellcheck shell=bash

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
LOGS=$BUILD/logs
# shellcheck source=../config/versions.sh
. "$TOP/config/versions.sh"

mkdir -p "$BUILD" "$LOGS"

# The makes these scripts run take no flags from a make above them: a
# jobserver they were not handed (a warning, and the module builds fail on
# any warning), or -s, which silences the CHECK lines the sparse checks
# count.
unset MAKEFLAGS MFLAGS

# The kernel version (KVER, one of LINUX_VERSIONS) and two guest kernels
# from each source tree: the production kernel (demo, benchmark) and the
# test kernel (KFLAVOR=debug: lockdep, KASAN, UBSAN, kmemleak ...; the test
# suite).  What is built against a kernel lives in directories named with
# the version and flavour (KSUF: -6.1, -6.1-debug ...).
KVER=${KVER:-$LINUX_DEFAULT}
case " $LINUX_VERSIONS " in
*" $KVER "*) ;;
*) printf 'error: KVER=%s: must be one of %s\n' "$KVER" "$LINUX_VERSIONS" >&2; exit 1 ;;
esac
KFLAVOR=${KFLAVOR:-}
case $KFLAVOR in
''|debug) ;;
*) printf 'error: KFLAVOR=%s: must be empty or "debug"\n' "$KFLAVOR" >&2; exit 1 ;;
esac
KSUF=-$KVER${KFLAVOR:+-$KFLAVOR}
# "6.1", "6.1 debug": for messages
KNAME=$KVER${KFLAVOR:+ $KFLAVOR}
LINUX_SOURCE_PKG=linux-source-$KVER
LINUX_SOURCE_TARBALL=/usr/src/linux-source-$KVER.tar.xz
dtb=LINUX_DTB_${KVER//./_}
LINUX_DTB=${!dtb}
unset dtb
LINUX_PATCHES=$TOP/patches/linux/$KVER
KDIR=$BUILD/linux-$KVER
KSRC=$KDIR/src
KOBJ=$KDIR/obj${KFLAVOR:+-$KFLAVOR}
KSTAMP=$KDIR/.stamp${KFLAVOR:+-$KFLAVOR}
KFRAGMENTS=("$TOP/config/linux.fragment")
[ "$KFLAVOR" = debug ] && KFRAGMENTS+=("$TOP/config/linux-debug.fragment")
# what one version names its own way (linux[-debug]-<version>.fragment)
for f in "$TOP/config/linux-$KVER.fragment" \
	${KFLAVOR:+"$TOP/config/linux-$KFLAVOR-$KVER.fragment"}; do
	if [ -f "$f" ]; then KFRAGMENTS+=("$f"); fi
done
unset f
IMAGES=$BUILD/images$KSUF

say()  { printf '==> %s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# run_step NAME LOGFILE CMD...: run CMD with its output in LOGFILE, print a
# progress line every 15 s, and on failure say what failed and where the
# log is, with its last lines.
run_step() {
	local name=$1 log=$2
	shift 2
	local start=$SECONDS
	say "$name (log: ${log#"$TOP"/})"
	"$@" >"$log" 2>&1 &
	local pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		if (( (SECONDS - start) % 15 == 0 )) && kill -0 "$pid" 2>/dev/null; then
			printf '    ... %s: %ds, %s\n' "$name" $((SECONDS - start)) \
				"$(tail -n1 "$log" | cut -c1-70)"
		fi
	done
	if ! wait "$pid"; then
		printf 'error: %s failed after %ds; last lines of %s:\n' \
			"$name" $((SECONDS - start)) "$log" >&2
		tail -n 25 "$log" | sed 's/^/    /' >&2
		exit 1
	fi
	say "$name done in $((SECONDS - start))s"
}

# inputs_hash FILE|DIR...: a hash of the named inputs' contents (and of any
# extra strings passed in INPUTS_EXTRA), used to key build stamps.
inputs_hash() {
	{
		printf '%s\n' "${INPUTS_EXTRA:-}"
		local f
		for f in "$@"; do
			if [ -d "$f" ]; then
				find "$f" -type f ! -name '*.o' ! -name '.*' -print0 |
					sort -z | xargs -0 sha256sum
			elif [ -e "$f" ]; then
				sha256sum "$f"
			else
				echo "missing $f"
			fi
		done
	} | sed "s|$TOP/||" | sha256sum | cut -d' ' -f1
}

# stamp_ok STAMP HASH: true when STAMP records HASH (the output is current).
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
stamp_set() { echo "$2" >"$1"; }

# sync_tree FROM TO [RSYNC ARGS...]: give TO the content of FROM (a source
# tree extracted and patched afresh).  Files are compared by content: an
# unchanged one keeps its time, so nothing built from it rebuilds; a
# changed one gets the time of the copy, not the tarball's, which may be
# older than its object and would leave that object stale.
sync_tree() {
	local from=$1 to=$2
	shift 2
	rsync -rlp --checksum --delete "$@" "$from/" "$to/"
}

# unpack_tarball TARBALL DIR: extract a source tarball's top directory
# into DIR, every file with the time of the extraction (--touch), not the
# tarball's: a tree unpacked anew beside objects built from an older one
# is then never older than they are.
unpack_tarball() {
	tar -xf "$1" -C "$2" --strip-components=1 --touch
}

# Installed version of a Debian package, empty if absent.
pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

# need_cmd CMD PACKAGE: fail with a hint when a tool is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install the Debian package '$2' (make deps, as root)"
}

# ccache keeps its default, per-user directory: a fresh clone of the
# repository then reuses compiler output of earlier builds.
ccache_env() {
	if command -v ccache >/dev/null 2>&1; then
		export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
		export CCACHE_COMPILERCHECK=content
		# Paths below the checkout are hashed relative to it, so another
		# clone of the repository hits the same cache entries.
		export CCACHE_BASEDIR=$TOP
		# QEMU compiles with -g, and ccache hashes the working directory
		# into a -g object (DW_AT_comp_dir): without this another clone
		# misses on every file.  The price: debug info from the cache
		# names the build directory of the clone that filled it (gdb and
		# ASan's reports then show that clone's paths).
		export CCACHE_NOHASHDIR=1
		# Depend mode: on a miss ccache takes the headers from the
		# compiler's own dependency file (kbuild and meson both ask for
		# one) instead of running the preprocessor first.  Measured on
		# the 6.1 kernel: 3.9 min cold against 4.8, 40 s warm against 83.
		export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
	fi
}

# The pool: the suites the build fetches from but never installs from
# (QEMU_SUITE, MESON_SUITE, LINUX_SUITE_<version> of config/versions.sh),
# through an apt configuration of the build's own
# (scripts/host/debian-pool.py): the host's apt never sees them.
POOL=$BUILD/apt
POOL_SUITES=$(
	for v in $LINUX_VERSIONS; do
		s=LINUX_SUITE_${v//./_}
		echo "${!s:-}"
	done
	echo "$QEMU_SUITE" "$MESON_SUITE"
)
POOL_SUITES=$(printf '%s\n' $POOL_SUITES | sort -u | tr '\n' ' ')
POOL_SUITES=${POOL_SUITES% }
pool_apt() { APT_CONFIG=$POOL/apt.conf "$@"; }

# pool_update: that configuration written, its indexes fetched; refreshed
# when older than six hours, so a suite that moves on (a newer point
# release, a newer kernel) is followed; never while the suite runs
# (POOL_FROZEN, set by scripts/test.sh: the trees it tests stay put).
# Offline, indexes fetched before for the same suites serve.
pool_update() {
	local key old
	key=$(INPUTS_EXTRA="$POOL_SUITES" inputs_hash "$TOP/scripts/host/debian-pool.py")
	mkdir -p "$POOL"
	exec {pool_lock}>"$POOL/.lock"
	flock "$pool_lock"
	old=$(cat "$POOL/.stamp" 2>/dev/null || true)
	if [ "$old" = "$key" ] && { [ -n "${POOL_FROZEN:-}" ] ||
		[ -n "$(find "$POOL/.stamp" -mmin -360 2>/dev/null)" ]; }; then
		exec {pool_lock}>&-
		return 0
	fi
	# shellcheck disable=SC2086
	python3 "$TOP/scripts/host/debian-pool.py" config "$POOL" $POOL_SUITES ||
		die "could not write the build's apt configuration ($POOL)"
	if ! pool_apt apt-get update -q -o Acquire::Retries=1 -o Acquire::http::Timeout=30 \
		>"$LOGS/pool-update.log" 2>&1 ||
		grep -q '^[WE]: Failed' "$LOGS/pool-update.log"; then
		if [ "$old" = "$key" ]; then
			warn "could not refresh the indexes of $POOL_SUITES (see ${LOGS#"$TOP"/}/pool-update.log); using the ones fetched before"
			touch "$POOL/.stamp"
			exec {pool_lock}>&-
			return 0
		fi
		die "could not fetch the indexes of $POOL_SUITES from the Debian mirror (see ${LOGS#"$TOP"/}/pool-update.log)"
	fi
	stamp_set "$POOL/.stamp" "$key"
	exec {pool_lock}>&-
}

# pool_versions KIND PACKAGE SERIES SUITE: the versions of PACKAGE that
# SUITE serves (KIND: src for the source package, bin for the binary), of
# upstream SERIES ("10.0", "7"; empty: any), newest first
pool_versions() {
	pool_apt apt-cache madison "$2" |
		awk -F' *[|] *' -v pkg="$2" -v kind="$1" -v series="$3" -v suite="$4" '
			{ name = $1; sub(/^ +/, "", name); v = $2; sub(/^[0-9]+:/, "", v) }
			name != pkg { next }
			($3 ~ / Sources$/) != (kind == "src") { next }
			$3 !~ ("^[^ ]+ " suite "/") { next }
			series != "" && index(v, series ".") != 1 && index(v, series "-") != 1 &&
				index(v, series "+") != 1 && index(v, series "~") != 1 { next }
			{ print $2 }' |
		sort -rVu
}

# pool_fetch_deb PACKAGE VERSION DIR: that binary package downloaded
# through the build's apt configuration into DIR (made if missing); prints
# the .deb's path.  Fails if apt does or no .deb came.
pool_fetch_deb() {
	mkdir -p "$3" && (cd "$3" && pool_apt apt-get download -q "$1=$2" >&2) || return 1
	find "$3" -maxdepth 1 -name '*.deb' | head -n1 | grep .
}

# kernel_source: the source of KVER's tree.  A version of this Debian is
# its installed linux-source-<KVER>; a series another suite serves
# (LINUX_SUITE_<KVER> in config/versions.sh) is the newest
# linux-source-<KVER>.N that suite holds, fetched into build/dl and never
# installed: when the suite moves on (7.3 to 7.4) the build follows, and
# says so.  Sets LINUX_SOURCE_PKG, LINUX_SOURCE_VERSION and
# LINUX_SOURCE_TARBALL.  The tree built from it is recorded in
# $KDIR/source by build-kernel.sh (kernel_source_record).
kernel_source() {
	local suite=LINUX_SUITE_${KVER//./_} pkg v n dl=$BUILD/dl was tarball
	suite=${!suite:-}
	if [ -z "$suite" ]; then
		LINUX_SOURCE_VERSION=$(pkg_version "$LINUX_SOURCE_PKG")
		[ -f "$LINUX_SOURCE_TARBALL" ] && [ -n "$LINUX_SOURCE_VERSION" ] ||
			die "$LINUX_SOURCE_TARBALL missing: install the Debian package '$LINUX_SOURCE_PKG' (make deps, as root)"
		return 0
	fi
	pool_update
	# the newest linux-source-<KVER>.N of which the suite serves a version
	pkg=
	for n in $(pool_apt apt-cache pkgnames "linux-source-$KVER." |
		grep -E "^linux-source-$KVER\.[0-9]+\$" | sort -rV); do
		if [ -n "$(pool_versions bin "$n" "" "$suite")" ]; then
			pkg=$n
			break
		fi
	done
	[ -n "$pkg" ] || die "$suite serves no linux-source-$KVER.N (see ${LOGS#"$TOP"/}/pool-update.log)"
	LINUX_SOURCE_PKG=$pkg
	LINUX_SOURCE_VERSION=
	mkdir -p "$dl"
	exec {dl_lock}>"$dl/.lock"
	flock "$dl_lock"
	for v in $(pool_versions bin "$pkg" "" "$suite"); do
		tarball=$dl/${pkg}_${v#*:}.tar.xz
		if [ -f "$tarball" ] || (run_step "fetching $pkg $v (from $suite)" \
			"$LOGS/linux-fetch-$KVER.log" fetch_linux_source "$pkg" "$v" "$tarball"); then
			LINUX_SOURCE_VERSION=$v
			LINUX_SOURCE_TARBALL=$tarball
			break
		fi
		warn "$pkg $v: $suite lists it, the mirror did not serve it; trying an older one"
	done
	exec {dl_lock}>&-
	[ -n "$LINUX_SOURCE_VERSION" ] ||
		die "no $pkg of $suite could be fetched (${LOGS#"$TOP"/}/linux-fetch-$KVER.log)"
	was=$(cut -d' ' -f1-2 "$KDIR/source" 2>/dev/null || true)
	if [ -n "$was" ] && [ "$was" != "$pkg $LINUX_SOURCE_VERSION" ]; then
		say "Linux $KVER: $suite has moved on from $was to $pkg $LINUX_SOURCE_VERSION"
	fi
}

# fetch_linux_source PACKAGE VERSION TARBALL: the package's source tarball,
# and nothing else of it, into TARBALL; older tarballs of the series go
# once it is there.  No step's failure is ignored (it runs as a condition,
# where set -e is not in force).
fetch_linux_source() {
	local pkg=$1 v=$2 tarball=$3 tmp deb
	tmp=$(mktemp -d "$(dirname "$tarball")/fetch.XXXXXX") || return 1
	deb=$(pool_fetch_deb "$pkg" "$v" "$tmp") &&
		dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" >"$tmp/src.tar.xz" &&
		[ -s "$tmp/src.tar.xz" ] || { rm -rf "$tmp"; return 1; }
	rm -f "$(dirname "$tarball")/linux-source-$KVER".*_*.tar.xz
	mv "$tmp/src.tar.xz" "$tarball" && rm -rf "$tmp"
}

# kernel_source_record: what kernel_source found, for the tests
# (tests/lib/board.py, kernel_source), once the tree is made from it
kernel_source_record() {
	echo "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION $LINUX_SOURCE_TARBALL" >"$KDIR/source"
}

# kernel_source_built: the source KVER's tree was built from, as recorded
# (what the series and the upstream tree must match); if none is, what
# kernel_source finds
kernel_source_built() {
	if [ -f "$KDIR/source" ]; then
		read -r LINUX_SOURCE_PKG LINUX_SOURCE_VERSION LINUX_SOURCE_TARBALL <"$KDIR/source"
		[ -f "$LINUX_SOURCE_TARBALL" ] && return 0
	fi
	kernel_source
}

# sparse_usable: whether sparse can check modules of KVER's tree; false
# for a kernel of LINUX_NO_SPARSE (config/versions.sh) as long as the
# tree's own probe refuses this sparse: once it accepts it, the build
# fails and says to take the kernel out of the list.
sparse_usable() {
	local probe=$KSRC/scripts/checker-valid.sh verdict
	case " ${LINUX_NO_SPARSE:-} " in
	*" $KVER "*) ;;
	*) return 0 ;;
	esac
	[ -f "$probe" ] || die "cannot run Linux $KVER's sparse probe: $probe missing (make KVER=$KVER kernel)"
	verdict=$(sh "$probe" sparse --arch="$LINUX_ARCH" -m32 2>/dev/null || true)
	case $verdict in
	0) return 1 ;;
	1) die "sparse now passes Linux $KVER's own probe: take $KVER out of LINUX_NO_SPARSE (config/versions.sh)" ;;
	*) die "Linux $KVER's sparse probe ($probe) answered '$verdict'" ;;
	esac
}
