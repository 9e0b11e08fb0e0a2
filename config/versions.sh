# One place for the versions and board facts the build scripts share.
# Sourced by scripts/lib.sh.

# Debian release whose packages we build from and put in the guest.
DEBIAN_SUITE=bookworm

# Kernel: Debian's linux-source package (the tarball lands in /usr/src).
LINUX_SOURCE_PKG=linux-source-6.1
LINUX_SOURCE_TARBALL=/usr/src/linux-source-6.1.tar.xz
LINUX_ARCH=arm
LINUX_CROSS=arm-linux-gnueabi-
LINUX_DEFCONFIG=versatile_defconfig
LINUX_DTB=versatile-pb.dtb

# QEMU: Debian's source package, built for this target only.
QEMU_SOURCE_PKG=qemu
QEMU_TARGET=arm-softmmu
QEMU_MACHINE=versatilepb

# Guest userland: Debian armel packages extracted into the initramfs.
GUEST_ARCH=armel
GUEST_PACKAGES="busybox-static dash iperf3 ethtool iproute2"

# U-Boot image load/entry address for the zImage (start of RAM + 32 KiB).
UIMAGE_LOADADDR=0x00008000
