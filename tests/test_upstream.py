"""The patch series are upstream-ready: current, applying, checkpatch-clean,
and the kernel series a kernel that boots and pings.

The kernel series (make upstream: build/upstream) are made from the
repository's sources by scripts/export-upstream.sh and never stored;
patches/qemu is made from the model's sources in qemu/ by
scripts/qemu-series.py; patches/linux (fixes the board needs) is written
by hand."""
import contextlib
import fcntl
import filecmp
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time

from lib.board import BUILD, Board, kernel_source, versions_sh
from lib.proc import BUILD_NICE, run_script
from test_driver import check_no_splats

# No board boots here: these run beside the exclusive tests (run.py)
GUESTLESS = True

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
UPSTREAM_BASE = versions_sh("LINUX_UPSTREAM_BASE")
QEMU_CHECKPATCH = os.path.join(BUILD, "qemu", "pristine", "scripts", "checkpatch.pl")
# the made series -> the parts of the tree they touch
MADE = {"netdev": ["MAINTAINERS", "drivers/net/ethernet/microchip",
                   "Documentation/devicetree/bindings/net"],
        "regmap": ["MAINTAINERS", "drivers/base/regmap"],
        "regmap-fixes": ["drivers/base/regmap"]}
# the series of patches/linux, one per kernel -> the parts they touch
STORED = {"6.1": ["drivers/spi", "drivers/base/regmap", "mm"], "6.12": ["drivers/base/regmap"],
          "7": ["drivers/base/regmap"]}
MCHP = "drivers/net/ethernet/microchip"


def checkpatch(kver):
    """The checkpatch of the tree a series is for."""
    return os.path.join(BUILD, f"linux-{kver}", "src", "scripts", "checkpatch.pl")


