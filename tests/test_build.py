"""The build is keyed on its inputs: with nothing changed, nothing rebuilds.
Its two lanes (scripts/build.sh) fail together and early."""
import os
import re
import shutil
import signal
import subprocess

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

# make build must not run under the images other tests boot
test_second_build_rebuilds_nothing.exclusive = True


# Stands in for make in scripts/build.sh's lanes: the lane of the main
# kernel (its goals name "images") fails after a moment; the QEMU lane
# starts a long child of its own, as ninja and kbuild are, and would run on.
FAKE_MAKE = """#!/bin/bash
echo "$MAKEFLAGS" >"$FAKE_DIR/makeflags.$$"
case " $* " in
*" images "*)
	sleep 1
	[ "$FAKE_LINUX_RC" = 0 ] || echo "fake step failed" >&2
	exit "$FAKE_LINUX_RC" ;;
*)
	sleep "$FAKE_QEMU_SECONDS" &
	echo $! >"$FAKE_DIR/qemu-child.pid"
	echo $$ >"$FAKE_DIR/qemu-lane.pid"
	wait
	touch "$FAKE_DIR/qemu-lane.done" ;;
esac
"""


def run_lanes(logdir, name, linux_rc, qemu_seconds):
    d = os.path.join(logdir, name)
    shutil.rmtree(d, ignore_errors=True)   # an earlier run's files
    os.makedirs(os.path.join(d, "bin"))
    fake = os.path.join(d, "bin", "make")
    with open(fake, "w") as f:
        f.write(FAKE_MAKE)
    os.chmod(fake, 0o755)
    env = dict(os.environ, PATH=os.path.join(d, "bin") + ":" + os.environ["PATH"],
               FAKE_DIR=d, FAKE_LINUX_RC=str(linux_rc), FAKE_QEMU_SECONDS=str(qemu_seconds),
               # what a `make -j` above would hand down
               MAKEFLAGS=" -j2 --jobserver-auth=3,4", MFLAGS="-j2")
    p = subprocess.Popen(["bash", os.path.join(TOP, "scripts", "build.sh")], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        # build.sh and its lanes (each a process group of its own)
        for f in ("qemu-lane.pid",):
            if os.path.exists(os.path.join(d, f)):
                os.killpg(int(open(os.path.join(d, f)).read()), signal.SIGKILL)
        os.killpg(p.pid, signal.SIGKILL)
        raise AssertionError("build.sh did not end within 120 s") from None
    with open(os.path.join(d, "build.log"), "w") as f:
        f.write(out + err)
    return d, subprocess.CompletedProcess(p.args, p.returncode, out, err)


def alive(pid_file):
    with open(pid_file) as f:
        pid = int(f.read())
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as f:  # a zombie is gone too
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False


def test_build_lanes_stop_together_and_name_the_failure(logdir):
    # the main kernel's lane fails; the QEMU lane, still busy, is stopped
    # with everything it started
    d, p = run_lanes(logdir, "failing", linux_rc=2, qemu_seconds=300)
    assert p.returncode != 0, "build.sh passed although a lane failed"
    assert "build lane 'linux' failed (exit 2)" in p.stderr, p.stderr[-1000:]
    for what in ("qemu-lane.pid", "qemu-child.pid"):
        assert not alive(os.path.join(d, what)), \
            f"the QEMU lane's {what.split('.')[0]} still runs after the other lane failed"
    assert not os.path.exists(os.path.join(d, "qemu-lane.done")), "the QEMU lane ran to its end"
    # both lanes pass: so does the build, once both ended (the QEMU lane
    # ends last)
    d, p = run_lanes(logdir, "passing", linux_rc=0, qemu_seconds=3)
    assert p.returncode == 0, f"build.sh failed with both lanes passing:\n{p.stderr[-1000:]}"
    assert os.path.exists(os.path.join(d, "qemu-lane.done")), \
        "build.sh ended before the QEMU lane did"
    flags = [open(os.path.join(d, f)).read().strip()
             for f in sorted(os.listdir(d)) if f.startswith("makeflags.")]
    assert len(flags) == 2, f"{len(flags)} lanes ran, not 2"
    assert flags == ["", ""], f"a lane's make was handed a jobserver: {flags}"
