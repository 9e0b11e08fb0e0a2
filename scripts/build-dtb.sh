#!/bin/bash
# Compile the overlay in dts/ and merge it into the kernel's versatile-pb.dtb.
. "$(dirname "$0")/lib.sh"

BASE=$KOBJ/arch/arm/boot/dts/$LINUX_DTB
OUT=$IMAGES
need_cmd dtc device-tree-compiler
need_cmd fdtoverlay device-tree-compiler
[ -f "$BASE" ] || die "$BASE missing: build the kernel first (make kernel)"
mkdir -p "$OUT"

# the board's overlay (dts/ also holds overlays for real boards, checked by
# the suite: tests/test_static.py)
for src in "$TOP"/dts/encx24j600-versatilepb.dtso; do
	name=$(basename "$src" .dtso)
	# The C preprocessor resolves the dt-bindings includes from the kernel tree.
	cpp -nostdinc -undef -x assembler-with-cpp -D__DTS__ \
		-I "$KSRC/include" "$src" -o "$OUT/$name.pp.dts"
	dtc -@ -I dts -O dtb -o "$OUT/$name.dtbo" "$OUT/$name.pp.dts" \
		2>"$LOGS/dtc-$name$KSUF.log" || { cat "$LOGS/dtc-$name$KSUF.log"; die "dtc failed on $src"; }
	if [ -s "$LOGS/dtc-$name$KSUF.log" ]; then
		cat "$LOGS/dtc-$name$KSUF.log"; die "dtc warnings on $src"
	fi
done
fdtoverlay -i "$BASE" -o "$OUT/versatile-pb-encx24j600.dtb" "$OUT"/*.dtbo ||
	die "fdtoverlay could not merge the overlay into $BASE"
say "device tree: $OUT/versatile-pb-encx24j600.dtb"
