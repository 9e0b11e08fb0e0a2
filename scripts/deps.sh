#!/bin/bash
# Install the Debian packages the build, the guest and the tests need, and
# add deb-src entries (for "apt-get source qemu") built from the mirrors
# already configured in apt.  Needs root; does nothing when all is present.
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	# cross toolchain and kernel build
	gcc-arm-linux-gnueabi binutils-arm-linux-gnueabi libc6-dev-armel-cross
	gcc libc6-dev cpp make bc bison flex libssl-dev libelf-dev cpio kmod
	rsync xz-utils patch ccache sparse
	# the upstream series: the driver without its test hooks
	unifdef
	# images and device tree
	u-boot-tools device-tree-compiler dt-schema
	# guest root filesystem
	mmdebstrap
	# QEMU build (arm-softmmu with user networking)
	dpkg-dev ninja-build meson pkg-config libglib2.0-dev libpixman-1-dev
	libslirp-dev libfdt-dev zlib1g-dev git
	# tests and benchmark on the host
	python3 iperf3 gnuplot-nox
)

# every kernel the build knows, not only KVER: the suite applies each
# version's series (patches/linux/<version>) to its tree
for v in $LINUX_VERSIONS; do
	PACKAGES+=("linux-source-$v")
done

missing=()
for p in "${PACKAGES[@]}"; do
	[ -n "$(pkg_version "$p")" ] || missing+=("$p")
done

need_src=0
if ! apt-get source --print-uris "$QEMU_SOURCE_PKG" >/dev/null 2>&1; then
	need_src=1
fi

if [ ${#missing[@]} -eq 0 ] && [ $need_src -eq 0 ]; then
	say "host packages: all present"
	exit 0
fi

[ "$(id -u)" -eq 0 ] ||
	die "missing Debian packages: ${missing[*]:-} ${need_src:+(and deb-src entries)}; run 'make deps' as root"

if [ $need_src -eq 1 ]; then
	python3 "$TOP/scripts/host/add-deb-src.py" ||
		die "could not enable deb-src entries in apt's sources"
fi

export DEBIAN_FRONTEND=noninteractive
run_step "apt-get update" "$LOGS/apt-update.log" apt-get update
if [ ${#missing[@]} -gt 0 ]; then
	run_step "installing ${#missing[@]} Debian packages" "$LOGS/apt-install.log" \
		apt-get install -y --no-install-recommends "${missing[@]}"
fi
