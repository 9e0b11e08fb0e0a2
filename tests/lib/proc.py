"""Processes the suite starts in sessions of their own, and how they are
stopped: told first (SIGTERM, so a run.py or a test can stop what it
started in turn), then killed with all that is left of their process
group.  Run one of the project's scripts from a test with run_script:
bounded, and on its bound or when the test is stopped, the script and
every QEMU it started (they share its process group) are stopped, not
only the script."""
import os
import signal
import subprocess
import time

# How long a process told to stop has to stop what it started.  Each level
# down gets half of its parent's (ENC_TERM_GRACE in its environment), so a
# script's own grace always ends before the grace it is given.
TERM_GRACE = float(os.environ.get("ENC_TERM_GRACE", "60"))
STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}

# A build a test runs beside other tests' guests (run.py -j) yields the CPU
# to them: a guest starved by a compiler misses the times and rates its
# test measures.
BUILD_NICE = ["nice", "-n", "19"]


def child_env(env=None):
    """The environment of a process started in a session of its own: its
    grace for its own children is half of ours."""
    return dict(os.environ if env is None else env, ENC_TERM_GRACE=str(TERM_GRACE / 2))


def start(cmd, **kw):
    """Popen in a session of its own, with child_env()."""
    kw["env"] = child_env(kw.get("env"))
    return subprocess.Popen(cmd, start_new_session=True, **kw)


def tell(p):
    """SIGTERM to the process only: it unwinds and stops what it started
    (its scripts have sessions of their own, which a signal to its group
    would not reach)."""
    try:
        p.terminate()
    except ProcessLookupError:
        pass


def reap(procs, grace, wait=None):
    """Wait until all of `procs` end, at most `grace` seconds in all, then
    kill what is left of each one's process group.  A second Ctrl-C or
    SIGTERM does not cut this short: they wait until it is done."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        deadline = time.monotonic() + grace
        for p in procs:
            try:
                (wait or p.wait)(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            finally:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass        # the group ended by itself
                p.wait()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def stop(procs, grace=None):
    """Tell each of `procs` to stop, then reap them all."""
    for p in procs:
        tell(p)
    reap(procs, TERM_GRACE if grace is None else grace)


def run_script(cmd, timeout, env=None):
    """subprocess.run(cmd, capture_output=True, text=True) in a session of
    its own; raises subprocess.TimeoutExpired after stopping the group."""
    p = start(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = p.communicate(timeout=timeout)
    except BaseException:
        tell(p)
        # the pipes are read while it stops: a script that writes much
        # then must not block on them
        reap([p], TERM_GRACE, wait=lambda timeout: p.communicate(timeout=timeout))
        try:
            p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pass        # a child that escaped the group holds the pipes
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)
