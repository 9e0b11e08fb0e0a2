#!/bin/bash
# Regenerate the upstream submission series in patches/upstream/ from the
# sources in this repository (the one place they live):
#
#   netdev/  dt binding, the enc424j600 driver in-tree with its KUnit tests
#   regmap/  KUnit tests of the regmap core features the driver rests on
#
# Each series is made with git in a scratch tree holding the files it
# touches from Debian's linux-source-<LINUX_UPSTREAM_BASE>, so it applies
# with "git am" to a fresh extraction, whatever KVER the caller builds.  The
# kernel fixes the board needs (patches/linux) are already series of their
# own.
#
#   export-upstream.sh [OUTDIR]     (default: patches/upstream)
. "$(dirname "$0")/../config/versions.sh"
KVER=$LINUX_UPSTREAM_BASE
. "$(dirname "$0")/lib.sh"

OUTDIR=${1:-$TOP/patches/upstream}
[ -f "$LINUX_SOURCE_TARBALL" ] ||
	die "$LINUX_SOURCE_TARBALL missing: install the Debian package '$LINUX_SOURCE_PKG'"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

DRV=$TOP/drivers/net/encx24j600
# Fixed identity and dates: the same sources give the same patches.
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
GIT_AUTHOR_NAME=$(git -C "$TOP" config user.name || echo "ENCX24J600 developers")
GIT_AUTHOR_EMAIL=$(git -C "$TOP" config user.email || echo "encx24j600@localhost")
GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-01-01T00:00:00+0000" GIT_COMMITTER_DATE="2026-01-01T00:00:00+0000"

# scratch_tree DIR PATH...: the named paths of the Debian tree, committed.
scratch_tree() {
	local dir=$1
	shift
	mkdir -p "$dir"
	tar -xf "$LINUX_SOURCE_TARBALL" -C "$dir" --strip-components=1 \
		"${@/#/$LINUX_SOURCE_PKG/}"
	git -C "$dir" init -q
	git -C "$dir" add -A
	git -C "$dir" commit -q -m "Debian $LINUX_SOURCE_PKG $(pkg_version "$LINUX_SOURCE_PKG")"
}

commit() { git -C "$1" add -A && git -C "$1" commit -q -s -F -; }

# --- netdev: binding, driver, driver KUnit tests ----------------------
T=$WORK/netdev
scratch_tree "$T" MAINTAINERS drivers/net/ethernet/microchip/Kconfig \
	drivers/net/ethernet/microchip/Makefile Documentation/devicetree/bindings/net/ethernet-controller.yaml
# maintainers_add FILE-PATTERN: list it in our MAINTAINERS section, which
# is created, in alphabetical place, on first use.
maintainers_add() {
	python3 - "$T/MAINTAINERS" "$1" "$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" <<'PY'
import sys
path, pattern, who = sys.argv[1:]
title = "MICROCHIP ENC424J600/ENC624J600 ETHERNET DRIVER (ENC424J600)"
lines = open(path).read().split("\n")
if title in lines:
    i = lines.index(title) + 1
    while i < len(lines) and lines[i].strip():
        i += 1
    lines.insert(i, f"F:\t{pattern}")
else:
    # before the first section whose title sorts after ours
    for i in range(len(lines) - 1):
        is_title = (lines[i] and lines[i][0].isupper() and i > 0 and not lines[i - 1].strip()
                    and lines[i + 1][:3] in ("M:\t", "R:\t", "L:\t", "S:\t"))
        if is_title and lines[i] > title and lines[i].startswith("MICROCHIP"):
            lines[i:i] = [title, f"M:\t{who}", "L:\tnetdev@vger.kernel.org",
                          "S:\tMaintained", f"F:\t{pattern}", ""]
            break
    else:
        sys.exit("no place for the MAINTAINERS entry")
open(path, "w").write("\n".join(lines))
PY
}
install -D -m 0644 "$TOP/dts/bindings/microchip,encx24j600.yaml" \
	"$T/Documentation/devicetree/bindings/net/microchip,encx24j600.yaml"
