"""Hardening of the ENCX24J600 model: a short randomized run.

20,000 random chip-select framed SPI commands and random frames of 0 to
65535 bytes against the ASan+UBSan build of QEMU, in two runs: one with
the model computing every frame's FCS, one with the frames taken as the
wire's bytes (x-rx-fcs=on: bad CRCs, true runts).  Any sanitizer report,
crash or hang fails.  `make fuzz` runs the long version (one million
commands) with the same driver, scripts/fuzz-model.py.

The seeds are fixed (1 and 2) so that a failure reproduces; another pair
with ENCX_FUZZ_SEED=N in the environment.
"""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "fuzz_model", os.path.join(HERE, "..", "scripts", "fuzz-model.py"))
fuzz_model = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz_model)


def test_model_fuzz_short(logdir):
    seed = int(os.environ.get("ENCX_FUZZ_SEED", fuzz_model.DEFAULT_SEED))
    # seeds seed and seed + 1: one even (x-rx-fcs off), one odd (on); the
    # default pair has a paced wire with a port buffer and an unpaced one
    return fuzz_model.run(20000, seed, logdir, jobs=2, timeout=240)


# Builds the ASan QEMU first if `make qemu-asan` has not.
test_model_fuzz_short.timeout = 1500
# no board: it runs beside the exclusive tests (run.py)
test_model_fuzz_short.guestless = True
