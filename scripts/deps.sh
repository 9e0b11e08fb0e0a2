#!/bin/bash
# Install the Debian packages the build, the guest and the tests need, all
# from this Debian's own release (DEBIAN_SUITE and its -updates and
# -security suites): apt's configuration is not changed, and before
# installing, what apt would take is checked to come from there (what the
# build needs of other suites it fetches without installing: lib.sh, pool).
# Needs root; does nothing when all is present.
#
#   deps.sh          install what is missing
#   deps.sh --list   print the packages, one a line
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
	# QEMU build (arm-softmmu with user networking; its configure makes
	# a Python environment with venv and distlib)
	dpkg-dev ninja-build pkg-config libglib2.0-dev libpixman-1-dev
	libslirp-dev libfdt-dev zlib1g-dev git python3-venv python3-distlib
	# tests and benchmark on the host
	python3 iperf3 gnuplot-nox
)

# every kernel of this Debian the build knows, not only KVER: the suite
# applies each version's series (patches/linux/<version>) to its tree.
# The others (LINUX_SUITE_<version>) are fetched, not installed.
for v in $LINUX_VERSIONS; do
	suite=LINUX_SUITE_${v//./_}
	[ -n "${!suite:-}" ] || PACKAGES+=("linux-source-$v")
done

if [ "${1:-}" = --list ]; then
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
	[ -n "$(pkg_version "$p")" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	say "host packages: all present"
	exit 0
fi

[ "$(id -u)" -eq 0 ] ||
	die "missing Debian packages: ${missing[*]}; run 'make deps' as root, or apt-get install them"

export DEBIAN_FRONTEND=noninteractive
run_step "apt-get update" "$LOGS/apt-update.log" apt-get update
run_step "checking that apt takes them from $DEBIAN_SUITE" "$LOGS/apt-check.log" \
	python3 "$TOP/scripts/host/debian-pool.py" check --allow "$DEBIAN_SUITE" \
	--allow "$DEBIAN_SUITE-updates" --allow "$DEBIAN_SUITE-security" "${missing[@]}"
run_step "installing ${#missing[@]} Debian packages" "$LOGS/apt-install.log" \
	apt-get install -y --no-install-recommends "${missing[@]}"
