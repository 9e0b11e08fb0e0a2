#!/bin/bash
# Pack the kernel as a U-Boot image (as a real board's U-Boot would load it)
# and merge the overlay into the board's device tree.
. "$(dirname "$0")/lib.sh"

ZIMAGE=$KOBJ/arch/arm/boot/zImage
IMG=$IMAGES
need_cmd mkimage u-boot-tools
[ -f "$ZIMAGE" ] || die "$ZIMAGE missing: build the kernel first (make kernel)"
mkdir -p "$IMG"
if [ "$IMG/uImage" -nt "$ZIMAGE" ]; then
	say "kernel image ($KNAME): up to date"
else
	mkimage -A arm -O linux -T kernel -C none -a "$UIMAGE_LOADADDR" -e "$UIMAGE_LOADADDR" \
		-n "Linux $(cat "$KOBJ/include/config/kernel.release")" \
		-d "$ZIMAGE" "$IMG/uImage" >"$LOGS/mkimage-kernel$KSUF.log" ||
		die "mkimage failed (log: $LOGS/mkimage-kernel$KSUF.log)"
fi
hash=$(inputs_hash "$TOP/dts" "$KOBJ/arch/arm/boot/dts/$LINUX_DTB" "$TOP/scripts/build-dtb.sh")
if stamp_ok "$IMG/.dtb-stamp" "$hash" && [ -f "$IMG/versatile-pb-encx24j600.dtb" ]; then
	say "device tree ($KNAME): up to date"
else
	"$TOP/scripts/build-dtb.sh"
	stamp_set "$IMG/.dtb-stamp" "$hash"
fi