def run(cmd, timeout=300, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


_EMPTIED = set()


def scratch(logdir, prefix):
    """A new directory for a series or a tree, under logdir/scratch, which
    a test's first call empties (earlier runs' trees do not pile up)."""
    root = os.path.join(logdir, "scratch")
    if root not in _EMPTIED:
        shutil.rmtree(root, ignore_errors=True)
        _EMPTIED.add(root)
    os.makedirs(root, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix, dir=root)


# What the tests of a run share: one export of the series (run.py names the
# run in ENC_TEST_RUN for its children) and Debian's tarballs decompressed
# once.  The tests only read them; each tree is still a fresh extraction.
CACHE = os.path.join(BUILD, "test-cache")


@contextlib.contextmanager
def cache_lock():
    """The cache's lock: the tests of a run -j fill it one at a time."""
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, ".lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def export_series(out):
    p = run(["bash", os.path.join(TOP, "scripts", "export-upstream.sh"), out])
    assert p.returncode == 0, f"export-upstream.sh failed:\n{p.stderr[-1500:]}"
    return out


def make_series(logdir):
    """make upstream's series, made afresh once per run of the suite (the
    export fixes authors and dates: the same sources give the same
    series), or into the log directory outside a run."""
    run_id = os.environ.get("ENC_TEST_RUN")
    if not run_id:
        return export_series(scratch(logdir, "upstream-"))
    out = os.path.join(CACHE, f"series-{run_id}")
    with cache_lock():
        if not os.path.exists(os.path.join(out, ".made")):
            # earlier runs' (a day old: not a run that goes on beside)
            for old in glob.glob(os.path.join(CACHE, "series-*")):
                if time.time() - os.path.getmtime(old) > 86400:
                    shutil.rmtree(old, ignore_errors=True)
            export_series(out)
            open(os.path.join(out, ".made"), "w").close()
    return out


def source_tar(kver):
    """Debian's tree for kver as a plain tar, decompressed once and kept
    while the package's tarball is the same: a few paths are extracted
    from it in a read through, where the .tar.xz is decompressed whole for
    each."""
    xz = kernel_source(kver)[2]
    st = os.stat(xz)
    tar = os.path.join(CACHE, f"linux-source-{kver}-{st.st_size}-{int(st.st_mtime)}.tar")
    with cache_lock():
        if not os.path.exists(tar):
            for old in glob.glob(os.path.join(CACHE, f"linux-source-{kver}-*.tar")):
                os.remove(old)
            try:
                with open(tar + ".part", "wb") as f:
                    p = subprocess.run(["xz", "-dc", xz], stdout=f, stderr=subprocess.PIPE,
                                       timeout=600)
                assert p.returncode == 0, f"xz -dc {xz}: {p.stderr.decode(errors='replace')}"
            except BaseException:
                os.remove(tar + ".part")
                raise
            os.rename(tar + ".part", tar)
    return tar


def patches_of(series_dir):
    """A series' patches, in order, without its cover letter."""
    return sorted(p for p in glob.glob(os.path.join(series_dir, "*.patch"))
                  if not p.endswith("/0000-cover-letter.patch"))


def all_series(logdir):
    """Every kernel series: (name, kernel, touched paths, patch files)."""
    out = make_series(logdir)
    series = [(f"upstream/{name}", UPSTREAM_BASE, paths, patches_of(os.path.join(out, name)))
              for name, paths in MADE.items()]
    series += [(f"linux/{kver}", kver, paths,
                sorted(glob.glob(os.path.join(TOP, "patches", "linux", kver, "*.patch"))))
               for kver, paths in STORED.items()]
    empty = [name for name, _, _, patches in series if not patches]
    assert not empty, f"series without patches: {empty}"
    return series


def applied_netdev(logdir):
    """The netdev series applied with git am to the parts of a fresh tree
    it touches; the tree's path."""
    tree = scratch(logdir, "netdev-")
    out = make_series(logdir)
    cover = os.path.join(out, "netdev", "0000-cover-letter.patch")
    assert os.path.exists(cover), "the netdev series has no cover letter"
    assert "Subject: [RFC PATCH net-next 0/" in open(cover).read(), \
        "not an RFC net-next series (the driver has not run on silicon)"
    apply_series(tree, UPSTREAM_BASE, MADE["netdev"], patches_of(os.path.join(out, "netdev")))
    return tree


def apply_series(tree, kver, paths, patches):
    p = run(["tar", "-xf", source_tar(kver), "-C", tree,
             "--strip-components=1"] + [f"{kernel_source(kver)[0]}/{x}" for x in paths])
    assert p.returncode == 0, p.stderr
    for c in (["init", "-q"], ["add", "-A", "-f"],
              ["-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "base"]):
        assert run(["git", "-C", tree] + c).returncode == 0
    p = run(["git", "-C", tree, "-c", "user.name=t", "-c", "user.email=t@localhost",
             "am", "-q"] + patches)
    assert p.returncode == 0, f"the series does not apply:\n{p.stdout}{p.stderr}"


def old_compatible_deprecated(binding):
    """The old compatible, and it alone, deprecated: the one "deprecated:
    true" sits in the oneOf item of that compatible (a "- const:" item
    runs to the next line as little indented)."""
    item = re.search(r"^( +)- const: microchip,encx24j600\n((?:\1 .*\n)*)", binding, re.M)
    return bool(item) and binding.count("deprecated: true") == 1 \
        and "deprecated: true" in item.group(2)


def test_upstream_series_replace_the_old_driver_in_place(logdir):
    """The netdev series replaces drivers/net/ethernet/microchip/encx24j600*
    with this repository's driver: the same Kconfig symbol, module name and
    compatible (a user's config and device tree keep working), the parts'
    own compatibles in a YAML binding, and nothing only this repository's
    tests need (the test hooks, module parameters, debugfs)."""
    tree = applied_netdev(logdir)
    d = os.path.join(tree, MCHP)
    gone = [f for f in ("encx24j600.c", "encx24j600-regmap.c", "encx24j600_hw.h")
            if os.path.exists(os.path.join(d, f))]
    assert not gone, f"the old driver's files are still there: {gone}"
    kconfig = open(os.path.join(d, "Kconfig")).read()
    assert re.search(r"^config ENCX24J600\n", kconfig, re.M), "no config ENCX24J600"
    assert "called encx24j600." in kconfig, "the Kconfig help names another module"
    assert "obj-$(CONFIG_ENCX24J600) += encx24j600/" in open(os.path.join(d, "Makefile")).read()
    new = os.path.join(d, "encx24j600")
    make = open(os.path.join(new, "Makefile")).read()
    assert "obj-$(CONFIG_ENCX24J600) += encx24j600.o" in make, f"module name:\n{make}"
    sources = {f: open(os.path.join(new, f)).read() for f in os.listdir(new)
               if f.endswith((".c", ".h"))}
    ours = sorted(os.path.basename(f).replace("enc424j600", "encx24j600") for f in
                  glob.glob(os.path.join(TOP, "drivers", "net", "encx24j600", "*.[ch]")))
    assert sorted(f for f in sources if "kunit" not in f) == ours, sorted(sources)
    text = "\n".join(sources.values())
    # the ENC624J600 falls back to the ENC424J600 (the binding's items)
    for compatible in ("microchip,encx24j600", "microchip,enc424j600"):
        assert f'"{compatible}"' in text, f"the driver does not match {compatible}"
    for hook in ("ENC_TEST_HOOKS", "module_param", "debugfs_create", "inject_", "enc424j600-",
                 "UBSAN", "QEMU", "versatile", "chip-facts"):
        where = [f for f, t in sources.items() if hook in t]
        assert not where, f"{hook!r} in the upstream driver: {where}"
    binding = open(os.path.join(tree, "Documentation", "devicetree", "bindings", "net",
                                "microchip,enc424j600.yaml")).read()
    for compatible in ("microchip,enc424j600", "microchip,enc624j600", "microchip,encx24j600"):
        assert compatible in binding, f"the binding does not name {compatible}"
    # the check first fails the deprecation on another item
    moved = binding.replace("        deprecated: true\n", "").replace(
        "      - const: microchip,enc424j600\n",
        "      - const: microchip,enc424j600\n        deprecated: true\n", 1)
    assert moved != binding and not old_compatible_deprecated(moved), \
        "the check passes a binding that deprecates another compatible"
    assert old_compatible_deprecated(binding), \
        "the binding does not deprecate the old compatible, and it alone"
    return f"{len(sources)} files replace the old driver's 3 under CONFIG_ENCX24J600"


# What only this repository's tests and board need, in any spelling: none
# of it may reach the netdev series, in a file it adds or in a message
TEST_SETUP = re.compile(r"ENC_TEST_HOOKS|module_param|debugfs_create|inject_|fault.inject|"
                        r"sanitiz|UBSAN|KASAN|\bcompat\b|qemu|emulat|versatile|pl022|"
                        r"chip-facts|\bbench|enc424j600-(main|bus|ethtool|logic)", re.I)


def setup_leaks(name, patch_text):
    """The lines of a patch that carry the test setup: its message and
    what it adds (the old driver's lines it removes do not count; a "- "
    in the message is a bullet, not a removal)."""
    leaks, in_diff = [], False
    for i, line in enumerate(patch_text.split("\n"), 1):
        in_diff = in_diff or line.startswith("diff --git ")
        if not (in_diff and line.startswith("-")) and TEST_SETUP.search(line):
            leaks.append(f"{name}:{i}: {line.strip()[:100]!r}")
    return leaks


def test_upstream_series_carry_nothing_of_the_test_setup(logdir):
    """No patch of the netdev series (its Kconfig, Makefiles, sources,
    binding and commit messages) carries the test hooks, sanitizer flags,
    the compat header or words about the emulated board; the cover letter
    alone says how the series was tested.  The check first fails planted
    lines."""
    for planted in ("+UBSAN_SANITIZE_encx24j600.o := y", "+ccflags-y += -I$(src)/compat",
                    "+\t/* the QEMU model sets this */", "Tested on the versatilepb board",
                    "- tested under QEMU (a bullet of the message)"):
        assert setup_leaks("planted", planted), f"not seen: {planted!r}"
    out = make_series(logdir)
    patches = patches_of(os.path.join(out, "netdev"))
    assert len(patches) >= 2, patches
    bad = [v for p in patches for v in setup_leaks(os.path.basename(p), open(p).read())]
    assert not bad, "the test setup in the netdev series:\n" + "\n".join(bad)
    return f"{len(patches)} patches"


def test_qemu_series_matches_the_sources(logdir):
    """patches/qemu is what scripts/qemu-series.py makes of qemu/ (the build
    applies that, so a stale copy would be a series nobody tested)."""
    out = scratch(logdir, "qemu-series-")
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
    tmp = scratch(logdir, "qemu-hardware-")
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
        # the compiler itself, not through ccache: its options go after it
        if os.path.basename(args[0]) == "ccache":
            args = args[1:]
        args = [args[0], "-iquote", os.path.join(tmp, "include")] + args[1:] + \
            ["-Werror", "-o", os.path.join(tmp, path + ".o")]
        c = run(args, cwd=e["directory"])
        if c.returncode != 0:
            bad.append(f"{path} (hardware) does not compile:\n{c.stderr[-1500:]}")
    assert not bad, "\n".join(bad)


# A declaration at the top of a function body: a type, then a name
DECLARATION = re.compile(r"\t(const |static |unsigned |signed |struct |union |enum |bool |char |"
                         r"int |long |short |void |[a-z_0-9]+_t |u8 |u16 |u32 |u64 |s8 |s16 |"
                         r"s32 |s64 |__[lb]e(16|32|64) )")


def christmas_tree_violations(path):
    """netdev's rule for the local variables at the top of a function:
    longest line first.  A declaration's first line counts (an
    initializer may continue on deeper-indented lines)."""
    lines = open(path).read().split("\n")
    bad = []
    for i, line in enumerate(lines):
        if line != "{" or i == 0 or not lines[i - 1].endswith(")"):
            continue
        firsts, j = [], i + 1
        while j < len(lines) and DECLARATION.match(lines[j]):
            firsts.append((j, lines[j]))
            j += 1
            while j < len(lines) and lines[j].startswith(("\t\t", "\t}")):
                j += 1
        for (_, above), (n, below) in zip(firsts, firsts[1:]):
            if len(below.expandtabs(8)) > len(above.expandtabs(8)):
                bad.append(f"{os.path.basename(path)}:{n + 1}: {below.strip()!r} is longer "
                           f"than {above.strip()!r} above it")
    return bad


def test_upstream_driver_declares_in_reverse_christmas_tree(logdir):
    """Local variables longest line first in every function of the netdev
    series' driver and its KUnit test, as netdev asks."""
    # the check first fails what it is for, and passes its opposite
    planted = os.path.join(logdir, "planted.c")
    with open(planted, "w") as f:
        f.write("static int f(struct net_device *ndev)\n{\n\tint rc;\n"
                "\tstruct enc_priv *priv = netdev_priv(ndev);\n\n\treturn 0;\n}\n")
    assert christmas_tree_violations(planted), "a short line above a longer one passed"
    with open(planted, "w") as f:
        f.write("static int f(struct net_device *ndev)\n{\n"
                "\tstruct enc_priv *priv = netdev_priv(ndev);\n\tint rc;\n\n\treturn 0;\n}\n")
    assert not christmas_tree_violations(planted), "the right order failed"
    tree = applied_netdev(logdir)
    files = sorted(glob.glob(os.path.join(tree, MCHP, "encx24j600", "*.[ch]")))
    assert len(files) >= 6, files
    bad = [v for f in files for v in christmas_tree_violations(f)]
    assert not bad, "not in reverse Christmas tree order:\n" + "\n".join(bad)
    return f"{len(files)} files"


def cpio_newc(files):
    """An uncompressed newc cpio archive of {path in the archive: bytes},
    which the kernel unpacks after the initramfs it follows."""
    out = b""
    for ino, (path, data) in enumerate(sorted(files.items()), 1):
        name = path.encode() + b"\0"
        hdr = (f"070701{ino:08x}{0o100644:08x}{0:08x}{0:08x}{1:08x}{0:08x}{len(data):08x}"
               f"{0:08x}{0:08x}{0:08x}{0:08x}{len(name):08x}{0:08x}").encode()
        out += hdr + name + b"\0" * (-(len(hdr) + len(name)) % 4)
        out += data + b"\0" * (-len(data) % 4)
    trailer = b"TRAILER!!!\0"
    hdr = ("070701" + "0" * 8 * 11 + f"{len(trailer):08x}" + "0" * 8).encode()
    out += hdr + trailer + b"\0" * (-(len(hdr) + len(trailer)) % 4)
    return out + b"\0" * (-len(out) % 512)


def test_upstream_tree_builds_boots_and_pings(logdir):
    """make upstream's series applied with git am to a fresh extraction of
    the tree they are for, built there as the board's production kernel
    with the driver a module, its directory W=1 clean
    (scripts/build-upstream-tree.sh); that kernel boots on the board and
    the in-tree encx24j600 it built brings the link up and pings."""
    tree = os.path.join(logdir, "tree")
    # a build that overruns is killed with everything it started
    p = run_script(BUILD_NICE + ["bash", os.path.join(TOP, "scripts", "build-upstream-tree.sh"),
                                 tree],
                   timeout=1500)
    with open(os.path.join(logdir, "build-upstream-tree.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    assert p.returncode == 0, f"build-upstream-tree.sh failed:\n{p.stderr[-1500:]}"
    board_images = os.path.join(BUILD, f"images-{UPSTREAM_BASE}")
    images = os.path.join(logdir, "images")
    shutil.rmtree(images, ignore_errors=True)
    os.makedirs(images)
    # the tree's kernel, as the board's images have theirs (named by its
    # release, which the board checks against the guest's)
    with open(os.path.join(tree, "obj", "include", "config", "kernel.release")) as f:
        tree_release = f.read().strip()
    p = run(["mkimage", "-A", "arm", "-O", "linux", "-T", "kernel", "-C", "none",
             "-a", versions_sh("UIMAGE_LOADADDR"), "-e", versions_sh("UIMAGE_LOADADDR"),
             "-n", f"Linux {tree_release}",
             "-d", os.path.join(tree, "obj", "arch", "arm", "boot", "zImage"),
             os.path.join(images, "uImage")])
    assert p.returncode == 0, p.stdout + p.stderr
    # the board's guest, the tree's encx24j600.ko at its top
    with open(os.path.join(board_images, "initramfs.uimg"), "rb") as f:
        guest = f.read()[64:]           # past the U-Boot header
    with open(os.path.join(tree, "obj", MCHP, "encx24j600", "encx24j600.ko"), "rb") as f:
        ko = f.read()
    with open(os.path.join(logdir, "initramfs.cpio"), "wb") as f:
        f.write(guest + cpio_newc({"encx24j600-upstream.ko": ko}))
    p = run(["mkimage", "-A", "arm", "-O", "linux", "-T", "ramdisk", "-C", "none",
             "-n", "guest + upstream encx24j600", "-d", os.path.join(logdir, "initramfs.cpio"),
             os.path.join(images, "initramfs.uimg")])
    assert p.returncode == 0, p.stdout + p.stderr
    shutil.copy(os.path.join(board_images, "versatile-pb-encx24j600.dtb"), images)
    with Board(logdir, images=images) as b:
        release = b.out("uname -r")
        b.run("insmod /encx24j600-upstream.ko", timeout=60)
        b.run("i=0; while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 200 ]; do "
              "usleep 100000; i=$((i+1)); done; [ -e /sys/class/net/eth0 ]", timeout=40)
        info = b.out("ethtool -i eth0")
        assert "driver: encx24j600" in info, f"eth0 is not the tree's encx24j600:\n{info}"
        # the replacement, not the old encx24j600 (same name, no ethtool -S)
        stats = b.out("ethtool -S eth0")
        assert "update_bits_offloaded" in stats, f"eth0 is the old encx24j600:\n{stats}"
        b.net_up()
        out = b.out("ping -c 5 -i 0.2 -W 2 10.0.2.2", timeout=30)
        assert " 0% packet loss" in out, out
        params = b.out("ls /sys/module/encx24j600/parameters 2>/dev/null | wc -l")
        assert params == "0", "the upstream encx24j600 has module parameters"
        check_no_splats(b)
    return f"Linux {release} built from the series; encx24j600 pings"


test_upstream_tree_builds_boots_and_pings.timeout = 1800
# the one test here that boots a board: the tree's kernel
test_upstream_tree_builds_boots_and_pings.guestless = False


def test_upstream_series_apply_to_a_fresh_tree(logdir):
    """Every kernel series, made or stored, applies with git am to a fresh
    extraction of Debian's tree it is for (the board's build uses
    patch(1))."""
    applied = []
    for name, kver, paths, patches in all_series(logdir):
        tree = scratch(logdir, f"{name.replace('/', '-')}-")
        apply_series(tree, kver, paths, patches)
        applied.append(f"{name} ({len(patches)})")
    return ", ".join(applied)


# A fix names the commit it fixes, as stable's tooling reads it: twelve or
# more hex digits and the subject in quotes
FIXES_TAG = re.compile(r'^Fixes: [0-9a-f]{12,40} \("[^\n]+"\)$', re.M)
# The series of fixes to Linux itself: made for net-next's base, and
# stored for the newest kernel the board builds (the stored 6.1 patches
# are the board's, for a kernel these no longer apply to)
FIX_SERIES = ("upstream/regmap-fixes", f"linux/{UPSTREAM_BASE}")


def fixes_tag_problems(name, patch_text):
    """What a fix lacks: its Fixes: tag, or a well-formed one."""
    if FIXES_TAG.search(patch_text):
        return []
    tags = re.findall(r"^Fixes:.*$", patch_text, re.M)
    return [f"{name}: " + (f"malformed {tags[0]!r}" if tags else "no Fixes: tag")]


def test_upstream_fix_series_carry_fixes_tags(logdir):
    """Every patch of the fix series has a Fixes: tag (the issue: the
    regmap and SPI fixes still needed on the upstream base go as their
    own series with Fixes: tags).  The check first fails a patch without
    one."""
    assert fixes_tag_problems("plain", "Subject: [PATCH] a\n\nSigned-off-by: t\n"), \
        "the check passes a patch without a Fixes: tag"
    assert fixes_tag_problems("short", 'Fixes: 065b4c58 ("regmap: x")\n'), \
        "the check passes an 8-digit commit id"
    series = {name: patches for name, _, _, patches in all_series(logdir)}
    bad, seen = [], []
    for name in FIX_SERIES:
        assert series.get(name), f"no series {name}"
        for p in series[name]:
            bad += fixes_tag_problems(f"{name}/{os.path.basename(p)}", open(p).read())
            seen.append(f"{name}/{os.path.basename(p)}")
    assert not bad, "fixes without a proper Fixes: tag:\n" + "\n".join(bad)
    return ", ".join(seen)


def subject(patch):
    m = re.search(r"^Subject: (?:\[PATCH[^]]*\] )?(.+)$", open(patch).read(), re.M)
    return m.group(1) if m else None


def pl022_core_does_cs_and_delays(src):
    """The PL022 driver leaves chip select and transfer delays to the SPI
    core: it implements transfer_one, not a message loop of its own."""
    text = open(os.path.join(src, "drivers", "spi", "spi-pl022.c")).read()
    return ("->transfer_one = " in text and "transfer_one_message" not in text
            and "spi_transfer_delay_exec" not in text and "cs_change" not in text)


def kmemleak_not_kasan_instrumented(src):
    return "KASAN_SANITIZE_kmemleak.o := n" in open(os.path.join(src, "mm", "Makefile")).read()


# Why a patch of the board's first kernel is not in patches/linux of the
# upstream base: the fact of that tree that makes it unneeded
NOT_NEEDED_ON_THE_BASE = {
    "spi: pl022: do not sleep in interrupt context for transfer": pl022_core_does_cs_and_delays,
    "spi: pl022: deselect after the transfer that asks for it": pl022_core_does_cs_and_delays,
    "mm/kmemleak: disable KASAN instrumentation in kmemleak": kmemleak_not_kasan_instrumented,
}


def test_linux_patches_re_examined_for_the_upstream_base(logdir):
    """Each kernel patch of the board's first kernel is either in
    patches/linux of the upstream base (7) too, by subject, or shown
    unneeded there by a fact of that tree (read from its sources as the
    build unpacked them), and the PL022 fact does not hold on 6.1."""
    first = versions_sh("LINUX_VERSIONS").split()[0]
    base_src = os.path.join(BUILD, f"linux-{UPSTREAM_BASE}", "src")
    first_src = os.path.join(BUILD, f"linux-{first}", "src")
    assert os.path.isdir(base_src) and os.path.isdir(first_src), "kernel trees not built"
    assert not pl022_core_does_cs_and_delays(first_src), \
        f"the PL022 check passes on {first}, whose driver needed the fixes"
    kept = {subject(p) for p in glob.glob(os.path.join(TOP, "patches", "linux",
                                                       UPSTREAM_BASE, "*.patch"))}
    done, bad = [], []
    for p in sorted(glob.glob(os.path.join(TOP, "patches", "linux", first, "*.patch"))):
        subj = subject(p)
        if subj in kept:
            done.append(f"{os.path.basename(p)[:4]} kept")
        elif subj not in NOT_NEEDED_ON_THE_BASE:
            bad.append(f"{os.path.basename(p)}: not in {UPSTREAM_BASE}'s patches, no reason known")
        elif not NOT_NEEDED_ON_THE_BASE[subj](base_src):
            bad.append(f"{os.path.basename(p)}: {UPSTREAM_BASE} still needs it "
                       f"({NOT_NEEDED_ON_THE_BASE[subj].__name__} does not hold there)")
        else:
            done.append(f"{os.path.basename(p)[:4]} unneeded: "
                        f"{NOT_NEEDED_ON_THE_BASE[subj].__name__}")
    assert not bad, "\n".join(bad)
    return "; ".join(done)


def test_all_series_are_checkpatch_clean(logdir):
    bad = []
    for name, kver, _, patches in all_series(logdir):
        for p in patches:
            # a Fixes: tag names a commit of the kernel's history, which
            # Debian's source tarball does not carry: checkpatch cannot
            # look it up (UNKNOWN_COMMIT_ID); everything else must be clean
            r = run(["perl", checkpatch(kver), "--strict", "--no-tree",
                     "--ignore", "UNKNOWN_COMMIT_ID", p])
            if r.returncode != 0 or "total: 0 errors, 0 warnings, 0 checks" not in r.stdout:
                bad.append(f"{name}/{os.path.basename(p)}:\n{r.stdout[-800:]}")
    for p in sorted(glob.glob(os.path.join(TOP, "patches", "qemu", "*.patch"))):
        r = run(["perl", QEMU_CHECKPATCH, p])
        # warnings too: QEMU's checkpatch exits 0 on them
        if r.returncode != 0 or not re.search(r"total: 0 errors, 0 warnings,", r.stdout):
            bad.append(f"{os.path.relpath(p, TOP)}:\n{r.stdout[-800:]}")
    assert not bad, "checkpatch complaints:\n" + "\n".join(bad)
