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
