"""VMState of the ENCX24J600 model: save in the middle of an iperf3 run,
load into a new QEMU process, and the guest's network carries on.

The first QEMU is stopped while a host iperf3 client is sending to the
guest, its whole state is written to a file with `migrate` to
`exec:cat > FILE`, and it quits.  A second QEMU with the same command line
and `-incoming defer` loads the file and continues.  The restored guest is
checked like any other: its console answers, a fresh iperf3 server (on a
second forwarded port: the interrupted run's server may still wait for
its dead client) takes runs in both directions, ping answers, the
driver's error counters did not grow, and its kernel log (one stream
across both processes) has no problem and no gap.  (The host side of the
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
from test_board import host_iperf, iperf_check

COUNTERS = ("rx_packets", "tx_packets", "rx_errors", "tx_errors",
            "rx_fifo_errors", "rx_crc_errors", "rx_frame_errors",
            "rx_over_errors", "tx_fifo_errors")
OVERLOAD = ("rx_over_errors", "rx_fifo_errors")
UART0_BASE = 0x101f1000     # versatilepb's PL011 UART0: the guest console


class RestoredBoard(Board):
    """A board whose guest is loaded from a migration file, not booted."""

    def __init__(self, logdir, state_file, saved, **kw):
        super().__init__(logdir, **kw)
        self.state_file = state_file
        self.saved = saved              # the board whose guest this continues
        # the same command line as before
        self.iperf_port, self.iperf_port2 = saved.iperf_port, saved.iperf_port2

    def kernel_log_text(self):
        # the guest's kernel log stream goes on where the saved board's
        # ended: one stream, whose records must all be there
        return self.saved.kernel_log_text() + super().kernel_log_text()

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
        # The guest shell was saved with echo off and an empty prompt.  A
        # console that does not answer fails the test, with the console
        # UART's registers (read without side effects) for the why.
        try:
            self.run("true", timeout=15)
        except GuestError as e:
            raise GuestError(f"{e}; console UART after load: {self.uart_state()}") from e
        return self

    def uart_state(self):
        """UART0's flag, control and interrupt registers, read through the
        monitor: none of them has a read side effect."""
        regs = {"FR": 0x18, "LCR_H": 0x2c, "CR": 0x30, "IMSC": 0x38, "RIS": 0x3c}
        out = []
        for name, off in regs.items():
            r = self.qmp.cmd("human-monitor-command",
                             **{"command-line": f"xp /1wx {UART0_BASE + off:#x}"})
            out.append(f"{name}={str(r).strip().rsplit(' ', 1)[-1]}")
        return " ".join(out)


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
    out = b.out("(cd /sys/class/net/eth0/statistics && "
                "for f in " + " ".join(COUNTERS) + "; do echo $f $(cat $f); done)")
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
        b.run("iperf-server")
        # A host-to-guest run, saved in its middle
        client = subprocess.Popen(
            ["iperf3", "-c", "127.0.0.1", "-p", str(b.iperf_port), "-t", "30",
             "--connect-timeout", "5000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 20
        while b.stats()["rx-frames"] < 1000:
            assert client.poll() is None, "iperf3 ended before the save"
            assert time.monotonic() < end, "iperf3 moved under 1000 frames in 20 s"
            time.sleep(0.2)
        before = counters(b)
        rx_model = b.stats()["rx-frames"]
        b.qmp.cmd("stop")
        b.qmp.cmd("migrate", uri=f"exec:cat > {shlex.quote(state)}")
        wait_migration(b.qmp, 60)
        b.quit()
    finally:
        if client and client.poll() is None:
            client.terminate()
            client.wait(timeout=10)
        b.stop()

    try:
        return check_restored(logdir, state, b, before, rx_model, os.path.getsize(state))
    finally:
        if os.path.exists(state):
            os.remove(state)    # the guest RAM: too big to keep in the logs


def check_restored(logdir, state, saved, before, rx_model, size):
    with RestoredBoard(logdir, state, saved, name="restored",
                       images=PRODUCTION_IMAGES).start() as r:
        # A server that never saw the interrupted run.  iperf3 closes and
        # reopens its listening socket between runs: a client that comes
        # in that window is reset, so the server is waited for before each.
        r.run("iperf-server 5202")
        mbps = iperf_check(host_iperf(r.iperf_port2, reverse=False, seconds=3),
                           "host-to-guest after load")[0]
        r.run("iperf-server 5202")
        mbps_tx = iperf_check(host_iperf(r.iperf_port2, reverse=True, seconds=3),
                              "guest-to-host after load")[0]
        stats = r.stats()
        assert stats["rx-frames"] > 1000 and stats["tx-frames"] > 1000, stats
        after = counters(r)
        assert after["rx_packets"] > before["rx_packets"], (before, after)
        ping = ping_ok(r)
        overflow = sum(after[k] - before[k] for k in OVERLOAD)
        errors = {k: after[k] - before[k] for k in COUNTERS
                  if "error" in k and k not in OVERLOAD and after[k] != before[k]}
        assert not errors, f"driver error counters grew across the load: {errors}"
        return (f"saved {size // 1024} KiB mid-iperf3 after {rx_model} RX frames; "
                f"after load: iperf3 {mbps:.1f} Mbit/s in, {mbps_tx:.1f} Mbit/s out, "
                f"model {stats['rx-frames']} RX / {stats['tx-frames']} TX frames; {ping}; "
                f"no driver errors ({overflow} ring overflows under load)")


test_vmstate_save_load_during_iperf3.timeout = 300
