"""Tests that show how run.py -j schedules them: tests/test_harness.py runs
them and reads what each wrote to ENC_SCHEDULE_OUT (when it ran, at which
niceness, whether the guestless guard was set).  None boots a guest but
the one that must fail for it."""
import json
import os
import time

from lib.board import GUESTLESS_ENV, Board


def record(name, seconds, until=None):
    """Write when the test ran, after `seconds`, or once `until` (another
    test's record) is there, 120 s at most: a niced child may be slow to
    start on a loaded machine."""
    out = os.environ.get("ENC_SCHEDULE_OUT")
    assert out, "run by test_harness with ENC_SCHEDULE_OUT set"
    start = time.time()
    if until:
        end = time.monotonic() + 120
        while not os.path.exists(os.path.join(out, f"{until}.json")) \
                and time.monotonic() < end:
            time.sleep(0.1)
        time.sleep(0.5)     # beyond the other's own end
    time.sleep(seconds)
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump({"start": start, "end": time.time(), "nice": os.nice(0),
                   "guard": os.environ.get(GUESTLESS_ENV)}, f)


def test_schedule_alone(logdir):
    record("alone", 3)


test_schedule_alone.alone = True


def test_schedule_exclusive(logdir):
    # long enough for the guestless test beside it to run
    record("exclusive", 0, until="guestless")


test_schedule_exclusive.exclusive = True


def test_schedule_guestless(logdir):
    record("guestless", 0.5)


test_schedule_guestless.guestless = True


def test_schedule_plain(logdir):
    record("plain", 0.5)


def test_schedule_guestless_boots(logdir):
    """Marked guestless but boots a board: must fail before QEMU starts."""
    record("guestless_boots", 0)
    with Board(logdir):
        pass


test_schedule_guestless_boots.guestless = True
