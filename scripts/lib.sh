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

# The pool: the suites of POOL_SUITES (config/versions.sh), through an apt
# configuration of the build's own (scripts/host/debian-pool.py).  The
# host's apt never sees them; nothing is installed from them.
POOL=$BUILD/apt
pool_apt() { APT_CONFIG=$POOL/apt.conf "$@"; }

# pool_update: that configuration written, its indexes fetched; refreshed
# when older than six hours, so a suite that moves on (a newer point
# release, a newer kernel) is followed.  Offline, older indexes serve.
pool_update() {
	local key
	key=$(INPUTS_EXTRA="$POOL_SUITES" inputs_hash "$TOP/scripts/host/debian-pool.py")
	if stamp_ok "$POOL/.stamp" "$key" &&
		[ -n "$(find "$POOL/.stamp" -mmin -360 2>/dev/null)" ]; then
		return 0
	fi
	mkdir -p "$POOL"
	# shellcheck disable=SC2086
	python3 "$TOP/scripts/host/debian-pool.py" config "$POOL" $POOL_SUITES ||
		die "could not write the build's apt configuration ($POOL)"
	if ! pool_apt apt-get update -q >"$LOGS/pool-update.log" 2>&1 ||
		grep -q '^[WE]: Failed' "$LOGS/pool-update.log"; then
		if [ -f "$POOL/.stamp" ]; then
			warn "could not refresh the indexes of $POOL_SUITES (see ${LOGS#"$TOP"/}/pool-update.log); using the ones fetched before"
			return 0
		fi
		die "could not fetch the indexes of $POOL_SUITES from the Debian mirror (see ${LOGS#"$TOP"/}/pool-update.log)"
	fi
	stamp_set "$POOL/.stamp" "$key"
}

# pool_versions KIND PACKAGE SERIES SUITE: the versions of PACKAGE that
# SUITE serves (KIND: src for the source package, bin for the binary), of
# upstream SERIES ("10.0", "7"; empty: any), newest first
pool_versions() {
	pool_apt apt-cache madison "$2" 2>/dev/null |
		awk -F' *[|] *' -v kind="$1" -v series="$3" -v suite="$4" '
			{ v = $2; sub(/^[0-9]+:/, "", v) }
			($3 ~ / Sources$/) != (kind == "src") { next }
			$3 !~ ("^[^ ]+ " suite "/") { next }
			series != "" && index(v, series ".") != 1 && index(v, series "-") != 1 { next }
			{ print $2 }' |
		sort -u | sort -rV
}

# kernel_source: the source of KVER's tree.  A version of this Debian is
# its installed linux-source-<KVER>; a series another suite serves
# (LINUX_SUITE_<KVER> in config/versions.sh) is the newest
# linux-source-<KVER>.N that suite holds, fetched into build/dl and never
# installed: when the suite moves on (7.3 to 7.4) the build follows, and
# says so.  Sets LINUX_SOURCE_PKG, LINUX_SOURCE_VERSION and
# LINUX_SOURCE_TARBALL, and writes them to $KDIR/source for the tests.
kernel_source() {
	local suite=LINUX_SUITE_${KVER//./_} pkg v dl=$BUILD/dl was
	suite=${!suite:-}
	mkdir -p "$KDIR"
	was=$(cat "$KDIR/source" 2>/dev/null | cut -d' ' -f1-2 || true)
	if [ -z "$suite" ]; then
		LINUX_SOURCE_VERSION=$(pkg_version "$LINUX_SOURCE_PKG")
		[ -f "$LINUX_SOURCE_TARBALL" ] && [ -n "$LINUX_SOURCE_VERSION" ] ||
			die "$LINUX_SOURCE_TARBALL missing: install the Debian package '$LINUX_SOURCE_PKG' (make deps, as root)"
	else
		pool_update
		pkg=$(pool_apt apt-cache pkgnames "linux-source-$KVER." 2>/dev/null |
			grep -E "^linux-source-$KVER\.[0-9]+\$" | sort -V | tail -n1 || true)
		[ -n "$pkg" ] || die "$suite serves no linux-source-$KVER.N (see ${LOGS#"$TOP"/}/pool-update.log)"
		LINUX_SOURCE_PKG=$pkg
		LINUX_SOURCE_VERSION=
		for v in $(pool_versions bin "$pkg" "" "$suite"); do
			LINUX_SOURCE_TARBALL=$dl/${pkg}_$v.tar.xz
			if [ -f "$LINUX_SOURCE_TARBALL" ]; then
				LINUX_SOURCE_VERSION=$v
				break
			fi
			fetch_linux() {
				set -e
				rm -rf "$dl/deb"
				mkdir -p "$dl/deb"
				(cd "$dl/deb" && pool_apt apt-get download -q "$pkg=$v")
				# the tarball only, not the package
				dpkg-deb --fsys-tarfile "$dl/deb/"*.deb |
					tar -xO "./usr/src/$pkg.tar.xz" >"$LINUX_SOURCE_TARBALL.part"
				rm -rf "$dl/deb" "$dl/${pkg%.*}".*_*.tar.xz
				mv "$LINUX_SOURCE_TARBALL.part" "$LINUX_SOURCE_TARBALL"
			}
			if (run_step "fetching $pkg $v (from $suite)" "$LOGS/linux-fetch-$KVER.log" fetch_linux); then
				LINUX_SOURCE_VERSION=$v
				break
			fi
			rm -f "$LINUX_SOURCE_TARBALL.part"
			warn "$pkg $v: $suite lists it, the mirror did not serve it; trying an older one"
		done
		[ -n "$LINUX_SOURCE_VERSION" ] || die "no $pkg of $suite could be fetched (${LOGS#"$TOP"/}/linux-fetch-$KVER.log)"
		if [ -n "$was" ] && [ "$was" != "$pkg $LINUX_SOURCE_VERSION" ]; then
			say "Linux $KVER: $suite has moved on from $was to $pkg $LINUX_SOURCE_VERSION"
		fi
	fi
	echo "$LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION $LINUX_SOURCE_TARBALL" >"$KDIR/source"
}
