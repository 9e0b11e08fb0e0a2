#!/bin/bash
# Build the guest kernel: Debian's linux-source-6.1 for versatilepb, with
# config/linux.fragment on top of versatile_defconfig, dtbs with symbols
# (so overlays can be merged), and modules (the in-tree encx24j600 peer).
. "$(dirname "$0")/lib.sh"

SRC=$BUILD/linux/src
OBJ=$BUILD/linux/obj
FRAGMENT=$TOP/config/linux.fragment
mkdir -p "$BUILD/linux"

need_cmd ${LINUX_CROSS}gcc gcc-arm-linux-gnueabi
need_cmd dtc device-tree-compiler
[ -f "$LINUX_SOURCE_TARBALL" ] ||
	die "$LINUX_SOURCE_TARBALL missing: install the Debian package '$LINUX_SOURCE_PKG' (make deps, as root)"

src_version=$(pkg_version "$LINUX_SOURCE_PKG")
INPUTS_EXTRA="$src_version $(${LINUX_CROSS}gcc --version | head -n1)" \
	hash=$(inputs_hash "$FRAGMENT" "$TOP/scripts/build-kernel.sh" "$TOP/config/versions.sh")
if stamp_ok "$BUILD/linux/.stamp" "$hash" && [ -f "$OBJ/arch/arm/boot/zImage" ]; then
	say "kernel: up to date"
	exit 0
fi

if ! stamp_ok "$BUILD/linux/.src-stamp" "$src_version"; then
	rm -rf "$SRC" "$OBJ"
	mkdir -p "$SRC"
	run_step "unpacking $LINUX_SOURCE_PKG $src_version" "$LOGS/linux-unpack.log" \
		tar -xf "$LINUX_SOURCE_TARBALL" -C "$SRC" --strip-components=1
	stamp_set "$BUILD/linux/.src-stamp" "$src_version"
fi

ccache_env
CC="${LINUX_CROSS}gcc"
command -v ccache >/dev/null && CC="ccache $CC"
KMAKE=(make -C "$SRC" O="$OBJ" ARCH="$LINUX_ARCH" CROSS_COMPILE="$LINUX_CROSS" CC="$CC")
mkdir -p "$OBJ"

configure() {
	"${KMAKE[@]}" "$LINUX_DEFCONFIG" &&
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "$FRAGMENT" &&
	"${KMAKE[@]}" olddefconfig
}
run_step "configuring kernel" "$LOGS/linux-config.log" configure

# Every option the fragment asks for must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=n) opt=${line%=n}
		grep -q "^$opt=" "$OBJ/.config" && { warn "$opt is set, fragment says n"; bad=1; } ;;
	CONFIG_*) grep -qx "$line" "$OBJ/.config" || { warn "$line did not stick"; bad=1; } ;;
	esac
done < <(grep -v '^#' "$FRAGMENT" | sed '/^$/d')
[ $bad -eq 0 ] || die "kernel config does not match $FRAGMENT (see $OBJ/.config)"

run_step "building kernel, modules and dtbs (about 5 min on 2 cores)" "$LOGS/linux-build.log" \
	"${KMAKE[@]}" -j"$(nproc)" DTC_FLAGS=-@ zImage modules dtbs
stamp_set "$BUILD/linux/.stamp" "$hash"
