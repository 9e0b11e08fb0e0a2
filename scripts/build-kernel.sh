#!/bin/bash
# Build the guest kernel: Debian's linux-source-$KVER for versatilepb, with
# config/linux.fragment (and for KFLAVOR=debug config/linux-debug.fragment)
# on top of versatile_defconfig, dtbs with symbols (so overlays can be
# merged), and modules (the in-tree encx24j600 peer).
. "$(dirname "$0")/lib.sh"

SRC=$KSRC
OBJ=$KOBJ
PATCHES=$LINUX_PATCHES
mkdir -p "$KDIR"

need_cmd ${LINUX_CROSS}gcc gcc-arm-linux-gnueabi
need_cmd dtc device-tree-compiler
kernel_source
src_version=$LINUX_SOURCE_VERSION
# keyed on the facts of config/versions.sh it uses, not the whole file: a
# kernel joining LINUX_SUITE_VERSIONS rebuilds nothing
INPUTS_EXTRA="$LINUX_SOURCE_PKG $src_version $(${LINUX_CROSS}gcc --version | head -n1) $KVER $LINUX_ARCH $LINUX_CROSS $LINUX_DEFCONFIG $LINUX_DTB" \
	hash=$(inputs_hash "${KFRAGMENTS[@]}" "$PATCHES" "$TOP/scripts/build-kernel.sh")
if stamp_ok "$KSTAMP" "$hash" && [ -f "$OBJ/arch/arm/boot/zImage" ]; then
	kernel_source_record
	say "kernel ($KNAME): up to date"
	exit 0
fi

# The source tree: Debian's tarball plus our series in patches/linux/$KVER.  A
# changed series re-extracts into a fresh tree that is synced by content,
# so unchanged files keep their timestamps and do not rebuild.
src_hash=$(INPUTS_EXTRA=$src_version inputs_hash "$PATCHES")
if ! stamp_ok "$KDIR/.src-stamp" "$src_hash"; then
	prepare() {
		set -e
		rm -rf "$KDIR/fresh"
		mkdir -p "$KDIR/fresh" "$SRC"
		unpack_tarball "$LINUX_SOURCE_TARBALL" "$KDIR/fresh"
		local p
		for p in "$PATCHES"/*.patch; do
			[ -e "$p" ] || continue
			echo "applying ${p##*/}"
			patch -d "$KDIR/fresh" -p1 --forward --batch <"$p"
		done
		if rmdir "$SRC" 2>/dev/null; then
			# no tree to keep timestamps of: no second copy (objects
			# of an older tree are older than this one's files)
			mv "$KDIR/fresh" "$SRC"
		else
			sync_tree "$KDIR/fresh" "$SRC"
			rm -rf "$KDIR/fresh"
		fi
	}
	run_step "unpacking $LINUX_SOURCE_PKG $src_version and applying patches/linux/$KVER" \
		"$LOGS/linux-unpack-$KVER.log" prepare
	stamp_set "$KDIR/.src-stamp" "$src_hash"
fi
kernel_source_record

ccache_env
CC="${LINUX_CROSS}gcc"
command -v ccache >/dev/null && CC="ccache $CC"
KMAKE=(make -C "$SRC" O="$OBJ" ARCH="$LINUX_ARCH" CROSS_COMPILE="$LINUX_CROSS" CC="$CC")
mkdir -p "$OBJ"

configure() {
	"${KMAKE[@]}" "$LINUX_DEFCONFIG" &&
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "${KFRAGMENTS[@]}" &&
	"${KMAKE[@]}" olddefconfig
}
run_step "configuring kernel ($KNAME)" "$LOGS/linux-config$KSUF.log" configure

# Every option the fragment asks for must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=n) opt=${line%=n}
		grep -q "^$opt=" "$OBJ/.config" && { warn "$opt is set, fragment says n"; bad=1; } ;;
	CONFIG_*) grep -qx "$line" "$OBJ/.config" || { warn "$line did not stick"; bad=1; } ;;
	esac
done < <(cat "${KFRAGMENTS[@]}" | grep -v '^#' | sed '/^$/d')
[ $bad -eq 0 ] || die "kernel config does not match ${KFRAGMENTS[*]#"$TOP"/} (see $OBJ/.config)"

run_step "building kernel ($KNAME), modules and dtbs (4-8 min on 2 cores the first time)" "$LOGS/linux-build$KSUF.log" \
	"${KMAKE[@]}" -j"$(nproc)" DTC_FLAGS=-@ zImage modules dtbs
stamp_set "$KSTAMP" "$hash"
