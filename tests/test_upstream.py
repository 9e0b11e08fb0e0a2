"""The patch series are upstream-ready: current, applying, checkpatch-clean.

patches/upstream is generated from the repository's sources by
scripts/export-upstream.sh, patches/qemu from the model's sources in qemu/
by scripts/qemu-series.py; patches/linux (fixes the board needs) is
written by hand."""
import filecmp
import glob
import json
import os
import re
import shlex
import subprocess
import tempfile

from lib.board import BUILD, KERNEL_SRC, versions_sh

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
KERNEL_CHECKPATCH = os.path.join(KERNEL_SRC, "scripts", "checkpatch.pl")
QEMU_CHECKPATCH = os.path.join(BUILD, "qemu", "pristine", "scripts", "checkpatch.pl")
SERIES = {"netdev": ["MAINTAINERS", "drivers/net/ethernet/microchip",
                     "Documentation/devicetree/bindings/net"],
          "regmap": ["MAINTAINERS", "drivers/base/regmap"]}
# every kernel series, where it lives, the kernel it is for and the parts
# of the tree it touches
KERNEL_SERIES = {f"upstream/{k}": (versions_sh("LINUX_UPSTREAM_BASE"), v)
                 for k, v in SERIES.items()} | {
    "linux/6.1": ("6.1", ["drivers/spi", "drivers/base/regmap"]),
    "linux/6.12": ("6.12", ["drivers/base/regmap"])}


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def test_upstream_series_match_the_sources(logdir):
    out = tempfile.mkdtemp(prefix="upstream-", dir=logdir)
    p = run(["bash", os.path.join(TOP, "scripts", "export-upstream.sh"), out])
    assert p.returncode == 0, f"export-upstream.sh failed:\n{p.stderr[-1500:]}"
    stale = []
    for series in SERIES:
        have = sorted(os.listdir(os.path.join(TOP, "patches", "upstream", series)))
        want = sorted(os.listdir(os.path.join(out, series)))
        if have != want:
            stale.append(f"{series}: files {have} != {want}")
            continue
        _, mismatch, errors = filecmp.cmpfiles(os.path.join(TOP, "patches", "upstream", series),
                                               os.path.join(out, series), want, shallow=False)
        stale += [f"{series}/{f}" for f in mismatch + errors]
    assert not stale, ("patches/upstream does not match the sources; run "
                       "scripts/export-upstream.sh: " + ", ".join(stale))


def test_qemu_series_matches_the_sources(logdir):
    """patches/qemu is what scripts/qemu-series.py makes of qemu/ (the build
    applies that, so a stale copy would be a series nobody tested)."""
    out = tempfile.mkdtemp(prefix="qemu-series-", dir=logdir)
    p = run(["python3", os.path.join(TOP, "scripts", "qemu-series.py"),
             os.path.join(BUILD, "qemu", "pristine"), out])
    assert p.returncode == 0, f"qemu-series.py failed:\n{p.stderr[-1500:]}"
    have_dir = os.path.join(TOP, "patches", "qemu")
    have, want = sorted(os.listdir(have_dir)), sorted(os.listdir(out))
    assert have == want, f"patches/qemu has {have}, qemu/ makes {want}"
    _, mismatch, errors = filecmp.cmpfiles(have_dir, out, want, shallow=False)
    assert not mismatch + errors, (
        "patches/qemu does not match qemu/; run scripts/build-qemu.sh --export: "
        + ", ".join(mismatch + errors))


# What the hardware patches of the QEMU series bring (qemu-series.py
# --hardware): they must build without the test machinery patch after them.
QEMU_HARDWARE = ["include/hw/net/encx24j600.h", "hw/net/encx24j600.c",
                 "tests/qtest/encx24j600-test.c"]
# The only test knob the hardware patch has: the negotiation time
QEMU_HARDWARE_KNOBS = {"x-autoneg-delay-ms"}


