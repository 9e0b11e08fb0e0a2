#!/bin/bash
# Build QEMU for the board: Debian's qemu source of QEMU_SERIES from
# QEMU_SUITE (config/versions.sh; Debian's own patches applied), our series
# on top, arm-softmmu only, with user networking (libslirp).  The series
# is made from the model's sources in qemu/ (scripts/qemu-series.py);
# patches/qemu is its committed copy.  Nothing is installed: the source
# and meson come through the build's own apt configuration (lib.sh: pool).
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

need_cmd dpkg-source dpkg-dev
need_cmd ninja ninja-build
need_cmd git git
pool_update

# The pristine tree: the newest point release of QEMU_SERIES that
# QEMU_SUITE serves, fetched once per version.  One the index lists but
# the mirror's pool does not hold (a suite's index can run ahead of its
# pool) is passed over, and said so.
have=$(cat "$QDIR/.pristine-stamp" 2>/dev/null || true)
src_version=
for v in $(pool_versions src "$QEMU_SOURCE_PKG" "$QEMU_SERIES" "$QEMU_SUITE"); do
	if [ "$v" = "$have" ] && [ -d "$QDIR/pristine" ]; then
		src_version=$v
		break
	fi
	# fetched and unpacked beside the tree there is; it is replaced only
	# once the new one is whole
	rm -rf "$DL"
	mkdir -p "$DL"
	if (cd "$DL" && pool_apt apt-get source -q --download-only "$QEMU_SOURCE_PKG=$v") \
		>"$LOGS/qemu-fetch.log" 2>&1; then
		run_step "unpacking Debian's $QEMU_SOURCE_PKG $v (from $QEMU_SUITE)" "$LOGS/qemu-unpack.log" \
			dpkg-source -x "$DL/${QEMU_SOURCE_PKG}_${v#*:}.dsc" "$DL/tree"
		rm -rf "$QDIR/pristine" "$QDIR/.pristine-stamp"
		mv "$DL/tree" "$QDIR/pristine"
		rm -rf "$DL"
		stamp_set "$QDIR/.pristine-stamp" "$v"
		src_version=$v
		break
	fi
	warn "$QEMU_SOURCE_PKG $v: $QEMU_SUITE lists it, the mirror did not serve it (${LOGS#"$TOP"/}/qemu-fetch.log); trying an older one"
done
[ -n "$src_version" ] ||
	die "no source of $QEMU_SOURCE_PKG $QEMU_SERIES in $QEMU_SUITE could be fetched (logs in ${LOGS#"$TOP"/})"
say "QEMU source: Debian $QEMU_SOURCE_PKG $src_version, from $QEMU_SUITE"

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

# meson, the newest MESON_SUITE serves, unpacked beside the tree: QEMU's
# configure finds it through PYTHONPATH (its Python environment sees the
# system's packages and the path)
meson_version=$(pool_versions bin meson "" "$MESON_SUITE" | head -n1)
[ -n "$meson_version" ] || die "$MESON_SUITE serves no meson (see ${LOGS#"$TOP"/}/pool-update.log)"
MESON=$BUILD/meson
if ! stamp_ok "$MESON/.stamp" "$meson_version"; then
	fetch_meson() {
		set -e
		local deb
		rm -rf "$MESON"
		deb=$(pool_fetch_deb meson "$meson_version" "$MESON/dl")
		dpkg-deb -x "$deb" "$MESON"
		rm -rf "$MESON/dl"
	}
	run_step "fetching meson $meson_version (from $MESON_SUITE)" "$LOGS/meson-fetch.log" fetch_meson
	stamp_set "$MESON/.stamp" "$meson_version"
fi
export PATH=$MESON/usr/bin:$PATH
export PYTHONPATH=$MESON/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}

# Only the devices config/qemu-arm-devices.mak names: configure takes a
# devices file by name from the source tree's configs/devices, so it is
# copied there (only when changed: meson watches it).
DEVICES=$SRC/configs/devices/$QEMU_TARGET/enc-board.mak
cmp -s "$TOP/config/qemu-arm-devices.mak" "$DEVICES" ||
	cp "$TOP/config/qemu-arm-devices.mak" "$DEVICES"
# Debian's python3, whose packages (venv, distlib) QEMU's configure uses,
# whatever python3 comes first in PATH; the "+ds" tarball has no firmware
# to install
CONFIG_ARGS=(--python=/usr/bin/python3 --target-list="$QEMU_TARGET" --without-default-features
	--without-default-devices --with-devices-${QEMU_TARGET%-softmmu}=enc-board
	--enable-slirp --enable-fdt=system --enable-tcg --disable-docs
	--disable-install-blobs --disable-werror)
[ "${SANITIZE:-0}" = 1 ] && CONFIG_ARGS+=(--enable-asan --enable-ubsan --enable-debug)
# configure hands meson the compiler by name, and meson adds ccache only
# to a compiler it found itself: without this no QEMU object is ever
# cached and every clean clone compiles QEMU twice from scratch.
command -v ccache >/dev/null && CONFIG_ARGS+=(--cc="ccache cc")
cfg_hash=$(INPUTS_EXTRA="${CONFIG_ARGS[*]} $src_version $meson_version" inputs_hash "$TOP/scripts/build-qemu.sh" \
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
