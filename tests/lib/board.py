"""Boot the emulated versatilepb board with an ENCX24J600 and drive it.

One `Board` is one QEMU process: the serial console is a unix socket the
harness types into, QMP is a second socket.  Every wait is bounded; a hung
guest raises `GuestError`, and the console log stays in the test's log
directory.
"""
import os
import re
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from .kmemleak import KMEMLEAK, leaks_of, records, summary
from .qmp import QMP
from .versions import TOP, versions_sh

BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))


# The kernel version (KVER, as for make) and flavour: the production kernel
# by default (demo, benchmark), the test kernel with the kernel's checkers
# for KFLAVOR=debug (the suite).
LINUX_VERSIONS = versions_sh("LINUX_VERSIONS").split()
# the ones make test boots (the tests marked every_kernel run on each)
LINUX_SUITE_VERSIONS = versions_sh("LINUX_SUITE_VERSIONS").split()
# the ones whose test kernel it boots too; the others, their production one
LINUX_TEST_KERNELS = versions_sh("LINUX_TEST_KERNELS").split()
KVER = os.environ.get("KVER") or versions_sh("LINUX_DEFAULT")
KFLAVOR = os.environ.get("KFLAVOR", "")
# what the build names after the kernel (scripts/lib.sh: KSUF)
KSUF = f"-{KVER}" + ("-debug" if KFLAVOR == "debug" else "")
PRODUCTION_IMAGES = os.path.join(BUILD, f"images-{KVER}")
IMAGES = os.path.join(BUILD, f"images{KSUF}")
# the kernel tree the images were built from (its scripts and headers)
KERNEL_SRC = os.path.join(BUILD, f"linux-{KVER}", "src")
QEMU = os.environ.get("QEMU", os.path.join(BUILD, "qemu", "obj", "qemu-system-arm"))


def kernel_source(kver):
    """(package, version, tarball) of the Debian source kver's tree was
    built from, as the build recorded it (scripts/lib.sh: kernel_source)."""
    path = os.path.join(BUILD, f"linux-{kver}", "source")
    with open(path) as f:
        pkg, version, tarball = f.read().split()
    return pkg, version, tarball

# Set (to its name) while a test marked guestless runs (tests/run.py): such
# a test runs beside an exclusive one, whose times a second guest would
# disturb, so no board may boot in it or in any script it starts.
GUESTLESS_ENV = "ENC_TEST_GUESTLESS"

# Module names of the two drivers under comparison.
OURS = "enc424j600"
IN_TREE = "encx24j600"

PROMPT_MARK = "@@RC="
RC_RE = re.compile(r"@@RC=(\d+)@@")
READY = "encx-guest: ready"
NETDEV = "net0"

# Kernel log lines that mean the guest is broken, whatever the test says.
# kmemleak prints its line when a scan finds anything: every board on the
# test kernel scans as it stops (Board.stop), so any unreferenced object,
# ours or the kernel's, fails the test.
# lockdep's "trying to register non-static key" also turns lockdep off
# for the rest of the boot: later lock reports would never come.
SPLATS = re.compile(r"(BUG:|WARNING:|Oops|Kernel panic|INFO: possible|"
                    r"INFO: trying to register non-static key|"
                    r"turning off the locking correctness validator|"
                    r"INFO: task \S+ blocked|soft lockup|self-detected stall|"
                    r"lockdep|KASAN:|UBSAN:|ODEBUG:|Unable to handle|"
                    r"kmemleak: \d+ new suspected memory leak)")


# Kernel problems every Board saw (its kernel log stream, console and the
# full dmesg at its stop), and stops that could not check the guest;
# tests/run.py fails a test on any the test did not declare (allow_splats).
SEEN_SPLATS = []

# The guest's /init copies the kernel log (/dev/kmsg: every record, every
# level) to its second UART; the harness writes that UART to a file.  The
# console only shows emergencies (guest/init); WARN and lockdep are
# KERN_WARNING.  A record is "prio,seq,usec,flags;text": the sequence
# numbers show records lost before they were copied.
KMSG_RECORD = re.compile(r"^(\d+),(\d+),(\d+),[^;]*;(.*)$")
STOP_MARK = "encx-harness: board stopping"


