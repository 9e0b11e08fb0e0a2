"""Static checks of the code that is not the driver itself (the driver's
own are in test_driver_build): the KUnit modules build W=1 and sparse
clean, the overlay compiles without a dtc warning, each C file the QEMU
series touches compiles without a warning, and the guest holds what it
runs."""
import glob
import json
import os
import re
import shlex
import shutil
import stat
import subprocess

from lib.board import BUILD, KERNEL_SRC, KFLAVOR, KSUF, KVER, versions_sh
from lib.proc import BUILD_NICE
from test_driver_build import NO_SPARSE, w1_sparse_results

# No board boots here: these run beside the exclusive tests (run.py)
GUESTLESS = True

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
KINC = os.path.join(KERNEL_SRC, "include")


def test_kunit_modules_w1_sparse_clean(logdir):
    # against the kernel the suite runs on
    p = subprocess.run(BUILD_NICE + ["make", "-C", TOP, "--no-print-directory", "kunit-check",
                        f"KFLAVOR={KFLAVOR}"],
                       capture_output=True, text=True, timeout=600)
    with open(os.path.join(logdir, "kunit-check.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    results = w1_sparse_results(p, "kunit modules: W=1 clean; sparse cannot",
                                "kunit modules: W=1 and sparse clean")
    if KVER not in NO_SPARSE:
        log = open(os.path.join(BUILD, "logs", f"kunit-build-check{KSUF}.log")).read()
        results.append(("sparse ran on the test modules", log.count("  CHECK ") >= 2,
                        f"{log.count('  CHECK ')} CHECK lines"))
    return results


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


test_kunit_modules_w1_sparse_clean.every_kernel = True



# One source for every kernel of config/versions.sh: no test of the
# kernel's version in the driver or its KUnit modules (C or Kbuild), and
# compat/ holds only headers that stand in for one a kernel lacks: an
# include guard and #include lines, no code of their own
VERSION_TEST = re.compile(r"LINUX_VERSION_CODE|KERNEL_VERSION\s*\(|"
                          r"^\s*#\s*if.*\b(VERSION|PATCHLEVEL|SUBLEVEL)\b|"
                          r"\$\((VERSION|PATCHLEVEL|SUBLEVEL|KERNELVERSION|KERNELRELEASE)\)",
                          re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def version_test_problems(name, text):
    """Where a source tests the kernel's version, or a compat header
    carries more than an include guard and #includes."""
    bad = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0).strip()!r}"
           for m in VERSION_TEST.finditer(text)]
    if "/compat/" in name:
        code = [line.strip() for line in COMMENT.sub("", text).split("\n") if line.strip()]
        guard = code[0].split()[1] if code and code[0].startswith("#ifndef ") else None
        allowed = {f"#ifndef {guard}", f"#define {guard}", "#endif"}
        bad += [f"{name}: {line!r} (compat/ holds an include guard and #includes only)"
                for line in code if line not in allowed and not line.startswith("#include <")]
    return bad


def test_driver_sources_build_every_kernel_without_version_tests(logdir):
    # the check first fails what it is for
    for planted in ("#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)\n",
                    "\tif (LINUX_VERSION_CODE < 0x60c00)\n",
                    "ifeq ($(VERSION).$(PATCHLEVEL),6.1)\n"):
        assert version_test_problems("planted.c", planted), f"not seen: {planted!r}"
    guard = "#ifndef X_H\n#define X_H\n%s#endif\n"
    for planted in ("static inline int f(void) { return 0; }\n",
                    "#define get_unaligned_le16(p) __get_unaligned_le16(p)\n"):
        assert version_test_problems("x/compat/linux/y.h", guard % planted), \
            f"not seen in a compat header: {planted!r}"
    assert not version_test_problems("x/compat/linux/y.h", guard % "/*\n * why\n */\n"
                                     "#include <asm/unaligned.h>\n"), "a plain compat header failed"
    assert not version_test_problems("x.c", "#ifdef CONFIG_MODVERSIONS\n"), "a false hit"
    files = sorted(f for d in ("drivers/net/encx24j600", "tests/kunit")
                   for f in glob.glob(os.path.join(TOP, d, "**", "*"), recursive=True)
                   if os.path.isfile(f)
                   and (f.endswith((".c", ".h")) or os.path.basename(f) in ("Kbuild", "Makefile")))
    assert any("/compat/" in f for f in files) and len(files) >= 10, files
    bad = [v for f in files
           for v in version_test_problems(os.path.relpath(f, TOP), open(f).read())]
    assert not bad, "the source is not one for every kernel:\n" + "\n".join(bad)
    return f"{len(files)} files"

