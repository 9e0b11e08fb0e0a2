"""Faults injected into the chip model from the host, and what our driver
must make of each: notice it, count it (ethtool -S), recover, answer a
ping again within 2 s.  Shared by the suite (a few rounds each,
tests/test_faults.py) and `make soak` (scripts/soak.py, 100 rounds each).
"""
import time

RECOVERY_LIMIT_MS = 2000


def ethtool_stats(b):
    stats = {}
    for line in b.out("ethtool -S eth0").splitlines():
        k, sep, v = line.strip().partition(":")
        if sep and v.strip().isdigit():
            stats[k.strip()] = int(v)
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


def stuck_int(b):
    # after an earlier round the driver polls for a second before it
    # tries the interrupt again: a stuck line is news only after that
    time.sleep(1.2)
    b.set_model("int-stuck", True)
    try:
        provoke_tx(b)
        time.sleep(0.5)
    finally:
        b.set_model("int-stuck", False)


def absent_chip(b):
    b.set_model("spi-absent", True)
    try:
        # the driver reads the chip's status before its second frame
        b.run("ping -c 3 -i 0.2 -W 1 10.0.2.2 >/dev/null", check=False, timeout=15)
        time.sleep(0.3)
    finally:
        b.set_model("spi-absent", False)


def chip_reset(b):
    b.inject("chip-reset")
    provoke_tx(b)


# fault -> how to inject and trigger it, and the ethtool -S counter that
# must count it
FAULTS = {
    "rx-bad-rsv": one_shot("rx-bad-rsv", "rx_resets", provoke_rx),
    "rx-next-odd": one_shot("rx-next-odd", "rx_resets", provoke_rx),
    "rx-next-outside": one_shot("rx-next-outside", "rx_resets", provoke_rx),
    "tx-abort": one_shot("tx-abort", "tx_aborts", provoke_tx),
    "tx-link-loss": one_shot("tx-link-loss", "tx_aborts", provoke_tx),
    "chip-reset": {"run": chip_reset, "counter": "chip_lost"},
    "int-stuck": {"run": stuck_int, "counter": "irq_storms"},
    "spi-absent": {"run": absent_chip, "counter": "chip_lost"},
}


def inject_and_recover(b, fault):
    """One round: inject, check the counter moved and the ping is back
    within the limit.  Returns the recovery time in ms."""
    f = FAULTS[fault]
    before = ethtool_stats(b)[f["counter"]]
    f["run"](b)
    ms = ping_recover(b)
    after = ethtool_stats(b)[f["counter"]]
    assert after > before, f"{fault}: {f['counter']} did not move ({before})"
    assert ms <= RECOVERY_LIMIT_MS, f"{fault}: ping answered only after {ms} ms"
    return ms
