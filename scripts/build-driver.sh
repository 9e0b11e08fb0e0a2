#!/bin/bash
# Build our driver (drivers/net/encx24j600) as an out-of-tree module against
# the kernel in build/linux-KVER.  Sources are copied to build/driver-KVER first so the
# repository stays free of build output.
#   build-driver.sh          build the module (W=1)
#   build-driver.sh check    also run sparse (C=2) and fail on any warning
. "$(dirname "$0")/lib.sh"

DRV=$TOP/drivers/net/encx24j600
OUT=$BUILD/driver$KSUF
# The static check builds a copy of its own, so it never disturbs the
# module the guest uses (nor its build stamp).
[ "${1:-}" = check ] && OUT=$BUILD/driver-check$KSUF
[ -f "$KOBJ/Module.symvers" ] || die "kernel not built: run scripts/build-kernel.sh (or make kernel) first"

mkdir -p "$OUT"
# Copied by content, stamped now (no -t): kbuild decides by time, and a
# source put back at an older time (git archive, tar, cp -p) must still
# rebuild its object.
rsync -rlp --checksum --delete --exclude='*.o' --exclude='*.ko' --exclude='.*' \
	--filter='protect *.o' --filter='protect *.ko' --filter='protect .*' \
	--filter='protect *.mod*' --filter='protect modules.order' --filter='protect Module.symvers' \
	"$DRV/" "$OUT/"

ccache_env
CC="${LINUX_CROSS}gcc"
command -v ccache >/dev/null && CC="ccache $CC"
KMAKE=(make -C "$KSRC" O="$KOBJ" ARCH="$LINUX_ARCH" CROSS_COMPILE="$LINUX_CROSS" M="$OUT")

if [ "${1:-}" = check ]; then
	need_cmd sparse sparse
	SPARSE=(C=2)
	sparse_usable || SPARSE=()
	# as this repository builds it, and as the upstream series has it:
	# without the test hooks (drivers/net/encx24j600/Kbuild)
	for hooks in y n; do
		log=$LOGS/driver-check$KSUF-hooks-$hooks.log
		"${KMAKE[@]}" clean >/dev/null
		if ! "${KMAKE[@]}" CC="${LINUX_CROSS}gcc" W=1 "${SPARSE[@]}" ENC_TEST_HOOKS=$hooks modules \
			>"$log" 2>&1; then
			cat "$log"; die "driver build with W=1${SPARSE[*]:+ ${SPARSE[*]}} failed (log: $log)"
		fi
		if grep -E 'warning:|error:' "$log"; then
			die "W=1/sparse warnings in the driver (log: $log)"
		fi
		# sparse must have run, on each of the module's sources
		checked=$(grep -c '^  CHECK ' "$log" || true)
		sources=$(find "$DRV" -maxdepth 1 -name '*.c' | wc -l)
		[ ${#SPARSE[@]} -eq 0 ] || [ "$checked" -ge "$sources" ] ||
			die "sparse checked $checked files of the driver's $sources (log: $log)"
		# the check must have built what it names
		got=n
		if grep -q -- "-DENC_TEST_HOOKS" "$OUT/.enc424j600-main.o.cmd"; then got=y; fi
		[ "$got" = "$hooks" ] || die "ENC_TEST_HOOKS=$hooks did not reach the compiler"
	done
	if [ ${#SPARSE[@]} -gt 0 ]; then
		say "driver: W=1 and sparse clean, with and without the test hooks"
	else
		say "driver: W=1 clean, with and without the test hooks; sparse cannot check Linux $KVER (LINUX_NO_SPARSE)"
	fi
	exit 0
fi

hash=$(INPUTS_EXTRA="$(cat "$KSTAMP")" inputs_hash "$DRV" "$TOP/scripts/build-driver.sh")
if stamp_ok "$OUT/.stamp" "$hash" && [ -f "$OUT/enc424j600.ko" ]; then
	say "driver ($KNAME): up to date"
	exit 0
fi
rm -f "$OUT/.stamp"
log=$LOGS/driver-build$KSUF.log
run_step "building driver module ($KNAME)" "$log" "${KMAKE[@]}" CC="$CC" W=1 modules
if grep -E 'warning:' "$log"; then
	die "the driver build has warnings (log: $log)"
fi
stamp_set "$OUT/.stamp" "$hash"
