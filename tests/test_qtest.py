"""The QEMU series' qtests: every case counts.

The model's qtest drives the PL022 and the GPIO chip select exactly as a
driver would, and moves frames through a socket netdev; the PL061's checks
the interrupt detection the series fixes."""
import os
import re
import subprocess

from lib.board import BUILD, QEMU

# No board boots here: these run beside the exclusive tests (run.py)
GUESTLESS = True

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TAP = re.compile(r"^(ok|not ok) \d+ (\S+)(.*)$")
ADD_FUNC = re.compile(r'qtest_add_func\("([^"]+)"')
# Each qtest's source (under qemu/) and the number of cases it has: counted
# here, not taken from the binary's own plan, so a case that is dropped
# (from the source or at run time) fails.  Change it with the source.
QTEST_SOURCE = "qemu/tests/qtest/encx24j600-test.c"
QTEST_CASES = 109
PL061_SOURCE = "qemu/tests/qtest/pl061-test.c"
PL061_CASES = 5


def source_cases(source):
    """The case paths a qtest source registers."""
    return ADD_FUNC.findall(open(os.path.join(TOP, source)).read())


def run_qtest(logdir, source, cases, timeout):
    """Run the qtest built from SOURCE: a sub-result per TAP case, then
    that the source registers CASES cases and that every one of them ran."""
    name = os.path.basename(source)[:-2]
    binary = os.path.join(BUILD, "qemu", "obj", "tests", "qtest", name)
    env = dict(os.environ, QTEST_QEMU_BINARY=QEMU)
    p = subprocess.run([binary, "--tap", "-k"], capture_output=True, text=True,
                       env=env, timeout=timeout)
    log = os.path.join(logdir, f"{name}.log")
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
    want = source_cases(source)
    subs.append((f"the source registers the {cases} cases counted here",
                 len(want) == cases, f"{source} registers {len(want)}"))
    ran = [n.split("/", 2)[-1] for n, _, _ in subs[:-1]]
    missing = [n for n in want if n not in ran]
    subs.append((f"every registered case ran ({len(ran)} of {len(want)})",
                 not missing and len(ran) == len(want), f"did not run: {missing[:10]}"))
    if p.returncode != 0 and all(ok is not False for _, ok, _ in subs):
        subs.append(("exit-status", False,
                     f"qtest exited {p.returncode}: {p.stderr.strip()[-500:]} (see {log})"))
    return subs


def test_model_qtest(logdir):
    return run_qtest(logdir, QTEST_SOURCE, QTEST_CASES, 240)


def test_pl061_qtest(logdir):
    """QEMU's PL061 as the series fixes it: level interrupts follow the pin,
    edges latch (the virt machine's power button moves line 3)."""
    return run_qtest(logdir, PL061_SOURCE, PL061_CASES, 60)


# A case's source, in the comment above its function: a datasheet rule
# ("DS ... text read"), a rule chip-facts infers or takes from a driver
# ("[inferred: ..."), or the model's own machinery ("model: ...")
SOURCE_KINDS = (("datasheet", re.compile(r"Source: DS .*text read")),
                ("inferred", re.compile(r"Source: .*\[inferred")),
                ("model", re.compile(r"Source: model:")))


def case_sources(source):
    """{case path: kind} for each case a qtest source registers, the kind
    read from the comment right above its function (None: no source)."""
    text = open(os.path.join(TOP, source)).read()
    funcs = dict(re.findall(r'qtest_add_func\("([^"]+)",\s*(\w+)\)', text))
    kinds = {}
    for case, func in funcs.items():
        m = re.search(r"((?:/\*(?:[^*]|\*(?!/))*\*/\s*)+)static void " + func + r"\(void\)",
                      text)
        comment = " ".join(m.group(1).split()) if m else ""
        comment = re.sub(r"\s*\* ", " ", comment)
        kinds[case] = next((k for k, rx in SOURCE_KINDS if rx.search(comment)), None)
    return kinds


def test_model_qtest_cases_name_their_source(logdir):
    """The qtest is the model's specification (issue 31): every case names
    where its rule comes from, the datasheet's and chip-facts' rules
    outnumber the model's own checks, and docs/qemu-model.md gives the
    tally this source has."""
    kinds = case_sources(QTEST_SOURCE)
    none = sorted(c for c, k in kinds.items() if k is None)
    tally = {k: sum(1 for v in kinds.values() if v == k) for k, _ in SOURCE_KINDS}
    with open(os.path.join(TOP, "docs", "qemu-model.md")) as f:
        doc = f.read()
    words = (r"Of the (\d+) cases, (\d+) check a rule the datasheet's text states, (\d+) "
             r"one chip-facts infers or takes from a driver, and (\d+) the model's own")
    m = re.search(words.replace(" ", r"\s+"), doc)
    said = tuple(int(x) for x in m.groups()) if m else None
    return [
        (f"every one of the {len(kinds)} cases names its source", not none and bool(kinds),
         f"no Source comment above: {none[:10]}"),
        ("datasheet and chip-facts rules outnumber the model's own checks",
         tally["datasheet"] + tally["inferred"] > tally["model"], str(tally)),
        ("docs/qemu-model.md gives this tally",
         said == (len(kinds), tally["datasheet"], tally["inferred"], tally["model"]),
         f"docs say {said}, the source has {tally}"),
    ]

