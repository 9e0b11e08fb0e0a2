#!/usr/bin/env python3
"""Run the project's tests and end with one line: `N passed, N failed`.

Tests are functions named test_* in tests/test_*.py.  Each gets a
directory for its logs; a test fails by raising, and is skipped by raising
Skip (counted apart, never as a pass).  A test may instead return a list
of (name, passed, detail) sub-results (the KUnit cases run in the guest):
each then counts as one test, passed (True), failed (False) or skipped
(None).  Every test runs under a time bound, so a hung guest is a failure,
not a hang.  Any kernel problem a board of the test saw fails it
(lib/board.py), unless the test declares that line (allow_splats).

  run.py                 all tests
  run.py -k ping         tests whose name contains "ping"
  run.py --list          names only
  run.py --dir DIR       the tests of another directory (tests/provoked:
                         tests that must fail, run by test_harness.py)
  run.py --kver 6.12     on that kernel (config/versions.sh; default KVER or
                         LINUX_DEFAULT)
  run.py -j 2            two tests at a time, each in a run.py of its own
                         (the default for the whole suite on a machine with
                         two cores or more; 1 otherwise)

The whole suite runs on one kernel; then the tests marked every_kernel
(boot, probe, ping, iperf3, the driver's tests, KUnit ...: a test's
every_kernel, or its file's EVERY_KERNEL) run again on each
other kernel of LINUX_SUITE_VERSIONS (config/versions.sh), named
test[version], and count in the same final line: on its test kernel if
it is one of LINUX_TEST_KERNELS, else on its production kernel, where the
tests marked test_kernel (a test's test_kernel, or its file's
TEST_KERNEL: what the checkers report) do not run.  A run with -k stays
on one kernel.

With -j N, N tests run at once, each in a child run.py (--one): a
test's guest has a core of its own.  A test marked exclusive (timing it
asserts, the benchmark, a build it checks) runs with no other guest beside
it; those run first.  Beside them, on the core their guest leaves, run
the tests marked guestless (a test's guestless, or its file's GUESTLESS:
builds, series, static checks, qtests), niced so that they yield the CPU;
such a test that boots a board fails (lib/board.py: GUESTLESS_ENV).  The
tests marked alone run before them all with nothing beside them: the
build check (a guestless test's build would race it) and the harness
checks that boot two guests of their own.  A child that ends without its
counts is a failure.
"""
import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from lib.versions import flavour_for, versions_sh  # noqa: E402

# the kernel, before lib.board reads it
for _i, _a in enumerate(sys.argv):
    if _a == "--kver" and _i + 1 < len(sys.argv):
        os.environ["KVER"] = sys.argv[_i + 1]
    elif _a.startswith("--kver="):
        os.environ["KVER"] = _a.split("=", 1)[1]
# The suite runs on the test kernel (lockdep, KASAN, UBSAN, kmemleak ...)
# where the build makes one (LINUX_TEST_KERNELS), on the production kernel
# elsewhere, unless told otherwise; the benchmark's own runs use the
# production one.
if "KFLAVOR" not in os.environ:
    os.environ["KFLAVOR"] = flavour_for(os.environ.get("KVER") or versions_sh("LINUX_DEFAULT"))

from lib import board  # noqa: E402
from lib.board import BUILD, GUESTLESS_ENV  # noqa: E402
from lib.proc import BUILD_NICE, STOP_SIGNALS, TERM_GRACE, reap, start, stop, tell  # noqa: E402
from lib.skip import Skip  # noqa: E402

DEFAULT_TIMEOUT = 300


class TestTimeout(BaseException):
    """A test's time bound ran out.  Not an Exception: a test that keeps
    its cases apart (`except Exception`) must not catch its own bound."""


