"""The suite, the soak and the benchmark fail on what they claim to see.

Each check provokes the failure on purpose on the test kernel (the
kernel's own lkdtm makes a WARN_ON that only the kernel log stream can
see: tests/lib/provoke.py) and runs the real harness on it: tests/run.py
on the tests of tests/provoked, soak.py and bench.py with --provoke.  Each
must fail, naming the problem."""
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from lib.board import BUILD, kmsg_gaps, kmsg_records
from lib.proc import run_script

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HERE = os.path.dirname(os.path.abspath(__file__))
PROVOKED_DIR = os.path.join(HERE, "provoked")

# The WARN as the stream has it: no "[ time]" prefix (dmesg's), which
# shows the stream, not the end-of-test dmesg, reported it
WARN_LINE = re.compile(r": WARNING: CPU: \d+ PID: \d+ at \S*lkdtm")

# test of tests/provoked -> what its splats.txt (every problem the run
# reported for it) must say
PROVOKED = {
    "test_provoked_warning": [WARN_LINE],
    "test_provoked_lost_log": [re.compile(r"the kernel log lost \d+ records")],
    "test_provoked_silent_guest": [re.compile(r"the guest did not answer at the end of the test")],
    "test_provoked_qemu_gone": [WARN_LINE,
                                re.compile(r"QEMU exited \(-9\) before the board was stopped")],
}

# the provoked test whose run.py dies under it: it leaves no splats.txt
DIES = "test_provoked_runner_dies"