maintainers_add Documentation/devicetree/bindings/net/microchip,encx24j600.yaml
commit "$T" <<'EOF'
dt-bindings: net: add Microchip ENC424J600/ENC624J600 SPI Ethernet

The ENCX24J600 has been supported by drivers/net/ethernet/microchip/
encx24j600.c for years, but its device tree binding was never written
down.  Describe it: an SPI peripheral with one active-low interrupt that
stays asserted while an enabled event is pending, an optional MAC address
and the usual SPI bus properties.
EOF

D=$T/drivers/net/ethernet/microchip/enc424j600
mkdir -p "$D"
cp "$DRV"/*.c "$DRV"/*.h "$D/"
maintainers_add drivers/net/ethernet/microchip/enc424j600/
objs=$(sed -n 's/^enc424j600-y *:= *//p' "$DRV/Kbuild")
cat >"$D/Makefile" <<EOF
# SPDX-License-Identifier: GPL-2.0
obj-\$(CONFIG_ENC424J600) += enc424j600.o
enc424j600-y := $objs
EOF
python3 - "$T/drivers/net/ethernet/microchip" <<'EOF'
import sys
d = sys.argv[1]
k = open(f"{d}/Kconfig").read()
entry = """config ENC424J600
	tristate "ENC424J600/ENC624J600 support (regmap, phylib)"
	depends on SPI
	select REGMAP
	select PHYLIB
	select CRC32
	help
	  Support for the Microchip ENC424J600/ENC624J600 10/100 Ethernet
	  controller over SPI, with as few bus transactions per frame as the
	  chip allows: native bit set/clear for register updates, batched
	  receive and a multicast hash filter.

	  To compile this driver as a module, choose M here. The module will
	  be called enc424j600.

"""
anchor = "config LAN743X\n"
assert anchor in k
open(f"{d}/Kconfig", "w").write(k.replace(anchor, entry + anchor, 1))
m = open(f"{d}/Makefile").read()
anchor = "obj-$(CONFIG_LAN743X)"
assert anchor in m
open(f"{d}/Makefile", "w").write(
    m.replace(anchor, "obj-$(CONFIG_ENC424J600) += enc424j600/\n" + anchor, 1))
