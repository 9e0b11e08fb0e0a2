"""A test that runs until it is stopped: tests/test_harness.py runs it with
run.py and stops the run with SIGTERM, as a CI job's end or a Ctrl-C
would.  It holds what a test can leave behind: a board (its QEMU is in the
run.py's process group) and a script in a session of its own (run_script,
as the bench and soak checks start theirs), named by ENC_STOP_MARK so the
harness can look for it."""
import os
import sys

from lib.board import Board
from lib.proc import run_script


def test_stop_mid_run(logdir):
    mark = os.environ.get("ENC_STOP_MARK")
    assert mark, "run by test_harness with ENC_STOP_MARK set"
    with Board(logdir):
        with open(os.path.join(logdir, "ready"), "w") as f:
            f.write(f"{os.getpid()}\n")
        run_script([sys.executable, "-c", "import time; time.sleep(600)", mark], timeout=600)
    return "not stopped"


test_stop_mid_run.timeout = 660
