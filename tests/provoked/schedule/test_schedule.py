"""Tests that show how run.py -j schedules them: tests/test_harness.py runs
them and reads what each wrote to ENC_SCHEDULE_OUT (when it ran, at which
niceness, whether the guestless guard was set).  None boots a guest but
the one that must fail for it."""
import json
import os
import time

from lib.board import GUESTLESS_ENV, Board


def wait_for(out, name):
    """Until `name` is in out, 120 s at most: a niced child may be slow to
    start on a loaded machine."""
    end = time.monotonic() + 120
    while not os.path.exists(os.path.join(out, name)) and time.monotonic() < end:
        time.sleep(0.1)


def record(name, seconds, until=None, after=None):
    """Write when the test ran: from its start (once `after`, another
    test, has started) to the end of `seconds`, or to once `until`,
    another test, has ended."""
    out = os.environ.get("ENC_SCHEDULE_OUT")
    assert out, "run by test_harness with ENC_SCHEDULE_OUT set"
    if after:
        wait_for(out, f"{after}.started")
    start = time.time()
    open(os.path.join(out, f"{name}.started"), "w").close()
    if until:
        wait_for(out, f"{until}.json")
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
    # once the exclusive test is under way: both started at once, either
    # child may be the slower to get there
    record("guestless", 0.5, after="exclusive")


test_schedule_guestless.guestless = True


def test_schedule_plain(logdir):
    record("plain", 0.5)


def test_schedule_guestless_boots(logdir):
    """Marked guestless but boots a board: must fail before QEMU starts."""
    record("guestless_boots", 0)
    with Board(logdir):
        pass


test_schedule_guestless_boots.guestless = True