def provoked_bound():
    """The sum of the provoked tests' own time bounds (run.py's default
    where a test sets none): the bound of the run that holds them all."""
    spec = importlib.util.spec_from_file_location(
        "provoked", os.path.join(PROVOKED_DIR, "test_provoked.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return sum(getattr(f, "timeout", 300) for n, f in vars(mod).items()
               if n.startswith("test_") and callable(f))


PROVOKED_BOUND = provoked_bound()


def debug_env():
    return dict(os.environ, KFLAVOR="debug")


def test_harness_fails_each_provoked_test(logdir):
    # two at a time, each in a run.py of its own, as the whole suite runs
    p = run_script([sys.executable, os.path.join(HERE, "run.py"), "-j", "2",
                    "--dir", PROVOKED_DIR], timeout=PROVOKED_BOUND + 30, env=debug_env())
    with open(os.path.join(logdir, "run.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    lines = p.stdout.splitlines()
    results = []
    for name, wants in PROVOKED.items():
        failed = any(l.startswith(f"  FAIL test_provoked.{name} ") for l in lines)
        splats = os.path.join(BUILD, "test-logs", f"test_provoked.{name}", "splats.txt")
        said = open(splats).read() if failed and os.path.exists(splats) else ""
        missing = [w.pattern for w in wants if not w.search(said)]
        results.append((f"{name} fails, reporting {', '.join(w.pattern for w in wants)}",
                        failed and not missing,
                        f"failed: {failed}; not reported: {missing} (see {splats})"))
    died = [l for l in lines if l.startswith(f"  FAIL test_provoked.{DIES}: ")]
    results.append(("a test whose run.py dies fails, naming its exit",
                    bool(died) and "ended (3) without its counts" in died[0],
                    f"its line: {died} (see {logdir}/run.log)"))
    control = any(l.startswith("  PASS test_provoked.test_provoked_control ") for l in lines)
    results.append(("the control (same steps, nothing provoked) passes", control,
                    f"see {logdir}/run.log"))
    # the summary before the count names each failed test and its logs
    summary = lines[lines.index("failed:") + 1:-1] if "failed:" in lines else []
    unnamed = [n for n in list(PROVOKED) + [DIES]
               if not any(l.startswith(f"  test_provoked.{n}: ") and "(logs: " in l
                          for l in summary)]
    results.append(("the summary names each failed test and its logs", not unnamed,
                    f"not named: {unnamed} (see {logdir}/run.log)"))
    last = lines[-1] if lines else ""
    want = f"1 passed, {len(PROVOKED) + 1} failed"
    results.append((f"the run ends '{want}' and exits 1", last == want and p.returncode == 1,
                    f"ended {last!r}, exit {p.returncode}"))
    return results


test_harness_fails_each_provoked_test.timeout = PROVOKED_BOUND + 60


def test_harness_a_warning_fails_a_soak_run(logdir):
    p = run_script([sys.executable, os.path.join(TOP, "scripts", "soak.py"),
                    "--seconds", "0", "--rounds", "0", "--provoke", "WARNING", "--out", logdir],
                   timeout=600, env=debug_env())
    with open(os.path.join(logdir, "soak.out"), "w") as f:
        f.write(p.stdout + p.stderr)
    assert p.returncode != 0, f"the soak passed with a WARN in the guest (see {logdir}/soak.out)"
    res = json.load(open(os.path.join(logdir, "report.json")))
    assert not res["ok"], res
    named = [s for s in res["splats"] if WARN_LINE.search(s)]
    assert named, f"the soak's report does not name the WARN: {res['splats'][:5]}"
    return named[0]


test_harness_a_warning_fails_a_soak_run.timeout = 660


def test_harness_a_warning_fails_a_bench_run(logdir):
    out = os.path.join(logdir, "bench")
    p = run_script([sys.executable, os.path.join(TOP, "scripts", "bench.py"), "--short",
                    "--drivers", "ours", "--provoke", "WARNING", "--out", out],
                   timeout=600, env=debug_env())
    with open(os.path.join(logdir, "bench.out"), "w") as f:
        f.write(p.stdout + p.stderr)
    assert p.returncode != 0, \
        f"the benchmark passed with a WARN in the guest (see {logdir}/bench.out)"
    named = [l for l in p.stderr.splitlines()
             if l.startswith("error: ours:") and WARN_LINE.search(l)]
    assert named, f"bench.py's errors do not name the WARN:\n{p.stderr[-1500:]}"
    res = json.load(open(os.path.join(out, "results.json")))
    assert any(WARN_LINE.search(s) for s in res["splats"]["ours"]), res["splats"]
    return named[0]


test_harness_a_warning_fails_a_bench_run.timeout = 660


def test_harness_kernel_log_stream_parsing(logdir):
    """The stream's records are read by sequence number: a record read
    twice (the reader reopened /dev/kmsg) counts once, a missing one is a
    gap, and the first record of the boot must be there."""
    text = ("6,0,0,-;Booting Linux\r\n"
            " SUBSYSTEM=cpu\n"
            "4,1,10,-;WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x4\n"
            "6,2,20,c;two\n"
            "4,1,10,-;WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x4\n"   # read again
            "6,5,50,-,caller=T1;five\n"
            "6,6,60,-;six, cut off by the end of the fi")
    recs = kmsg_records(text)
    assert sorted(recs) == [0, 1, 2, 5, 6], recs
    assert recs[1] == (4, "WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x4"), recs[1]
    assert recs[5] == (6, "five"), recs[5]
    assert kmsg_gaps(recs) == [(3, 4)], kmsg_gaps(recs)
    assert kmsg_gaps({k: recs[k] for k in (1, 2)}) == [(0, 0)], "a lost first record"
    assert kmsg_gaps({}) == []


def test_harness_bench_chart_is_made_or_fails(logdir):
    """bench.py's chart: an old transactions.png never passes for this
    run's, and a gnuplot that is missing, fails or writes nothing is an
    error (ChartError: bench.py exits 1), not a pass."""
    spec = importlib.util.spec_from_file_location(
        "bench", os.path.join(TOP, "scripts", "bench.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    res = {"drivers": {"ours": {"rx_by_class": {bench.CLASSES[0]: 1.5},
                                "tx_by_class": {bench.CLASSES[0]: 2.0}}}}
    fakes = os.path.join(logdir, "fake-bin")
    os.makedirs(fakes, exist_ok=True)
    for name, body in (("fails", "exit 1"), ("silent", "while read -r l; do :; done")):
        os.makedirs(os.path.join(fakes, name), exist_ok=True)
        with open(os.path.join(fakes, name, "gnuplot"), "w") as f:
            f.write(f"#!/bin/sh\n{body}\n")
        os.chmod(os.path.join(fakes, name, "gnuplot"), 0o755)
    os.makedirs(os.path.join(fakes, "none"), exist_ok=True)
    results = []
    path = os.environ["PATH"]
    for case in ("none", "fails", "silent"):
        out = os.path.join(logdir, case)
        os.makedirs(out, exist_ok=True)
        png = os.path.join(out, "transactions.png")
        with open(png, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\nan old chart")
        os.environ["PATH"] = os.path.join(fakes, case)
        try:
            bench.chart(res, out)
            err = None
        except bench.ChartError as e:
            err = str(e)
        finally:
            os.environ["PATH"] = path
        results.append((f"gnuplot {case}: ChartError, the old chart gone",
                        err is not None and not os.path.exists(png),
                        f"error: {err}; old chart still there: {os.path.exists(png)}"))
    out = os.path.join(logdir, "real")
    os.makedirs(out, exist_ok=True)
    png = bench.chart(res, out)
    with open(png, "rb") as f:
        results.append(("the real gnuplot makes a PNG", f.read(8) == b"\x89PNG\r\n\x1a\n",
                        f"{png} is not a PNG"))
    return results

SCHEDULE_DIR = os.path.join(PROVOKED_DIR, "schedule")
GUESTLESS_BOOTS = "is marked guestless (it runs beside the exclusive tests) but boots a board"


def test_harness_guestless_tests_run_beside_exclusive_ones(logdir):
    """run.py -j 2 starts a test marked guestless beside an exclusive one,
    niced and with the guard set; an unmarked test only after the
    exclusive one; nothing beside a test marked alone; a guestless test
    that boots a board fails, named."""
    out = os.path.join(logdir, "schedule")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    p = run_script([sys.executable, os.path.join(HERE, "run.py"), "-j", "2",
                    "--dir", SCHEDULE_DIR], timeout=300,
                   env=dict(debug_env(), ENC_SCHEDULE_OUT=out))
    with open(os.path.join(logdir, "run.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    seen = {}
    for fn in os.listdir(out):
        if fn.endswith(".json"):
            with open(os.path.join(out, fn)) as f:
                seen[fn[:-len(".json")]] = json.load(f)
    lines = p.stdout.splitlines()
    missing = {"alone", "exclusive", "guestless", "plain", "guestless_boots"} - set(seen)
    assert not missing, f"these did not run: {missing} (see {logdir}/run.log)"
    ex, gl, plain = seen["exclusive"], seen["guestless"], seen["plain"]
    alone = seen["alone"]
    beside = [n for n, t in seen.items()
              if n != "alone" and t["start"] < alone["end"] and t["end"] > alone["start"]]
    boots = [l for l in lines if l.startswith("  FAIL test_schedule.test_schedule_guestless_boots ")]
    return [
        ("the guestless test ran while the exclusive one did",
         ex["start"] < gl["end"] and gl["start"] < ex["end"],
         f"exclusive {ex}, guestless {gl}"),
        ("the guestless test ran niced", gl["nice"] == min(19, plain["nice"] + 19),
         f"nice {gl['nice']}, the plain test's {plain['nice']}"),
        ("the guard is set in the guestless test alone",
         gl["guard"] == "test_schedule.test_schedule_guestless"
         and ex["guard"] is None and plain["guard"] is None,
         f"guestless {gl['guard']!r}, exclusive {ex['guard']!r}, plain {plain['guard']!r}"),
        ("the unmarked test started after the exclusive one ended", plain["start"] >= ex["end"],
         f"exclusive {ex}, plain {plain}"),
        ("nothing ran beside the test marked alone", not beside,
         f"beside it: {beside}"),
        ("a guestless test that boots a board fails, saying so",
         bool(boots) and GUESTLESS_BOOTS in boots[0], f"its line: {boots}"),
        ("the run ends '4 passed, 1 failed' and exits 1",
         lines[-1:] == ["4 passed, 1 failed"] and p.returncode == 1,
         f"ended {lines[-1:]!r}, exit {p.returncode}"),
    ]


STOP_DIR = os.path.join(PROVOKED_DIR, "stop")


def left_behind(mark, logs):
    """The processes a stopped run may leave: its test's script (named by
    `mark`), and a QEMU or a run.py writing into `logs`."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue        # it ended meanwhile
        line = " ".join(argv)
        if mark in argv or (logs in line and ("qemu" in argv[0] or "run.py" in line)):
            left.append(f"{pid}: {line[:120]}")
    return left


def test_harness_sigterm_stops_everything_the_run_started(logdir):
    """SIGTERM to a run.py (a CI job ending, a Ctrl-C's signal) stops
    everything the run started: its children (-j), the boards' QEMUs and a
    script its test runs in a session of its own.  Before, run.py died at
    once and left them all running.  Both ways of running: one test after
    the other (-j 1), and each in a child (-j 2)."""
    results = []
    logs = os.path.join(BUILD, "test-logs", "test_stop.test_stop_mid_run")
    for jobs in (1, 2):
        mark = f"enc-stop-mark-{os.getpid()}-{jobs}-{time.monotonic_ns()}"
        ready = os.path.join(logs, "ready")
        if os.path.exists(ready):
            os.remove(ready)
        out = os.path.join(logdir, f"run-j{jobs}.log")
        with open(out, "w") as f:
            p = subprocess.Popen([sys.executable, os.path.join(HERE, "run.py"), "-j", str(jobs),
                                  "--dir", STOP_DIR], stdout=f, stderr=subprocess.STDOUT,
                                 env=dict(debug_env(), ENC_STOP_MARK=mark),
                                 start_new_session=True)
        try:
            end = time.monotonic() + 240
            while not (os.path.exists(ready) and any(mark in l for l in left_behind(mark, logs))):
                assert p.poll() is None, f"-j {jobs}: run.py ended ({p.returncode}) before " \
                    f"its test was under way (see {out})"
                assert time.monotonic() < end, f"-j {jobs}: the test did not get under way " \
                    f"in 240 s (see {out})"
                time.sleep(0.5)
            p.send_signal(signal.SIGTERM)
            try:
                rc = p.wait(timeout=TERM_BOUND)
            except subprocess.TimeoutExpired:
                rc = None
            end = time.monotonic() + 10
            while left_behind(mark, logs) and time.monotonic() < end:
                time.sleep(0.5)
            left = left_behind(mark, logs)
            results.append((f"-j {jobs}: run.py ends on SIGTERM, leaving nothing running",
                            rc is not None and rc != 0 and not left,
                            f"exit {rc}; still running: {left} (see {out})"))
        finally:
            for line in left_behind(mark, logs):
                try:
                    os.kill(int(line.split(":")[0]), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    return results


KERNELS_DIR = os.path.join(PROVOKED_DIR, "kernels")

# What the issue asks of every kernel of LINUX_SUITE_VERSIONS besides the
# one the whole suite runs on: boot, probe, ping, iperf3 both ways, the
# in-tree driver's fidelity check, the KUnit modules, W=1 and sparse, and
# the driver tests; and what the README adds: module reload, the Pi
# overlay, each compatible binding, our driver's short benchmark run, the
# peer tests and the checkers' and leak checks
EVERY_KERNEL_MUST = (
    "test_board.test_probe_binds_and_mac", "test_board.test_link_comes_up",
    "test_board.test_ping_gateway", "test_board.test_iperf3_tcp_both_directions",
    "test_board.test_module_unload_reload",
    "test_board.test_in_tree_driver_on_the_model", "test_kunit.test_kunit",
    "test_driver_build.test_driver_w1_sparse_clean",
    "test_driver_build.test_driver_dt_binding_validates",
    "test_static.test_kunit_modules_w1_sparse_clean",
    "test_static.test_rpi_overlay_merges_into_the_boards_dtbs",
    "test_driver_build.test_driver_binds_each_compatible_of_the_binding",
    "test_bench.test_bench_runs_on_this_kernel",
)
# ... and every test of these files: the driver's tests, with a peer on
# the wire, and the checkers' and leak checks
EVERY_KERNEL_FILES = ("test_driver", "test_driver_peer", "test_debug_kernel")


# The tests that may be marked test_kernel (left out where the suite boots
# a production kernel only): those of test_debug_kernel, the ones that
# count with trace events, and the one whose defect only kmemleak sees.
# Marking more would quietly thin out what the other kernels run.
TEST_KERNEL_MAY = (
    "test_driver.test_driver_core_tx_drops_are_told_apart",
    "test_driver.test_driver_chip_resets_under_tx_flood_account_every_frame",
    "test_driver.test_driver_chip_reset_on_a_quiet_link_is_noticed",
    "test_driver.test_driver_restore_hands_the_tx_slot_back_once",
)


def run_listing(*args, env=None):
    out = subprocess.run([sys.executable, os.path.join(HERE, "run.py"), "--list", *args],
                         capture_output=True, text=True, check=True,
                         env=env or debug_env()).stdout
    return set(out.split())


def test_harness_every_kernel_runs_its_part(logdir):
    """make test runs its part on each kernel of LINUX_SUITE_VERSIONS,
    and a kernel dropping out of it fails the run.  The suite's tests
    marked every_kernel hold what the issue names; the runner, run as the
    whole suite on tests of its own, runs a marked test on each kernel
    (one failure per kernel, the others' named "[version]"), counts and
    lists a skip apart, fails a test past its time bound, and fails a run
    in which another kernel has nothing to run, one test at a time (-j 1)
    and in children (-j 2)."""
    from lib.board import KVER, LINUX_SUITE_VERSIONS, LINUX_TEST_KERNELS, versions_sh
    results = []
    others = [v for v in LINUX_SUITE_VERSIONS if v != KVER]
    # the flavour each kernel's failure names (the suite's own: debug)
    flavour = {v: "debug" if v in LINUX_TEST_KERNELS + [KVER] else "production"
               for v in [KVER] + others}
    results.append(("make test runs on another kernel too", bool(others),
                    f"LINUX_SUITE_VERSIONS {LINUX_SUITE_VERSIONS}, the suite on {KVER}"))
    marked = run_listing("--every-kernel")
    files = {f: {n for n in run_listing("-k", f + ".") if n.startswith(f + ".")}
             for f in EVERY_KERNEL_FILES}
    empty = [f for f, names in files.items() if not names]
    missing = sorted(set(EVERY_KERNEL_MUST).union(*files.values()) - marked)
    results.append(("the tests the issue names are marked every_kernel",
                    not empty and not missing, f"not marked: {missing}, no tests in {empty}"))
    # the kernels with a test kernel: the default (this Debian's) and the
    # upstream series' base among them, all of them kernels the suite boots
    keep = {versions_sh("LINUX_DEFAULT"), versions_sh("LINUX_UPSTREAM_BASE")}
    results.append(("the default kernel and the upstream base boot their test kernels",
                    keep <= set(LINUX_TEST_KERNELS) <= set(LINUX_SUITE_VERSIONS),
                    f"LINUX_TEST_KERNELS {LINUX_TEST_KERNELS}, want {sorted(keep)} of "
                    f"LINUX_SUITE_VERSIONS {LINUX_SUITE_VERSIONS}"))
    on_production = run_listing("--every-kernel", env=dict(os.environ, KFLAVOR=""))
    only_test = marked - on_production
    over = sorted(n for n in only_test
                  if not n.startswith("test_debug_kernel.") and n not in TEST_KERNEL_MAY)
    results.append(("a production kernel runs every test marked every_kernel but the "
                    "checkers' own and those TEST_KERNEL_MAY names",
                    bool(on_production) and not over and
                    any(n.startswith("test_debug_kernel.") for n in only_test),
                    f"marked test_kernel beyond them: {over}; "
                    f"{len(on_production)} of {len(marked)} on a production kernel"))
    # with no KFLAVOR given, run.py picks each kernel's flavour itself: the
    # test kernel where the build makes one, else the production one
    bare = {k: v for k, v in os.environ.items() if k != "KFLAVOR"}
    for v in LINUX_SUITE_VERSIONS:
        listed = run_listing("--kver", v, "--every-kernel", env=bare)
        checkers = any(n.startswith("test_debug_kernel.") for n in listed)
        want = v in LINUX_TEST_KERNELS
        results.append((f"run.py --kver {v}, no KFLAVOR: its "
                        f"{'test' if want else 'production'} kernel's list",
                        bool(listed) and checkers == want,
                        f"{len(listed)} tests listed, the checkers' "
                        f"{'among them' if checkers else 'not'}"))
    name = "test_kernels.test_kernels_fails_on_each_kernel"
    tk_name = "test_kernels.test_kernels_fails_on_each_test_kernel"
    over = "test_kernels.test_kernels_overruns_its_bound"
    tagged = {v: f"[{v}]" if v != KVER else "" for v in [KVER] + others}
    for case, fails, skips in (
            ("every", [f"{n}{tagged[v]}" for n in (name, tk_name) for v in [KVER] + others
                       if n == name or flavour[v] == "debug"] + [over],
             ["test_kernels.test_kernels_skips"]),
            ("none", [f"the run on Linux {v}" for v in others], [])):
        for jobs in (1, 2):
            out = os.path.join(logdir, f"{case}-j{jobs}.log")
            p = run_script([sys.executable, os.path.join(HERE, "run.py"), "--as-suite",
                            "-j", str(jobs), "--dir", os.path.join(KERNELS_DIR, case)],
                           timeout=300, env=debug_env())
            text = p.stdout
            with open(out, "w") as f:
                f.write(text + p.stderr)
            listed = "\n" + text.split("\nfailed:\n", 1)[-1] if "\nfailed:\n" in text else ""
            skip_list = text.split("\nskipped:\n", 1)[-1].split("\nfailed:\n")[0] \
                if "\nskipped:\n" in text else ""
            want = f"1 passed, {len(fails)} failed" + (f", {len(skips)} skipped" if skips else "")
            lost = [w for w in fails if f"\n  {w}: " not in listed]
            # each in the flavour the suite boots there, and no more than these
            lost += [f"{n}{tagged[v]} on the {flavour[v]} kernel" for n in (name, tk_name)
                     for v in [KVER] + others if f"{n}{tagged[v]}" in fails and
                     f"\n  {n}{tagged[v]}: provoked on Linux {v}, {flavour[v]} kernel"
                     not in listed]
            lost += [f"{l.strip()} (not expected)" for l in listed.splitlines()
                     if l.startswith("  test_kernels.") and l.split(":")[0].strip() not in fails]
            lost += [w for w in skips if f"\n  {w}: " not in "\n" + skip_list]
            timed = case != "every" or any(l.startswith(f"  {over}: ") and
                                           "exceeded its time bound" in l
                                           for l in listed.splitlines())
            results.append((f"{case}, -j {jobs}: {len(fails)} failures and {len(skips)} "
                            "skips, each named" + (", the overrun for its bound" if skips else ""),
                            p.returncode == 1 and text.rstrip().endswith(want) and not lost
                            and timed,
                            f"exit {p.returncode}, last line "
                            f"{text.rstrip().splitlines()[-1:]!r}, want {want!r}; "
                            f"not in the failed list: {lost} (see {out})"))
    return results


# a child's grace, a test's board stop, and margin
TERM_BOUND = 120
test_harness_sigterm_stops_everything_the_run_started.timeout = 2 * (240 + TERM_BOUND + 30)

# they run the suite themselves, two tests at a time: two guests, both
# cores, nothing beside them (not even a guestless test, which would
# starve at its nice level).  The soak and bench runs above boot one board
# at a time, as any test does, and expect a failure whatever the timing:
# they run beside other tests.
test_harness_fails_each_provoked_test.alone = True
test_harness_sigterm_stops_everything_the_run_started.alone = True
