"""KUnit in the booted guest: the regmap core features the driver rests on
(the bus update_bits offload of Linux 4.4 among them: tests/kunit/regmap) and
the driver's pure logic (tests/kunit/enc424j600).

Each test module runs its suite when modprobe loads it; the results are
read back as KTAP from debugfs and every KUnit case counts as one result
in the suite's totals.  The regmap debugfs "range" file is read here, from
user space, in pieces of every size at every offset.
"""
import os
import re

from lib.board import Board

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# (module, KUnit suite, its source, the number of cases it has): the cases
# are counted here, not taken from the suite's own plan, so a case that
# is dropped (from the source or at run time) fails.  Change the number
# with the source.
SUITES = [("regmap_bus_kunit", "regmap_bus", "tests/kunit/regmap/regmap_bus_kunit.c", 10),
          ("enc424j600_kunit", "enc424j600_logic",
           "tests/kunit/enc424j600/enc424j600_kunit.c", 17)]
KUNIT_CASE = re.compile(r"^\s*KUNIT_CASE\((\w+)\)", re.M)


def source_cases(path):
    with open(os.path.join(TOP, path)) as f:
        return KUNIT_CASE.findall(f.read())

# The map tests/kunit/regmap keeps while loaded: device "regmap-bus-kunit-
# debugfs", map name "range", readable 0-3, 8-b, 10, 20-2f with 22
# precious (regmap debugfs hides precious registers).
RANGE_FILE = "/sys/kernel/debug/regmap/regmap-bus-kunit-debugfs-range/range"
RANGE_TEXT = "0-3\n8-b\n10-10\n20-21\n23-2f\n"

RESULT_RE = re.compile(r"^(\s*)(ok|not ok) (\d+)(?: -)? ([^#\s]+)\s*(?:#\s*(.*))?$")
PLAN_RE = re.compile(r"^(\s*)1\.\.(\d+)\s*$")


def parse_ktap(text):
    """KTAP of one suite -> (cases, plan, suite_ok).

    cases: [(name, ok, detail)], one per test case (the results one level
    below the suite line); ok is None for a skipped case.
    plan: the number of cases the suite announced (None if missing).
    """
    lines = text.replace("\r", "").splitlines()
    levels = []
    for l in lines:
        m = RESULT_RE.match(l)
        if m:
            levels.append(len(m.group(1)))
    if not levels:
        return [], None, False
    top = min(levels)
    inner = sorted({n for n in levels if n > top})
    case_level = inner[0] if inner else None
    cases, plan, suite_ok, diag = [], None, False, []
    for l in lines:
        m = PLAN_RE.match(l)
        if m and len(m.group(1)) == case_level:
            plan = int(m.group(2))
            continue
        m = RESULT_RE.match(l)
        if not m:
            s = l.strip()
            if s.startswith("#") and not s.startswith("# Subtest"):
                diag.append(s[1:].strip())
            continue
        indent, status, name, directive = (len(m.group(1)), m.group(2),
                                           m.group(4), m.group(5) or "")
        if indent == top:
            suite_ok = status == "ok"
        elif indent == case_level:
            ok = status == "ok"
            detail = "\n".join(diag)
            if directive.upper().startswith("SKIP"):
                ok = None
                detail = (directive + "\n" + detail).strip()
            cases.append((name, ok, detail))
            diag = []
    return cases, plan, suite_ok


def range_reads(b):
    """Read the range file with every (offset, count): one read() each.

    One guest command per offset, each bounded on its own, and dd alone per
    read (its bytes framed by markers): a slow guest takes longer, not fails."""
    n = len(RANGE_TEXT)
    got = {}
    for k in range(n + 1):
        out = b.run(f"for c in $(seq 1 {n + 1}); do printf '@%s<' $c; "
                    f"dd if={RANGE_FILE} bs=$c skip={k} iflag=skip_bytes "
                    f"count=1 2>/dev/null; printf '>\\n'; done", timeout=90)[1]
        for m in re.finditer(r"@(\d+)<(.*?)>", out.replace("\r\n", "\n"), re.S):
            got[(k, int(m.group(1)))] = m.group(2)
    return got


def check_range_file(b):
    """The range file lists each block as base-max lines, and reading it in
    pieces of any size, or once at any offset, gives the same text (the 6.1
    read() did not: patches/linux serves the file through seq_file)."""
    results = []
    full = b.out(f"cat {RANGE_FILE}") + "\n"
    results.append(("range: lists each readable block as base-max lines",
                    full == RANGE_TEXT, f"got {full!r}, want {RANGE_TEXT!r}"))

    n = len(RANGE_TEXT)
    bad = []
    for c in range(1, n + 2):
        got = b.out(f"dd if={RANGE_FILE} bs={c} 2>/dev/null | tr '\\n' '|'")
        got = got.replace("|", "\n")
        if got != RANGE_TEXT:
            bad.append(f"pieces of {c}: {got!r}")
    results.append((f"range: read in pieces of 1..{n + 1} bytes gives the same text",
                    not bad, "\n".join(bad)))

    got = range_reads(b)
    bad = []
    for k in range(0, n + 1):
        for c in range(1, n + 2):
            want = RANGE_TEXT[k:k + c]
            have = got.get((k, c))
            if have != want:
                bad.append(f"offset {k} count {c}: got {have!r}, want {want!r}")
    results.append(("range: one read at any offset and size gives those bytes of the text",
                    not bad, f"{len(bad)} of {(n + 1) * (n + 1)} reads differ\n" + "\n".join(bad[:20])))
    return results


def test_kunit(logdir):
    results = []
    with Board(logdir, name="kunit").start() as b:
        mounted = b.run("[ -d /sys/kernel/debug/kunit ]", check=False)[0] == 0
        results.append(("kunit debugfs present", mounted,
                        "/sys/kernel/debug/kunit missing (CONFIG_KUNIT_DEBUGFS?)"))
        for module, suite, source, count in SUITES:
            want = source_cases(source)
            results.append((f"{suite}: the source has the {count} cases counted here",
                            len(want) == count, f"{source} has {len(want)}: {want}"))
            rc, out = b.run(f"modprobe {module}", timeout=180, check=False)
            results.append((f"{suite}: module loads", rc == 0, out.strip()))
            if rc:
                continue
            ktap = b.run(f"cat /sys/kernel/debug/kunit/{suite}/results",
                         check=False)[1]
            with open(os.path.join(logdir, f"{suite}.ktap"), "w") as f:
                f.write(ktap)
            cases, plan, suite_ok = parse_ktap(ktap)
            # the test kernel has what every case needs: a skip is a failure
            results += [(f"{suite}.{n}", ok is True, d if ok is not None else f"skipped: {d}")
                        for n, ok, d in cases]
            ran = [n for n, _, _ in cases]
            complete = ran == want and plan == count
            results.append((f"{suite}: each of its {count} cases reported, in order "
                            f"({len(cases)} reported, plan {plan})", complete,
                            f"missing {sorted(set(want) - set(ran))}, unexpected "
                            f"{sorted(set(ran) - set(want))}\n{ktap[-1500:]}"))
            results.append((f"{suite}: suite result ok", suite_ok,
                            "the suite's own result line is not ok"))
            if module == "regmap_bus_kunit":
                results += check_range_file(b)
        b.sync_kernel_log()     # what the suites logged has reached the host
        splats = b.splats()
        results.append(("no kernel splat while the suites ran (BUG:/WARNING:, "
                         "sleeping in atomic context)", not splats,
                         "\n".join(splats[:10])))
    return results


test_kunit.timeout = 600


test_kunit.every_kernel = True
