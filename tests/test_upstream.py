"""The patch series are upstream-ready: current, applying, checkpatch-clean.

patches/upstream is generated from the repository's sources by
scripts/export-upstream.sh, patches/qemu from the model's sources in qemu/
by scripts/qemu-series.py; patches/linux (fixes the board needs) is
written by hand."""
import filecmp
import glob
import os
import subprocess
import tempfile

from lib.board import BUILD

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
KERNEL_TARBALL = "/usr/src/linux-source-6.1.tar.xz"
KERNEL_CHECKPATCH = os.path.join(BUILD, "linux", "src", "scripts", "checkpatch.pl")
QEMU_CHECKPATCH = os.path.join(BUILD, "qemu", "pristine", "scripts", "checkpatch.pl")
SERIES = {"netdev": ["MAINTAINERS", "drivers/net/ethernet/microchip",
                     "Documentation/devicetree/bindings/net"],
          "regmap": ["MAINTAINERS", "drivers/base/regmap"]}
# every kernel series, where it lives and the parts of the tree it touches
KERNEL_SERIES = {f"upstream/{k}": v for k, v in SERIES.items()} | {
    "linux": ["drivers/spi", "drivers/base/regmap"]}


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


def test_upstream_series_apply_to_a_fresh_tree(logdir):
    """Every kernel series, patches/linux too, applies with git am to a
    fresh extraction of Debian's tree (the kernel build uses patch(1))."""
    for series, paths in KERNEL_SERIES.items():
        tree = tempfile.mkdtemp(prefix=f"{series.replace('/', '-')}-", dir=logdir)
        p = run(["tar", "-xf", KERNEL_TARBALL, "-C", tree, "--strip-components=1"]
                + [f"linux-source-6.1/{x}" for x in paths])
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
    for p in sorted(glob.glob(os.path.join(TOP, "patches", "linux", "*.patch")) +
                    glob.glob(os.path.join(TOP, "patches", "upstream", "*", "*.patch"))):
        r = run(["perl", KERNEL_CHECKPATCH, "--strict", "--no-tree", p])
        if r.returncode != 0 or "total: 0 errors, 0 warnings, 0 checks" not in r.stdout:
            bad.append(f"{os.path.relpath(p, TOP)}:\n{r.stdout[-800:]}")
    for p in sorted(glob.glob(os.path.join(TOP, "patches", "qemu", "*.patch"))):
        r = run(["perl", QEMU_CHECKPATCH, p])
        if r.returncode != 0:
            bad.append(f"{os.path.relpath(p, TOP)}:\n{r.stdout[-800:]}")
    assert not bad, "checkpatch complaints:\n" + "\n".join(bad)