# The Raspberry Pi boards the overlay is for, as the kernel tree names
# their device trees (6.5 moved them to arch/arm/boot/dts/broadcom/)
RPI_BOARDS = ("bcm2837-rpi-3-b", "bcm2711-rpi-4-b")


def dt_compile(src, out, incs, logdir, symbols=True):
    """cpp + dtc as the kernel's dtbs rule does; returns dtc's warnings."""
    pp = os.path.join(logdir, os.path.basename(out) + ".pp.dts")
    args = ["cpp", "-nostdinc", "-undef", "-x", "assembler-with-cpp", "-D__DTS__"]
    for i in incs:
        args += ["-I", i]
    p = subprocess.run(args + [src, "-o", pp], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, f"cpp {src}: {p.stderr}"
    p = subprocess.run(["dtc"] + (["-@"] if symbols else []) +
                       ["-I", "dts", "-O", "dtb", "-o", out, pp],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, f"dtc {src}: {p.stderr}"
    return p.stderr.strip()


def fdtget(dtb, node, prop, kind="-t", fmt="s"):
    p = subprocess.run(["fdtget", kind, fmt, dtb, node, prop],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, f"fdtget {node} {prop}: {p.stderr}"
    return p.stdout.strip()


def test_rpi_overlay_merges_into_the_boards_dtbs(logdir):
    """dts/encx24j600-rpi.dtso compiles without a dtc warning and merges
    with fdtoverlay into the Raspberry Pi 3 and 4 device trees of the
    kernel tree: the chip under SPI0, enabled, on CE0 at 14 MHz, its
    interrupt on GPIO 25 of the SoC's GPIO controller, that pin an input
    pulled up."""
    dts = os.path.join(KERNEL_SRC, "arch", "arm", "boot", "dts")
    incs = [dts, os.path.join(dts, "broadcom"), KINC]
    ovl = os.path.join(logdir, "encx24j600-rpi.dtbo")
    warn = dt_compile(os.path.join(TOP, "dts", "encx24j600-rpi.dtso"), ovl, [KINC], logdir)
    assert not warn, f"dtc warnings on the overlay:\n{warn}"
    merged = []
    for board in RPI_BOARDS:
        src = [p for p in (os.path.join(dts, f"{board}.dts"),
                           os.path.join(dts, "broadcom", f"{board}.dts")) if os.path.exists(p)]
        assert src, f"{board}.dts not in {dts}"
        base = os.path.join(logdir, f"{board}.dtb")
        dt_compile(src[0], base, incs, logdir)
        out = os.path.join(logdir, f"{board}-encx24j600.dtb")
        p = subprocess.run(["fdtoverlay", "-i", base, "-o", out, ovl],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, f"fdtoverlay into {board}: {p.stderr}"
        spi = fdtget(out, "/__symbols__", "spi")
        gpio = fdtget(out, "/__symbols__", "gpio")
        eth = f"{spi}/ethernet@0"
        assert fdtget(out, spi, "status") == "okay", f"{board}: SPI0 not enabled"
        assert fdtget(out, eth, "compatible") == "microchip,enc424j600", board
        assert fdtget(out, eth, "reg", fmt="u") == "0", f"{board}: not on CE0"
        gpio_phandle = fdtget(out, gpio, "phandle", fmt="u")
        assert fdtget(out, eth, "interrupt-parent", fmt="u") == gpio_phandle, \
            f"{board}: the interrupt is not on the SoC's GPIO controller"
        assert fdtget(out, eth, "interrupts", fmt="u") == "25 8", \
            f"{board}: interrupts {fdtget(out, eth, 'interrupts', fmt='u')}, not GPIO 25 low"
        assert fdtget(out, eth, "spi-max-frequency", fmt="u") == "14000000", \
            f"{board}: not at the chip's 14 MHz"
        # INT's pin: an input, pulled up (BCM2835_PUD_UP), the chip's own
        pins = f"{gpio}/enc424j600-int"
        assert fdtget(out, eth, "pinctrl-0", fmt="u") == fdtget(out, pins, "phandle", fmt="u"), \
            f"{board}: the chip's pinctrl is not {pins}"
        got = [fdtget(out, pins, p, fmt="u") for p in ("brcm,pins", "brcm,function", "brcm,pull")]
        assert got == ["25", "0", "2"], \
            f"{board}: INT's pin (pins, function, pull) {got}, not GPIO 25 an input pulled up"
        merged.append(board)
    return f"merged into {', '.join(merged)} from {os.path.relpath(KERNEL_SRC, TOP)}"


test_rpi_overlay_merges_into_the_boards_dtbs.every_kernel = True


# where the guest's dynamic linker looks; the directories of programs
GUEST_LIB_DIRS = ["lib/arm-linux-gnueabi", "usr/lib/arm-linux-gnueabi", "lib", "usr/lib"]
# glibc loads it by name (pthread_cancel): kept where the packages have it
GUEST_DLOPENED = ["lib/arm-linux-gnueabi/libgcc_s.so.1"]


def guest_tree_problems(tree, programs):
    """What the guest's tree lacks or holds beyond what it runs: a program
    missing; a library an ELF file needs that no directory holds; an ELF
    file (modules aside) that is neither one of `programs`, nor the
    dynamic linker, nor a library some ELF file of the tree needs
    (scripts/guest-prune.py left it in)."""
    problems = [f"{prog} missing" for prog in programs
                if not os.path.isfile(os.path.join(tree, prog))]
    elves, used = [], set()
    for dirpath, _, files in os.walk(tree):
        for name in files:
            full = os.path.join(dirpath, name)
            # programs and libraries: no link, device node or module
            if not stat.S_ISREG(os.lstat(full).st_mode) or name.endswith(".ko"):
                continue
            with open(full, "rb") as f:
                if f.read(4) != b"\x7fELF":
                    continue
            rel = os.path.relpath(full, tree)
            elves.append(rel)
            out = subprocess.run(["arm-linux-gnueabi-readelf", "-d", "-l", full],
                                 capture_output=True, text=True, timeout=30).stdout
            interp = re.search(r"Requesting program interpreter: /(\S+)\]", out)
            for lib in re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out) + \
                    ([interp.group(1)] if interp else []):
                # the library links of an armel tree are relative
                paths = [os.path.join(tree, d, lib) for d in ["."] + GUEST_LIB_DIRS
                         if "/" not in lib or d == "."]
                found = [p for p in paths if os.path.exists(p)]
                if not found:
                    problems.append(f"{rel} needs {lib}, which the guest lacks")
                used.update(os.path.relpath(os.path.realpath(p), os.path.realpath(tree))
                            for p in found)
    problems += [f"{rel}: neither a program the guest runs nor a library it loads"
                 for rel in elves if rel not in programs and rel not in used
                 and rel not in GUEST_DLOPENED]
    return problems


def test_guest_holds_what_it_runs_and_only_that(logdir):
    """The guest's tree (the initramfs) has busybox, dash and the programs
    of GUEST_PROGRAMS, every library any ELF file in it needs, and no
    other program (perl, dpkg and the like went: every megabyte costs
    each boot time to unpack).  The check first fails a tree without libc
    and one with perl left in."""
    programs = ["bin/busybox", "bin/dash"] + versions_sh("GUEST_PROGRAMS").split()
    tree = os.path.join(BUILD, "rootfs", f"tree{KSUF}")
    assert os.path.isdir(tree), f"{tree} missing: build the initramfs first (make images)"
    planted = os.path.join(logdir, "planted")
    shutil.rmtree(planted, ignore_errors=True)
    # files, directories and links only: a copy of the tree's /dev/full
    # would read the host's
    shutil.copytree(tree, planted, symlinks=True, ignore=lambda d, names: [
        n for n in names if not (stat.S_ISREG(m := os.lstat(os.path.join(d, n)).st_mode)
                                 or stat.S_ISDIR(m) or stat.S_ISLNK(m))])
    libc = os.path.join(planted, "lib", "arm-linux-gnueabi", "libc.so.6")
    os.remove(libc)
    shutil.copy(os.path.join(tree, "bin", "dash"), os.path.join(planted, "usr", "bin", "perl"))
    found = guest_tree_problems(planted, programs)
    assert any("needs libc.so.6" in p for p in found), f"a tree without libc passes: {found}"
    assert "usr/bin/perl: neither a program the guest runs nor a library it loads" \
        in found, f"a tree with perl passes: {found}"
    shutil.rmtree(planted)
    problems = guest_tree_problems(tree, programs)
    assert not problems, f"the guest's tree ({tree}):\n" + "\n".join(problems)
    size = sum(os.lstat(os.path.join(d, f)).st_size for d, _, fs in os.walk(tree) for f in fs)
    return f"{' '.join(programs)}: {size / 2**20:.1f} MiB in all"


test_guest_holds_what_it_runs_and_only_that.every_kernel = True


QEMU_OBJ = os.path.join(BUILD, "qemu", "obj")


def test_qemu_series_c_files_compile_without_warnings(logdir):
    """QEMU's build does not stop on warnings (configure --disable-werror,
    as Debian builds it: its own files warn with this compiler), so a
    warning in ours went by unseen.  Each C file the series touches is
    compiled again as the build compiles it (compile_commands.json), with
    -Werror."""
    series = sorted(glob.glob(os.path.join(BUILD, "qemu", "series", "*.patch")))
    assert series, "no QEMU series in build/qemu/series: run 'make qemu'"
    files = sorted({m for p in series for m in
                    re.findall(r"^\+\+\+ b/(\S+\.c)$", open(p).read(), re.M)})
    with open(os.path.join(QEMU_OBJ, "compile_commands.json")) as f:
        commands = {os.path.realpath(os.path.join(e["directory"], e["file"])): e
                    for e in json.load(f)}
    results = []
    for rel in files:
        e = commands.get(os.path.realpath(os.path.join(BUILD, "qemu", "src", rel)))
        if e is None:
            results.append((f"{rel} compiles without a warning", False,
                            "not in compile_commands.json: not built"))
            continue
        argv = shlex.split(e["command"])
        out = argv.index("-o")
        argv[out + 1] = os.devnull
        for dep in ("-MF", "-MQ"):     # no depfile: the build's stays as it is
            if dep in argv:
                i = argv.index(dep)
                del argv[i:i + 2]
        argv = [a for a in argv if a != "-MD"] + ["-Werror"]
        p = subprocess.run(argv, cwd=e["directory"], capture_output=True, text=True,
                           timeout=120)
        with open(os.path.join(logdir, os.path.basename(rel) + ".log"), "w") as f:
            f.write(" ".join(argv) + "\n" + p.stdout + p.stderr)
        first = next((l for l in p.stderr.splitlines() if "warning" in l or "error" in l),
                     p.stderr.strip()[:300])
        results.append((f"{rel} compiles without a warning", p.returncode == 0, first))
    return results
