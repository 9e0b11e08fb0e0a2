#!/bin/bash
# make upstream: the kernel series this repository sends upstream, made
# from its sources (the one place they live) into build/upstream/:
#
#   netdev/        the driver replacing drivers/net/ethernet/microchip/
#                  encx24j600* in place (same Kconfig symbol, module name and
#                  compatible: users' configs and device trees keep working),
#                  with its KUnit tests, and its YAML binding
#   regmap/        KUnit tests of the regmap core features the driver rests on
#   regmap-fixes/  the fixes the board needs on that kernel (patches/linux/
#                  <base>, written as a series with Fixes: tags), as they are
#
# Each is cut with git against Debian's linux-source-$LINUX_UPSTREAM_BASE, so
# it applies with "git am" to a fresh extraction.  The driver goes as this
# repository builds it less its test hooks (unifdef -UENC_TEST_HOOKS) and
# under the kernel's names (encx24j600*).  The old driver's removal is made
# here, from the tree it is cut against.
#
#   export-upstream.sh [OUTDIR]     (default: build/upstream)
. "$(dirname "$0")/../config/versions.sh"
KVER=$LINUX_UPSTREAM_BASE
. "$(dirname "$0")/lib.sh"

OUTDIR=${1:-$BUILD/upstream}
kernel_source_built
need_cmd unifdef unifdef
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

DRV=$TOP/drivers/net/encx24j600
KUNIT=$TOP/tests/kunit/enc424j600
MCHP=drivers/net/ethernet/microchip
# Fixed identity and dates: the same sources give the same patches.
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
GIT_AUTHOR_NAME=$(git -C "$TOP" config user.name || echo "ENCX24J600 developers")
GIT_AUTHOR_EMAIL=$(git -C "$TOP" config user.email || echo "encx24j600@localhost")
GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-01-01T00:00:00+0000" GIT_COMMITTER_DATE="2026-01-01T00:00:00+0000"
AUTHOR="$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"
# The series carry the author's Signed-off-by (the DCO) and name them as
# the driver's maintainer: that must be a person, set with git config
case $GIT_AUTHOR_EMAIL in
*@localhost | *.example | *noreply*)
	warn "the series' author is '$AUTHOR': set your own name and address" \
		"(git config user.name/user.email) before sending them" ;;
esac

# The parts of Debian's tree the series touch, extracted once.
BASE=$WORK/base
mkdir -p "$BASE"
tar -xf "$LINUX_SOURCE_TARBALL" -C "$BASE" --strip-components=1 \
	"$LINUX_SOURCE_PKG/MAINTAINERS" "$LINUX_SOURCE_PKG/$MCHP" \
	"$LINUX_SOURCE_PKG/drivers/base/regmap" \
	"$LINUX_SOURCE_PKG/Documentation/devicetree/bindings/net" ||
	die "cannot extract from $LINUX_SOURCE_TARBALL"

# scratch_tree DIR PATH...: the named paths of Debian's tree, committed.
scratch_tree() {
	local dir=$1 p
	shift
	for p in "$@"; do
		mkdir -p "$dir/$(dirname "$p")"
		cp -a "$BASE/$p" "$dir/$p"
	done
	git -C "$dir" init -q
	git -C "$dir" add -A
	git -C "$dir" commit -q -m "Debian $LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION"
}

commit() { git -C "$1" add -A && git -C "$1" commit -q -s -F -; }

# to_kernel_names SRC DST: SRC without the test hooks and under the kernel's
# names: enc424j600 -> encx24j600, except the part's compatible and SPI id.
to_kernel_names() {
	# unifdef exits 1 when it changed something, 2 on trouble
	unifdef -UENC_TEST_HOOKS -o "$WORK/unifdef.out" "$1" || [ $? -le 1 ] ||
		die "unifdef failed on $1"
	python3 - "$WORK/unifdef.out" "$2" <<'PY' || die "cannot rename $1"
import re
import sys
src, dst = sys.argv[1:]
text = open(src).read()
def rename(m):
    s = m.string
    quoted = s[m.start() - 1:m.start()] == '"' and s[m.end():m.end() + 1] == '"'
    compatible = s[max(0, m.start() - 10):m.start()] == "microchip,"
    return m.group(0) if quoted or compatible else "encx24j600"
text = re.sub(r"enc424j600", rename, text)
text = text.replace("_ENC424J600_", "_ENCX24J600_")     # include guards
# a hook that went from between two blank lines leaves both
text = re.sub(r"\n{3,}", "\n\n", text)
assert "ENC_TEST_HOOKS" not in text, "a test hook is left"
open(dst, "w").write(text)
PY
}

