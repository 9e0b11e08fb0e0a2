"""QEMU's own qtests that cover the versatile boards still pass with the
series applied (it adds the PL022 to both boards and the NIC to the QOM
tree): qom-test and test-hmp on versatilepb and versatileab, and
device-introspect-test (every device type, ours included, plus the
versatile boards' default devices).  Every TAP case counts as one result.
"""
import os
import re
import subprocess

from lib.board import BUILD, QEMU

# No board boots here: these run beside the exclusive tests (run.py)
GUESTLESS = True

QTESTS = os.path.join(BUILD, "qemu", "obj", "tests", "qtest")
TAP = re.compile(r"^(ok|not ok) \d+ (\S+)(.*)$")
RUNS = [
    ("qom-test", ["-p", "/arm/qom/versatilepb", "-p", "/arm/qom/versatileab"]),
    ("test-hmp", ["-p", "/arm/hmp/versatilepb", "-p", "/arm/hmp/versatileab"]),
    ("device-introspect-test", []),
    ("device-introspect-test",
     ["-m", "slow",
      "-p", "/arm/device/introspect/concrete/defaults/versatilepb",
      "-p", "/arm/device/introspect/concrete/defaults/versatileab"]),
]


def test_qemu_qtests_versatile(logdir):
    env = dict(os.environ, QTEST_QEMU_BINARY=QEMU)
    subs = []
    for i, (name, args) in enumerate(RUNS):
        exe = os.path.join(QTESTS, name)
        if not os.access(exe, os.X_OK):
            subs.append((name, False, f"{exe} missing: run 'make qemu'"))
            continue
        p = subprocess.run([exe, "--tap", "-k"] + args, capture_output=True,
                           text=True, env=env, timeout=200)
        log = os.path.join(logdir, f"{name}-{i}.log")
        with open(log, "w") as f:
            f.write(p.stdout + p.stderr)
        got = []
        for line in p.stdout.splitlines():
            m = TAP.match(line)
            if m:
                ok = m.group(1) == "ok" and "# SKIP" not in m.group(3)
                got.append((m.group(2), ok, "" if ok else f"see {log}"))
        if not got or (p.returncode != 0 and all(ok for _, ok, _ in got)):
            got.append((f"{name}-exit", False,
                        f"{name} exited {p.returncode} (see {log})"))
        subs += got
    return subs


test_qemu_qtests_versatile.timeout = 300
