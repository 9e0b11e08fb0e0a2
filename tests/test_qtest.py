"""The model's qtest (added by the QEMU series): every case counts.

The qtest drives the PL022 and the GPIO chip select exactly as a driver
would, and moves frames through a socket netdev."""
import os
import re
import subprocess

from lib.board import BUILD, QEMU

QTEST = os.path.join(BUILD, "qemu", "obj", "tests", "qtest", "encx24j600-test")
TAP = re.compile(r"^(ok|not ok) \d+ (\S+)(.*)$")


def test_model_qtest(logdir):
    env = dict(os.environ, QTEST_QEMU_BINARY=QEMU)
    p = subprocess.run([QTEST, "--tap", "-k"], capture_output=True, text=True,
                       env=env, timeout=240)
    log = os.path.join(logdir, "qtest.log")
    with open(log, "w") as f:
        f.write(p.stdout + p.stderr)
    subs = []
    for line in p.stdout.splitlines():
        m = TAP.match(line)
        if m:
            ok = m.group(1) == "ok" and "# SKIP" not in m.group(3)
            subs.append((m.group(2), ok, "" if ok else f"see {log}"))
    if p.returncode != 0 and all(ok for _, ok, _ in subs):
        subs.append(("exit-status", False,
                     f"qtest exited {p.returncode}: {p.stderr.strip()[-500:]} (see {log})"))
    return subs
