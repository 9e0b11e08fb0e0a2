#!/bin/bash
# Build the KUnit test modules (tests/kunit/*/) out of tree against the
# kernel in build/linux-KVER, like the driver: sources are copied to
# build/kunit-KVER first, W=1, and any warning fails the build.  The
# driver's headers are copied next to the driver's tests (include/), so
# they test the driver's own inline logic.
#   build-kunit.sh          build the modules (W=1)
#   build-kunit.sh check    a separate W=1 + sparse (C=2) build; any warning fails
. "$(dirname "$0")/lib.sh"

SRCDIR=$TOP/tests/kunit
DRV=$TOP/drivers/net/encx24j600
OUT=$BUILD/kunit$KSUF
CHECK=
CHECKING=
if [ "${1:-}" = check ]; then
	need_cmd sparse sparse
	OUT=$BUILD/kunit-check$KSUF
	CHECKING=1
	CHECK="C=2"
	sparse_usable || CHECK=
	rm -rf "$OUT"
fi
[ -f "$KOBJ/Module.symvers" ] || die "kernel not built: run scripts/build-kernel.sh (or make kernel) first"

mods=()
for d in "$SRCDIR"/*/; do
	d=${d%/}
	[ -f "$d/Kbuild" ] && mods+=("${d##*/}")
done
[ ${#mods[@]} -gt 0 ] || die "no test modules in ${SRCDIR#"$TOP"/}"

hash=$(INPUTS_EXTRA="$(cat "$KSTAMP")" inputs_hash "$SRCDIR" \
	"$DRV"/*.h "$DRV/compat" "$TOP/scripts/build-kunit.sh")
built() {
	local m
	for m in "${mods[@]}"; do
		compgen -G "$OUT/$m/*.ko" >/dev/null || return 1
	done
}
if [ -z "$CHECKING" ] && stamp_ok "$OUT/.stamp" "$hash" && built; then
	say "kunit modules ($KNAME): up to date"
	exit 0
fi
rm -f "$OUT/.stamp"

ccache_env
CC="${LINUX_CROSS}gcc"
[ -z "$CHECKING" ] && command -v ccache >/dev/null && CC="ccache $CC"

build_all() {
	set -e
	local m
	mkdir -p "$OUT"
	# modules that no longer exist in the sources
	for m in "$OUT"/*/; do
		m=${m%/}
		[ -d "$SRCDIR/${m##*/}" ] || rm -rf "$m"
	done
	for m in "${mods[@]}"; do
		mkdir -p "$OUT/$m"
		rsync -rlp --checksum --delete --exclude='*.o' --exclude='*.ko' --exclude='.*' \
			--exclude='/include' --exclude='/compat' \
			--filter='protect *.o' --filter='protect *.ko' --filter='protect .*' \
			--filter='protect *.mod*' --filter='protect modules.order' \
			--filter='protect Module.symvers' --filter='protect /include' \
			--filter='protect /compat' \
			"$SRCDIR/$m/" "$OUT/$m/"
		mkdir -p "$OUT/$m/include"
		rsync -rlp --checksum --delete "$DRV"/*.h "$OUT/$m/include/"
		rsync -rlp --checksum --delete "$DRV/compat/" "$OUT/$m/compat/"
		echo "--- $m"
		make -C "$KSRC" O="$KOBJ" ARCH="$LINUX_ARCH" CROSS_COMPILE="$LINUX_CROSS" \
			CC="$CC" M="$OUT/$m" W=1 $CHECK modules
	done
}
log=$LOGS/kunit-build${CHECKING:+-check}$KSUF.log
run_step "building KUnit test modules ($KNAME) (${mods[*]})${CHECKING:+ with W=1}${CHECK:+ and sparse}" "$log" build_all
if grep -E 'warning:|error:' "$log"; then
	die "the KUnit modules' build has warnings (log: ${log#"$TOP"/})"
fi
if [ -n "$CHECKING" ]; then
	if [ -n "$CHECK" ]; then
		say "kunit modules: W=1 and sparse clean"
	else
		say "kunit modules: W=1 clean; sparse cannot check Linux $KVER (LINUX_NO_SPARSE)"
	fi
	exit 0
fi
stamp_set "$OUT/.stamp" "$hash"
