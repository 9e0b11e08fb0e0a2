#!/bin/bash
# Build QEMU for the board: Debian's qemu 7.2 source ("apt-get source qemu",
# Debian's own patches applied), our series on top, arm-softmmu only, with
# user networking (libslirp).  The series is made from the model's sources
# in qemu/ (scripts/qemu-series.py); patches/qemu is its committed copy.
#
#   build-qemu.sh            build build/qemu/obj/qemu-system-arm
#   build-qemu.sh --prepare  only fetch and patch the tree (build/qemu/src)
#   build-qemu.sh --export   only write the series to patches/qemu
#   SANITIZE=1 build-qemu.sh build build/qemu/obj-asan with ASan + UBSan
. "$(dirname "$0")/lib.sh"

QDIR=$BUILD/qemu
DL=$QDIR/dl
SRC=$QDIR/src
PATCHES=$QDIR/series
if [ "${SANITIZE:-0}" = 1 ]; then OBJ=$QDIR/obj-asan; else OBJ=$QDIR/obj; fi
mkdir -p "$DL"

need_cmd dpkg-source dpkg-dev
need_cmd meson meson
need_cmd ninja ninja-build
need_cmd git git

# The pristine tree: fetched once per Debian source version.
src_version=$(apt-cache showsrc "$QEMU_SOURCE_PKG" 2>/dev/null |
	sed -n 's/^Version: //p' | sort -V | tail -n1)
[ -n "$src_version" ] ||
	die "no source package for $QEMU_SOURCE_PKG: deb-src entries are missing (make deps, as root)"
if ! stamp_ok "$QDIR/.pristine-stamp" "$src_version"; then
	rm -rf "$DL" "$QDIR/pristine"
	mkdir -p "$DL"
	run_step "fetching Debian source $QEMU_SOURCE_PKG $src_version" "$LOGS/qemu-fetch.log" \
		sh -c "cd '$DL' && apt-get source --only-source '$QEMU_SOURCE_PKG=$src_version'"
	mv "$(find "$DL" -mindepth 1 -maxdepth 1 -type d | head -n1)" "$QDIR/pristine"
	stamp_set "$QDIR/.pristine-stamp" "$src_version"
fi

if [ "${1:-}" = --export ]; then
	python3 "$TOP/scripts/qemu-series.py" "$QDIR/pristine" "$TOP/patches/qemu"
	say "patches/qemu: $(ls "$TOP/patches/qemu" | wc -l) patches from qemu/"
	exit 0
fi
python3 "$TOP/scripts/qemu-series.py" "$QDIR/pristine" "$PATCHES" ||
	die "could not make the QEMU series from qemu/"

# The patched tree: re-made when the series changes.  Files are synced by
# content so that an unchanged file keeps its timestamp and ninja does not
# rebuild it.
series_hash=$(INPUTS_EXTRA=$src_version inputs_hash "$PATCHES")
if ! stamp_ok "$QDIR/.src-stamp" "$series_hash"; then
	apply() {
		set -e
		rm -rf "$QDIR/fresh"
		cp -a "$QDIR/pristine" "$QDIR/fresh"
		cd "$QDIR/fresh"
		git init -q
		# no automatic gc: it detaches and would still be writing into
		# .git when the tree is removed below
		git config gc.auto 0
		git add -A >/dev/null
		git -c user.name=build -c user.email=build@localhost \
			commit -q -m "Debian $QEMU_SOURCE_PKG $src_version"
		shopt -s nullglob
		local p
		for p in "$PATCHES"/*.patch; do
			echo "applying ${p##*/}"
			git -c user.name=build -c user.email=build@localhost am -q --keep-cr "$p"
		done
		mkdir -p "$SRC"
		# the devices file copied in below stays (P: protected from
		# --delete), so a new series does not make meson regenerate
		sync_tree "$QDIR/fresh" "$SRC" --exclude=/.git \
			--filter="P /configs/devices/$QEMU_TARGET/enc-board.mak"
		rm -rf "$QDIR/fresh"
	}
	run_step "applying the series (from qemu/) to the QEMU tree" "$LOGS/qemu-patch.log" apply
	stamp_set "$QDIR/.src-stamp" "$series_hash"
fi
[ "${1:-}" = --prepare ] && exit 0

# Only the devices config/qemu-arm-devices.mak names: configure takes a
# devices file by name from the source tree's configs/devices, so it is
# copied there (only when changed: meson watches it).
DEVICES=$SRC/configs/devices/$QEMU_TARGET/enc-board.mak
cmp -s "$TOP/config/qemu-arm-devices.mak" "$DEVICES" ||
	cp "$TOP/config/qemu-arm-devices.mak" "$DEVICES"
CONFIG_ARGS=(--target-list="$QEMU_TARGET" --without-default-features
	--without-default-devices --with-devices-${QEMU_TARGET%-softmmu}=enc-board
	--enable-slirp --enable-fdt=system --enable-tcg --disable-docs
	--disable-werror)
[ "${SANITIZE:-0}" = 1 ] && CONFIG_ARGS+=(--enable-sanitizers --enable-debug)
# configure hands meson the compiler by name, and meson adds ccache only
# to a compiler it found itself: without this no QEMU object is ever
# cached and every clean clone compiles QEMU twice from scratch.
command -v ccache >/dev/null && CONFIG_ARGS+=(--cc="ccache cc")
cfg_hash=$(INPUTS_EXTRA="${CONFIG_ARGS[*]}" inputs_hash "$TOP/scripts/build-qemu.sh" \
	"$TOP/config/qemu-arm-devices.mak")
ccache_env   # before configure: meson's compiler checks run through ccache too
if ! stamp_ok "$OBJ/.config-stamp" "$cfg_hash"; then
	rm -rf "$OBJ"
	mkdir -p "$OBJ"
	run_step "configuring QEMU" "$LOGS/qemu-config$([ "${SANITIZE:-0}" = 1 ] && echo -asan).log" \
		env -C "$OBJ" "$SRC/configure" "${CONFIG_ARGS[@]}"
	stamp_set "$OBJ/.config-stamp" "$cfg_hash"
fi
bin_hash=$(INPUTS_EXTRA="$series_hash $cfg_hash" inputs_hash /dev/null)
# The model's qtests, and QEMU's own qtests that cover versatilepb
QTESTS="encx24j600-test encx24j600-fuzz-test pl061-test qom-test test-hmp device-introspect-test"
built=yes
for t in qemu-system-arm $(printf 'tests/qtest/%s ' $QTESTS); do
	[ -x "$OBJ/$t" ] || built=no
done
if stamp_ok "$OBJ/.stamp" "$bin_hash" && [ $built = yes ]; then
	say "QEMU: up to date"
	exit 0
fi
rm -f "$OBJ/.stamp"
run_step "building QEMU (3-5 min on 2 cores the first time)" \
	"$LOGS/qemu-build$([ "${SANITIZE:-0}" = 1 ] && echo -asan).log" \
	ninja -C "$OBJ" qemu-system-arm $(printf 'tests/qtest/%s ' $QTESTS)
stamp_set "$OBJ/.stamp" "$bin_hash"
