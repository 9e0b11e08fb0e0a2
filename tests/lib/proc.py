"""Run one of the project's scripts from a test, bounded: on timeout the
script and every QEMU it started are killed (they share its process
group), not only the script."""
import os
import signal
import subprocess


def run_script(cmd, timeout, env=None):
    """subprocess.run(cmd, capture_output=True, text=True) in a session of
    its own; raises subprocess.TimeoutExpired after killing the group."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except BaseException:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass        # the group ended by itself meanwhile
        try:
            p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pass        # a child that escaped the group holds the pipes
        raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)
