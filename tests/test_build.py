"""The build is keyed on its inputs: with nothing changed, nothing rebuilds."""
import os
import re
import subprocess

from lib.board import KVER, LINUX_SUITE_VERSIONS

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

STEPS = ["host packages: all present", "QEMU: up to date"] + [
    f"{step} ({name}): up to date"
    # the production kernel, the test kernel, and what is built against
    # each, for every kernel the suite boots
    for version in [KVER] + [v for v in LINUX_SUITE_VERSIONS if v != KVER]
    for name in (version, f"{version} debug")
    for step in ("kernel", "driver", "kunit modules", "initramfs", "kernel image",
                 "device tree")]


def test_second_build_rebuilds_nothing(logdir):
    p = subprocess.run(["make", "-C", TOP, "--no-print-directory", "build"],
                       capture_output=True, text=True, timeout=600)
    with open(os.path.join(logdir, "make-build.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    assert p.returncode == 0, f"make build failed:\n{p.stderr[-2000:]}"
    ran = [l for l in p.stdout.splitlines() if re.search(r" done in \d+s$", l)]
    assert not ran, "steps ran although no input changed:\n" + "\n".join(ran)
    missing = [s for s in STEPS if s not in p.stdout]
    assert not missing, f"steps that did not report 'up to date': {missing}"

# make build must not run under the images other tests boot, nor beside
# a guestless test's build (driver-check, kunit-check, the ASan QEMU),
# which would race it or rebuild a step first and hide it
test_second_build_rebuilds_nothing.alone = True
