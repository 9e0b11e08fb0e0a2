# One place for the versions and board facts the build scripts share.
# Sourced by scripts/lib.sh.

# Debian release whose packages we build from and put in the guest.
DEBIAN_SUITE=bookworm

# Kernels, by series: Debian's linux-source-<series> packages.  KVER picks
# one, by default LINUX_DEFAULT; patches/linux/<series> holds what each
# needs.  6.1 and 6.12 are this Debian's (installed; 6.12 from its
# security suite); a series named in LINUX_SUITE_<series> comes from that
# suite of the mirror, the newest linux-source-<series>.N it serves
# (fetched into build/, never installed: scripts/lib.sh, kernel_source).
LINUX_VERSIONS="6.1 6.12 7"
LINUX_DEFAULT=6.1
LINUX_SUITE_7=trixie-backports
# The kernels make test boots: the whole suite on KVER, the tests marked
# every_kernel on the others (tests/run.py).
LINUX_SUITE_VERSIONS="6.1 6.12 7"
# The kernels whose test build (lockdep, KASAN, kmemleak ...) make test
# builds and boots too: this Debian's own and the newest.  The others boot
# their production kernel only, and the tests marked test_kernel (what the
# checkers report, kprobes) run on these alone: the cold make test budget
# (docs/build.md).
LINUX_TEST_KERNELS="6.1 7"
# The kernels Debian's sparse cannot check (0.6.4, the newest of any suite
# of the mirror): 7's headers use __typeof_unqual__ and a static_assert on
# __builtin_strlen in every MODULE_INFO, both newer than it, and the
# kernel turns C=2 off.  On these the checks are W=1 only (and fail once
# the kernel's own probe accepts sparse: scripts/lib.sh, sparse_usable).
LINUX_NO_SPARSE="7"
# The tree the upstream series (make upstream: build/upstream) are cut
# against: the newest Debian ships, nearest to net-next
LINUX_UPSTREAM_BASE=7
LINUX_ARCH=arm
LINUX_CROSS=arm-linux-gnueabi-
LINUX_DEFCONFIG=versatile_defconfig
# The board's device tree in each tree (6.5 moved ARM's into vendor
# directories)
LINUX_DTB_6_1=versatile-pb.dtb
LINUX_DTB_6_12=arm/versatile-pb.dtb
LINUX_DTB_7=arm/versatile-pb.dtb

# QEMU: Debian's source package of this upstream series, from the suite
# named (never installed: fetched with the build's own apt configuration,
# build/apt).  The build takes the newest point release the pool serves
# and logs which.
QEMU_SOURCE_PKG=qemu
QEMU_SERIES=10.0
QEMU_SUITE=trixie
QEMU_TARGET=arm-softmmu
QEMU_MACHINE=versatilepb
# QEMU 10's configure asks for meson >= 1.5, and Debian's tarball carries
# no wheel of it: this Debian's own backport, fetched and unpacked into
# build/, not installed
MESON_SUITE=bookworm-backports

# Guest userland: Debian armel packages extracted into the initramfs.
GUEST_ARCH=armel
GUEST_PACKAGES="busybox-static dash iperf3 ethtool iproute2"
# What the guest runs of them besides busybox and dash (paths in the
# guest); the rest, and what only the rest needs, is left out of the
# initramfs (scripts/guest-prune.py)
GUEST_PROGRAMS="bin/ip bin/ss sbin/ethtool usr/bin/iperf3"

# U-Boot image load/entry address for the zImage (start of RAM + 32 KiB).
UIMAGE_LOADADDR=0x00008000
