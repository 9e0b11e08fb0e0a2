"""Run one of the project's scripts from a test, bounded: on timeout the
script is told to stop (SIGTERM), then it and every QEMU it started are
killed (they share its process group), not only the script."""
import os
import signal
import subprocess

# how long the script has to stop what it started, once told to
TERM_GRACE = 40


def run_script(cmd, timeout, env=None):
    """subprocess.run(cmd, capture_output=True, text=True) in a session of
    its own; raises subprocess.TimeoutExpired after killing the group."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except BaseException:
        # SIGTERM first: a run.py stops the children it started in
        # sessions of their own, which no signal to this group reaches
        for sig, grace in ((signal.SIGTERM, TERM_GRACE), (signal.SIGKILL, 0)):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break   # the group ended by itself meanwhile
            try:
                p.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        try:
            p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pass        # a child that escaped the group holds the pipes
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)
