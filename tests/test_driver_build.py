"""Static checks of the driver and its device tree binding, and the DT
properties the driver honours."""
import glob
import os
import re
import shutil
import subprocess
import tempfile

from lib.board import BUILD, IMAGES, KERNEL_SRC, KFLAVOR, KSUF, KVER, OURS, Board, versions_sh
from lib.faults import ethtool_stats
from lib.proc import BUILD_NICE
from test_board import host_iperf, iperf_check
from test_driver import check_no_splats

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DRV = os.path.join(TOP, "drivers", "net", "encx24j600")
KSRC = KERNEL_SRC
BINDING = os.path.join(TOP, "dts", "bindings", "microchip,enc424j600.yaml")
DTB = os.path.join(IMAGES, "versatile-pb-encx24j600.dtb")
NODE = "/amba/spi@101f4000/ethernet@0"


def run(cmd, logdir, name, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    with open(os.path.join(logdir, f"{name}.log"), "a") as f:
        f.write(f"$ {' '.join(cmd)}\n{p.stdout}{p.stderr}\n")
    return p


def test_driver_checkpatch_strict(logdir):
    files = sorted(glob.glob(os.path.join(DRV, "*.[ch]")))
    assert files, "no driver sources"
    bad = []
    for f in files:
        p = run([os.path.join(KSRC, "scripts", "checkpatch.pl"), "--strict", "--no-tree",
                 "--show-types", "-f", f], logdir, "checkpatch", timeout=120)
        if p.returncode != 0 or "total: 0 errors, 0 warnings, 0 checks" not in p.stdout:
            bad.append(f"{os.path.basename(f)}:\n{p.stdout[-1500:]}")
    assert not bad, "\n".join(bad)
    return f"{len(files)} files clean"


# The kernels Debian's sparse cannot check (config/versions.sh says why)
NO_SPARSE = versions_sh("LINUX_NO_SPARSE").split()


def w1_sparse_results(p, w1_only, both):
    """W=1 clean, and sparse clean unless the kernel is one sparse cannot
    check (a skip then, with the reason), from a check's output."""
    if KVER in NO_SPARSE:
        return [("W=1 clean", p.returncode == 0 and w1_only in p.stdout,
                 p.stdout[-1500:] + p.stderr[-1500:]),
                ("sparse clean", None, f"Debian's sparse cannot check Linux {KVER}'s headers "
                 "(LINUX_NO_SPARSE in config/versions.sh)")]
    return [("W=1 and sparse clean", p.returncode == 0 and both in p.stdout,
             p.stdout[-1500:] + p.stderr[-1500:])]


def test_driver_w1_sparse_clean(logdir):
    # driver-check builds its own copy (build/driver-check-*): the module
    # the guest images hold is left alone; against the kernel the suite
    # runs on
    p = run(BUILD_NICE + ["make", "-C", TOP, "--no-print-directory", "driver-check",
             f"KFLAVOR={KFLAVOR}"],
            logdir, "driver-check", timeout=600)
    return w1_sparse_results(p, "W=1 clean, with and without the test hooks; sparse cannot",
                             "W=1 and sparse clean, with and without the test hooks")


def test_driver_no_sparse_list_fails_once_sparse_can_check(logdir):
    """A kernel of LINUX_NO_SPARSE goes without sparse only while its own
    probe refuses Debian's: a sparse it accepts (here a stand-in that
    accepts everything) fails the check and says what to do."""
    if not NO_SPARSE:
        return "LINUX_NO_SPARSE is empty: sparse checks every kernel"
    kver = NO_SPARSE[0]
    assert shutil.which("sparse"), "sparse is not installed (make deps)"
    if not os.path.exists(os.path.join(BUILD, f"linux-{kver}", "src", "scripts",
                                       "checker-valid.sh")):
        raise AssertionError(f"Linux {kver}'s tree is not built (make KVER={kver} kernel)")
    fake = os.path.join(logdir, "bin")
    os.makedirs(fake, exist_ok=True)
    with open(os.path.join(fake, "sparse"), "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(os.path.join(fake, "sparse"), 0o755)
    results = []
    for path, want_rc, what in ((os.environ["PATH"], 1, "Debian's sparse: not usable, no error"),
                                (f"{fake}:{os.environ['PATH']}", None,
                                 "a sparse the probe accepts: the check fails")):
        p = subprocess.run(["bash", "-c", f'. "{TOP}/scripts/lib.sh" && sparse_usable'],
                           capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, PATH=path, KVER=kver))
        if want_rc == 1:
            ok = p.returncode == 1 and not p.stderr.strip()
        else:
            ok = p.returncode != 0 and f"take {kver} out of LINUX_NO_SPARSE" in p.stderr
        results.append((what, ok, f"exit {p.returncode}: {p.stderr.strip()[-300:]}"))
    return results


test_driver_no_sparse_list_fails_once_sparse_can_check.guestless = True


test_driver_w1_sparse_clean.timeout = 900


def schema_tree(tmp):
    """The binding plus the kernel schemas it references, laid out as a
    bindings tree so that dt-schema resolves $id and $ref: each schema of
    the tree a copied one names ($ref /schemas/..., or a file beside it),
    in turn (their list grows from one kernel to the next; dt-schema's own,
    types.yaml and the like, are not in the tree)."""
    kb = os.path.join(KSRC, "Documentation", "devicetree", "bindings")
    os.makedirs(os.path.join(tmp, "net"))
    shutil.copy(BINDING, os.path.join(tmp, "net"))
    todo = [os.path.join("net", os.path.basename(BINDING))]
    while todo:
        rel = todo.pop()
        text = open(os.path.join(tmp, rel)).read()
        for ref in re.findall(r"\$ref:\s*[\"']?([^\s\"'#]+\.yaml)", text):
            dep = ref[len("/schemas/"):] if ref.startswith("/schemas/") else \
                os.path.normpath(os.path.join(os.path.dirname(rel), ref))
            src, dst = os.path.join(kb, dep), os.path.join(tmp, dep)
            if os.path.exists(src) and not os.path.exists(dst):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy(src, dst)
                todo.append(dep)
    return os.path.join(tmp, "net", os.path.basename(BINDING))


def test_driver_dt_binding_validates(logdir):
    """dt-doc-validate on the binding, dt-validate of the merged dtb against
    it; a dtb with a bad node must be rejected (the check can fail)."""
    with tempfile.TemporaryDirectory() as tmp:
        doc = schema_tree(os.path.join(tmp, "b"))
        p = run(["dt-doc-validate", "-u", os.path.join(tmp, "b"), doc], logdir, "dt-schema")
        assert p.returncode == 0 and not p.stdout.strip() and not p.stderr.strip(), \
            f"dt-doc-validate:\n{p.stdout}{p.stderr}"
        schema = os.path.join(tmp, "processed.json")
        p = run(["dt-mk-schema", "-j", os.path.join(tmp, "b")], logdir, "dt-schema")
        assert p.returncode == 0, p.stderr[-1500:]
        with open(schema, "w") as f:
            f.write(p.stdout)
        p = run(["dt-validate", "-s", schema, DTB], logdir, "dt-schema")
        ours = [l for l in (p.stdout + p.stderr).splitlines() if "ethernet@0" in l]
        assert not ours, "the merged dtb fails the binding:\n" + "\n".join(ours)
        # the ENC624J600 is valid only with its fallback
        for combo, valid in ((["microchip,enc624j600", "microchip,enc424j600"], True),
                             (["microchip,enc624j600"], False)):
            part = os.path.join(tmp, "part.dtb")
            shutil.copy(DTB, part)
            subprocess.run(["fdtput", "-t", "s", part, NODE, "compatible", *combo], check=True)
            p = run(["dt-validate", "-s", schema, part], logdir, "dt-schema")
            ours = [l for l in (p.stdout + p.stderr).splitlines() if "ethernet@0" in l]
            assert bool(ours) != valid, (
                f"dt-validate {'refused' if valid else 'accepted'} compatible {combo}:\n"
                + "\n".join(ours))
        bad = os.path.join(tmp, "bad.dtb")
        shutil.copy(DTB, bad)
        subprocess.run(["fdtput", "-t", "i", bad, NODE, "spi-max-frequency", "20000000"], check=True)
        subprocess.run(["fdtput", "-d", bad, NODE, "interrupts"], check=True)
        p = run(["dt-validate", "-s", schema, bad], logdir, "dt-schema")
        out = p.stdout + p.stderr
        assert "greater than the maximum" in out and "'interrupts' is a required property" in out, \
            f"dt-validate accepted a broken node:\n{out[-1500:]}"
    return ("binding and merged dtb valid; the ENC624J600 only with its fallback; "
            "a broken node is rejected")


def irq_traffic(b):
    """TCP from the host each way: ([Mbit/s host-to-guest, guest-to-host],
    health checks, interrupts) over the two runs."""
    before = ethtool_stats(b)
    moved = []
    for reverse in (False, True):
        b.run("iperf-server")
        mbps, _ = iperf_check(host_iperf(b.iperf_port, reverse=reverse),
                              "guest-to-host" if reverse else "host-to-guest")
        moved.append(mbps)
    after = ethtool_stats(b)
    return (moved, after["health_checks"] - before["health_checks"],
            after["irqs"] - before["irqs"])


def test_driver_irq_without_a_trigger_type_takes_the_falling_edge(logdir):
    """Device trees written for the old driver may give INT no trigger type
    (that driver asked for the falling edge itself).  Ours then asks for
    the falling edge too and re-arms INT after each pass: TCP both ways
    moves as on the board's own level-low interrupt, through interrupts,
    not through the health check's polls (one each 500 ms INT is quiet)."""
    with tempfile.TemporaryDirectory() as tmp:
        notype = os.path.join(tmp, "notype.dtb")
        shutil.copy(DTB, notype)
        cells = subprocess.run(["fdtget", notype, NODE, "interrupts"], capture_output=True,
                               text=True, check=True).stdout.split()
        assert len(cells) == 2, f"interrupts = <{' '.join(cells)}>, not <pin type>"
        subprocess.run(["fdtput", "-t", "u", notype, NODE, "interrupts", cells[0], "0"],
                       check=True)
        res = {}
        for name, dtb, trigger in (("level", DTB, "Level"), ("no-type", notype, "Edge")):
            with Board(logdir, name=name, dtb=dtb) as b:
                b.load_driver(OURS)
                b.net_up()
                line = b.out("grep ' eth0$' /proc/interrupts")
                assert trigger in line.split(), f"{name}: eth0's interrupt is not {trigger}: {line!r}"
                res[name] = irq_traffic(b)
                check_no_splats(b)
    (lv, lv_polls, lv_irqs), (ed, ed_polls, ed_irqs) = res["level"], res["no-type"]
    for way, l, e in zip(("host-to-guest", "guest-to-host"), lv, ed):
        assert e >= l / 2, f"{way}: {e:.2f} Mbit/s on the falling edge, {l:.2f} on the level"
    assert ed_polls <= lv_polls + 4, (
        f"{ed_polls} health checks on the falling edge, {lv_polls} on the level: "
        "INT went quiet with events pending")
    return (f"edge {ed[0]:.2f}/{ed[1]:.2f} Mbit/s, {ed_irqs} interrupts, {ed_polls} health "
            f"checks; level {lv[0]:.2f}/{lv[1]:.2f}, {lv_irqs}, {lv_polls}")


test_driver_irq_without_a_trigger_type_takes_the_falling_edge.timeout = 420


def test_driver_dt_local_mac_address(logdir):
    """local-mac-address in the DT wins over the chip's factory MAC."""
    mac = "02:00:00:5a:5b:5c"
    with tempfile.TemporaryDirectory() as tmp:
        dtb = os.path.join(tmp, "mac.dtb")
        shutil.copy(DTB, dtb)
        subprocess.run(["fdtput", "-t", "bx", dtb, NODE, "local-mac-address",
                        *mac.split(":")], check=True)
        with Board(logdir, mac="52:54:00:12:34:56", dtb=dtb) as b:
            b.load_driver(OURS)
            got = b.out("cat /sys/class/net/eth0/address")
            assert got == mac, f"eth0 has {got}, the DT says {mac}"
            d = b.out("ethtool -d eth0 raw on | od -An -v -tx1 -j 96 -N 6").split()
            assert ":".join([d[4], d[5], d[2], d[3], d[0], d[1]]) == mac, f"MAADR {d}"
            b.net_up()
            out = b.out("ping -c 3 -i 0.2 -W 2 10.0.2.2", timeout=20)
            assert " 0% packet loss" in out, out
            check_no_splats(b)
    return f"MAC {mac} from local-mac-address"



def binding_compatibles():
    """The compatible lists the binding allows, one per entry of its
    oneOf: a const alone, each value of an enum alone, or the consts of
    an items list in their order (a part that falls back to another)."""
    with open(BINDING) as f:
        lines = f.read().split("\n  compatible:\n")[1].splitlines()
    combos, entry, kind = [], None, None
    for line in lines:
        if line.strip() and len(line) - len(line.lstrip()) <= 2:
            break                                   # the next property
        m = re.match(r"( *)- (const: (\S+)|items:|enum:|(\S+))$", line)
        if not m:
            continue
        depth = len(m.group(1))
        if entry is None or depth <= entry:         # an entry of oneOf
            entry = depth
            kind = "items" if m.group(2) == "items:" else "enum" if m.group(2) == "enum:" else None
            if m.group(3):
                combos.append([m.group(3)])
            elif kind == "items":
                combos.append([])
        elif kind == "items" and m.group(3):
            combos[-1].append(m.group(3))
        elif kind == "enum" and m.group(4):
            combos.append([m.group(4)])
    return combos


def test_driver_binds_each_compatible_of_the_binding(logdir):
    """Each compatible list the binding allows binds the driver: the
    ENC424J600's, the ENC624J600's with its fallback, and the one older
    device trees use (the board's overlay has that one, so it is checked
    on every boot)."""
    combos = binding_compatibles()
    named = sorted({c for combo in combos for c in combo})
    assert len(combos) >= 3 and len(named) >= 3, f"the binding allows {combos}"
    # the driver matches each list by its last, most generic, entry (the
    # SPI core would bind by the SPI id table alone, without the vendor)
    ko = os.path.join(BUILD, f"driver{KSUF}", f"{OURS}.ko")
    aliases = subprocess.run(["modinfo", "-F", "alias", ko], capture_output=True, text=True,
                             check=True).stdout.split()
    for combo in combos:
        assert f"of:N*T*C{combo[-1]}" in aliases, \
            f"{OURS}.ko has no OF alias for {combo[-1]} (of {combo})"
    bound = []
    # the board's overlay has the old one: every boot binds by it
    for combo in [c for c in combos if c != ["microchip,encx24j600"]]:
        with tempfile.TemporaryDirectory() as tmp:
            dtb = os.path.join(tmp, "part.dtb")
            shutil.copy(DTB, dtb)
            subprocess.run(["fdtput", "-t", "s", dtb, NODE, "compatible", *combo], check=True)
            got = subprocess.run(["fdtget", dtb, NODE, "compatible"], capture_output=True,
                                 text=True, check=True).stdout.split()
            assert got == combo, f"the dtb says {got}, not {combo}"
            with Board(logdir, name=combo[0].split(",")[1], dtb=dtb) as b:
                b.load_driver(OURS)
                drv = b.out("basename $(readlink /sys/bus/spi/devices/spi0.0/driver)")
                assert drv == OURS, f"{combo}: spi0.0 is bound to {drv!r}, not {OURS}"
                assert b.run("[ -e /sys/class/net/eth0 ]", check=False)[0] == 0, \
                    f"{combo}: bound, but no eth0"
                check_no_splats(b)
        bound.append(" + ".join(combo))
    return f"OF aliases for {', '.join(c[-1] for c in combos)}; bound by {'; '.join(bound)}"


test_driver_w1_sparse_clean.every_kernel = True
# the binding's compatibles bind the driver of each kernel
test_driver_binds_each_compatible_of_the_binding.every_kernel = True
# the binding against each tree's schemas, the dtb each kernel boots
test_driver_dt_binding_validates.every_kernel = True
# builds and checks, no board: beside the exclusive tests (run.py)
for _t in (test_driver_checkpatch_strict, test_driver_w1_sparse_clean,
           test_driver_dt_binding_validates):
    _t.guestless = True
