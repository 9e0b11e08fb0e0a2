"""Faults injected into the chip model from the host (tests/lib/faults.py):
for each, our driver notices, counts it in ethtool -S, recovers and
answers a ping again within 2 s; a few rounds each here, 100 in
`make soak`.  An absent chip at probe fails cleanly."""
import os

from lib.board import OURS, Board
from lib.faults import FAULTS, ethtool_stats, inject_and_recover
from lib.kmemleak import KMEMLEAK

ROUNDS = 3


def test_faults_each_noticed_counted_and_recovered(logdir):
    results = []
    with Board(logdir) as b:
        b.load_driver(OURS)
        b.net_up()
        b.run(f"echo clear > {KMEMLEAK}")
        for fault in FAULTS:
            what = ("noticed, counted" if FAULTS[fault]["counter"]
                    else "probe fails cleanly, binds when the chip is back")
            times = []
            try:
                for _ in range(ROUNDS):
                    times.append(inject_and_recover(b, fault))
                results.append((f"{fault}: {what}, ping back within 2 s "
                                f"({ROUNDS} rounds, worst {max(times)} ms)", True, ""))
            except AssertionError as e:
                results.append((f"{fault}: {what}, ping back within 2 s",
                                False, str(e)))
        st = ethtool_stats(b)
        with open(os.path.join(logdir, "ethtool-S.txt"), "w") as f:
            f.write("\n".join(f"{k}: {v}" for k, v in st.items()))
        leaks = b.leaks()
        results.append(("no memory of ours leaked through the faults", not leaks,
                        leaks[0][:1500] if leaks else ""))
    return results


test_faults_each_noticed_counted_and_recovered.timeout = 600


def test_faults_absent_chip_at_probe(logdir):
    """MISO reads all ones from power-on: the probe fails with a clear
    message and nothing else; the chip answering later probes fine."""
    with Board(logdir, extra_qemu=["-global", "encx24j600.spi-absent=on"]) as b:
        rc, out = b.run(f"modprobe {OURS}", check=False)
        log = b.out("dmesg | tail -5")
        assert "no ENCX24J600 answering" in log, log
        assert b.run("[ -e /sys/class/net/eth0 ]", check=False)[0] != 0, "eth0 exists"
        b.set_model("spi-absent", False)
        b.run(f"rmmod {OURS} 2>/dev/null; true")
        b.load_driver(OURS)
        b.net_up()
        assert "0% packet loss" in b.out("ping -c 2 -W 2 10.0.2.2")
        return log.splitlines()[-1].split("] ", 1)[-1]