def test_qemu_hardware_patches_build_without_the_test_machinery(logdir):
    """The model and qtest as the hardware patches bring them compile
    (-Werror, QEMU's own flags from the build) and name no test knob."""
    obj = os.path.join(BUILD, "qemu", "obj")
    cmds = {e["file"]: e for e in json.load(open(os.path.join(obj, "compile_commands.json")))}
    tmp = tempfile.mkdtemp(prefix="qemu-hardware-", dir=logdir)
    bad = []
    for path in QEMU_HARDWARE:
        p = run(["python3", os.path.join(TOP, "scripts", "qemu-series.py"), "--hardware", path])
        assert p.returncode == 0, p.stderr
        os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
        with open(os.path.join(tmp, path), "w") as f:
            f.write(p.stdout)
        knobs = set(re.findall(r'"(x-[a-z-]+)"', p.stdout)) - QEMU_HARDWARE_KNOBS
        if knobs:
            bad.append(f"{path} (hardware) names test knobs: {sorted(knobs)}")
        if not path.endswith(".c"):
            continue
        key = next(k for k in cmds if k.endswith("/" + path))
        e = cmds[key]
        here = os.path.dirname(os.path.join(tmp, path))
        srcdir = os.path.dirname(os.path.normpath(os.path.join(e["directory"], key)))
        for h in os.listdir(srcdir):     # the directory's own headers (trace.h)
            if h.endswith(".h") and not os.path.exists(os.path.join(here, h)):
                os.symlink(os.path.join(srcdir, h), os.path.join(here, h))
        args, skip = [], False
        for a in shlex.split(e["command"]):
            if skip or a == "-MD":
                skip = False
                continue
            if a in ("-o", "-MF", "-MQ"):
                skip = True
                continue
            args.append(os.path.join(tmp, path) if a == key else a)
        args = [args[0], "-iquote", os.path.join(tmp, "include")] + args[1:] + \
            ["-Werror", "-o", os.path.join(tmp, path + ".o")]
        c = run(args, cwd=e["directory"])
        if c.returncode != 0:
            bad.append(f"{path} (hardware) does not compile:\n{c.stderr[-1500:]}")
    assert not bad, "\n".join(bad)


def test_upstream_series_apply_to_a_fresh_tree(logdir):
    """Every kernel series, patches/linux too, applies with git am to a
    fresh extraction of Debian's tree (the kernel build uses patch(1))."""
    for series, (kver, paths) in KERNEL_SERIES.items():
        tree = tempfile.mkdtemp(prefix=f"{series.replace('/', '-')}-", dir=logdir)
        p = run(["tar", "-xf", f"/usr/src/linux-source-{kver}.tar.xz", "-C", tree,
                 "--strip-components=1"] + [f"linux-source-{kver}/{x}" for x in paths])
        assert p.returncode == 0, p.stderr
        for c in (["init", "-q"], ["add", "-A"],
                  ["-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "base"]):
            assert run(["git", "-C", tree] + c).returncode == 0
        patches = sorted(glob.glob(os.path.join(TOP, "patches", series, "*.patch")))
        assert patches, f"no {series} series"
        p = run(["git", "-C", tree, "-c", "user.name=t", "-c", "user.email=t@localhost",
                 "am", "-q"] + patches)
        assert p.returncode == 0, f"{series} series does not apply:\n{p.stdout}{p.stderr}"
        if series == "upstream/netdev":
            drv = os.path.join(tree, "drivers/net/ethernet/microchip/enc424j600")
            src = os.path.join(TOP, "drivers/net/encx24j600")
            for f in os.listdir(src):
                if f.endswith((".c", ".h")):
                    assert filecmp.cmp(os.path.join(src, f), os.path.join(drv, f), shallow=False), \
                        f"{f} in the applied series differs from the repository's"


def test_all_series_are_checkpatch_clean(logdir):
    bad = []
    for p in sorted(glob.glob(os.path.join(TOP, "patches", "linux", "*", "*.patch")) +
                    glob.glob(os.path.join(TOP, "patches", "upstream", "*", "*.patch"))):
        # a Fixes: tag names a commit of the kernel's history, which
        # Debian's source tarball does not carry: checkpatch cannot look
        # it up (UNKNOWN_COMMIT_ID); everything else must be clean
        r = run(["perl", KERNEL_CHECKPATCH, "--strict", "--no-tree",
                 "--ignore", "UNKNOWN_COMMIT_ID", p])
        if r.returncode != 0 or "total: 0 errors, 0 warnings, 0 checks" not in r.stdout:
            bad.append(f"{os.path.relpath(p, TOP)}:\n{r.stdout[-800:]}")
    for p in sorted(glob.glob(os.path.join(TOP, "patches", "qemu", "*.patch"))):
        r = run(["perl", QEMU_CHECKPATCH, p])
        # warnings too: QEMU's checkpatch exits 0 on them
        if r.returncode != 0 or not re.search(r"total: 0 errors, 0 warnings,", r.stdout):
            bad.append(f"{os.path.relpath(p, TOP)}:\n{r.stdout[-800:]}")
    assert not bad, "checkpatch complaints:\n" + "\n".join(bad)
