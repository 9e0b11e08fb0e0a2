"""Kernel problems made on purpose, to show that the suite, the soak and
the benchmark fail on them (tests/test_harness.py).  The test kernel
builds the kernel's own provoker, lkdtm (config/linux-debug.fragment):
writing a crash type's name to its DIRECT file runs it once."""

LKDTM_DIRECT = "/sys/kernel/debug/provoke-crash/DIRECT"

# lkdtm crash types the guest survives
PROVOCATIONS = ("WARNING",)     # WARN_ON(1)


def provoke(b, what):
    """Make the guest kernel report `what` (one of PROVOCATIONS), where
    only the kernel log stream can see it: a WARN is KERN_WARNING, below
    the console's level, and dmesg is cleared right after it."""
    if what not in PROVOCATIONS:
        raise ValueError(f"cannot provoke {what!r}: one of {', '.join(PROVOCATIONS)}")
    b.run("modprobe lkdtm", timeout=60)
    b.run(f"echo {what} > {LKDTM_DIRECT}; dmesg -c >/dev/null", timeout=30)