# maintainers_add FILE-PATTERN: list it in the driver's MAINTAINERS section,
# which is created, in alphabetical place, on first use.
maintainers_add() {
	python3 - "$T/MAINTAINERS" "$1" "$AUTHOR" <<'PY' || die "MAINTAINERS: no place for the entry"
import sys
path, pattern, who = sys.argv[1:]
title = "MICROCHIP ENCX24J600 ETHERNET DRIVER"
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
        sys.exit(1)
open(path, "w").write("\n".join(lines))
PY
}

# --- netdev: binding, the driver in place of the old one, KUnit tests --
T=$WORK/netdev
scratch_tree "$T" MAINTAINERS "$MCHP"
BINDING=Documentation/devicetree/bindings/net/microchip,enc424j600.yaml
mkdir -p "$T/$(dirname "$BINDING")"
# the binding names a person, the series' author, as its maintainer
# (in Python: a name is text, not a sed expression)
python3 - "$TOP/dts/bindings/microchip,enc424j600.yaml" "$T/$BINDING" "$AUTHOR" <<'PY'
import re
import sys
src, dst, author = sys.argv[1:]
text = open(src).read()
text = re.sub(r"^  - ENCX24J600 driver maintainers <.*>$", lambda m: "  - " + author,
              text, flags=re.M)
open(dst, "w").write(text)
PY
grep -qF -- "  - $AUTHOR" "$T/$BINDING" || die "$BINDING: its maintainer was not set"
maintainers_add "$BINDING"
commit "$T" <<'EOF'
dt-bindings: net: Add Microchip ENC424J600/ENC624J600 SPI Ethernet

The ENCX24J600 has been supported by drivers/net/ethernet/microchip/
encx24j600.c since 2015, matched through its SPI device id: the device
trees that use it say "microchip,encx24j600".  Its binding was never
written down.

Describe it: an SPI peripheral with one active-low interrupt that stays
asserted while an enabled event is pending, an optional MAC address and
the usual SPI bus properties.  New device trees name the part:
microchip,enc424j600, or microchip,enc624j600 with microchip,enc424j600
as its fallback (over SPI the two are the same device).  The compatible
existing device trees use stays valid, deprecated.
EOF

