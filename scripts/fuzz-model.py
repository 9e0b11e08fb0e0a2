#!/usr/bin/env python3
"""Randomized robustness run of the ENCX24J600 model on the ASan+UBSan QEMU.

Runs the QEMU series' encx24j600-fuzz-test (random chip-select framed SPI
commands through the PL022, random frames of 0-65535 bytes through a
socket netdev, link changes and resets) against build/qemu/obj-asan, and
fails on any sanitizer report, QEMU crash or hang.  Odd seeds run the model
with x-rx-fcs=on (frames taken as the wire's bytes: bad CRCs, true runts), so
two or more jobs cover both ways of receiving; seed / 2 picks the wire (paced
with a 128 KiB port buffer, unpaced, paced without a buffer, a small one).

  fuzz-model.py                       1,000,000 commands (make fuzz)
  fuzz-model.py --commands 20000      the short run of the test suite
  fuzz-model.py --seed 7 --jobs 2     seeds 7 and 8 (default: a random first
                                      seed, printed, so that long runs explore;
                                      the suite's short run uses DEFAULT_SEED)

The ASan build comes from `SANITIZE=1 scripts/build-qemu.sh` (make qemu-asan).
"""
import argparse
import os
import random
import re
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
# The suite's first seed, fixed so that a failure there reproduces
DEFAULT_SEED = 1
OBJ = os.path.join(BUILD, "qemu", "obj-asan")
QEMU = os.path.join(OBJ, "qemu-system-arm")
FUZZ = os.path.join(OBJ, "tests", "qtest", "encx24j600-fuzz-test")

SANITIZER = re.compile(r"(runtime error|AddressSanitizer|UndefinedBehaviorSanitizer|"
                       r"LeakSanitizer|SUMMARY: \w+Sanitizer)")
SUMMARY = re.compile(r"# (\d+) commands, .* in ([\d.]+) s")


def ensure_build():
    if os.access(QEMU, os.X_OK) and os.access(FUZZ, os.X_OK):
        return
    subprocess.run([os.path.join(TOP, "scripts", "build-qemu.sh")], check=True,
                   env=dict(os.environ, SANITIZE="1"))


def run(commands, seed, logdir, jobs=1, timeout=None):
    """Run the fuzzer; returns a summary string, raises AssertionError."""
    ensure_build()
    os.makedirs(logdir, exist_ok=True)
    env = dict(os.environ, QTEST_QEMU_BINARY=QEMU,
               # Leaks at exit are not what this run looks for; everything
               # else (out-of-bounds, use-after-free, UB) is fatal or logged.
               ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1")
    start = time.monotonic()
    procs = []
    per_job = [commands // jobs + (1 if i < commands % jobs else 0) for i in range(jobs)]
    for i, n in enumerate(per_job):
        log = os.path.join(logdir, f"fuzz-{seed + i}.log")
        f = open(log, "w")
        penv = dict(env, ENCX_FUZZ_COMMANDS=str(n), ENCX_FUZZ_SEED=str(seed + i))
        p = subprocess.Popen([FUZZ, "--tap", "-k"], stdout=f, stderr=subprocess.STDOUT,
                             env=penv, cwd=OBJ)
        procs.append((p, f, log, seed + i))
    failures, done = [], 0
    for p, f, log, s in procs:
        try:
            left = None if timeout is None else max(1, timeout - (time.monotonic() - start))
            p.wait(timeout=left)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            failures.append(f"seed {s}: timed out (hang?), see {log}")
        f.close()
        text = open(log, errors="replace").read()
        bad = [l for l in text.splitlines() if SANITIZER.search(l)]
        m = SUMMARY.search(text)
        if bad:
            failures.append(f"seed {s}: sanitizer report: {bad[0]} (see {log})")
        elif p.returncode != 0 or not m or "\nok 1 " not in "\n" + text:
            failures.append(f"seed {s}: fuzz test failed (exit {p.returncode}), see {log}")
        else:
            done += int(m.group(1))
    elapsed = time.monotonic() - start
    if failures:
        raise AssertionError("\n".join(failures))
    return (f"{done} random CS-framed commands, seeds {seed}..{seed + jobs - 1}, "
            f"{elapsed:.0f} s on the ASan+UBSan build, no sanitizer reports")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commands", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1, 1 << 30)
    logdir = os.path.join(BUILD, "test-logs", "fuzz-model")
    print(f"fuzzing the ENCX24J600 model: {args.commands} commands, seed {seed}, "
          f"{args.jobs} jobs (logs: {os.path.relpath(logdir)})", flush=True)
    try:
        print(run(args.commands, seed, logdir, jobs=args.jobs))
    except AssertionError as e:
        print(f"FAIL: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
