"""Run by tests/test_harness.py as the whole suite would be (run.py
--as-suite): a test marked every_kernel must run, and fail, once on each
kernel of LINUX_SUITE_VERSIONS, the others' named "[version]"; a test not
marked runs once.  No board: what is checked is the runner."""
from lib.board import KVER


def test_kernels_fails_on_each_kernel(logdir):
    raise AssertionError(f"provoked on Linux {KVER}")


test_kernels_fails_on_each_kernel.every_kernel = True


def test_kernels_passes_here_only(logdir):
    return f"ran on Linux {KVER}"