# The old driver goes, the new one takes its place, symbol and module name.
git -C "$T" rm -q "$MCHP/encx24j600.c" "$MCHP/encx24j600-regmap.c" "$MCHP/encx24j600_hw.h"
D=$T/$MCHP/encx24j600
mkdir -p "$D"
for f in "$DRV"/*.c "$DRV"/*.h; do
	b=$(basename "$f")
	to_kernel_names "$f" "$D/${b/enc424j600/encx24j600}"
done
objs=$(sed -n 's/^enc424j600-y *:= *//p' "$DRV/Kbuild" | sed 's/enc424j600/encx24j600/g')
[ -n "$objs" ] || die "$DRV/Kbuild: no enc424j600-y line"
cat >"$D/Makefile" <<EOF
# SPDX-License-Identifier: GPL-2.0
obj-\$(CONFIG_ENCX24J600) += encx24j600.o
encx24j600-y := $objs
EOF
maintainers_add "$MCHP/encx24j600/"
python3 - "$T/$MCHP" <<'PY' || die "the microchip Kconfig or Makefile has changed: no place for the driver"
import re
import sys
d = sys.argv[1]
k = open(f"{d}/Kconfig").read()
entry = """config ENCX24J600
	tristate "ENC424J600/ENC624J600 support"
	depends on SPI
	select CRC32
	select PHYLIB
	select REGMAP
	help
	  Support for the Microchip ENC424J600/ENC624J600 10/100 Ethernet
	  controller over SPI.

	  To compile this driver as a module, choose M here. The module will be
	  called encx24j600.

"""
old = re.search(r"^config ENCX24J600\n.*?\n\n(?=config )", k, re.S | re.M)
assert old, "no config ENCX24J600 entry"
open(f"{d}/Kconfig", "w").write(k[:old.start()] + entry + k[old.end():])
m = open(f"{d}/Makefile").read()
line = "obj-$(CONFIG_ENCX24J600) += encx24j600.o encx24j600-regmap.o\n"
assert line in m, "no encx24j600 line in the Makefile"
open(f"{d}/Makefile", "w").write(m.replace(line, "obj-$(CONFIG_ENCX24J600) += encx24j600/\n"))
PY
# KUnit tests of the driver's pure logic
for f in "$KUNIT"/*.c; do
	b=$(basename "$f" .c)
	to_kernel_names "$f" "$D/$(echo "$b" | sed 's/enc424j600/encx24j600/; s/_/-/g').c"
done
echo 'obj-$(CONFIG_ENCX24J600_KUNIT_TEST) += encx24j600-kunit.o' >>"$D/Makefile"
python3 - "$T/$MCHP/Kconfig" <<'PY' || die "the microchip Kconfig has changed"
import sys
p = sys.argv[1]
k = open(p).read()
anchor = "config LAN743X\n"
assert anchor in k
entry = """config ENCX24J600_KUNIT_TEST
	tristate "KUnit tests for the encx24j600 driver's logic" if !KUNIT_ALL_TESTS
	depends on ENCX24J600 && KUNIT
	default KUNIT_ALL_TESTS
	help
	  Unit tests of the pure logic of the encx24j600 driver: receive ring
	  pointers and the ERXTAIL wrap, the receive status vector, the
	  multicast hash bit and the BFSU/BFCU split of a register update.
	  They need no hardware and run when the module is loaded.

	  If unsure, say N.

"""
open(p, "w").write(k.replace(anchor, entry + anchor, 1))
PY
commit "$T" <<'EOF'
net: ethernet: microchip: encx24j600: rewrite on regmap and phylib

The encx24j600 driver spends about ten SPI transactions per received
frame and eleven per transmitted one: banked register access with
bank-select messages, read-modify-write for flag updates, one frame per
interrupt, and a TX-done interrupt of its own.  On a chip whose bus runs
at 14 MHz the transactions, not the bytes, bound the frame rate.  It also
mis-wraps ERXTAIL at the ring start, reports CHECKSUM_COMPLETE with a
zero checksum, overruns its register dump buffer, BUG()s when TXIF and
TXABTIF arrive together, leaks the skb on TX timeout, passes the FCS up
and drops 1522-byte VLAN frames.

Replace it with a driver written around the bus:
- register access through regmap with a bus of unbanked opcodes only,
  whose reg_update_bits is the chip's BFSU/BFCU (one transaction, both
  bytes of a 16-bit register) and a register cache for configuration;
- receive batched: one status burst, all pending frames in one stream
  of the receive window, one ERXTAIL write per batch;
- transmit completion read from the status before the next frame, not
  by an interrupt of its own;
- the internal PHY through an mdio bus and phylib, link changes by
  interrupt;
- a chip that resets behind the driver (brown-out, ESD) or stops
  answering is found and restored;
- the multicast hash filter, and ethtool statistics of its own bus
  traffic and recoveries;
- KUnit tests of its pure logic (the receive ring arithmetic and the
  ERXTAIL wrap, the receive header and status vector, the hash bit, the
  BFSU/BFCU split of a register update), easy to get wrong and hard to
  see wrong on hardware.

It keeps the Kconfig symbol, the module name and the compatible of the
old driver, so configurations and device trees keep working; it also
matches the parts' own compatibles.  It lives in a directory of its own.
EOF

# --- regmap: KUnit tests of the core features --------------------------
R=$WORK/regmap
scratch_tree "$R" MAINTAINERS drivers/base/regmap
python3 - "$R/MAINTAINERS" <<'PY' || die "MAINTAINERS: no regmap section"
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("REGISTER MAP ABSTRACTION")
i = lines.index("F:\tdrivers/base/regmap/", i) + 1
lines.insert(i, "F:\tdrivers/base/regmap/regmap-bus-kunit.c")
open(sys.argv[1], "w").write("\n".join(lines))
PY
# without the map only this repository's harness reads (its Kbuild
# defines REGMAP_BUS_KUNIT_RANGE_MAP)
unifdef -UREGMAP_BUS_KUNIT_RANGE_MAP -o "$R/drivers/base/regmap/regmap-bus-kunit.c" \
	"$TOP/tests/kunit/regmap/regmap_bus_kunit.c" || [ $? -le 1 ] ||
	die "unifdef failed on tests/kunit/regmap/regmap_bus_kunit.c"
grep -q "RANGE_MAP\|root_device_register(REGMAP_BUS_KUNIT_RANGE_DEV" \
	"$R/drivers/base/regmap/regmap-bus-kunit.c" &&
	die "regmap-bus-kunit.c: the harness's range map is left"
cat >>"$R/drivers/base/regmap/Kconfig" <<'EOF'

config REGMAP_BUS_KUNIT
	tristate "KUnit tests for the regmap core" if !KUNIT_ALL_TESTS
	depends on KUNIT
	select REGMAP_IRQ
	default KUNIT_ALL_TESTS
	help
	  Tests of the bus reg_update_bits offload, fast_io bulk writes from
	  atomic context, regmap-irq unmask_base and ack_invert, and the
	  debugfs range file, against a fake bus that records every call.
	  They need no hardware and run when the module is loaded.

	  If unsure, say N.
EOF
echo 'obj-$(CONFIG_REGMAP_BUS_KUNIT) += regmap-bus-kunit.o' >>"$R/drivers/base/regmap/Makefile"
commit "$R" <<'EOF'
regmap: add KUnit tests of the bus update_bits, fast_io, regmap-irq and debugfs

Drivers rely on behaviour of the regmap core that has no tests: that a
bus's reg_update_bits is used for volatile registers only (and cached
registers cost no read), that a fast_io map's bulk write allocates with
GFP_ATOMIC under its spinlock, that regmap-irq writes mask and unmask
registers separately with unmask_base and acks with cleared bits under
ack_invert, and that the debugfs range file is there.  Check each against
a fake bus that records every call.
EOF

rm -rf "$OUTDIR/netdev" "$OUTDIR/regmap" "$OUTDIR/regmap-fixes"
mkdir -p "$OUTDIR/regmap-fixes"
# the cover letter of the netdev series comes from the branch description
git -C "$T" config branch.master.description "$(cat <<'EOF'
net: ethernet: microchip: encx24j600: rewrite on regmap and phylib

The ENC424J600/ENC624J600 driver spends about ten SPI transactions per
received frame and eleven per transmitted one, and has known defects
(listed in patch 2).  This series replaces it in place with a driver
built around the bus: regmap with the chip's native bit set/clear for
register updates, batched receive, phylib for the internal PHY, and
recovery from a chip that resets or stops answering.  Users keep their
configuration (CONFIG_ENCX24J600), module name (encx24j600) and device
trees ("microchip,encx24j600"); patch 1 writes the binding down, with the
parts' own compatibles.

Tested so far against an emulated chip only (a QEMU model written from
the datasheet, with fault injection), on Linux 6.1, 6.12 and 7: not yet
on silicon, hence RFC.  It goes out as PATCH once it has run on an
ENC424J600 board (receive and transmit under load, link changes, the
chip's reset), with those results here.
EOF
)"
# RFC: a replacement for a driver that runs on hardware is not merged on
# the strength of an emulator alone
git -C "$T" format-patch -q --no-signature --subject-prefix="RFC PATCH net-next" \
	--cover-letter --cover-from-description=subject -o "$OUTDIR/netdev" HEAD~2
git -C "$R" format-patch -q --no-signature -o "$OUTDIR/regmap" HEAD~1
fixes=("$TOP/patches/linux/$LINUX_UPSTREAM_BASE"/*.patch)
[ -e "${fixes[0]}" ] && cp "${fixes[@]}" "$OUTDIR/regmap-fixes/"
say "upstream series against $LINUX_SOURCE_PKG: $(ls "$OUTDIR"/netdev | wc -l) netdev," \
	"$(ls "$OUTDIR"/regmap | wc -l) regmap, $(ls "$OUTDIR"/regmap-fixes | wc -l) regmap fixes" \
	"in ${OUTDIR#"$TOP"/}"
