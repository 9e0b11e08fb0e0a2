#!/bin/bash
# The upstream series as a kernel tree: make upstream's series applied with
# git am to a fresh extraction of Debian's linux-source-$LINUX_UPSTREAM_BASE,
# configured as the board's production kernel (the driver a module, as
# CONFIG_ENCX24J600 has always been there) and built in the tree: zImage
# and modules, then the driver's directory again with W=1, its KUnit test
# included.  tests/test_upstream.py boots the result and pings.
#
#   build-upstream-tree.sh DIR
#
# DIR/series (the series), DIR/src (the tree), DIR/obj (the build),
# DIR/*.log.  The same configuration and relative layout as build/linux-*
# let ccache serve every file the series leaves alone.
. "$(dirname "$0")/../config/versions.sh"
KVER=$LINUX_UPSTREAM_BASE
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "usage: $0 DIR"
DIR=$(realpath -m "$1")
CONFIG=$BUILD/linux-$KVER/obj/.config
[ -f "$CONFIG" ] || die "$CONFIG missing: build the $KVER production kernel first (make KVER=$KVER kernel)"
kernel_source_built
rm -rf "$DIR"
mkdir -p "$DIR/src" "$DIR/obj"

run_step "making the upstream series" "$DIR/export.log" \
	bash "$TOP/scripts/export-upstream.sh" "$DIR/series"

apply() {
	set -e
	tar -xf "$LINUX_SOURCE_TARBALL" -C "$DIR/src" --strip-components=1
	# git tracks what the series touch (the rest of the tree stays as it
	# was extracted; -f: Debian's .gitignore ignores the whole top level)
	git -C "$DIR/src" init -q
	git -C "$DIR/src" add -f MAINTAINERS drivers/net/ethernet/microchip drivers/base/regmap \
		Documentation/devicetree/bindings/net
	git -C "$DIR/src" -c user.name=base -c user.email=base@localhost commit -q -m base
	local s
	for s in regmap-fixes regmap netdev; do
		echo "git am $s"
		# the patches, not the cover letter
		git -C "$DIR/src" -c user.name=am -c user.email=am@localhost am -q \
			$(ls "$DIR/series/$s"/*.patch | grep -v /0000-cover-letter.patch)
	done
	# a git tree would give the kernel release a "+": the board's images
	# and this build must agree on it
	rm -rf "$DIR/src/.git"
}
run_step "applying the series to a fresh $LINUX_SOURCE_PKG" "$DIR/apply.log" apply

ccache_env
CC="${LINUX_CROSS}gcc"
command -v ccache >/dev/null && CC="ccache $CC"
KMAKE=(make -C "$DIR/src" O="$DIR/obj" ARCH="$LINUX_ARCH" CROSS_COMPILE="$LINUX_CROSS" CC="$CC")

configure() {
	set -e
	cp "$CONFIG" "$DIR/obj/.config"
	"${KMAKE[@]}" olddefconfig
	# the test's configuration too: its Kconfig entry must take it
	cp "$DIR/obj/.config" "$DIR/obj/.config-kunit"
	echo CONFIG_ENCX24J600_KUNIT_TEST=m >>"$DIR/obj/.config-kunit"
	"${KMAKE[@]}" KCONFIG_CONFIG=.config-kunit olddefconfig
}
run_step "configuring it as the $KVER production kernel" "$DIR/config.log" configure
grep -qx CONFIG_ENCX24J600=m "$DIR/obj/.config" ||
	die "CONFIG_ENCX24J600=m did not survive the series' Kconfig (see $DIR/obj/.config)"
grep -qx CONFIG_ENCX24J600_KUNIT_TEST=m "$DIR/obj/.config-kunit" ||
	die "CONFIG_ENCX24J600_KUNIT_TEST=m did not survive its Kconfig (see $DIR/obj/.config-kunit)"

run_step "building it (zImage, modules; about 5 min on 2 cores without ccache)" "$DIR/build.log" \
	"${KMAKE[@]}" -j"$(nproc)" zImage modules
KO=$DIR/obj/drivers/net/ethernet/microchip/encx24j600/encx24j600.ko
[ -f "$KO" ] || die "the tree built no $KO"

# W=1 on the driver's directory, the KUnit test with it (set on the command
# line: the board's kernel does not build it); V=0: its CC lines are read
run_step "building the driver's directory again with W=1" "$DIR/w1.log" \
	"${KMAKE[@]}" -j"$(nproc)" V=0 W=1 CONFIG_ENCX24J600_KUNIT_TEST=m \
	drivers/net/ethernet/microchip/encx24j600/
[ -f "$DIR/obj/drivers/net/ethernet/microchip/encx24j600/encx24j600-kunit.o" ] ||
	die "the W=1 build made no KUnit object (see $DIR/w1.log)"
if grep -E "warning:|error:" "$DIR/w1.log"; then
	die "the driver's W=1 build is not clean (see $DIR/w1.log)"
fi
# and it compiled every source of the directory, not an empty rebuild
for c in "$DIR/src/drivers/net/ethernet/microchip/encx24j600/"*.c; do
	o=${c#"$DIR/src/"}
	grep -q "^  CC \[M\]  ${o%.c}\.o\$" "$DIR/w1.log" ||
		die "the W=1 build did not compile ${o%.c}.o (see $DIR/w1.log)"
done
say "upstream tree built: $KO"
