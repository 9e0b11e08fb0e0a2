"""The build is keyed on its inputs: with nothing changed, nothing rebuilds."""
import os
import re
import subprocess

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

STEPS = ["host packages: all present", "kernel: up to date", "driver: up to date",
         "kunit modules: up to date",
         "QEMU: up to date", "initramfs: up to date", "kernel image: up to date",
         "device tree: up to date",
         # the test kernel and what is built against it
         "kernel (debug): up to date", "driver (debug): up to date",
         "initramfs (debug): up to date", "kernel image (debug): up to date"]


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