def discover(where=HERE):
    tests = []
    for fn in sorted(os.listdir(where)):
        if not (fn.startswith("test_") and fn.endswith(".py")):
            continue
        spec = importlib.util.spec_from_file_location(fn[:-3], os.path.join(where, fn))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for name in sorted(vars(mod)):
            obj = getattr(mod, name)
            if name.startswith("test_") and callable(obj):
                # a file whose EVERY_KERNEL is true marks all its tests
                if getattr(mod, "EVERY_KERNEL", False) and not hasattr(obj, "every_kernel"):
                    obj.every_kernel = True
                # and one whose GUESTLESS is, unless a test says otherwise
                if getattr(mod, "GUESTLESS", False) and not hasattr(obj, "guestless"):
                    obj.guestless = True
                # and one whose TEST_KERNEL is
                if getattr(mod, "TEST_KERNEL", False) and not hasattr(obj, "test_kernel"):
                    obj.test_kernel = True
                tests.append((f"{fn[:-3]}.{name}", obj))
    return tests


# After a test's bound, the boards it started still stop (and check their
# guests) as the exception unwinds; that too is bounded.
CLEANUP_BOUND = 180


# Set once the run is told to stop (Ctrl-C, SIGTERM, SIGHUP): from then on
# nothing (a test's time bound included) turns the stop into a result
STOPPING = []


def on_alarm(signum, frame):
    signal.alarm(CLEANUP_BOUND)     # a second alarm ends a cleanup that hangs
    if STOPPING:
        raise KeyboardInterrupt(STOPPING[0])
    raise TestTimeout("test exceeded its time bound")


def on_stop(signum, frame):
    """Ctrl-C, SIGTERM or SIGHUP stops the run: the exception unwinds
    through the test, whose boards and scripts (run_script: sessions of
    their own, which no signal to this group reaches) are stopped on the
    way out.  The first one only: another must not cut that cleanup short
    (a handler that does nothing, not SIG_IGN, which the processes started
    meanwhile would inherit)."""
    if STOPPING:
        return
    STOPPING.append(signal.Signals(signum).name)
    raise KeyboardInterrupt(STOPPING[0])


FAILED = []  # (test, first line of why, log directory), for the summary
SKIPPED = []  # the same for the skipped ones


def report_subresults(name, subs, logdir, elapsed):
    """A test that returns a list of (name, passed, detail) sub-results
    counts each of them as one test: passed (True), failed (False) or
    skipped (None).  Returns (passed, failed, skipped)."""
    if not subs:
        subs = [("(no sub-results)", False, "the test returned an empty list")]
    passed = failed = skipped = 0
    failures = []
    print(f"  {name} ({elapsed:.1f}s): {len(subs)} results", flush=True)
    for sub, ok, detail in subs:
        full = f"{name}.{sub}"
        lines = str(detail or "").strip().splitlines()
        if ok is None:
            skipped += 1
            SKIPPED.append((full, lines[0] if lines else "", logdir))
            print(f"  SKIP {full}" + (f": {lines[0]}" if lines else ""), flush=True)
        elif ok:
            passed += 1
            print(f"  PASS {full}", flush=True)
        else:
            failed += 1
            failures.append(f"{full}:\n{detail}\n")
            FAILED.append((full, lines[0] if lines else "", logdir))
            print(f"  FAIL {full}" + (f": {lines[0]}" if lines else ""), flush=True)
            for line in lines[1:8]:
                print(f"       {line}")
    if failures:
        with open(os.path.join(logdir, "failure.txt"), "w") as f:
            f.write("\n".join(failures))
        print(f"       logs: {os.path.relpath(logdir)}", flush=True)
    return passed, failed, skipped


