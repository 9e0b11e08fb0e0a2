"""The test kernel and what it finds: the suite runs on a kernel with
lockdep, KASAN, UBSAN, DEBUG_OBJECTS and kmemleak (config/linux-debug.fragment),
and every test fails on any report of theirs in the guest log
(tests/run.py).  These tests show the checkers are there, that a leak
fails a test, and that a load, traffic and unload cycle of our driver
leaves no leak behind."""
import glob
import os
import re
import subprocess
import time

from lib.board import BUILD, KFLAVOR, KSUF, OURS, SPLATS, Board
from lib.kmemleak import KMEMLEAK, allocated_by, leaks_of, records

# the checkers and the leak checks, on every kernel of the suite that
# boots its test kernel (tests/run.py)
EVERY_KERNEL = True
TEST_KERNEL = True


def test_debug_kernel_checkers_are_on(logdir):
    assert KFLAVOR == "debug"
    with Board(logdir) as b:
        log = b.out("dmesg")
        # ARM's own line up to 6.12, the generic one after
        assert re.search(r"kasan: Kernel address sanitizer initialized|"
                         r"KernelAddressSanitizer initialized", log), "no KASAN in the test kernel"
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
    with Board(logdir) as b:
        b.run("modprobe kmemleak-test", timeout=60)
        time.sleep(6)
        # allocated by its init code: 6.1 prints those frames as raw module
        # addresses (init code is freed once it ran; no other module is
        # loaded here), 6.12 by name, "[kmemleak_test]"
        found = [r for r in records(b.leak_report())
                 if allocated_by(r, "kmemleak_test")]
        log = b.out("dmesg | grep 'new suspected memory leak'")
        # its init drops 8 kmalloc and 5 vmalloc blocks; kmemleak is
        # conservative and misses one whose address still sits in memory it
        # scans (a stack, a stale buffer), so some, not all, must be found
        assert found, "kmemleak found none of kmemleak-test's 13 leaks"
        assert SPLATS.search(log), f"kmemleak's report is not a line the suite fails on: {log!r}"
        return f"{len(found)} of 13 leaks found; the log says: {log.split('] ')[-1]}"


test_debug_kernel_a_leak_fails_the_test.timeout = 200
# the leaks are this test's point; any other report still fails it
# (its records: "allocated by 0xbf..." on 6.1, "... [kmemleak_test]" on 6.12)
test_debug_kernel_a_leak_fails_the_test.allow_splats = (
    "new suspected memory leak", "allocated by 0xbf", "[kmemleak_test] (see")


def test_debug_kernel_no_leak_after_load_traffic_unload(logdir):
    """Two load / up / traffic / down / unload cycles of our driver, then a
    kmemleak scan: nothing may be left unreferenced, ours or the kernel's."""
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


# UBSAN's alignment check calls this handler (its type-mismatch family);
# none of the other checks the kernel's UBSAN turns on (bounds, shift,
# bool, enum, unreachable) does
UBSAN_ALIGNMENT_HANDLER = "__ubsan_handle_type_mismatch"


def compile_commands(build_dir):
    """{object: its compiler command line} for the C files Kbuild compiled
    in build_dir (its .<object>.cmd files)."""
    found = {}
    for cmd in glob.glob(os.path.join(build_dir, "**", ".*.o.cmd"), recursive=True):
        obj = os.path.basename(cmd)[1:-len(".cmd")]
        with open(cmd) as f:
            line = f.readline()
        # the modpost stubs and 6.12's .module-common.o are the kernel's
        if obj.endswith(".mod.o") or obj == ".module-common.o" or " -c " not in line:
            continue
        found[os.path.relpath(os.path.join(os.path.dirname(cmd), obj), BUILD)] = line
    return found


def test_debug_kernel_our_modules_check_alignment(logdir):
    """Misaligned access is the bug class an ARMv5 SPI driver is most
    likely to have (frames, receive status vectors): our modules are built
    with UBSAN's alignment check on every test kernel, also where the
    kernel's own code runs without it (6.12: config/linux-debug-6.12.fragment),
    and the driver's code calls the check."""
    driver = os.path.join(BUILD, f"driver{KSUF}")
    objects = compile_commands(driver)
    objects.update(compile_commands(os.path.join(BUILD, f"kunit{KSUF}")))
    assert len(objects) >= 5, f"driver or KUnit objects missing: {sorted(objects)}"
    unchecked = [o for o, line in sorted(objects.items())
                 if "-fsanitize=alignment" not in line]
    assert not unchecked, f"compiled without UBSAN's alignment check: {', '.join(unchecked)}"
    syms = subprocess.run(["arm-linux-gnueabi-nm", "-u", os.path.join(driver, f"{OURS}.ko")],
                          capture_output=True, text=True, check=True).stdout
    assert UBSAN_ALIGNMENT_HANDLER in syms, \
        f"{OURS}.ko calls no {UBSAN_ALIGNMENT_HANDLER}*: its accesses are not checked"
    return f"{len(objects)} objects compiled with -fsanitize=alignment; " \
        f"{OURS}.ko calls {UBSAN_ALIGNMENT_HANDLER}*"


