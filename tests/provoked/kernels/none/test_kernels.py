"""Run by tests/test_harness.py as the whole suite would be (run.py
--as-suite): no test here is marked every_kernel, so the other kernels of
LINUX_SUITE_VERSIONS would run nothing, and that must fail the run, not
pass it."""
from lib.board import KVER


def test_kernels_passes_here_only(logdir):
    return f"ran on Linux {KVER}"
