"""The test kernel and what it finds: the suite runs on a kernel with
lockdep, KASAN, UBSAN, DEBUG_OBJECTS and kmemleak (config/linux-debug.fragment),
and every test fails on any report of theirs in the guest log
(tests/run.py).  These tests show the checkers are there, that a leak
fails a test, and that a load, traffic and unload cycle of our driver
leaves no leak behind."""
import time

from lib.board import KFLAVOR, OURS, SPLATS, Board
from lib.skip import needs_test_kernel
from lib.kmemleak import (KMEMLEAK, UNLOADED_MODULE_FRAME, allocator_caller, leaks_of,
                          records)


def test_debug_kernel_checkers_are_on(logdir):
    needs_test_kernel("KASAN, kmemleak, lockdep and UBSAN are what it checks")
    assert KFLAVOR == "debug"
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


def test_debug_kernel_a_leak_fails_the_test(logdir):
    """The kernel's own leaking module (kmemleak-test: kmalloc and vmalloc
    blocks orphaned as it loads) must show up in the scan every board runs
    as it stops, as a line that fails the test."""
    needs_test_kernel("kmemleak and its kmemleak-test module")
    with Board(logdir) as b:
        b.run("modprobe kmemleak-test", timeout=60)
        time.sleep(6)
        # its init code is freed once it ran: frames in module space that
        # no longer resolve (no other module is loaded here)
        found = [r for r in records(b.leak_report())
                 if UNLOADED_MODULE_FRAME.match(allocator_caller(r))]
        log = b.out("dmesg | grep 'new suspected memory leak'")
        # its init drops 8 kmalloc and 5 vmalloc blocks; kmemleak is
        # conservative and misses one whose address still sits in memory it
        # scans (a stack, a stale buffer), so some, not all, must be found
        assert found, "kmemleak found none of kmemleak-test's 13 leaks"
        assert SPLATS.search(log), f"kmemleak's report is not a line the suite fails on: {log!r}"
        return f"{len(found)} of 13 leaks found; the log says: {log.split('] ')[-1]}"


test_debug_kernel_a_leak_fails_the_test.timeout = 200
# the leaks are this test's point; any other report still fails it
test_debug_kernel_a_leak_fails_the_test.allow_splats = (
    "new suspected memory leak", "allocated by 0xbf")


def test_debug_kernel_no_leak_after_load_traffic_unload(logdir):
    """Two load / up / traffic / down / unload cycles of our driver, then a
    kmemleak scan: nothing may be left unreferenced, ours or the kernel's."""
    needs_test_kernel("kmemleak")
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
        # kmemleak reports only objects older than 5 s
        time.sleep(6)
        report = b.leak_report()
        ours = leaks_of(report, OURS)
        assert not ours, f"kmemleak: {len(ours)} leaks from {OURS} " \
            f"(see {logdir}/board.kmemleak.txt):\n{ours[0][:1500]}"
        rest = records(report)
        assert not rest, f"kmemleak: {len(rest)} leaks (see {logdir}/board.kmemleak.txt):\n" \
            f"{rest[0][:1500]}"
        return "2 load/traffic/unload cycles: 0 kmemleak records"


test_debug_kernel_no_leak_after_load_traffic_unload.timeout = 400
