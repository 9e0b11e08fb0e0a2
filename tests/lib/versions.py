"""config/versions.sh, the one place for versions, as the tests read it."""
import os

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def versions_sh(name):
    """A variable of config/versions.sh."""
    with open(os.path.join(TOP, "config", "versions.sh")) as f:
        for line in f:
            if line.startswith(f"{name}="):
                return line.split("=", 1)[1].strip().strip('"')
    raise KeyError(f"{name} not in config/versions.sh")


def flavour_for(kver, asked="debug"):
    """The kernel flavour the suite boots `kver` in: the one asked for (the
    test kernel, unless told otherwise) on a kernel whose test kernel the
    build makes (LINUX_TEST_KERNELS), else the production one: the build
    makes no other (Makefile, images-others)."""
    return asked if kver in versions_sh("LINUX_TEST_KERNELS").split() else ""
