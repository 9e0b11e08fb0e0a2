"""VMState of the ENCX24J600 model: save in the middle of an iperf3 run,
load into a new QEMU process, and the guest's network carries on.

The first QEMU is stopped while a host iperf3 client is sending to the
guest, its whole state is written to a file with `migrate` to
`exec:cat > FILE`, and it quits.  A second QEMU with the same command line
and `-incoming defer` loads the file and continues.  Without reloading the
driver, the guest's iperf3 server takes new runs in both directions and
the model counts the frames.  If the guest's serial console answers after
the load, ping and the driver's error counters are checked too; at the
time of writing it does not (the PL011 receives nothing: a console
problem, not the NIC's), and the result says so.  (The host side of the
interrupted iperf3 connection died with the first process; that run is
not checked.)
"""
import os
import re
import shlex
import socket
import subprocess
import time

from lib.board import OURS, PRODUCTION_IMAGES, Board, GuestError
from lib.qmp import QMP
from test_board import check_no_splats, host_iperf, iperf_check

COUNTERS = ("rx_packets", "tx_packets", "rx_errors", "tx_errors",
            "rx_fifo_errors", "rx_crc_errors", "rx_frame_errors",
            "rx_over_errors", "tx_fifo_errors")
OVERLOAD = ("rx_over_errors", "rx_fifo_errors")