EOF
mkdir -p "$D"
if [ -d "$TOP/tests/kunit/enc424j600" ]; then
	for f in "$TOP"/tests/kunit/enc424j600/*.c; do
		cp "$f" "$D/$(basename "$f" .c | tr _ -).c"
	done
	cat >>"$D/Makefile" <<'EOF'
obj-$(CONFIG_ENC424J600_KUNIT_TEST) += enc424j600-kunit.o
EOF
	python3 - "$T/drivers/net/ethernet/microchip/Kconfig" <<'EOF'
import sys
p = sys.argv[1]
k = open(p).read()
anchor = "config LAN743X\n"
entry = """config ENC424J600_KUNIT_TEST
	tristate "KUnit tests for the enc424j600 driver's logic" if !KUNIT_ALL_TESTS
	depends on ENC424J600 && KUNIT
	default KUNIT_ALL_TESTS
	help
	  Unit tests of the pure logic of the enc424j600 driver: receive ring
	  pointers and the ERXTAIL wrap, the receive status vector, the
	  multicast hash bit and the BFSU/BFCU split of a register update.
	  They need no hardware and run when the module is loaded.

	  If unsure, say N.

"""
open(p, "w").write(k.replace(anchor, entry + anchor, 1))
EOF
fi

commit "$T" <<'EOF'
net: ethernet: microchip: add enc424j600, a regmap/phylib ENCX24J600 driver

The existing encx24j600 driver spends about ten SPI transactions per
received frame and eleven per transmitted one: banked register access
with bank-select messages, read-modify-write for flag updates, one frame
per interrupt, and a TX-done interrupt of its own.  On a chip whose bus
runs at 14 MHz the transactions, not the bytes, bound the frame rate.
It also mis-wraps ERXTAIL at the ring start, reports CHECKSUM_COMPLETE
with a zero checksum, overruns its register dump buffer, BUG()s when
TXIF and TXABTIF arrive together, leaks the skb on TX timeout, passes the
FCS up and drops 1522-byte VLAN frames.

enc424j600 is a new driver for the same chip:
- register access through regmap with a bus of unbanked opcodes only,
  whose reg_update_bits is the chip's BFSU/BFCU (one transaction, both
  bytes of a 16-bit register) and a register cache for configuration;
- receive batched: one status burst, all pending frames in one stream
  of the receive window, one ERXTAIL write per batch;
- the internal PHY through an mdio bus and phylib, link changes by
  interrupt;
- the multicast hash filter, ethtool statistics of its own bus traffic;
- KUnit tests of its pure logic (ring pointers and the ERXTAIL wrap, the
  receive status vector, the hash bit, the BFSU/BFCU split), since that
  arithmetic is easy to get wrong and hard to see wrong on hardware.

It is a separate driver rather than a rewrite of encx24j600 so the two
can be compared on the same board; both match "microchip,encx24j600".
EOF

# --- regmap: KUnit tests of the core features --------------------------
R=$WORK/regmap
scratch_tree "$R" MAINTAINERS drivers/base/regmap/Kconfig drivers/base/regmap/Makefile
python3 - "$R/MAINTAINERS" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("REGISTER MAP ABSTRACTION")
i = lines.index("F:\tdrivers/base/regmap/", i) + 1
lines.insert(i, "F:\tdrivers/base/regmap/regmap-v44-kunit.c")
open(sys.argv[1], "w").write("\n".join(lines))
PY
cp "$TOP/tests/kunit/regmap/regmap_v44_kunit.c" "$R/drivers/base/regmap/regmap-v44-kunit.c"
cat >>"$R/drivers/base/regmap/Kconfig" <<'EOF'

config REGMAP_V44_KUNIT
	tristate "KUnit tests for the regmap core" if !KUNIT_ALL_TESTS
	depends on KUNIT && REGMAP_IRQ && DEBUG_FS
	default KUNIT_ALL_TESTS
	help
	  Tests of the bus reg_update_bits offload, fast_io bulk writes from
	  atomic context, regmap-irq unmask_base and ack_invert, and the
	  debugfs range file, against a fake bus that records every call.
	  They need no hardware and run when the module is loaded.

	  If unsure, say N.
EOF
echo 'obj-$(CONFIG_REGMAP_V44_KUNIT) += regmap-v44-kunit.o' >>"$R/drivers/base/regmap/Makefile"
commit "$R" <<'EOF'
regmap: add KUnit tests of the bus update_bits, fast_io, regmap-irq and debugfs

Drivers rely on behaviour of the regmap core that has no tests: that a
bus's reg_update_bits is used for volatile registers only (and cached
registers cost no read), that a fast_io map's bulk write allocates with
GFP_ATOMIC under its spinlock, that regmap-irq writes mask and unmask
registers separately with unmask_base and acks with cleared bits under
ack_invert, and the format of the debugfs range file.  Check each against
a fake bus that records every call.
EOF

rm -rf "$OUTDIR/netdev" "$OUTDIR/regmap"
mkdir -p "$OUTDIR"
git -C "$T" format-patch -q --no-signature -o "$OUTDIR/netdev" HEAD~"$(($(git -C "$T" rev-list --count HEAD) - 1))"
git -C "$R" format-patch -q --no-signature -o "$OUTDIR/regmap" HEAD~1
say "upstream series: $(ls "$OUTDIR"/netdev | wc -l) netdev, $(ls "$OUTDIR"/regmap | wc -l) regmap patches in ${OUTDIR#"$TOP"/}"
