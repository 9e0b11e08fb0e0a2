#!/bin/bash
# Build the guest's initramfs: Debian armel packages (busybox-static,
# iperf3, ethtool, iproute2 and their dependencies) extracted by mmdebstrap
# (no chroot, no emulation), plus guest/ (init and test helpers) and the
# kernel modules under test, packed as a U-Boot ramdisk image.
. "$(dirname "$0")/lib.sh"

RDIR=$BUILD/rootfs
BASE=$RDIR/base
# the tree and its stamp per kernel flavour (the extracted base is shared)
TREE=$RDIR/tree$KSUF
IMG=$IMAGES
mkdir -p "$RDIR" "$IMG"
need_cmd mmdebstrap mmdebstrap
need_cmd mkimage u-boot-tools
need_cmd cpio cpio

# The mirrors apt already uses for Debian, as one-line sources for the guest.
mirrors() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(ORIGIN)' \
		'Created-By: Packages' |
		awk -v suite="$DEBIAN_SUITE" '$4 == "Debian" && index($2, suite) == 1 {
			print "deb " $1 " " $2 " " $3 }' | sort -u
}

# Stage 1: the extracted packages, rebuilt only when the list changes.
PKGS=$RDIR/packages
pkgs_hash=$(INPUTS_EXTRA="$DEBIAN_SUITE $GUEST_ARCH $GUEST_PACKAGES" inputs_hash)
if ! stamp_ok "$RDIR/.packages-stamp" "$pkgs_hash"; then
	mapfile -t srcs < <(mirrors)
	[ ${#srcs[@]} -gt 0 ] || die "no Debian $DEBIAN_SUITE mirror configured in apt"
	rm -rf "$PKGS"
	run_step "extracting Debian $GUEST_ARCH packages: $GUEST_PACKAGES" "$LOGS/rootfs-mmdebstrap.log" \
		mmdebstrap --variant=extract --architectures="$GUEST_ARCH" \
		--include="${GUEST_PACKAGES// /,}" "$DEBIAN_SUITE" "$PKGS" "${srcs[@]}"
	stamp_set "$RDIR/.packages-stamp" "$pkgs_hash"
fi

# Stage 1b: of them, what the guest runs, rebuilt when that changes.
base_hash=$(INPUTS_EXTRA="$pkgs_hash $GUEST_PROGRAMS" \
	inputs_hash "$TOP/scripts/build-rootfs.sh" "$TOP/scripts/guest-prune.py")
if ! stamp_ok "$RDIR/.base-stamp" "$base_hash"; then
	rm -rf "$BASE"
	cp -a "$PKGS" "$BASE"
	# Nothing in the guest reads docs or converts charsets.
	rm -rf "$BASE"/usr/share/doc "$BASE"/usr/share/man "$BASE"/usr/share/locale \
		"$BASE"/usr/share/perl* "$BASE"/usr/lib/*/perl* "$BASE"/usr/lib/*/gconv \
		"$BASE"/var/cache/apt "$BASE"/var/lib/apt/lists
	# The guest's /bin/sh (dash: busybox's ash would run its applets even
	# where PATH names the Debian tool), before the prune looks for the
	# shell scripts' interpreter
	ln -sf dash "$BASE/bin/sh"
	# Of the programs, only what the guest runs and what it loads: perl,
	# dpkg, debconf and passwd's tools came as dependencies.  28 MB to 14:
	# a test-kernel boot unpacks the initramfs some 0.8 s sooner.
	python3 "$TOP/scripts/guest-prune.py" "$BASE" "${LINUX_CROSS}readelf" \
		bin/busybox bin/dash $GUEST_PROGRAMS >"$LOGS/rootfs-prune.log" 2>&1 ||
		die "pruning the guest failed (log: $LOGS/rootfs-prune.log)"
	stamp_set "$RDIR/.base-stamp" "$base_hash"
fi

# Stage 2: the initramfs, rebuilt when the base, guest/ or a module changes.
# The kernel's modules (the in-tree encx24j600 peer among them) and ours go
# to /lib/modules/<release> with a modules.dep, so the guest's modprobe
# resolves dependencies (encx24j600 needs encx24j600-regmap).

OURS=$BUILD/driver$KSUF/enc424j600.ko
[ -f "$OURS" ] || die "$OURS missing: build the driver first (make driver)"
[ -f "$KOBJ/modules.order" ] || die "kernel modules missing: build the kernel first (make kernel)"
# The KUnit test modules (tests/kunit), loaded by tests/test_kunit.py
mapfile -t KUNIT_KOS < <(compgen -G "$BUILD/kunit$KSUF/*/*.ko" | sort)
[ ${#KUNIT_KOS[@]} -gt 0 ] || die "KUnit test modules missing: build them first (make kunit)"
kver=$(cat "$KOBJ/include/config/kernel.release")
# the kernel's stamp too: a change that rebuilds only modules leaves the
# zImage as it was
hash=$(INPUTS_EXTRA="$base_hash $kver $(cat "$KSTAMP")" inputs_hash "$TOP/guest" "$OURS" \
	"${KUNIT_KOS[@]}" "$KOBJ/modules.order" "$KOBJ/arch/arm/boot/zImage")
if stamp_ok "$RDIR/.stamp$KSUF" "$hash" && [ -f "$IMG/initramfs.uimg" ]; then
	say "initramfs ($KNAME): up to date"
	exit 0
fi

assemble() {
	set -e
	rm -rf "$TREE"
	cp -a "$BASE" "$TREE"
	local t=$TREE
	install -m 0755 "$TOP/guest/init" "$t/init"
	install -m 0644 "$TOP/guest/profile" "$t/etc/profile"
	mkdir -p "$t/usr/local/bin"
	install -m 0755 "$TOP"/guest/bin/* "$t/usr/local/bin/"
	local mods=$RDIR/modules$KSUF
	rm -rf "$mods"
	make -s -C "$KSRC" O="$KOBJ" ARCH="$LINUX_ARCH" CROSS_COMPILE="$LINUX_CROSS" \
		INSTALL_MOD_PATH="$mods" INSTALL_MOD_STRIP=1 DEPMOD=true modules_install
	local mdir=$mods/lib/modules/$kver
	install -D -m 0644 "$OURS" "$mdir/extra/${OURS##*/}"
	"${LINUX_CROSS}strip" --strip-debug "$mdir/extra/${OURS##*/}"
	local ko
	for ko in "${KUNIT_KOS[@]}"; do
		install -D -m 0644 "$ko" "$mdir/extra/${ko##*/}"
		"${LINUX_CROSS}strip" --strip-debug "$mdir/extra/${ko##*/}"
	done
	rm -f "$mdir/build" "$mdir/source"
	depmod -b "$mods" "$kver"
	mkdir -p "$t/lib/modules"
	cp -a "$mdir" "$t/lib/modules/"
	(cd "$t" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --quiet) >"$RDIR/initramfs$KSUF.cpio"
	# Not compressed: QEMU loads the U-Boot ramdisk image as is, and the
	# test kernel (KASAN) takes seconds longer to inflate it than to copy.
	mkimage -A arm -O linux -T ramdisk -C none -n "encx24j600 test guest" \
		-d "$RDIR/initramfs$KSUF.cpio" "$IMG/initramfs.uimg"
}
run_step "packing the initramfs ($KNAME)" "$LOGS/rootfs-pack$KSUF.log" assemble
stamp_set "$RDIR/.stamp$KSUF" "$hash"
