"""A test that cannot run here says so: raise Skip("why").  tests/run.py
counts it as skipped, never as passed or failed."""


class Skip(Exception):
    pass


def needs_test_kernel(why):
    """Skip unless the suite runs on the test kernel (KFLAVOR=debug, the
    default of tests/run.py): for tests of what only it has."""
    from lib.board import KFLAVOR
    if KFLAVOR != "debug":
        raise Skip(f"needs the test kernel ({why}): run with KFLAVOR=debug")
