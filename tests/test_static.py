"""Static checks of the kernel-side code that is not the driver itself
(the driver's own are in test_driver_build): the KUnit modules build W=1
and sparse clean, and the overlay compiles without a dtc warning."""
import os
import subprocess

from lib.board import BUILD

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
KINC = os.path.join(BUILD, "linux", "src", "include")


def test_kunit_modules_w1_sparse_clean(logdir):
    p = subprocess.run(["make", "-C", TOP, "--no-print-directory", "kunit-check"],
                       capture_output=True, text=True, timeout=600)
    with open(os.path.join(logdir, "kunit-check.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "W=1 and sparse clean" in p.stdout
    log = open(os.path.join(BUILD, "logs", "kunit-build-check.log")).read()
    assert log.count("  CHECK ") >= 2, "sparse did not run on the test modules"


def test_overlay_compiles_without_dtc_warnings(logdir):
    src = os.path.join(TOP, "dts", "encx24j600-versatilepb.dtso")
    pp = os.path.join(logdir, "overlay.pp.dts")
    p = subprocess.run(["cpp", "-nostdinc", "-undef", "-x", "assembler-with-cpp",
                        "-D__DTS__", "-I", KINC, src, "-o", pp],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    p = subprocess.run(["dtc", "-@", "-I", "dts", "-O", "dtb", "-o",
                        os.path.join(logdir, "overlay.dtbo"), pp],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert not p.stderr.strip(), f"dtc warnings:\n{p.stderr}"
