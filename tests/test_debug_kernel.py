"""The test kernel and what it finds: the suite runs on a kernel with
lockdep, KASAN, UBSAN, DEBUG_OBJECTS and kmemleak (config/linux-debug.fragment),
and every test fails on any report of theirs in the guest log
(tests/run.py).  These tests show the checkers are there and that a load,
traffic and unload cycle of our driver leaves no leak behind."""
import time

from lib.board import KFLAVOR, OURS, Board
from lib.kmemleak import KMEMLEAK, leaks_of


def test_debug_kernel_checkers_are_on(logdir):
    assert KFLAVOR == "debug", "the suite is not running on the test kernel"
    with Board(logdir) as b:
        log = b.out("dmesg")
        assert "kasan: Kernel address sanitizer initialized" in log, "no KASAN in the test kernel"
        assert b.run(f"[ -e {KMEMLEAK} ]", check=False)[0] == 0, "no kmemleak"
        # lockdep keeps its statistics in /proc/lockdep_stats
        stats = b.out("cat /proc/lockdep_stats")
        assert "lock-classes" in stats, stats
        assert "debug_locks:                              1" in stats or \
            "debug_locks: 1" in " ".join(stats.split()), \
            f"lockdep has switched itself off:\n{stats}"
        # UBSAN: the driver's objects are instrumented (Kbuild asks for it)
        syms = b.out(f"grep -c __ubsan_handle /proc/kallsyms")
        assert int(syms) > 0, "no UBSAN handlers in the test kernel"


def our_leaks(report):
    """The kmemleak records of memory our module allocated itself."""
    return leaks_of(report, OURS)


def test_debug_kernel_no_leak_after_load_traffic_unload(logdir):
    """Two load / up / traffic / down / unload cycles of our driver, then a
    kmemleak scan: nothing our driver allocated may be left unreferenced."""
    with Board(logdir) as b:
        b.run(f"echo clear > {KMEMLEAK}")
        for cycle in range(2):
            b.load_driver(OURS)
            b.net_up()
            out = b.out("ping -c 5 -i 0.2 -W 2 10.0.2.2", timeout=30)
            assert " 0% packet loss" in out, out
            b.run("ethtool -S eth0 >/dev/null; ethtool -d eth0 raw on >/dev/null; "
                  "ip link set eth0 promisc on; ip link set eth0 promisc off; "
                  "ip maddr add 01:00:5e:01:02:03 dev eth0; ip link set eth0 down")
            b.run(f"rmmod {OURS}")
        # kmemleak reports only objects older than 5 s, after two scans
        time.sleep(6)
        b.run(f"echo scan > {KMEMLEAK}", timeout=120)
        b.run(f"echo scan > {KMEMLEAK}", timeout=120)
        leaks = b.out(f"cat {KMEMLEAK}", timeout=60)
        with open(f"{logdir}/kmemleak.txt", "w") as f:
            f.write(leaks)
        ours = our_leaks(leaks)
        assert not ours, f"kmemleak: {len(ours)} leaks from {OURS} " \
            f"(see {logdir}/kmemleak.txt):\n{ours[0][:1500]}"
        return (f"2 load/traffic/unload cycles: 0 leaks from {OURS} "
                f"({leaks.count('unreferenced object')} kernel records elsewhere)")


test_debug_kernel_no_leak_after_load_traffic_unload.timeout = 400