def run_test(name, fn, logroot, tag=""):
    """Run one test in this process, print its result and return its
    (passed, failed, skipped); its failures join FAILED."""
    logdir = os.path.join(logroot, name)
    name += tag
    os.makedirs(logdir, exist_ok=True)
    for stale in ("failure.txt", "splats.txt"):
        # what an earlier run reported must not pass for this run's
        if os.path.exists(os.path.join(logdir, stale)):
            os.remove(os.path.join(logdir, stale))
    bound = getattr(fn, "timeout", DEFAULT_TIMEOUT)
    start = time.monotonic()
    signal.alarm(bound)
    board.SEEN_SPLATS.clear()
    guestless = getattr(fn, "guestless", False)
    try:
        try:
            if not runs_on_flavour(fn, board.KFLAVOR):
                # (the other kernels' runs leave such a test out)
                raise Skip("marked test_kernel: it needs the test kernel's checkers and "
                           "trace events; run with KFLAVOR=debug")
            if guestless:
                os.environ[GUESTLESS_ENV] = name
            note = fn(logdir)
        finally:
            # whatever ended the test (its bound too): the next may boot
            os.environ.pop(GUESTLESS_ENV, None)
        signal.alarm(0)
        allowed = getattr(fn, "allow_splats", ())
        splats = [l for l in board.SEEN_SPLATS if not any(a in l for a in allowed)]
        if splats:
            with open(os.path.join(logdir, "splats.txt"), "w") as f:
                f.write("\n".join(splats) + "\n")
            if isinstance(note, list):
                note.append(("no kernel problem in the guest log", False,
                             f"{splats[0]} (see {logdir}/splats.txt)"))
            else:
                raise AssertionError(f"the guest kernel reported: {splats[0]} "
                                     f"({len(splats)} lines in {logdir}/splats.txt)")
        if isinstance(note, list):
            return report_subresults(name, note, logdir, time.monotonic() - start)
        extra = f": {note}" if isinstance(note, str) and note else ""
        print(f"  PASS {name} ({time.monotonic() - start:.1f}s){extra}", flush=True)
        return 1, 0, 0
    except Skip as e:
        signal.alarm(0)
        SKIPPED.append((name, str(e), logdir))
        print(f"  SKIP {name} ({time.monotonic() - start:.1f}s): {e}", flush=True)
        return 0, 0, 1
    except BaseException as e:  # noqa: B036 - a test must never end the run
        signal.alarm(0)
        if isinstance(e, KeyboardInterrupt) or STOPPING:
            raise KeyboardInterrupt(*(STOPPING or e.args)) from e
        with open(os.path.join(logdir, "failure.txt"), "w") as f:
            traceback.print_exc(file=f)
        msg = str(e).strip().splitlines() or [""]
        if not isinstance(e, AssertionError):
            # a KeyError says only '64': name what was raised
            msg[0] = f"{type(e).__name__}: {msg[0]}".rstrip(": ")
        FAILED.append((name, msg[0], logdir))
        print(f"  FAIL {name} ({time.monotonic() - start:.1f}s): {msg[0]}", flush=True)
        for line in msg[1:8]:
            print(f"       {line}")
        print(f"       logs: {os.path.relpath(logdir)}", flush=True)
        return 0, 1, 0


def flavour_on(kver):
    """The kernel flavour the suite boots the other kernel `kver` in: this
    run's where the build makes a test kernel (lib/versions.py)."""
    return flavour_for(kver, os.environ["KFLAVOR"])


def runs_on_flavour(fn, flavour):
    """Whether a test runs on a kernel of this flavour: one marked
    test_kernel only on the test kernel."""
    return flavour == "debug" or not getattr(fn, "test_kernel", False)


def other_kernel_tests(kver, every_test):
    """The tests marked every_kernel that run on the other kernel `kver`,
    and its flavour; said once, with what is left out there."""
    flavour = flavour_on(kver)
    marked = [(n, f) for n, f in every_test if getattr(f, "every_kernel", False)]
    mine = [(n, f) for n, f in marked if runs_on_flavour(f, flavour)]
    print(f"== the tests marked every_kernel on Linux {kver}"
          + (" (test kernel)" if flavour == "debug" else
             f" (production kernel: {len(marked) - len(mine)} of them marked test_kernel "
             f"run on {' '.join(board.LINUX_TEST_KERNELS)} only)") + " ==", flush=True)
    return mine, flavour


