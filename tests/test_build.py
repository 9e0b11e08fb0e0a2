"""The build is keyed on its inputs: with nothing changed, nothing rebuilds."""
import os
import re
import subprocess
import tempfile
import time

from lib.board import KVER, LINUX_SUITE_VERSIONS, LINUX_TEST_KERNELS

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

STEPS = ["host packages: all present", "QEMU: up to date"] + [
    f"{step} ({name}): up to date"
    # the production kernel, the test kernel where the suite boots one,
    # and what is built against each, for every kernel the suite boots
    for version in [KVER] + [v for v in LINUX_SUITE_VERSIONS if v != KVER]
    for name in [version] + ([f"{version} debug"] if version == KVER or
                             version in LINUX_TEST_KERNELS else [])
    for step in ("kernel", "driver", "kunit modules", "initramfs", "kernel image",
                 "device tree")]

NO_TEST_KERNEL = [v for v in LINUX_SUITE_VERSIONS if v != KVER and v not in LINUX_TEST_KERNELS]


def test_second_build_rebuilds_nothing(logdir):
    p = subprocess.run(["make", "-C", TOP, "--no-print-directory", "build"],
                       capture_output=True, text=True, timeout=600)
    with open(os.path.join(logdir, "make-build.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    assert p.returncode == 0, f"make build failed:\n{p.stderr[-2000:]}"
    ran = [l for l in p.stdout.splitlines() if re.search(r" done in \d+s$", l)]
    assert not ran, "steps ran although no input changed:\n" + "\n".join(ran)
    missing = [s for s in STEPS if s not in p.stdout]
    assert not missing, f"steps that did not report 'up to date': {missing}"
    # and no test kernel the suite does not boot (LINUX_TEST_KERNELS)
    extra = [l for l in p.stdout.splitlines()
             for v in NO_TEST_KERNEL if f"({v} debug)" in l]
    assert not extra, "steps for a test kernel the suite does not boot:\n" + "\n".join(extra)

# make build must not run under the images other tests boot, nor beside
# a guestless test's build (driver-check, kunit-check, the ASan QEMU),
# which would race it or rebuild a step first and hide it
test_second_build_rebuilds_nothing.alone = True


def lib_sh(logdir, call, *args):
    """Run one function of scripts/lib.sh; its output."""
    p = subprocess.run(["bash", "-c", f'. "{TOP}/scripts/lib.sh" && {call} "$@"', call, *args],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, BUILD=os.path.join(logdir, "build")))
    assert p.returncode == 0, f"{call} failed: {p.stderr}"
    return p.stdout


def test_tree_sync_gives_a_changed_file_the_time_of_the_copy(logdir):
    """A kernel or QEMU tree extracted afresh (a new Debian source version,
    a changed series) is synced into the build's tree by content
    (lib.sh's sync_tree): an unchanged file keeps its time, so nothing
    built from it rebuilds; a changed one is newer than anything built
    before, whatever older time the tarball gave it, so its objects do
    rebuild; a file gone from the tarball goes, unless the caller's
    filter protects it (QEMU's devices file)."""
    tmp = tempfile.mkdtemp(dir=logdir)
    fresh, src = os.path.join(tmp, "fresh"), os.path.join(tmp, "src")
    # whole seconds: a coarse file system keeps them exactly
    now = time.time_ns() // 10**9 * 10**9
    built, tarball = now - 1000 * 10**9, now - 100000 * 10**9

    def put(tree, name, text, mtime):
        path = os.path.join(tree, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.utime(path, ns=(mtime, mtime))
    for name, text in (("same.c", "a"), ("changed.c", "old"), ("gone.c", "x"),
                       ("sub/same.h", "h"), ("sub/changed.h", "h1"), ("kept.mak", "k"),
                       ("sub/dev/kept.mak", "k")):
        put(src, name, text, built - 10**10)
    for name, text in (("same.c", "a"), ("changed.c", "new"), ("new.c", "n"),
                       ("sub/same.h", "h"), ("sub/changed.h", "h2")):
        put(fresh, name, text, tarball)
    os.symlink("sub/same.h", os.path.join(fresh, "link.h"))
    # QEMU's tree: its git directory stays out, its devices file stays
    put(fresh, ".git/HEAD", "ref", tarball)
    lib_sh(tmp, "sync_tree", fresh, src, "--exclude=/.git", "--filter=P /kept.mak",
           "--filter=P /sub/dev/kept.mak")
    st = {os.path.relpath(os.path.join(d, n), src): os.lstat(os.path.join(d, n))
          for d, _, files in os.walk(src) for n in files}
    assert sorted(st) == ["changed.c", "kept.mak", "link.h", "new.c", "same.c",
                          "sub/changed.h", "sub/dev/kept.mak", "sub/same.h"], sorted(st)
    for name, text in (("changed.c", "new"), ("sub/changed.h", "h2"), ("link.h", "h")):
        with open(os.path.join(src, name)) as f:
            assert f.read() == text, f"{name} does not hold the fresh tree's content"
    assert os.readlink(os.path.join(src, "link.h")) == "sub/same.h"
    for name in ("same.c", "sub/same.h", "kept.mak", "sub/dev/kept.mak"):
        assert st[name].st_mtime_ns == built - 10**10, f"{name}, unchanged, did not keep its time"
    for name in ("changed.c", "sub/changed.h", "new.c"):
        assert st[name].st_mtime_ns > built, (
            f"{name} kept the tarball's time, older than the objects built before")


test_tree_sync_gives_a_changed_file_the_time_of_the_copy.guestless = True


def test_tarball_unpacks_with_the_time_of_the_extraction(logdir):
    """A kernel tree unpacked afresh where objects of an older tree
    remain (its source removed, its build kept) must not look older than
    those objects: lib.sh's unpack_tarball gives every file the time of
    the extraction, not the tarball's."""
    tmp = tempfile.mkdtemp(dir=logdir)
    top = os.path.join(tmp, "linux-source-x", "sub")
    os.makedirs(top)
    old = time.time_ns() - 100000 * 10**9
    for path in (os.path.join(top, "a.c"), os.path.join(top, "..", "Makefile")):
        with open(path, "w") as f:
            f.write("x")
        os.utime(path, ns=(old, old))
    tarball = os.path.join(tmp, "t.tar.xz")
    subprocess.run(["tar", "-cJf", tarball, "-C", tmp, "linux-source-x"], check=True,
                   timeout=60)
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    before = time.time_ns() - 2 * 10**9     # a coarse file system's rounding
    lib_sh(tmp, "unpack_tarball", tarball, out)
    for name in ("Makefile", "sub/a.c"):
        path = os.path.join(out, name)
        assert os.path.isfile(path), f"{name} was not unpacked at the tree's top"
        assert os.stat(path).st_mtime_ns >= before, (
            f"{name} has the tarball's time, older than the objects of a tree built before")


test_tarball_unpacks_with_the_time_of_the_extraction.guestless = True
