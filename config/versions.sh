# One place for the versions and board facts the build scripts share.
# Sourced by scripts/lib.sh.

# Debian release whose packages we build from and put in the guest.
DEBIAN_SUITE=bookworm

# Kernels: Debian's linux-source-<version> packages (the tarballs land in
# /usr/src; 6.12 comes from the security suite).  KVER picks one, by
# default LINUX_DEFAULT; patches/linux/<version> holds what each needs.
LINUX_VERSIONS="6.1 6.12"
LINUX_DEFAULT=6.1
# The kernels make test boots: the whole suite on KVER, the tests marked
# every_kernel on the others (tests/run.py).
LINUX_SUITE_VERSIONS="6.1 6.12"
# The tree the upstream series (make upstream: build/upstream) are cut
# against: the newer LTS, nearer to net-next
LINUX_UPSTREAM_BASE=6.12
LINUX_ARCH=arm
LINUX_CROSS=arm-linux-gnueabi-
LINUX_DEFCONFIG=versatile_defconfig
# The board's device tree in each tree (6.5 moved ARM's into vendor
# directories)
LINUX_DTB_6_1=versatile-pb.dtb
LINUX_DTB_6_12=arm/versatile-pb.dtb

# QEMU: Debian's source package, built for this target only.
QEMU_SOURCE_PKG=qemu
QEMU_TARGET=arm-softmmu
QEMU_MACHINE=versatilepb

# Guest userland: Debian armel packages extracted into the initramfs.
GUEST_ARCH=armel
GUEST_PACKAGES="busybox-static dash iperf3 ethtool iproute2"
# What the guest runs of them besides busybox and dash (paths in the
# guest); the rest, and what only the rest needs, is left out of the
# initramfs (scripts/guest-prune.py)
GUEST_PROGRAMS="bin/ip bin/ss sbin/ethtool usr/bin/iperf3"

# U-Boot image load/entry address for the zImage (start of RAM + 32 KiB).
UIMAGE_LOADADDR=0x00008000
