"""Faults injected into the chip model from the host, and what our driver
must make of each: notice it, count it (ethtool -S), recover, answer a
ping again within 2 s.  Shared by the suite (a few rounds each,
tests/test_faults.py) and `make soak` (scripts/soak.py, 100 rounds each).
"""
import socket
import time

from lib.board import OURS, GuestError

RECOVERY_LIMIT_MS = 2000


# How long a recovery may keep the device detached before ethtool -S
# answers again (a chip that stays gone: reset_work retries meanwhile)
DETACHED_WAIT_S = 15


# The core's counters (name -> file) that count what the driver recovers
# from: overruns, frames with a bad status vector, aborted frames, and the
# TX watchdog's timeouts of the one queue
CORE_COUNTERS = {
    **{n: f"/sys/class/net/eth0/statistics/{n}"
       for n in ("rx_over_errors", "rx_crc_errors", "rx_length_errors", "tx_aborted_errors")},
    "tx_timeout": "/sys/class/net/eth0/queues/tx-0/tx_timeout",
}


def ethtool_stats(b):
    """ethtool -S of eth0 as a dict, with the core's counters of what the
    driver recovers from (CORE_COUNTERS: the driver does not repeat them
    in ethtool -S).  While the driver recovers a lost chip the device is
    detached and ethtool answers "No such device": wait for it to come
    back."""
    end = time.monotonic() + DETACHED_WAIT_S
    while True:
        rc, out = b.run(f"ethtool -S eth0 && grep -H . {' '.join(CORE_COUNTERS.values())}",
                        check=False)
        if rc == 0:
            break
        if "No such device" not in out or time.monotonic() > end:
            raise GuestError(f"ethtool -S eth0 failed ({rc}): {out.strip()[-300:]}")
        time.sleep(0.1)
    stats = {}
    paths = {p: name for name, p in CORE_COUNTERS.items()}
    for line in out.splitlines():
        k, sep, v = line.strip().rpartition(":")
        if sep and v.strip().isdigit():
            stats[paths.get(k, k.strip())] = int(v)
    missing = set(CORE_COUNTERS) - set(stats)
    if missing:
        raise GuestError(f"the core's counters {sorted(missing)} missing: {out.strip()[-300:]}")
    return stats


def ping_recover(b, limit_s=5):
    """ms until the gateway answers again (guest clock)."""
    out = b.out(f"ping-recover 10.0.2.2 {limit_s}", timeout=limit_s + 20)
    return int(out.split("after ")[1].split()[0])


def provoke_rx(b):
    # the reply to a ping is the next frame the chip stores
    b.run("ping -c 1 -W 1 10.0.2.2 >/dev/null", check=False, timeout=15)


def provoke_tx(b):
    b.run("ping -c 1 -W 1 10.0.2.2 >/dev/null", check=False, timeout=15)


def one_shot(fault, counter, provoke):
    def run(b):
        b.inject(fault)
        provoke(b)
    return {"run": run, "counter": counter}


def counter_moves(b, counter, before, seconds=10):
    """Wait until ethtool -S shows counter above before."""
    end = time.monotonic() + seconds
    while ethtool_stats(b)[counter] <= before:
        if time.monotonic() > end:
            return False
        time.sleep(0.1)
    return True


def stuck_int(b):
    # after an earlier round the driver polls the chip (a bus transaction
    # every 10 ms) before it tries the interrupt again: a stuck line is
    # news only once it is back on the interrupt, when the bus goes quiet
    b.wait_quiet(quiet_s=0.3, timeout=10)
    before = ethtool_stats(b)["irq_storms"]
    b.set_model("x-int-stuck", True)
    try:
        provoke_tx(b)
        counter_moves(b, "irq_storms", before)
    finally:
        b.set_model("x-int-stuck", False)


def detached(b):
    """The driver has detached eth0 (recovering a lost chip)."""
    # unregistered is not detached: eth0 must still be there
    rc, out = b.run("[ -e /sys/class/net/eth0 ] && ethtool -i eth0", check=False)
    return rc != 0 and "No such device" in out


def absent_chip(b):
    b.set_model("x-spi-absent", True)
    try:
        # the driver reads the chip's status before its second frame, finds
        # it gone and detaches eth0 until it is back (chip_lost is read
        # once it is: ethtool has no device meanwhile)
        b.run("ping -c 3 -i 0.2 -W 1 10.0.2.2 >/dev/null", check=False, timeout=15)
        end = time.monotonic() + 10
        while not detached(b):
            if time.monotonic() > end:
                raise GuestError("spi-absent: eth0 was not detached with the chip gone")
            time.sleep(0.1)
    finally:
        b.set_model("x-spi-absent", False)


