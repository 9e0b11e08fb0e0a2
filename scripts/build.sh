#!/bin/bash
# make build: everything the test suite boots, in two lanes at once.
#
#   lane "qemu":  QEMU, the ASan QEMU, then each other kernel of the suite
#   lane "linux": the main kernel, production and test flavour
#
# The lanes share no build directory (the guest packages, which both
# extract, are taken under a lock: build-rootfs.sh).  On two cores one
# lane's serial steps (fetching, unpacking, configuring, linking, packing)
# run while the other compiles.  The first lane to fail stops the other
# at once, so the error is the last thing printed.
. "$(dirname "$0")/lib.sh"

# No make jobserver reaches the lanes (lib.sh drops MAKEFLAGS): the makes
# their scripts run would warn about it.

declare -A lane_of=()
set -m   # each lane its own process group, so that a kill reaches ninja and kbuild too
make -C "$TOP" --no-print-directory qemu qemu-asan images-others &
lane_of[$!]=qemu
make -C "$TOP" --no-print-directory images images-debug &
lane_of[$!]=linux
set +m

stop_lanes() {
	local pid
	for pid in "${!lane_of[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || true   # that lane may be gone
	done
	wait
}
trap 'stop_lanes; exit 130' INT TERM

while [ ${#lane_of[@]} -gt 0 ]; do
	rc=0
	wait -n -p done_pid "${!lane_of[@]}" || rc=$?
	lane=${lane_of[$done_pid]}
	unset "lane_of[$done_pid]"
	if [ "$rc" -ne 0 ]; then
		stop_lanes
		die "build lane '$lane' failed (exit $rc): its error is above, the logs are in ${LOGS#"$TOP"/}"
	fi
done
