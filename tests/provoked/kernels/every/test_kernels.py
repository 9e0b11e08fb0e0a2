"""Run by tests/test_harness.py as the whole suite would be (run.py
--as-suite): a test marked every_kernel must run, and fail, once on each
kernel of LINUX_SUITE_VERSIONS, the others' named "[version]", in the
flavour the suite boots there; one marked test_kernel too only on the
kernels of LINUX_TEST_KERNELS; a test not marked runs once; a skip is
counted and listed apart; a test past its time bound fails.  No board:
what is checked is the runner."""
import time

from lib.board import KFLAVOR, KVER
from lib.skip import Skip


def test_kernels_fails_on_each_kernel(logdir):
    raise AssertionError(f"provoked on Linux {KVER}, {KFLAVOR or 'production'} kernel")


test_kernels_fails_on_each_kernel.every_kernel = True


def test_kernels_fails_on_each_test_kernel(logdir):
    raise AssertionError(f"provoked on Linux {KVER}, {KFLAVOR or 'production'} kernel")


test_kernels_fails_on_each_test_kernel.every_kernel = True
test_kernels_fails_on_each_test_kernel.test_kernel = True


def test_kernels_passes_here_only(logdir):
    return f"ran on Linux {KVER}"


def test_kernels_skips(logdir):
    raise Skip("provoked: counted apart and listed, never a pass")


def test_kernels_overruns_its_bound(logdir):
    time.sleep(30)
    return "ran past its bound"


test_kernels_overruns_its_bound.timeout = 2
