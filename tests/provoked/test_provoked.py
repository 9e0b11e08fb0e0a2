"""Tests that must fail: each breaks one thing the harness has to notice.
They are not part of the suite (tests/run.py reads tests/ only);
tests/test_harness.py runs them with `run.py -j 2 --dir tests/provoked` and
checks that each fails for its own reason, and that the control passes.

The WARNs here are made with lib/provoke.py: a KERN_WARNING report that
never reaches the console and is cleared from dmesg at once, so only the
kernel log stream can see it."""
import os
import time

from lib.board import Board
from lib.provoke import provoke


def test_provoked_control(logdir):
    """The same steps as the WARN below, without the WARN: passes."""
    with Board(logdir) as b:
        b.run("modprobe lkdtm", timeout=60)
        b.run("dmesg -c >/dev/null")
        return "nothing provoked"


def test_provoked_warning(logdir):
    """A WARN_ON in the guest kernel; the test itself goes on as if
    nothing happened."""
    with Board(logdir) as b:
        provoke(b, "WARNING")
        return "the test saw nothing wrong"


FILLER_RECORDS = 1300


def test_provoked_lost_log(logdir):
    """The kernel log stream falls behind: its reader is stopped, a WARN
    is logged and more than the 1 MiB ring is written after it, so the
    WARN is gone from the ring before anyone read it."""
    with Board(logdir) as b:
        b.run("killall -STOP cat")
        provoke(b, "WARNING")
        # ~1.2 MiB in records of 980 bytes (/dev/kmsg takes up to 992)
        b.run("s=$(head -c 960 /dev/zero | tr '\\0' x); i=0; "
              f"while [ $i -lt {FILLER_RECORDS} ]; do "
              "echo \"filler $i $s\" >/dev/kmsg; i=$((i+1)); done", timeout=240)
        b.run("killall -CONT cat")
        last = f"filler {FILLER_RECORDS - 1} "
        end = time.monotonic() + 60
        while last not in b.kernel_log_text() and time.monotonic() < end:
            time.sleep(0.2)
        return "the test saw nothing wrong"


test_provoked_lost_log.timeout = 400


def test_provoked_silent_guest(logdir):
    """The guest stops answering before the end of the test: its leaks
    and log cannot be checked."""
    with Board(logdir) as b:
        # the same failure as with the real bound, sooner
        b.answer_bound = 5
        b.send("sleep 100000\n")
        return "the test saw nothing wrong"


def test_provoked_qemu_gone(logdir):
    """A WARN, then QEMU dies under the test: both must be reported."""
    with Board(logdir) as b:
        provoke(b, "WARNING")
        # the WARN has reached the host (the stream) before QEMU goes
        end = time.monotonic() + 30
        while "WARNING: CPU:" not in b.kernel_log_text():
            assert time.monotonic() < end, "the WARN did not reach the kernel log stream"
            time.sleep(0.2)
        b.proc.kill()
        b.proc.wait()
        return "the test saw nothing wrong"


def test_provoked_runner_dies(logdir):
    """The run.py that runs this test dies under it (run.py -j runs each
    test in a run.py of its own, as the whole suite does): a failure,
    never a test missing from the count."""
    os._exit(3)