def kmsg_records(text):
    """{seq: (level, text)} of the records in a kernel log stream (a record
    read twice, after the reader reopened /dev/kmsg, counts once)."""
    recs = {}
    for line in text.splitlines():
        m = KMSG_RECORD.match(line.rstrip("\r"))
        if m:
            recs[int(m.group(2))] = (int(m.group(1)) & 7, m.group(4))
    return recs


def kmsg_gaps(recs):
    """The ranges of sequence numbers missing from a stream (from 0: the
    first record of the boot must be there too)."""
    gaps, want = [], 0
    for seq in sorted(recs):
        if seq > want:
            gaps.append((want, seq - 1))
        want = seq + 1
    return gaps


class GuestError(Exception):
    pass


def first_line(e):
    """An exception's first line, or its type where it says nothing."""
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# the link partner's port buffer the boards give the model (Board.qemu_cmd)
WIRE_BUFFER_BYTES = 128 * 1024

class Board:
    def __init__(self, logdir, name="board", mac="52:54:00:12:34:56",
                 nic="user", extra_qemu=(), mem=256, images=None, dtb=None,
                 autoneg_ms=200, paced=True):
        if os.environ.get(GUESTLESS_ENV):
            raise AssertionError(f"{os.environ[GUESTLESS_ENV]} is marked guestless (it runs "
                                 "beside the exclusive tests) but boots a board")
        self.logdir = logdir
        self.autoneg_ms = autoneg_ms
        self.paced = paced
        # how long the guest has to answer as the board stops: a guest
        # just out of a flood on the test kernel can be slow
        self.answer_bound = 60
        self.images = images or IMAGES
        self.dtb = dtb or os.path.join(self.images, "versatile-pb-encx24j600.dtb")
        self.name = name
        self.mac = mac
        self.nic = nic
        self.extra_qemu = list(extra_qemu)
        self.mem = mem
        self.iperf_port = free_port()
        # a second forwarded port, for a second server in the guest
        self.iperf_port2 = free_port()
        self.tmp = tempfile.mkdtemp(prefix="encx-")
        self.con_path = os.path.join(self.tmp, "console.sock")
        self.qmp_path = os.path.join(self.tmp, "qmp.sock")
        self.console_log = os.path.join(logdir, f"{name}.console.log")
        self.qemu_log = os.path.join(logdir, f"{name}.qemu.log")
        self.kmsg_log = os.path.join(logdir, f"{name}.kmsg.log")
        self.quit_by_test = False   # QEMU was ended on purpose (quit())
        self.problems = []          # what stop() found (also in SEEN_SPLATS)
        self.release = None         # the guest's uname -r, once booted
        self._stopped = False
        self._run_stopping = False  # the run is being stopped (Ctrl-C, SIGTERM)
        self.proc = None
        self.con = None
        self.qmp = None
        self.text = ""      # everything the console printed (reader thread)
        self._cond = threading.Condition()
        self._reader = None
        self._closed = False
        self.pos = 0        # how far expect() has consumed self.text
        self._log_syncs = 0     # marks sync_kernel_log() has written
        self._log = None

    # --- life cycle -----------------------------------------------------
    def qemu_cmd(self):
        for f in (QEMU, os.path.join(self.images, "uImage"),
                  os.path.join(self.images, "initramfs.uimg"), self.dtb):
            if not os.path.exists(f):
                raise GuestError(f"{f} missing: run 'make build' first")
        # The backend has a fixed id, so set_link can name it.
        if self.nic == "user":
            # iperf3 needs TCP (control, TCP tests) and UDP (UDP tests)
            # forwarded from the same host port to the guest's server.
            netdev = (f"user,id={NETDEV},"
                      f"hostfwd=tcp:127.0.0.1:{self.iperf_port}-:5201,"
                      f"hostfwd=udp:127.0.0.1:{self.iperf_port}-:5201,"
                      f"hostfwd=tcp:127.0.0.1:{self.iperf_port2}-:5202")
        else:
            netdev = f"{self.nic},id={NETDEV}"
        nic = f"nic,model=encx24j600,netdev={NETDEV},macaddr={self.mac}"
        # Autonegotiation takes the model 2 s by default, as on silicon:
        # tests shorten it (autoneg_ms) so that their many link changes
        # and chip resets do not each cost 2 s, but not below 200 ms.
        # phylib in interrupt mode reads BMSR twice (the second read past
        # the latched-low link bit) and skips re-reading the mode while an
        # autoneg link looks up: on the slow test kernel it can read only
        # after a short (20 ms) renegotiation is over and keep the old speed.
        # None keeps the model's default.
        autoneg = ([] if self.autoneg_ms is None else
                   ["-global", f"encx24j600.x-autoneg-delay-ms={self.autoneg_ms}"])
        # The link as a wire is (the model's default is QEMU's: frames as
        # fast as the backend sends them): frames arrive at most at the
        # link speed, and the partner's switch port buffers 128 KiB while
        # the wire is busy: a 64 KiB TCP window of full-size frames fits
        # with room to spare, and the backlog drains in 10.5 ms at
        # 100 Mbit/s.
        paced = (["-global", "encx24j600.x-rx-pacing=on",
                  "-global", f"encx24j600.x-wire-buffer-bytes={WIRE_BUFFER_BYTES}"]
                 if self.paced else [])
        return [QEMU, "-M", "versatilepb", "-m", str(self.mem),
                "-kernel", os.path.join(self.images, "uImage"),
                "-initrd", os.path.join(self.images, "initramfs.uimg"),
                "-dtb", self.seeded_dtb(),
                # a log buffer that holds a whole test's kernel log: 1 MiB
                # (versatile_defconfig builds 16 KiB in).  A panic replays
                # the whole log on the console (panic_print bit 5): QEMU
                # ends at once (panic=-1), before the stream can copy the
                # oops's first lines, which are below emergency level.
                "-append", "console=ttyAMA0 rdinit=/init panic=-1 panic_print=0x20 "
                           "log_buf_len=1M",
                "-display", "none", "-monitor", "none", "-no-reboot",
                "-chardev", f"socket,id=con,path={self.con_path},server=on,wait=on",
                "-serial", "chardev:con",
                # UART1: the guest's whole kernel log, as it is written
                "-chardev", f"file,id=kmsg,path={self.kmsg_log}",
                "-serial", "chardev:kmsg",
                "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
                "-netdev", netdev, "-net", nic] + autoneg + paced + self.extra_qemu

    def seeded_dtb(self):
        """The board's device tree with a /chosen/rng-seed, as a boot loader
        passes one (QEMU's ARM loader fills the property with fresh bytes
        at every reset; the kernels trust it: RANDOM_TRUST_BOOTLOADER on
        6.1, always from 6.2).  The board has no entropy source the kernel
        trusts: without a seed its random pool is ready only 10-40 s after
        boot, and until then every read of /dev/urandom spins in
        try_to_generate_entropy() (iperf3 fills its buffers from it, and a
        test's first run stalled for seconds)."""
        out = os.path.join(self.tmp, "board.dtb")
        shutil.copy(self.dtb, out)
        seed = [f"{b:02x}" for b in os.urandom(64)]
        try:
            subprocess.run(["fdtput", "-p", "-t", "bx", out, "/chosen", "rng-seed", *seed],
                           check=True, capture_output=True, text=True)
        except FileNotFoundError:
            raise GuestError("fdtput missing: run 'make deps' (Debian package "
                             "device-tree-compiler)") from None
        except subprocess.CalledProcessError as e:
            raise GuestError(f"fdtput could not seed {out}: {e.stderr.strip()}") from None
        return out

    # the test kernel reaches init in ~25 s on an idle 2-core host, and
    # in 75 s with a build running beside it
    def start(self, boot_timeout=120):
        try:
            return self._start(boot_timeout)
        except BaseException:
            self.stop()
            raise

    def _start(self, boot_timeout):
        os.makedirs(self.logdir, exist_ok=True)
        # a stream left by an earlier run of the test is not this board's
        if os.path.exists(self.kmsg_log):
            os.remove(self.kmsg_log)
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
        # the path exists from QEMU's bind(); its listen() follows a moment
        # later, longer on a loaded machine
        while True:
            self.con = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.con.connect(self.con_path)
                break
            except ConnectionRefusedError:
                self.con.close()
                if self.proc.poll() is not None or time.monotonic() > end:
                    raise GuestError(f"QEMU's console did not accept a connection "
                                     f"(see {self.qemu_log})")
                time.sleep(0.05)
        self.con.setblocking(False)
        # The console is read all the time, not only while a test waits:
        # a guest printing while the host runs iperf3 would otherwise stall
        # in its UART once the socket buffer is full.
        self._start_reader()
        self.qmp = QMP(self.qmp_path)
        self.qmp.connect()
        self.expect(READY, timeout=boot_timeout, what="guest boot")
        # A quiet, predictable shell: no echo so command output is clean.
        self.send("stty -echo; PS1=''; PS2=''\n")
        self.run("true")
        self._check_kernel_release()
        return self

    def _check_kernel_release(self):
        """The guest runs the kernel of the images it was given (the name
        build-images.sh wrote into the uImage), and the suite's images hold
        the suite's kernel version: a test run "[6.12]" runs on 6.12."""
        with open(os.path.join(self.images, "uImage"), "rb") as f:
            field = f.read(64)[32:]
        name = field.rstrip(b"\0").decode(errors="replace")
        release = self.out("uname -r").strip()
        # the whole name, or its first 32 bytes where mkimage cut it
        cut = len(name) == len(field)
        if not name.startswith("Linux ") or not (
                name == f"Linux {release}" or cut and f"Linux {release}".startswith(name)):
            raise GuestError(f"the guest runs Linux {release!r}, not the {name!r} "
                             f"of {self.images}")
        if self.images in (IMAGES, PRODUCTION_IMAGES) and not release.startswith(KVER + "."):
            raise GuestError(f"the suite's images for Linux {KVER} booted Linux {release}")
        self.release = release

    def leak_report(self):
        """Two kmemleak scans, then its whole report ("" where the kernel
        has no kmemleak).  kmemleak reports an object only once it has seen
        it unreferenced and unchanged in a scan, 5 s after its allocation;
        a scan that finds any prints "N new suspected memory leaks"."""
        if self.run(f"[ -e {KMEMLEAK} ]", timeout=10, check=False)[0] != 0:
            return ""
        self.run(f"echo scan > {KMEMLEAK}", timeout=120)
        self.run(f"echo scan > {KMEMLEAK}", timeout=120)
        report = self.out(f"cat {KMEMLEAK}", timeout=60)
        if report:
            with open(os.path.join(self.logdir, f"{self.name}.kmemleak.txt"), "w") as f:
                f.write(report)
        return report

    def leaks(self):
        """kmemleak's records of memory our module allocated that nothing
        references any more (test kernel only; [] where there is no
        kmemleak or our module never ran)."""
        rc, _ = self.run(f"[ -e {KMEMLEAK} ] && {{ [ -e /sys/module/{OURS} ] || "
                         f"dmesg | grep -q {OURS}; }}", timeout=10, check=False)
        if rc != 0:
            return []
        return leaks_of(self.leak_report(), OURS)

    def quit(self):
        """End QEMU on purpose (after a migration, say): stop() then checks
        the kernel log stream only, not a guest that is gone."""
        self.quit_by_test = True
        self.qmp.cmd("quit")
        self.proc.wait(timeout=20)

    def _check_guest_at_stop(self):
        """The stop's checks in a running guest: kmemleak scan, a mark
        through the kernel log stream.  Returns (kmemleak records,
        problems); a guest that does not answer is a problem, never a
        pass."""
        problems = []
        try:
            self.run("true", timeout=self.answer_bound)
        except (OSError, ValueError, GuestError) as e:
            return [], [f"the guest did not answer at the end of the test, "
                        f"so its kernel log and leaks were not checked: {first_line(e)}"]
        leaked = []
        try:
            leaked = records(self.leak_report())
            # everything logged so far must come through the stream
            if not self.sync_kernel_log(STOP_MARK):
                problems.append("the kernel log stream (UART1, "
                                f"{os.path.basename(self.kmsg_log)}) stopped: "
                                "a mark written at the stop did not come through")
        except (OSError, ValueError, GuestError) as e:
            problems.append(f"the guest stopped answering during the stop's checks: "
                            f"{first_line(e)}")
        return leaked, problems

    def stop(self):
        if self._stopped:
            return
        self._stopped = True
        leaked, problems = [], []
        try:
            if self._run_stopping:
                pass    # no result is wanted: QEMU is ended at once
            elif self.proc and self.proc.poll() is None and self.con:
                leaked, problems = self._check_guest_at_stop()
            elif self.proc and self.proc.poll() is not None and not self.quit_by_test:
                problems.append(f"QEMU exited ({self.proc.returncode}) before the "
                                f"board was stopped (see {self.qemu_log})")
            try:
                while self._pump(0.1):
                    pass
            except (OSError, ValueError, GuestError):
                pass
        finally:
            self._shutdown()
        if self.proc:
            problems += self._kernel_log_problems()
            self._write_dmesg()
        seen = set()
        leaked = [f"kmemleak: {summary(r)} (see {self.name}.kmemleak.txt)" for r in leaked]
        for line in self.splats() + leaked + problems:
            key = line.split("] ", 1)[-1]
            if key not in seen:
                seen.add(key)
                self.problems.append(f"{self.name}: {line.strip()}")
        SEEN_SPLATS.extend(self.problems)

    def _write_dmesg(self):
        """The whole kernel log, from the stream, as dmesg shows it."""
        with open(os.path.join(self.logdir, f"{self.name}.dmesg.log"), "w") as f:
            f.writelines(f"<{lvl}> {text}\n" for lvl, text in self.kernel_log())

    def _shutdown(self):
        # A test's time bound (a BaseException) may come in here: QEMU is
        # still ended and everything closed, then it goes on up.
        try:
            if self.proc and self.proc.poll() is None:
                try:
                    self.qmp.cmd("quit")
                except Exception:
                    pass
                self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        finally:
            if self.proc and self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._closed = True
            if self._reader:
                self._reader.join(timeout=5)
            for c in (self.con, self.qmp):
                try:
                    c and c.close()
                except Exception:
                    pass
            with self._cond:
                if self._log:
                    self._log.close()
                    self._log = None
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _kernel_log_problems(self):
        """Records lost from the kernel log stream, or no stream at all."""
        recs = kmsg_records(self.kernel_log_text())
        if not recs:
            return [f"no kernel log came through UART1 ({self.kmsg_log})"]
        gaps = kmsg_gaps(recs)
        if gaps:
            lost = sum(b - a + 1 for a, b in gaps)
            return [f"the kernel log lost {lost} records before the harness read them "
                    f"(sequence numbers {', '.join(f'{a}-{b}' for a, b in gaps[:5])}; "
                    f"see {os.path.basename(self.kmsg_log)})"]
        return []

    def __enter__(self):
        return self if self.proc else self.start()

    def __exit__(self, exc_type, *exc):
        # the run is being stopped: the guest's end-of-test checks (a
        # kmemleak scan takes seconds) would only eat the stop's grace
        self._run_stopping = exc_type is not None and issubclass(exc_type, KeyboardInterrupt)
        self.stop()

    # --- console --------------------------------------------------------
    def _start_reader(self):
        """Read the console socket (self.con) from a thread of its own."""
        self._reader = threading.Thread(target=self._read_console, daemon=True)
        self._reader.start()

    def _read_console(self):
        con = self.con
        while True:
            try:
                r, _, _ = select.select([con], [], [], 0.2)
                if not r:
                    if self._closed:
                        return
                    continue
                data = con.recv(65536)
            except BlockingIOError:
                continue
            except (OSError, ValueError):
                data = b""
            with self._cond:
                if not data:
                    self._closed = True
                    self._cond.notify_all()
                    return
                s = data.decode("utf-8", "replace").replace("\r", "")
                self.text += s
                if self._log:
                    self._log.write(s)
                    self._log.flush()
                self._cond.notify_all()

    def _pump(self, timeout):
        """Wait up to timeout seconds for more console output; True if some
        arrived.  Raises once the console is closed (QEMU has exited)."""
        with self._cond:
            n = len(self.text)
            if not self._closed:
                self._cond.wait(timeout)
            if len(self.text) > n:
                return True
            if self._closed and self.proc and self.proc.poll() is not None:
                raise GuestError("console closed: QEMU exited "
                                 f"(see {self.console_log}, {self.qemu_log})")
            return False

    def send(self, s):
        data = s.encode()
        while data:
            try:
                n = self.con.send(data)
                data = data[n:]
            except BlockingIOError:
                select.select([], [self.con], [], 1)

    def expect(self, pattern, timeout=30, what=None):
        """Wait for a regex (or plain string) after the last match."""
        rx = re.compile(pattern if isinstance(pattern, re.Pattern)
                        else re.escape(pattern))
        end = time.monotonic() + timeout
        while True:
            m = rx.search(self.text, self.pos)
            if m:
                self.pos = m.end()
                return m
            left = end - time.monotonic()
            if left <= 0:
                raise GuestError(f"timed out after {timeout}s waiting for "
                                 f"{what or pattern!r} (console: {self.console_log})")
            if self.proc.poll() is not None:
                self._pump(0)
                raise GuestError(f"QEMU exited ({self.proc.returncode}) while waiting for "
                                 f"{what or pattern!r} (console: {self.console_log})")
            self._pump(min(left, 0.5))

    def run(self, cmd, timeout=30, check=True):
        """Run a shell command in the guest; return (rc, output)."""
        start = len(self.text)
        self.pos = max(self.pos, start)
        self.send(f"{cmd}; echo {PROMPT_MARK}$?@@\n")
        m = self.expect(RC_RE, timeout=timeout, what=f"guest command {cmd!r}")
        out = self.text[start:m.start()]
        rc = int(m.group(1))
        if check and rc != 0:
            raise GuestError(f"guest command {cmd!r} failed ({rc}):\n{out.strip()}")
        return rc, out

    def out(self, cmd, timeout=30):
        return self.run(cmd, timeout=timeout)[1].strip()

    def kernel_log_text(self):
        """The kernel log stream so far, as the guest wrote it to UART1."""
        try:
            with open(self.kmsg_log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def sync_kernel_log(self, mark=None, timeout=30):
        """Let the kernel log stream catch up: the guest copies it as a user
        process, so a record the kernel has written may not be in the
        file yet.  Writes a mark record and waits for it; False if it did
        not come through within timeout seconds."""
        if mark is None:
            self._log_syncs += 1
            mark = f"encx-harness: log sync #{self._log_syncs}#"
        self.run(f"echo '{mark}' > /dev/kmsg", timeout=30)
        end = time.monotonic() + timeout
        while mark not in self.kernel_log_text():
            if time.monotonic() > end:
                return False
            time.sleep(0.1)
        return True

    def kernel_log(self):
        """The kernel's records so far, in order: [(level, text)]."""
        recs = kmsg_records(self.kernel_log_text())
        return [recs[k] for k in sorted(recs)]

    def splats(self):
        """Kernel problems so far: the console's lines and the stream's
        records (every level: WARN and lockdep are KERN_WARNING)."""
        return ([l for l in self.text.splitlines() if SPLATS.search(l)]
                + [t for _, t in self.kernel_log() if SPLATS.search(t)])

    # --- host side ------------------------------------------------------
    def stats(self):
        """The model's SPI transaction counters (ground truth)."""
        return self.qmp.cmd("qom-get", path="/machine/encx24j600",
                            property="x-spi-stats")

    def wait_quiet(self, quiet_s=0.3, timeout=20):
        """Wait until the bus has been idle for quiet_s: no counter of the
        model moved (SPI transactions, frames stored, filtered, dropped or
        sent) between two readings that far apart.  Frames still queued in
        QEMU's network or a driver work item still to run show up there,
        so what the guest has been given is all handled once this returns.
        Returns the model's counters."""
        end = time.monotonic() + timeout
        last = self.stats()
        while True:
            time.sleep(quiet_s)
            now = self.stats()
            if now == last:
                return now
            if time.monotonic() > end:
                raise GuestError(f"the bus did not go quiet for {quiet_s} s within {timeout} s")
            last = now

    # the model's counters of the frames it took from its network backend
    # (stored, filtered, dropped: MAC, full ring, the link partner's full
    # port buffer), and of all it counts of frames, each way
    RX_FRAME_COUNTERS = ("rx-frames", "rx-filtered", "rx-dropped", "rx-wire-dropped")
    FRAME_COUNTERS = RX_FRAME_COUNTERS + ("tx-frames",)

    def quiet_reading(self, read, timeout=20):
        """The model's counters and read()'s (the guest's own counters) at
        one quiet instant: the bus idle (wait_quiet), and no frame taken
        or sent while read() ran.  A frame between the two readings (the
        answer to an ARP refresh or a router solicitation the guest sent
        on its own) would count on one side only.  Returns (the model's
        counters, what read() returned)."""
        end = time.monotonic() + timeout
        while True:
            st = self.wait_quiet(timeout=max(1.0, end - time.monotonic()))
            got = read()
            now = self.stats()
            if all(now[k] == st[k] for k in self.FRAME_COUNTERS):
                return st, got
            if time.monotonic() > end:
                raise GuestError(f"frames kept moving while the guest's counters were read "
                                 f"for {timeout} s")

    def frames_accounted(self, st=None):
        """Frames the model took from its network backend and did something
        with: stored in the ring, filtered, dropped (MAC, full ring) or
        dropped by the link partner's full port buffer."""
        st = st or self.stats()
        return sum(st[k] for k in self.RX_FRAME_COUNTERS)

    def wait_frames(self, before, n, timeout=30):
        """Wait until the model has accounted for n more frames than the
        reading `before` (a frames_accounted() value), then for a quiet bus."""
        end = time.monotonic() + timeout
        while self.frames_accounted() < before + n:
            if time.monotonic() > end:
                raise GuestError(f"the model accounted for {self.frames_accounted() - before} "
                                 f"of {n} frames sent within {timeout} s")
            time.sleep(0.05)
        return self.wait_quiet()

    def settle_after(self, before, timeout=10):
        """After a change that makes the driver write to the chip from a
        work item (RX mode, say): wait until the bus carried something but
        register reads past the reading `before` (an idle driver's health
        check reads the status), then until it is quiet again."""
        def not_reads(st):
            return st["transactions"] - st["classes"]["rcru"]["transactions"]
        end = time.monotonic() + timeout
        while not_reads(self.stats()) == not_reads(before):
            if time.monotonic() > end:
                raise GuestError(f"the driver did not touch the chip within {timeout} s")
            time.sleep(0.05)
        return self.wait_quiet()

    def reset_stats(self):
        self.qmp.cmd("qom-set", path="/machine/encx24j600",
                     property="x-reset-stats", value=True)

    def set_link(self, up):
        """Link up/down as QEMU's monitor does it: on the NIC's backend."""
        self.qmp.cmd("set_link", name=NETDEV, up=up)

    def inject(self, fault):
        """Arm a one-shot fault in the chip model (rx-bad-rsv, rx-next-odd,
        rx-next-outside, rx-past-head, tx-abort, tx-link-loss) or reset it behind the
        driver (chip-reset): docs/qemu-model.md, "Fault injection"."""
        self.qmp.cmd("qom-set", path="/machine/encx24j600", property="x-inject",
                     value=fault)

    def set_model(self, prop, value):
        """Set a property of the chip model (x-int-stuck, x-spi-absent ...)."""
        self.qmp.cmd("qom-set", path="/machine/encx24j600", property=prop,
                     value=value)

    # --- guest helpers --------------------------------------------------
    def load_driver(self, module=OURS, params=""):
        self.run(f"modprobe {module} {params}", timeout=60)
        # the test kernel probes slowly on a busy host: up to 20 s
        self.run("i=0; while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 200 ]; do "
                 "usleep 100000; i=$((i+1)); done; [ -e /sys/class/net/eth0 ]",
                 timeout=40)

    def net_up(self, timeout=10):
        return self.out(f"net-up eth0 {timeout}", timeout=timeout + 10)
