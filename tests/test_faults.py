"""Faults injected into the chip model from the host (tests/lib/faults.py):
for each, our driver notices, counts it in ethtool -S, recovers and
answers a ping again within 2 s; a few rounds each here, 100 in
`make soak`.  An absent chip at probe fails cleanly."""
import os

from lib.board import OURS, Board, GuestError
from lib.faults import FAULTS, chip_driver, ethtool_stats, inject_and_recover
from lib.kmemleak import KMEMLEAK

ROUNDS = 3


def recover_after_failure(b, results, fault):
    """After a failed round the next fault needs a driver that runs: the
    model answers again, the module is loaded and the link up.  If that
    cannot be had, the faults after it fail on their own."""
    try:
        for prop in ("x-spi-absent", "x-int-stuck"):
            b.set_model(prop, False)
        if b.run("[ -e /sys/class/net/eth0 ]", check=False, timeout=30)[0] != 0:
            b.run(f"rmmod {OURS} 2>/dev/null; true", timeout=60)
            b.load_driver(OURS)
            b.net_up()
    except (GuestError, OSError) as e:
        results.append((f"{fault}: the board is usable again after the failure", False, str(e)))


def test_faults_each_noticed_counted_and_recovered(logdir):
    results = []
    with Board(logdir) as b:
        b.load_driver(OURS)
        b.net_up()
        b.run(f"[ ! -e {KMEMLEAK} ] || echo clear > {KMEMLEAK}")
        for fault in FAULTS:
            what = ("noticed, counted" if FAULTS[fault]["counter"]
                    else "probe fails cleanly, binds when the chip is back")
            times = []
            try:
                for _ in range(ROUNDS):
                    times.append(inject_and_recover(b, fault))
                results.append((f"{fault}: {what}, ping back within 2 s "
                                f"({ROUNDS} rounds, worst {max(times)} ms)", True, ""))
            except Exception as e:  # noqa: BLE001 - one fault must not hide the others
                results.append((f"{fault}: {what}, ping back within 2 s",
                                False, f"round {len(times) + 1}: {type(e).__name__}: {e}"))
                recover_after_failure(b, results, fault)
        try:
            st = ethtool_stats(b)
            with open(os.path.join(logdir, "ethtool-S.txt"), "w") as f:
                f.write("\n".join(f"{k}: {v}" for k, v in st.items()))
            leaks = b.leaks()
            results.append(("no memory of ours leaked through the faults", not leaks,
                            leaks[0][:1500] if leaks else ""))
        except Exception as e:  # noqa: BLE001 - keep the faults' results
            results.append(("the driver's counters and leaks can be read after the faults",
                            False, f"{type(e).__name__}: {e}"))
    return results


test_faults_each_noticed_counted_and_recovered.timeout = 600


def test_faults_absent_chip_at_probe(logdir):
    """MISO reads all ones from power-on: the probe fails with a clear
    message and leaves the chip's device unbound; the chip answering
    later probes fine."""
    with Board(logdir, extra_qemu=["-global", "encx24j600.x-spi-absent=on"]) as b:
        assert chip_driver(b) is None, "the chip device is bound before any driver loaded"
        b.run(f"modprobe {OURS}", timeout=60)
        # the module loads (the driver model binds devices as they come);
        # its probe of this device fails and leaves it unbound
        assert b.run(f"[ -e /sys/module/{OURS} ]", check=False)[0] == 0, "module not loaded"
        assert chip_driver(b) is None, f"the absent chip is bound to {chip_driver(b)}"
        log = b.out("dmesg | tail -5")
        assert "no ENCX24J600 answering" in log, log
        assert b.run("[ -e /sys/class/net/eth0 ]", check=False)[0] != 0, "eth0 exists"
        b.set_model("x-spi-absent", False)
        b.run(f"rmmod {OURS}")
        b.load_driver(OURS)
        assert chip_driver(b) == OURS, f"the chip is bound to {chip_driver(b)}"
        b.net_up()
        out = b.out("ping -c 2 -W 2 10.0.2.2")
        assert " 0% packet loss" in out, f"no ping through the chip once it answered:\n{out}"
        return log.splitlines()[-1].split("] ", 1)[-1]

# recovery times are asserted: no other guest beside it (run.py -j)
test_faults_each_noticed_counted_and_recovered.exclusive = True
