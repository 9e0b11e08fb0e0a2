"""The model's qtest (added by the QEMU series): every case counts.

The qtest drives the PL022 and the GPIO chip select exactly as a driver
would, and moves frames through a socket netdev."""
import os
import re
import subprocess

from lib.board import BUILD, QEMU

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
QTEST = os.path.join(BUILD, "qemu", "obj", "tests", "qtest", "encx24j600-test")
TAP = re.compile(r"^(ok|not ok) \d+ (\S+)(.*)$")
# The qtest's source (under qemu/) and the number of cases it has: counted
# here, not taken from the binary's own plan, so a case that is dropped
# (from the source or at run time) fails.  Change it with the source.
QTEST_SOURCE = "qemu/tests/qtest/encx24j600-test.c"
QTEST_CASES = 92
ADD_FUNC = re.compile(r'qtest_add_func\("([^"]+)"')


def source_cases():
    """The case paths QTEST_SOURCE registers."""
    return ADD_FUNC.findall(open(os.path.join(TOP, QTEST_SOURCE)).read())


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
            if "# SKIP" in m.group(3):
                subs.append((m.group(2), None, m.group(3).strip()))
            else:
                ok = m.group(1) == "ok"
                subs.append((m.group(2), ok, "" if ok else f"see {log}"))
    want = source_cases()
    subs.append((f"the source registers the {QTEST_CASES} cases counted here",
                 len(want) == QTEST_CASES, f"{QTEST_SOURCE} registers {len(want)}"))
    ran = [n.rsplit("/encx24j600/", 1)[-1] for n, _, _ in subs[:-1]]
    missing = [n for n in want if n.split("/", 1)[-1] not in ran]
    subs.append((f"every registered case ran ({len(ran)} of {len(want)})",
                 not missing and len(ran) == len(want), f"did not run: {missing[:10]}"))
    if p.returncode != 0 and all(ok is not False for _, ok, _ in subs):
        subs.append(("exit-status", False,
                     f"qtest exited {p.returncode}: {p.stderr.strip()[-500:]} (see {log})"))
    return subs
