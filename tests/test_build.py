"""The build is keyed on its inputs: with nothing changed, nothing rebuilds."""
import os
import re
import subprocess
import tempfile
import time

from lib.board import KVER, LINUX_SUITE_VERSIONS

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

STEPS = ["host packages: all present", "QEMU: up to date"] + [
    f"{step} ({name}): up to date"
    # the production kernel, the test kernel, and what is built against
    # each, for every kernel the suite boots
    for version in [KVER] + [v for v in LINUX_SUITE_VERSIONS if v != KVER]
    for name in (version, f"{version} debug")
    for step in ("kernel", "driver", "kunit modules", "initramfs", "kernel image",
                 "device tree")]


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

# make build must not run under the images other tests boot, nor beside
# a guestless test's build (driver-check, kunit-check, the ASan QEMU),
# which would race it or rebuild a step first and hide it
test_second_build_rebuilds_nothing.alone = True


def test_tree_sync_gives_a_changed_file_the_time_of_the_copy(logdir):
    """A kernel or QEMU tree extracted afresh (a new Debian source version,
    a changed series) is synced into the build's tree by content
    (lib.sh's sync_tree): an unchanged file keeps its time, so nothing
    built from it rebuilds; a changed one is newer than anything built
    before, whatever older time the tarball gave it, so its objects do
    rebuild; a file gone from the tarball goes."""
    tmp = tempfile.mkdtemp(dir=logdir)
    fresh, src = os.path.join(tmp, "fresh"), os.path.join(tmp, "src")
    now = time.time()
    built, tarball = now - 1000, now - 100000

    def put(tree, name, text, mtime):
        os.makedirs(tree, exist_ok=True)
        path = os.path.join(tree, name)
        with open(path, "w") as f:
            f.write(text)
        os.utime(path, (mtime, mtime))
    for name, text in (("same.c", "a"), ("changed.c", "old"), ("gone.c", "x")):
        put(src, name, text, built - 10)
    for name, text in (("same.c", "a"), ("changed.c", "new"), ("new.c", "n")):
        put(fresh, name, text, tarball)
    p = subprocess.run(["bash", "-c", f'. "{TOP}/scripts/lib.sh" && sync_tree "$1" "$2"',
                        "sync", fresh, src], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, BUILD=os.path.join(tmp, "build")))
    assert p.returncode == 0, p.stderr
    st = {n: os.stat(os.path.join(src, n)) for n in os.listdir(src)}
    assert sorted(st) == ["changed.c", "new.c", "same.c"], sorted(st)
    with open(os.path.join(src, "changed.c")) as f:
        assert f.read() == "new"
    assert st["same.c"].st_mtime == built - 10, "an unchanged file got a new time"
    assert st["changed.c"].st_mtime > built, (
        "a changed file kept the tarball's time, older than the objects built from it")


test_tree_sync_gives_a_changed_file_the_time_of_the_copy.guestless = True