class RestoredBoard(Board):
    """A board whose guest is loaded from a migration file, not booted."""

    def __init__(self, logdir, state_file, iperf_port, **kw):
        super().__init__(logdir, **kw)
        self.state_file = state_file
        self.iperf_port = iperf_port    # the same command line as before

    def qemu_cmd(self):
        # The console is connected once QEMU runs its main loop: a client
        # accepted while QEMU still sets up (wait=on) was not served after
        # an incoming migration.
        cmd = [a.replace("server=on,wait=on", "server=on,wait=off")
               for a in super().qemu_cmd()]
        return cmd + ["-incoming", "defer"]

    def _start(self, boot_timeout):
        os.makedirs(self.logdir, exist_ok=True)
        self._log = open(self.console_log, "w")
        qlog = open(self.qemu_log, "w")
        cmd = self.qemu_cmd()
        qlog.write(" ".join(cmd) + "\n")
        qlog.flush()
        self.proc = subprocess.Popen(cmd, stdout=qlog, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        end = time.monotonic() + 15
        while not os.path.exists(self.con_path):
            if self.proc.poll() is not None or time.monotonic() > end:
                raise GuestError(f"QEMU did not start (see {self.qemu_log})")
            time.sleep(0.05)
        self.qmp = QMP(self.qmp_path)
        self.qmp.connect()
        self.qmp.cmd("migrate-incoming",
                     uri=f"exec:cat {shlex.quote(self.state_file)}")
        wait_migration(self.qmp, boot_timeout)
        self.qmp.cmd("cont")
        # Connect the console only now (server=on,wait=off above)
        self.con = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.con.connect(self.con_path)
        self.con.setblocking(False)
        self._start_reader()
        # The guest shell was saved with echo off and an empty prompt.
        try:
            self.run("true", timeout=15)
            self.console_ok = True
        except GuestError:
            self.console_ok = False
        return self


def wait_migration(qmp, timeout):
    end = time.monotonic() + timeout
    while True:
        st = qmp.cmd("query-migrate").get("status")
        if st == "completed":
            return
        if st in ("failed", "cancelled"):
            raise AssertionError(f"migration {st}: {qmp.cmd('query-migrate')}")
        if time.monotonic() > end:
            raise AssertionError(f"migration still {st} after {timeout}s")
        time.sleep(0.1)


def counters(b):
    out = b.out("cd /sys/class/net/eth0/statistics && "
                "for f in " + " ".join(COUNTERS) + "; do echo $f $(cat $f); done")
    return {k: int(v) for k, v in (l.split() for l in out.splitlines())}


def ping_ok(b):
    out = b.out("ping -c 5 -i 0.2 -W 2 10.0.2.2", timeout=30)
    m = re.search(r"(\d+) packets transmitted, (\d+) packets received", out)
    assert m and m.group(1) == m.group(2), f"ping lost packets:\n{out}"
    return m.group(0)


def test_vmstate_save_load_during_iperf3(logdir):
    state = os.path.join(logdir, "vmstate.bin")
    # a test of the model's state: on the production kernel, whose iperf3
    # runs move the thousands of frames the checks below count
    b = Board(logdir, name="saved", images=PRODUCTION_IMAGES).start()
    client = None
    try:
        b.load_driver(OURS)
        b.net_up()
        # the run saved in its middle never ends: its client dies with the
        # first QEMU.  The server gives it up after 5 s without data rather
        # than iperf3's 120 s, so it takes the runs after the load.
        b.run("iperf-server 5201 --rcv-timeout 5000")
        # A host-to-guest run, saved in its middle
        client = subprocess.Popen(
            ["iperf3", "-c", "127.0.0.1", "-p", str(b.iperf_port), "-t", "30",
             "--connect-timeout", "5000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(3)
        before = counters(b)
        assert client.poll() is None, "iperf3 ended before the save"
        rx_model = b.stats()["rx-frames"]
        assert rx_model > 100, f"little traffic before the save: {rx_model} frames"
        b.qmp.cmd("stop")
        b.qmp.cmd("migrate", uri=f"exec:cat > {shlex.quote(state)}")
        wait_migration(b.qmp, 60)
        b.qmp.cmd("quit")
        b.proc.wait(timeout=20)
    finally:
        if client and client.poll() is None:
            client.terminate()
            client.wait(timeout=10)
        b.stop()

    try:
        return check_restored(logdir, state, b.iperf_port, before, rx_model,
                              os.path.getsize(state))
    finally:
        if os.path.exists(state):
            os.remove(state)    # the guest RAM: too big to keep in the logs


def iperf_retry(port, reverse, what):
    """The guest's iperf3 server may still be busy with the interrupted
    test for a while: retry until it takes a new one."""
    end = time.monotonic() + 60
    while True:
        try:
            return iperf_check(host_iperf(port, reverse=reverse, seconds=3), what)[0]
        except AssertionError:
            if time.monotonic() > end:
                raise
            time.sleep(2)


def check_restored(logdir, state, iperf_port, before, rx_model, size):
    r = RestoredBoard(logdir, state, iperf_port, name="restored",
                      images=PRODUCTION_IMAGES).start()
    with r:
        # No driver reload, no reprobe, no console needed: the restored
        # guest's iperf3 server answers new runs in both directions.
        mbps = iperf_retry(r.iperf_port, False, "host-to-guest after load")
        mbps_tx = iperf_retry(r.iperf_port, True, "guest-to-host after load")
        stats = r.stats()
        assert stats["rx-frames"] > 1000 and stats["tx-frames"] > 1000, stats
        res = (f"saved {size // 1024} KiB mid-iperf3 after {rx_model} RX frames; "
               f"after load: iperf3 {mbps:.1f} Mbit/s in, {mbps_tx:.1f} Mbit/s out, "
               f"model {stats['rx-frames']} RX / {stats['tx-frames']} TX frames")
        if not r.console_ok:
            # Known problem, not the NIC: the restored guest's serial
            # console does not answer (see docs/qemu-model.md).
            return res + "; serial console silent after load, driver counters not read"
        after = counters(r)
        assert after["rx_packets"] >= before["rx_packets"], (before, after)
        ping = ping_ok(r)
        overflow = sum(after[k] - before[k] for k in OVERLOAD)
        errors = {k: after[k] - before[k] for k in COUNTERS
                  if "error" in k and k not in OVERLOAD and after[k] != before[k]}
        assert not errors, f"driver error counters grew across the load: {errors}"
        check_no_splats(r)
        return res + (f"; {ping}; no driver errors ({overflow} ring overflows "
                      f"under load)")


test_vmstate_save_load_during_iperf3.timeout = 300