def chip_reset(b):
    b.inject("chip-reset")
    provoke_tx(b)


FLOOD_DATAGRAMS = 2000


def rx_flood(b):
    """2.8 MB of UDP from the host as fast as it can send, through the
    board's port forward to a closed guest port: the model paces it at
    100 Mbit/s, far faster than the driver drains the ring on this bus,
    so the ring overflows (RXABTIF)."""
    data = bytes(1400)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _ in range(FLOOD_DATAGRAMS):
            try:
                s.sendto(data, ("127.0.0.1", b.iperf_port))
            except OSError:
                pass        # the host's socket buffer is full: drop
    # the model's port buffer drains into the ring at wire speed and the
    # driver takes what was stored: all of it done once the bus is quiet
    b.wait_quiet(quiet_s=0.3, timeout=30)


# The chip on the PL022's bus (dts/: the only SPI device of the board).
CHIP_DEVICE = "/sys/bus/spi/devices/spi0.0"


def chip_driver(b):
    """The driver bound to the chip's SPI device, or None.  A module loads
    whether or not its probe succeeds (the driver model binds devices
    later, as they come): a failed probe shows as a device with no
    driver, not as a failed modprobe."""
    rc, out = b.run(f"[ -e {CHIP_DEVICE} ] && readlink {CHIP_DEVICE}/driver", check=False)
    if b.run(f"[ -e {CHIP_DEVICE} ]", check=False)[0] != 0:
        raise AssertionError(f"no {CHIP_DEVICE}: the board has no chip on its SPI bus")
    return out.strip().rsplit("/", 1)[-1] if rc == 0 else None


def absent_at_probe(b):
    """The chip is gone when the driver probes: the probe must fail with a
    clear message and leave the device unbound (modprobe itself succeeds:
    the module loads whether or not a device binds); once it answers again, the
    driver binds and the link comes back."""
    # what the kernel logged since a mark of our own (the log is a ring)
    mark = f"fault-round-{time.monotonic_ns()}"
    said = f"dmesg | sed -n '/{mark}/,$p' | grep -c 'no ENCX24J600 answering' || true"
    b.run(f"ip link set eth0 down; rmmod {OURS}", timeout=60)
    b.run(f"echo {mark} > /dev/kmsg")
    b.set_model("x-spi-absent", True)
    try:
        b.run(f"modprobe {OURS}", check=False, timeout=60)
        assert chip_driver(b) is None, \
            f"absent at probe: the chip is bound to {chip_driver(b)}"
        assert int(b.out(said)) == 1, \
            "absent at probe: no clear message: " + b.out("dmesg | tail -3")
        assert b.run("[ -e /sys/class/net/eth0 ]", check=False)[0] != 0, \
            "absent at probe: eth0 exists"
    finally:
        b.set_model("x-spi-absent", False)
    b.run(f"rmmod {OURS}", timeout=60)
    b.load_driver(OURS)
    b.net_up()


# fault -> how to inject and trigger it, and the counter (ethtool_stats)
# that must count it (None: there is no device to count it; the run checks)
FAULTS = {
    "rx-overflow": {"run": rx_flood, "counter": "rx_over_errors"},
    "rx-bad-rsv": one_shot("rx-bad-rsv", "rx_length_errors", provoke_rx),
    "rx-next-odd": one_shot("rx-next-odd", "rx_resets", provoke_rx),
    "rx-next-outside": one_shot("rx-next-outside", "rx_resets", provoke_rx),
    "rx-past-head": one_shot("rx-past-head", "rx_resets", provoke_rx),
    "tx-abort": one_shot("tx-abort", "tx_aborted_errors", provoke_tx),
    "tx-link-loss": one_shot("tx-link-loss", "tx_aborted_errors", provoke_tx),
    "chip-reset": {"run": chip_reset, "counter": "chip_lost"},
    "int-stuck": {"run": stuck_int, "counter": "irq_storms"},
    "spi-absent": {"run": absent_chip, "counter": "chip_lost"},
    "spi-absent-at-probe": {"run": absent_at_probe, "counter": None},
}


def inject_and_recover(b, fault):
    """One round: inject, check the counter moved and the ping is back
    within the limit.  Returns the recovery time in ms."""
    f = FAULTS[fault]
    counter = f["counter"]
    before = ethtool_stats(b)[counter] if counter else 0
    f["run"](b)
    ms = ping_recover(b)
    if counter:
        after = ethtool_stats(b)[counter]
        assert after > before, f"{fault}: {counter} did not move ({before})"
    assert ms <= RECOVERY_LIMIT_MS, f"{fault}: ping answered only after {ms} ms"
    return ms