def other_kernel(kver, where, every_test):
    """The tests of `where` marked every_kernel on another kernel, in a
    run.py of its own (the kernel is chosen before anything is imported).
    Returns its (passed, failed, skipped); its failures join FAILED."""
    _, flavour = other_kernel_tests(kver, every_test)
    counts = os.path.join(BUILD, "test-logs", f"counts-{kver}.json")
    if os.path.exists(counts):
        os.remove(counts)
    # a session of its own, stopped as the -j children are
    p = start([sys.executable, os.path.abspath(__file__), "--kver", kver,
               "--every-kernel", "--dir", where, "--counts", counts],
              env=dict(os.environ, KFLAVOR=flavour))
    try:
        p.wait()
    except BaseException:
        stop([p])
        raise
    logs = os.path.join(BUILD, "test-logs", kver)
    try:
        with open(counts) as f:
            c = json.load(f)
        n = c["passed"] + c["failed"] + c["skipped"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        FAILED.append((f"the run on Linux {kver}",
                       f"it ended ({p.returncode}) without its counts: {e}", logs))
        return 0, 1, 0
    if n == 0 or p.returncode != (1 if c["failed"] else 0):
        FAILED.append((f"the run on Linux {kver}",
                       f"exit code {p.returncode} with {c['failed']} failed of {n}", logs))
        return c["passed"], c["failed"] + 1, c["skipped"]
    FAILED.extend(tuple(x) for x in c["failed_list"])
    SKIPPED.extend(tuple(x) for x in c.get("skipped_list", []))
    return c["passed"], c["failed"], c["skipped"]


class Child:
    """One test in a run.py of its own (-j): its output goes to a file of
    its log directory and is printed whole once it ends, its counts come
    back as JSON."""

    def __init__(self, kver, name, fn, where, other_kernel, flavour=None):
        self.name = name + (f"[{kver}]" if other_kernel else "")
        self.alone = getattr(fn, "alone", False)
        self.exclusive = getattr(fn, "exclusive", False) or self.alone
        self.guestless = getattr(fn, "guestless", False) and not self.exclusive
        logroot = os.path.join(BUILD, "test-logs", *([kver] if other_kernel else []))
        self.logdir = os.path.join(logroot, name)
        os.makedirs(self.logdir, exist_ok=True)
        self.counts = os.path.join(self.logdir, "counts.json")
        self.out = os.path.join(self.logdir, "run.out")
        self.cmd = [sys.executable, os.path.abspath(__file__), "--kver", kver, "--one", name,
                    "--dir", where, "--counts", self.counts] + \
            (["--every-kernel"] if other_kernel else [])
        if self.guestless:
            # beside an exclusive test's guest: it gets the CPU and the
            # disk first
            self.cmd = BUILD_NICE + ["ionice", "-c", "3"] + self.cmd
        # the child keeps the test's own bound and the cleanup's: this one
        # is for a child that hangs beyond both
        self.bound = getattr(fn, "timeout", DEFAULT_TIMEOUT) + 2 * CLEANUP_BOUND
        self.env = None if flavour is None else dict(os.environ, KFLAVOR=flavour)
        self.proc = None

    def start(self):
        for stale in (self.counts,):
            if os.path.exists(stale):
                os.remove(stale)
        self.started = time.monotonic()
        with open(self.out, "w") as out:
            self.proc = start(self.cmd, stdout=out, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, env=self.env)

    def kill(self):
        stop([self.proc])

    def poll(self):
        """None while it runs; then its (passed, failed, skipped), printed."""
        if self.proc.poll() is None:
            if time.monotonic() - self.started < self.bound:
                return None
            self.kill()
            FAILED.append((self.name, f"its run.py did not end within {self.bound} s",
                           self.logdir))
            print(f"  FAIL {self.name}: its run.py did not end within {self.bound} s "
                  f"(output: {os.path.relpath(self.out)})", flush=True)
            return 0, 1, 0
        with open(self.out, errors="replace") as f:
            sys.stdout.write(f.read())
        rc = self.proc.returncode
        try:
            with open(self.counts) as f:
                c = json.load(f)
            n = c["passed"] + c["failed"] + c["skipped"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            why = f"its run.py ended ({rc}) without its counts: {e}"
            FAILED.append((self.name, why, self.logdir))
            print(f"  FAIL {self.name}: {why} (output: {os.path.relpath(self.out)})", flush=True)
            return 0, 1, 0
        if n == 0 or rc != (1 if c["failed"] else 0):
            why = f"its run.py exited {rc} with {c['failed']} failed of {n}"
            FAILED.extend(tuple(x) for x in c["failed_list"])
            FAILED.append((self.name, why, self.logdir))
            print(f"  FAIL {self.name}: {why}", flush=True)
            return c["passed"], c["failed"] + 1, c["skipped"]
        FAILED.extend(tuple(x) for x in c["failed_list"])
        SKIPPED.extend(tuple(x) for x in c.get("skipped_list", []))
        return c["passed"], c["failed"], c["skipped"]


def may_start(child, running, jobs):
    """Whether `child` may start beside the `running` ones: an exclusive
    test beside no other guest, a guestless one beside any, the others
    beside no exclusive one; `jobs` at most.  One marked alone: nothing
    beside it."""
    if len(running) >= jobs or any(r.alone for r in running):
        return False
    if child.alone:
        return not running
    if child.exclusive:
        return all(r.guestless for r in running)
    return child.guestless or not any(r.exclusive for r in running)


def run_children(children, jobs):
    """Run the tests `jobs` at a time: those marked alone first, each with
    nothing beside it; then the exclusive ones, each with no other guest
    beside it, the guestless ones meanwhile; then the rest.  Returns the
    (passed, failed, skipped) of them all."""
    pending = sorted(children, key=lambda c: (not c.alone, not c.exclusive, not c.guestless))
    running = []
    passed = failed = skipped = 0
    started = 0
    try:
        while pending or running:
            while True:
                # the first that may start: the exclusive ones keep their
                # turn, as none other than a guestless one may start then
                child = next((c for c in pending if may_start(c, running, jobs)), None)
                if child is None:
                    break
                pending.remove(child)
                started += 1
                print(f"[{started}/{len(children)}] {child.name} ..."
                      + (" (alone)" if child.alone else " (exclusive)" if child.exclusive else
                         " (guestless, niced)" if child.guestless else ""), flush=True)
                # a stop between the fork and the list would leave it
                # running, unknown to the cleanup below
                old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
                try:
                    child.start()
                    running.append(child)
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, old)
            time.sleep(0.2)
            for child in list(running):
                result = child.poll()
                if result is not None:
                    running.remove(child)
                    passed += result[0]
                    failed += result[1]
                    skipped += result[2]
    finally:
        # on a stop: all are told at once, then reaped against one deadline
        for child in running:
            tell(child.proc)
        reap([child.proc for child in running], TERM_GRACE)
    return passed, failed, skipped


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False)
    ap.add_argument("-k", default="", help="run tests whose name contains this")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--dir", default=HERE, help="where the test_*.py files are")
    ap.add_argument("--kver", help="the kernel version to run on")
    ap.add_argument("--every-kernel", action="store_true",
                    help="only the tests marked every_kernel")
    ap.add_argument("--counts", help="write the counts here as JSON instead of "
                    "the final line (the other kernels' passes)")
    ap.add_argument("-j", "--jobs", type=int, help="tests at a time (default: 2 for "
                    "the whole suite where there are two cores, else 1)")
    ap.add_argument("--one", help=argparse.SUPPRESS)   # -j's children: this test only
    # the harness's tests: --dir's tests run as the whole suite would be,
    # the other kernels' pass included
    ap.add_argument("--as-suite", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    for sig in STOP_SIGNALS:
        signal.signal(sig, on_stop)
    # a -j child is started with them blocked (run_children), and a mask
    # is inherited: a stop that came meanwhile is taken here
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    if args.kver and args.kver != board.KVER:
        ap.error(f"--kver {args.kver}: the kernel is chosen before lib.board loads")
    if board.KVER not in board.LINUX_VERSIONS:
        ap.error(f"KVER {board.KVER}: not one of {' '.join(board.LINUX_VERSIONS)}")

    # the run its tests belong to, for what they share (test_upstream's
    # series): its children, and the runs its tests start, inherit it
    os.environ.setdefault("ENC_TEST_RUN", f"{os.getpid()}-{time.time_ns()}")
    where = os.path.abspath(args.dir)
    every_test = discover(where)
    tests = [(n, f) for n, f in every_test if args.k in n
             and (not args.every_kernel or getattr(f, "every_kernel", False)
                  and runs_on_flavour(f, board.KFLAVOR))
             and (args.one is None or n == args.one)]
    if args.list:
        print("\n".join(n for n, _ in tests))
        return 0
    whole_suite = (not args.k and not args.one and not args.every_kernel
                   and (args.as_suite or os.path.realpath(where) == os.path.realpath(HERE)))
    # the cores this process may use (affinity, not the host's count)
    jobs = args.jobs if args.jobs is not None else \
        (min(2, len(os.sched_getaffinity(0))) if whole_suite else 1)
    if jobs < 1:
        ap.error(f"-j {jobs}: at least 1")
    other_kernels = [v for v in board.LINUX_SUITE_VERSIONS if v != board.KVER] \
        if whole_suite else []
    if jobs > 1 and not args.one:
        children = [Child(board.KVER, n, f, where, args.every_kernel) for n, f in tests]
        missing = []
        for kver in other_kernels:
            theirs, flavour = other_kernel_tests(kver, every_test)
            mine = [Child(kver, n, f, where, True, flavour) for n, f in theirs]
            if not mine:
                missing.append((kver, flavour))
            children += mine
        passed, failed, skipped = run_children(children, jobs)
        for kver, flavour in missing:
            # a kernel of LINUX_SUITE_VERSIONS that ran nothing is not a pass
            FAILED.append((f"the run on Linux {kver}",
                           "no test marked every_kernel runs on its "
                           f"{'test' if flavour == 'debug' else 'production'} kernel",
                           os.path.join(BUILD, "test-logs", kver)))
            failed += 1
        return summary(args, passed, failed, skipped)
    logroot = os.path.join(BUILD, "test-logs")
    tag = ""
    if args.every_kernel:
        tag = f"[{board.KVER}]"
        logroot = os.path.join(logroot, board.KVER)
    os.makedirs(logroot, exist_ok=True)
    signal.signal(signal.SIGALRM, on_alarm)
    passed = failed = skipped = 0
    for i, (name, fn) in enumerate(tests, 1):
        if not args.one:
            print(f"[{i}/{len(tests)}] {name}{tag} ...", flush=True)
        p, f, sk = run_test(name, fn, logroot, tag)
        passed += p
        failed += f
        skipped += sk
    for kver in other_kernels:
        p, f, sk = other_kernel(kver, where, every_test)
        passed += p
        failed += f
        skipped += sk
    return summary(args, passed, failed, skipped)


def summary(args, passed, failed, skipped):
    """The counts as JSON (--counts) or the failures and the final line;
    the exit code."""
    if args.counts:
        with open(args.counts, "w") as f:
            json.dump({"passed": passed, "failed": failed, "skipped": skipped,
                       "failed_list": FAILED, "skipped_list": SKIPPED}, f)
        return 0 if failed == 0 else 1
    if SKIPPED:
        # counted apart, never as a pass: which, and why
        print("skipped:")
        for what, why, logdir in SKIPPED:
            print(f"  {what}: {why[:200]} (logs: {os.path.relpath(logdir)})")
    if FAILED:
        # the run's output is long: what failed, again, where it is read last
        print("failed:")
        for what, why, logdir in FAILED:
            print(f"  {what}: {why[:200]} (logs: {os.path.relpath(logdir)})")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""),
          flush=True)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt as e:
        print(f"run.py: stopped ({str(e) or 'SIGINT'})", file=sys.stderr, flush=True)
        sys.exit(130)
