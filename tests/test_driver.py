"""Our driver's bus efficiency, measured by the chip model's counters.

Each test boots its own board, loads enc424j600, runs a workload and reads
the model's `x-spi-stats` (the ground truth) and the driver's `ethtool -S`
counters around it.
"""
import json
import os
import re
import socket
import subprocess
import threading
import time

from lib.board import OURS, PRODUCTION_IMAGES, Board, free_port
from lib.faults import chip_driver, detached, ethtool_stats

# the driver's tests run on every kernel of the suite (tests/run.py)
EVERY_KERNEL = True

# iperf3 UDP datagrams of 1472 bytes make 1514-byte Ethernet frames.
UDP_LEN = 1472
MTU_FRAME = 1514


def boot(logdir, name="board", params="", up=True, production=False, **kw):
    """Boot and load our driver.  production: on the production kernel, for
    the tests whose figures need its speed (the test kernel runs some ten
    times slower; every other test runs on it)."""
    if production:
        kw["images"] = PRODUCTION_IMAGES
    b = Board(logdir, name=name, **kw).start()
    try:
        b.load_driver(OURS, params)
        if up:
            b.net_up()
    except BaseException:  # a time bound too: no QEMU left behind
        b.stop()
        raise
    return b


def until(cond, seconds, what):
    """Wait for cond() to hold, polling; fail with `what` after seconds."""
    end = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < end, f"{what} (waited {seconds} s)"
        time.sleep(0.1)


def check_no_splats(b, allow=()):
    """Fail on kernel splats, except lines containing one of @allow."""
    assert b.sync_kernel_log(), "the kernel log stream stopped: a mark did not come through"
    s = [l for l in b.splats() if not any(a in l for a in allow)]
    # the in-tree driver's CHECKSUM_COMPLETE with a zero sum shows up so
    s += [t for _, t in b.kernel_log() if "hw csum failure" in t]
    if s:
        raise AssertionError("kernel reported problems:\n" + "\n".join(s[:10]))


# the driver's debugfs directory (fault injection hooks) on the board
DEBUGFS = "/sys/kernel/debug/enc424j600/spi0.0"


# iperf3's control connection, ARP and a ping: frames besides the data
CONTROL_FRAMES_MAX = 100


def link_stats(b):
    """/sys statistics of eth0 as a dict of ints."""
    out = b.out("(cd /sys/class/net/eth0/statistics && for f in *; do "
                "echo $f $(cat $f); done)")
    pairs = (l.split() for l in out.splitlines())
    return {p[0]: int(p[1]) for p in pairs if len(p) == 2 and p[1].isdigit()}


def delta(after, before):
    return {k: after[k] - before.get(k, 0) for k in after
            if isinstance(after[k], int)}


def host_iperf(b, *args, seconds=5):
    """Run the host's iperf3 client against the guest's server.  The guest
    console is drained meanwhile: a guest printing to a console nobody
    reads stalls in the UART."""
    cmd = ["iperf3", "-c", "127.0.0.1", "-p", str(b.iperf_port), "-t", str(seconds),
           "-J", "--connect-timeout", "5000", *args]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = []
    t = threading.Thread(target=lambda: out.append(p.communicate()))
    t.start()
    end = time.monotonic() + seconds + 40
    while t.is_alive() and time.monotonic() < end:
        b._pump(0.2)
    if t.is_alive():
        p.kill()
        t.join()
        raise AssertionError(f"iperf3 {' '.join(args)} did not finish")
    t.join()
    stdout, stderr = out[0]
    try:
        res = json.loads(stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"iperf3 printed no JSON: {stdout[-300:]} {stderr[-300:]}") from e
    if "error" in res:
        raise AssertionError(f"iperf3: {res['error']}")
    return res


def stats_delta(after, before):
    """Model counters moved between two readings (classes included)."""
    out = delta(after, before)
    out["classes"] = {c: delta(v, before["classes"].get(c, {}))
                      for c, v in after["classes"].items()}
    return out


def udp_saturation(b, reverse, seconds=6, window=(1.5, 4.5), rate="100M", length=UDP_LEN):
    """iperf3 UDP at 100 Mbit/s offered (or `rate`), one direction.  Returns the model's
    counter deltas over the whole run (iperf3's control connection
    included), over a window in the data phase (only the data frames: the
    steady state), and the guest's /sys statistics deltas of the run."""
    b.run("iperf-server")
    b.wait_quiet()
    b.reset_stats()
    # the guest's counters and the model's at one quiet instant, at both
    # ends: a frame between the readings would count on one side only
    s0, before = b.quiet_reading(lambda: link_stats(b))
    args = ["-u", "-b", rate, "-l", str(length)] + (["-R"] if reverse else [])
    result = []

    def client():
        try:
            result.append(host_iperf(b, *args, seconds=seconds))
        except AssertionError as e:
            result.append(e)
    t = threading.Thread(target=client)
    t.start()
    t0 = time.monotonic()
    time.sleep(window[0])
    w0 = b.stats()
    time.sleep(max(0.0, window[1] - (time.monotonic() - t0)))
    w1 = b.stats()
    t.join()
    if isinstance(result[0], AssertionError):
        raise result[0]
    s, after = b.quiet_reading(lambda: link_stats(b))
    return stats_delta(s, s0), stats_delta(w1, w0), delta(after, before)


def no_banked_traffic(s):
    banked = {c: s["classes"][c]["transactions"]
              for c in ("bank-select", "rbsel", "rcr", "wcr", "bfs", "bfc")}
    assert not any(banked.values()), f"banked opcodes on the bus: {banked}"


def test_driver_udp_rx_transactions_per_frame(logdir):
    """Host-to-guest UDP at saturation: at most 2 bus transactions per
    received frame, SPI bytes within 3% of the frame."""
    with boot(logdir, production=True) as b:
        s, w, ls = udp_saturation(b, reverse=False)
        frames = s["rx-frames"]
        assert frames > 1000, f"only {frames} frames reached the chip"
        # the driver must have taken every frame the chip stored
        assert ls["rx_packets"] == frames, \
            f"chip stored {frames} frames, driver delivered {ls['rx_packets']}"
        per = s["transactions"] / frames
        steady = w["transactions"] / w["rx-frames"]
        avg_len = ls["rx_bytes"] / ls["rx_packets"]
        bytes_per = s["bytes"] / frames
        with open(f"{logdir}/spi-stats.json", "w") as f:
            json.dump({"stats": s, "window": w, "link": ls}, f, indent=1)
        assert per <= 2.0, f"{per:.3f} transactions per RX frame (> 2)"
        assert steady <= 2.0, f"{steady:.3f} transactions per RX frame in the data phase (> 2)"
        if s["rx-dropped"]:
            # frames the chip had no room for are reported as overruns
            assert ls["rx_over_errors"] > 0, \
                f"the chip dropped {s['rx-dropped']} frames, rx_over_errors is 0"
        assert avg_len > MTU_FRAME - 20, f"frames average {avg_len:.0f} bytes, not MTU-sized"
        assert bytes_per <= avg_len * 1.03, \
            f"{bytes_per:.1f} SPI bytes per {avg_len:.0f}-byte frame (> 3% overhead)"
        no_banked_traffic(s)
        check_no_splats(b)
        return (f"{frames} frames, {per:.3f} transactions/frame "
                f"({steady:.3f} in the data phase), "
                f"{bytes_per:.1f} SPI bytes/frame for {avg_len:.1f}-byte frames "
                f"(+{100 * (bytes_per / avg_len - 1):.2f}%)")


test_driver_udp_rx_transactions_per_frame.timeout = 120

# The RX ring (drivers/net/encx24j600/enc424j600.h: ENC_RX_START to the end
# of SRAM) and the share of it the driver may leave protected behind
# ERXTAIL before writing it back (ENC_RX_TAIL_LAZY)
RX_RING = 0x6000 - 1518
RX_TAIL_LAZY = RX_RING // 4


def test_driver_rx_of_a_lone_frame_takes_three_transactions(logdir):
    """Frames that arrive one at a time, each on an interrupt of its own,
    as ping replies do (UDP at 100 kbit/s with 64-byte payloads: a frame
    every 5 ms): the status burst, the data burst and SETPKTDEC, and
    ERXTAIL given back only once a quarter of the ring has been consumed,
    not once per frame (which made 4)."""
    payload = 64
    stored = 8 + 110        # RX header + frame with FCS, as the ring holds it
    with boot(logdir, production=True) as b:
        batches0 = ethtool_stats(b)["rx_batches"]
        s, w, ls = udp_saturation(b, reverse=False, rate="100K", length=payload)
        batches = ethtool_stats(b)["rx_batches"] - batches0
        frames = s["rx-frames"]
        assert frames > 300, f"only {frames} frames reached the chip"
        # alone: each taken in a batch of its own (iperf3's control
        # connection brings a few frames of its own, in pairs at most)
        assert batches >= 0.95 * frames, \
            f"{frames} frames in {batches} batches: they did not arrive alone"
        assert ls["rx_packets"] == frames, \
            f"chip stored {frames} frames, driver delivered {ls['rx_packets']}"
        n = w["rx-frames"]
        # one ERXTAIL write per RX_TAIL_LAZY bytes consumed (and one more
        # for where the window starts in that count); at each window edge
        # a frame's transactions may be split from its count (3)
        tail_writes = n * stored // RX_TAIL_LAZY + 1
        bound = 3 * n + tail_writes + 3
        with open(f"{logdir}/spi-stats.json", "w") as f:
            json.dump({"stats": s, "window": w, "link": ls}, f, indent=1)
        assert w["transactions"] <= bound, \
            f"{w['transactions']} transactions for {n} lone frames in the data phase " \
            f"({w['transactions'] / n:.3f} per frame; at most {bound}: 3 per frame " \
            f"and {tail_writes} ERXTAIL writes)"
        assert not s["rx-dropped"], f"the chip dropped {s['rx-dropped']} frames"
        no_banked_traffic(s)
        check_no_splats(b)
        return f"{n} lone frames, {w['transactions'] / n:.3f} transactions/frame (bound {bound})"


test_driver_rx_of_a_lone_frame_takes_three_transactions.timeout = 120


def test_driver_udp_tx_transactions_per_frame(logdir):
    """Guest-to-host UDP at saturation: at most 3 bus transactions per
    transmitted frame, SPI bytes within 3% of the frame."""
    with boot(logdir, production=True) as b:
        out0 = guest_udp_out(b)
        s, w, ls = udp_saturation(b, reverse=True)
        datagrams = guest_udp_out(b) - out0
        frames = s["tx-frames"]
        assert frames > 1000, f"only {frames} frames left the chip"
        assert ls["tx_packets"] == frames, \
            f"chip sent {frames} frames, driver counted {ls['tx_packets']}"
        per = s["transactions"] / frames
        steady = w["transactions"] / w["tx-frames"]
        avg_len = ls["tx_bytes"] / ls["tx_packets"]
        bytes_per = s["bytes"] / frames
        with open(f"{logdir}/spi-stats.json", "w") as f:
            json.dump({"stats": s, "window": w, "link": ls}, f, indent=1)
        # The data path costs exactly 3 per frame (EIR+ECON1 read, WGPDATA,
        # SETTXRTS): the data phase shows it.  Over the whole run, the
        # iperf3 control connection (its received frames and short sent
        # frames) adds a little on top, checked below.
        # (a frame is counted when its wire time ends, and a counter read
        # settles a frame whose timer is late, so at each window edge the
        # transactions less 3 per counted frame are 0 to 3 and the window
        # is within 3 of exact: 3 of slack)
        assert w["transactions"] <= 3 * w["tx-frames"] + 3, \
            f"{w['transactions']} transactions for {w['tx-frames']} TX frames " \
            f"in the data phase ({steady:.4f} per frame, > 3): " \
            f"{ {c: v['transactions'] for c, v in w['classes'].items() if v['transactions']} }, " \
            f"{w['rx-frames']} received"
        # Over the whole run no BFSU/BFCU is needed (no TXIF arming), and
        # what the control connection adds is bounded by its own frames,
        # not by a share of the data frames (fewer of those on a slower
        # machine): each frame it receives costs at most 5 (status, data,
        # SETPKTDEC, ERXTAIL, the read pointer), each short frame it sends
        # 3 more than a data frame (ETXLEN set and restored, WGPWRPT).  The
        # frames sent that are not iperf3's datagrams are its short ones.
        bf = s["classes"]["bfsu"]["transactions"] + s["classes"]["bfcu"]["transactions"]
        short = max(0, frames - datagrams)
        extra = s["transactions"] - 3 * frames
        assert bf == 0 and extra <= 5 * s["rx-frames"] + 3 * short, \
            f"{s['transactions']} transactions for {frames} TX frames ({short} not " \
            f"datagrams) and {s['rx-frames']} received: {extra} beyond 3 a frame " \
            f"(> 5 per received and 3 per short frame), {bf} BFSU/BFCU"
        assert avg_len > MTU_FRAME - 20, f"frames average {avg_len:.0f} bytes, not MTU-sized"
        assert bytes_per <= avg_len * 1.03, \
            f"{bytes_per:.1f} SPI bytes per {avg_len:.0f}-byte frame (> 3% overhead)"
        no_banked_traffic(s)
        check_no_splats(b)
        return (f"{frames} frames, {per:.3f} transactions/frame "
                f"({steady:.3f} in the data phase), "
                f"{bytes_per:.1f} SPI bytes/frame for {avg_len:.1f}-byte frames "
                f"(+{100 * (bytes_per / avg_len - 1):.2f}%)")


test_driver_udp_tx_transactions_per_frame.timeout = 120


def test_driver_udp_tx_at_10mbit_waits_for_the_wire(logdir):
    """Guest-to-host UDP at saturation on a forced 10 Mbit/s link, where a
    full-size frame is 1.23 ms on the wire: the driver waits for the wire
    time before it looks for the frame's completion, so TX still costs 3
    transactions per frame (no TXIF arming)."""
    with boot(logdir, production=True) as b:
        b.run("ethtool -s eth0 autoneg off speed 10 duplex full")
        # phylib shows the forced speed before the link is up: both
        until(lambda: all(w in b.out("wait-carrier eth0 1 5; ethtool eth0")
                          for w in ("Speed: 10Mb/s", "Link detected: yes")), 10,
              "the link did not come up at 10 Mbit/s")
        s, w, ls = udp_saturation(b, reverse=True)
        frames = w["tx-frames"]
        assert frames > 100, f"only {frames} frames left the chip in the data phase"
        steady = w["transactions"] / frames
        armed = w["classes"]["bfsu"]["commands"]
        # 3 per data frame; a received frame of iperf3's control
        # connection in the window costs a few more (1% of slack)
        assert w["transactions"] <= 3.01 * frames + 2 and armed <= frames // 100, \
            f"{w['transactions']} transactions for {frames} TX frames at 10 Mbit/s " \
            f"({steady:.3f} per frame, > 3; TXIE armed {armed} times)"
        # reported, not asserted (speed goals live in the benchmark): the
        # window is 3 s of the data phase, the wire adds 24 bytes a frame
        rate = frames * (ls["tx_bytes"] / ls["tx_packets"] + 24) * 8 / 3.0 / 1e6
        check_no_splats(b)
        return f"{frames} frames in 3 s ({rate:.2f} Mbit/s on the wire), {steady:.3f} transactions/frame"


test_driver_udp_tx_at_10mbit_waits_for_the_wire.timeout = 120


def background_iperf(b, *args, seconds):
    """Start the host's iperf3 client; returns the Popen.  Its output goes
    to <board>.iperf3.log next to the board's other logs."""
    b.run("iperf-server")
    with open(os.path.join(b.logdir, f"{b.name}.iperf3.log"), "a") as log:
        return subprocess.Popen(["iperf3", "-c", "127.0.0.1", "-p", str(b.iperf_port),
                                 "-t", str(seconds), "--connect-timeout", "5000", "--forceflush", *args],
                                stdout=log, stderr=subprocess.STDOUT)


def pump_for(b, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        b._pump(0.1)


def ping_ok(b, count=3):
    out = b.out(f"ping -c {count} -i 0.2 -W 2 10.0.2.2", timeout=30)
    assert " 0% packet loss" in out, f"ping failed:\n{out}"


# A CPU-bound shell loop, timed by the guest's own clock
CPU_LOOP = ("a=$(cut -d' ' -f1 /proc/uptime); i=0; "
            "while [ $i -lt 30000 ]; do i=$((i+1)); done; "
            "b=$(cut -d' ' -f1 /proc/uptime); echo \"T $a $b\"")


def cpu_loop_seconds(b):
    out = b.out(CPU_LOOP, timeout=120)
    start, end = (float(x) for x in out.split("T ")[1].split())
    return end - start


def test_driver_rx_flood_leaves_cpu_to_user_space(logdir):
    """A UDP flood faster than the bus must not starve user space: the
    interrupt thread runs at real-time priority, so a driver that drains
    the ring there for as long as frames come owns the CPU ("RT throttling
    activated").  Ours hands a backlog to an ordinary work item."""
    with boot(logdir, production=True) as b:
        idle = cpu_loop_seconds(b)
        p = background_iperf(b, "-u", "-b", "200M", "-l", str(UDP_LEN), seconds=25)
        try:
            time.sleep(3)
            s0 = b.stats()
            busy = cpu_loop_seconds(b)
            s1 = b.stats()
        finally:
            p.kill()
            p.wait()
        frames = s1["rx-frames"] - s0["rx-frames"]
        assert frames > 500, (f"only {frames} frames reached the chip during the loop; the model "
                              f"counted {({k: s1[k] - s0[k] for k in s0 if isinstance(s0[k], int)})}")
        # a fair share among the receiver, the work item and the loop is a
        # few times slower; real-time starvation is 20-30 times
        assert busy < 10 * idle, \
            f"a CPU loop took {busy:.2f} s under the flood, {idle:.2f} s idle"
        # what the host had sent is still queued in QEMU's network layer
        # and reaches the chip at wire speed: wait until it is through
        for _ in range(50):
            quiet = b.stats()["rx-frames"]
            time.sleep(0.2)
            if b.stats()["rx-frames"] == quiet:
                break
        st = ethtool_stats(b)
        assert st["rx_deferrals"] > 0, "the backlog never went to the work item"
        thr = b.out("dmesg | grep -c 'RT throttling' || true")
        assert thr == "0", "sched: RT throttling activated during the flood"
        ping_ok(b)
        check_no_splats(b)
        return (f"CPU loop {idle:.2f} s idle, {busy:.2f} s under a flood of "
                f"{frames} frames; {st['rx_deferrals']} deferrals")


test_driver_rx_flood_leaves_cpu_to_user_space.timeout = 150


def test_driver_ethtool_basics(logdir):
    with boot(logdir) as b:
        info = b.out("ethtool -i eth0")
        assert "driver: enc424j600" in info and "bus-info: spi0.0" in info, info
        assert "Link detected: yes" in b.out("ethtool eth0")
        b.run("ethtool -s eth0 msglvl 0x7")
        assert "0x00000007" in b.out("ethtool eth0 | grep -A1 'message level'")
        # register dump: exactly the 0xA0 bytes of the SFR file
        n = int(b.out("ethtool -d eth0 raw on | wc -c"))
        assert n == 0xa0, f"register dump is {n} bytes, the SFR file 0xA0"
        names = {l.split(":")[0].strip() for l in b.out("ethtool -S eth0").splitlines()[1:]}
        want = {"spi_transactions", "spi_bytes", "update_bits_offloaded",
                "tx_resets", "rx_resets", "chip_resets"}
        assert want <= names, f"ethtool -S lacks {want - names}"
        # nothing the core counts already (netdev's rule): its statistics,
        # and what once repeated them here
        core = set(b.out("ls /sys/class/net/eth0/statistics").split()) | {
            "rx_overruns", "rx_bad_frames", "tx_aborts", "tx_timeouts"}
        assert not names & core, f"ethtool -S repeats the core's {sorted(names & core)}"
        # the counters move with traffic
        s0 = ethtool_stats(b)
        ping_ok(b)
        s1 = ethtool_stats(b)
        assert s1["spi_transactions"] > s0["spi_transactions"] and s1["spi_bytes"] > s0["spi_bytes"]
        check_no_splats(b)


def test_driver_phy_link_settings_and_autoneg_restart(logdir):
    with boot(logdir) as b:
        out = b.out("ethtool eth0")
        for want in ("Speed: 100Mb/s", "Duplex: Full", "Auto-negotiation: on",
                     "100baseT/Full", "Link detected: yes"):
            assert want in out, f"ethtool eth0 lacks {want!r}:\n{out}"
        s0 = b.stats()
        links = ethtool_stats(b)["link_changes"]
        b.run("ethtool -r eth0")
        # the restart drops the link for the renegotiation: LINKIF
        until(lambda: ethtool_stats(b)["link_changes"] > links, 10, "no LINKIF after ethtool -r")
        s1 = b.stats()
        assert s1["transactions"] > s0["transactions"], "ethtool -r did not touch the chip"
        assert "Link detected: yes" in b.out("wait-carrier eth0 1 2; ethtool eth0")
        # Forced 10 Mbit/s half duplex through phylib, then back to
        # autoneg.  The PHY drops the link while it renegotiates (LINKIF),
        # and phylib reads the new mode when it comes back.
        def settles(want, seconds=5):
            end = time.monotonic() + seconds
            while True:
                out = b.out("ethtool eth0")
                if all(w in out for w in want) and "Link detected: yes" in out:
                    return out
                assert time.monotonic() < end, f"ethtool eth0 never showed {want}:\n{out}"
                time.sleep(0.2)
        b.run("ethtool -s eth0 autoneg off speed 10 duplex half")
        settles(("Speed: 10Mb/s", "Duplex: Half"))
        macon2 = b.out("ethtool -d eth0 raw on | od -An -v -tx1 -j 66 -N 1").strip()
        assert not int(macon2, 16) & 1, f"MACON2.FULDPX set at half duplex (0x{macon2})"
        b.run("ethtool -s eth0 autoneg on")
        settles(("Speed: 100Mb/s", "Duplex: Full"))
        ping_ok(b)
        check_no_splats(b)


def test_driver_carrier_follows_set_link_within_1s(logdir):
    with boot(logdir) as b:
        for up in (False, True, False, True):
            b.set_link(up)
            out = b.out(f"wait-carrier eth0 {int(up)} 1")
            ms = int(out.split("after ")[1].split()[0])
            assert ms <= 1000, out
        ping_ok(b)
        st = ethtool_stats(b)
        assert st["link_changes"] >= 4, f"LINKIF seen {st['link_changes']} times for 4 changes"
        check_no_splats(b)


# a time is asserted: no other guest beside it (run.py -j)
test_driver_carrier_follows_set_link_within_1s.exclusive = True


def test_driver_goes_cleanly_with_int_stuck(logdir):
    """INT stuck low: while the interface is down nothing may touch the
    chip; it must come up on a stuck line (polling it) and work; and the
    driver must go (unbind, rmmod) with the line stuck and its poll running,
    leaving no work item queued or running on freed memory.  A driver that
    services its interrupt while down storms, parks the line and polls
    from a work item that nothing cancels at unbind (KASAN, ODEBUG); one
    whose interrupt runs before open has set the chip up takes the chip
    for lost and leaves the line off for good."""
    with boot(logdir, up=False) as b:
        spi = b.out("basename $(readlink /sys/class/net/eth0/device)")
        # up and down once: the interrupt has been live
        b.net_up()
        b.run("ip link set eth0 down")
        b.set_model("x-int-stuck", True)
        t0 = b.wait_quiet()["transactions"]
        time.sleep(1)
        down = b.stats()["transactions"] - t0
        assert down == 0, f"{down} bus transactions while down with INT stuck"
        storms = ethtool_stats(b)["irq_storms"]
        b.run("ip link set eth0 up && ip route replace default via 10.0.2.2 "
              "&& wait-carrier eth0 1 10", timeout=30)
        ping_ok(b)
        until(lambda: ethtool_stats(b)["irq_storms"] > storms, 10,
              "the stuck line was never taken for a storm and polled")
        lost = ethtool_stats(b)["chip_lost"]
        assert lost == 0, f"the chip was taken for lost {lost} times when it came up"
        # go while up, the line stuck and the chip polled every 10 ms
        b.run(f"echo {spi} > /sys/bus/spi/drivers/{OURS}/unbind")
        b.run(f"modprobe -r {OURS}")
        # a poll left behind would have run 100 times by now
        time.sleep(1)
        b.set_model("x-int-stuck", False)
        assert b.out("echo alive") == "alive", "the guest died after the unbind"
        check_no_splats(b)
        b.load_driver(OURS)
        b.net_up()
        ping_ok(b)
        # an interrupt that runs before open has set the chip up finds
        # RXEN off and takes the chip for lost
        lost = ethtool_stats(b)["chip_lost"]
        assert lost == 0, f"the chip was taken for lost {lost} times when it came up"
        check_no_splats(b)


test_driver_goes_cleanly_with_int_stuck.timeout = 300


def test_driver_stop_with_traffic_in_flight(logdir):
    """ip link set eth0 down during a UDP flood both ways, then up again."""
    with boot(logdir) as b:
        for reverse in ([], ["-R"]):
            p = background_iperf(b, "-u", "-b", "100M", "-l", "1472", *reverse, seconds=4)
            pump_for(b, 1.5)
            b.run("ip link set eth0 down")
            pump_for(b, 0.5)
            st = b.out("cat /sys/class/net/eth0/operstate")
            assert st == "down", st
            # quiesced: no bus traffic while down
            s0 = b.stats()
            pump_for(b, 0.5)
            s1 = b.stats()
            assert s1["transactions"] == s0["transactions"], \
                f"{s1['transactions'] - s0['transactions']} bus transactions while down"
            b.run("ip link set eth0 up && ip route add default via 10.0.2.2 2>/dev/null; "
                  "wait-carrier eth0 1 5")
            p.wait(timeout=60)
        ping_ok(b)
        check_no_splats(b)


test_driver_stop_with_traffic_in_flight.timeout = 150


def test_driver_txif_and_txabtif_together(logdir):
    """Link drops under a TX flood: the frame handed to the chip aborts
    (TXABTIF) while TXIF is still set from the frames before; the driver
    counts aborts, resets TX and carries on after the link returns.  The
    link drop is the model's tx-link-loss fault, which cuts the next frame
    the driver starts: a link drop from QEMU's side only aborts a frame
    that is on the wire at that moment (123 us of each frame), so it
    would hit one only now and then."""
    with boot(logdir) as b:
        aborts = 0
        for _ in range(5):
            p = background_iperf(b, "-u", "-b", "100M", "-l", "1472", "-R", seconds=3)
            pump_for(b, 1.0)
            b.inject("tx-link-loss")
            pump_for(b, 0.3)
            p.wait(timeout=60)
            b.out("wait-carrier eth0 1 5")
            aborts = ethtool_stats(b)["tx_aborted_errors"]
            if aborts:
                break
        st = ethtool_stats(b)
        ls = link_stats(b)
        assert aborts > 0, "no TX abort happened (link drop did not hit a frame in flight)"
        assert st["tx_resets"] >= aborts, st
        assert ls["tx_aborted_errors"] == aborts, f"stats64 {ls['tx_aborted_errors']}, driver {aborts}"
        ping_ok(b)
        check_no_splats(b)
        return f"{aborts} aborts handled"


test_driver_txif_and_txabtif_together.timeout = 200


def test_driver_tx_timeout_recovery(logdir):
    """The debugfs fault injection leaves a frame unsent with the queue
    stopped: the watchdog's tx_timeout must reset TX, free the skb and
    restart the queue."""
    with boot(logdir) as b:
        knob = f"{DEBUGFS}/inject_tx_hang"
        b.run(f"echo 1 > {knob}")
        before = link_stats(b)
        b.run("ping -c 1 -W 1 10.0.2.2", check=False, timeout=10)
        # the watchdog fires after watchdog_timeo (2 s) and resets TX
        until(lambda: ethtool_stats(b)["tx_resets"] >= 1, 30, "no TX reset after the hang")
        st = ethtool_stats(b)
        after = link_stats(b)
        assert st["tx_timeout"] == 1, f"tx_timeout {st['tx_timeout']}"
        assert st["tx_resets"] >= 1, st
        assert after["tx_dropped"] > before["tx_dropped"], "the hung skb was not dropped"
        ping_ok(b)
        # the watchdog reports it (netdev_crit on 6.1, no WARN)
        assert b.sync_kernel_log(), "the kernel log stream stopped"
        assert any("transmit queue 0 timed out" in t for _, t in b.kernel_log()), (
            "no NETDEV WATCHDOG report in the kernel log")
        check_no_splats(b)


test_driver_tx_timeout_recovery.timeout = 120


def host_udp_rcvbuf_errors():
    """The host's UDP RcvbufErrors (datagrams its sockets had no room for)."""
    with open("/proc/net/snmp") as f:
        rows = [l.split() for l in f if l.startswith("Udp:")]
    return int(rows[1][rows[0].index("RcvbufErrors")])


def guest_udp_out(b):
    """The guest's UDP OutDatagrams."""
    rows = [l.split() for l in b.out("grep '^Udp:' /proc/net/snmp").splitlines()
            if l.startswith("Udp:")]
    return int(rows[1][rows[0].index("OutDatagrams")])


TRACING = "/sys/kernel/tracing"


# The core's own TX drops add to the interface's tx_dropped without the
# frame ever reaching the driver: on 6.12, a frame queued while the
# carrier is off meets the noop qdisc, which counts it (6.1's does not).
# 6.12 makes every such count in netdev_core_stats_inc(dev, offset): a
# kprobe counts those of tx_dropped, the second unsigned long of struct
# net_device_core_stats (the second argument, in r1 at the function's
# entry on the 32-bit ARM guest), with their callers.  The offset is the
# guest's sizeof(long); noop_enqueue() counts nothing but tx_dropped, so
# its hits check it.  The probe cannot tell devices apart: the guest has
# no interface but lo (noqueue, no such drops) and eth0; and none of its
# callers may be the driver's own, which would hide a drop it made.  6.1
# increments inline, nothing to probe there; of its inline counts only
# validate_xmit_skb()'s (a failed GSO, linearize or checksum: memory)
# could happen here, and would fail the test as one frame more counted
# than handed, never hide a fault.
CORE_STATS_INC = "netdev_core_stats_inc"
ARM32_LONG_BYTES = 4
CORE_TX_DROPPED_OFFSET = 1 * ARM32_LONG_BYTES
CORE_TX_DROP_EVENT = "enc_test/core_stats_inc"
# Who may count a tx_dropped of eth0 in the core (6.12's net/core/dev.c,
# net/sched/sch_generic.c; validate_xmit_skb() may be inlined into its
# callers): a count from anywhere else, an address no symbol names, or a
# caller a tail call hid, fails rather than pass as the core's.
CORE_TX_DROP_CALLERS = {"noop_enqueue", "validate_xmit_skb", "validate_xmit_skb_list",
                        "sch_direct_xmit", "__dev_queue_xmit", "__dev_direct_xmit"}


def trace_xmit_start(b, queued=False):
    """Count, with the kernel's net_dev_xmit trace event, every frame the
    stack hands to eth0's driver and the driver takes (rc 0), and where
    the kernel has it, with a kprobe, every TX drop the core counts
    itself; queued: also every frame the stack queues for eth0
    (net_dev_queue, before the qdisc).  Returns whether the core's drops
    are counted (pass it to trace_xmit_count())."""
    facts = b.out(f"echo exact=$(grep -cE ' {CORE_STATS_INC}$' /proc/kallsyms) "
                  f"clones=$(grep -cE ' {CORE_STATS_INC}[.]' /proc/kallsyms) "
                  f"arch=$(uname -m) cpus=$(nproc) ifaces=$(ls /sys/class/net | tr '\\n' ,)")
    m = re.search(r"exact=(\d+) clones=(\d+) arch=(\S+) cpus=(\d+) ifaces=(\S+)", facts)
    assert m, f"no answer about the kernel: {facts!r}"
    exact, clones = int(m.group(1)), int(m.group(2))
    assert exact <= 1 and not clones, (
        f"{CORE_STATS_INC}: {exact} symbols and {clones} compiler clones, the probe "
        "would miss some")
    # trace_xmit_count() reads the lost events of the one CPU's buffer
    assert m.group(4) == "1", f"the guest has {m.group(4)} CPUs, the trace is read for one"
    probe = exact == 1
    ev = f"{TRACING}/events"
    # the production configuration has no event tracing (tests marked
    # test_kernel): say so, not that a file is missing
    has = b.out(f"mountpoint -q {TRACING} 2>/dev/null || mount -t tracefs nodev {TRACING}; "
                f"test -d {ev}/net/net_dev_xmit && echo has-xmit-event || echo no such event")
    assert "has-xmit-event" in has, (
        f"this kernel has no net_dev_xmit trace event ({ev}/net/net_dev_xmit: "
        f"{has.strip()!r}): the test needs event tracing, which the test kernel has")
    b.run(f"cd {TRACING} && echo 0 > tracing_on && echo > trace && "
          f"echo 8192 > buffer_size_kb && "
          f"echo 'name == \"eth0\" && rc == 0' > {ev}/net/net_dev_xmit/filter && "
          f"echo 1 > {ev}/net/net_dev_xmit/enable")
    if queued:
        b.run(f"echo 'name == \"eth0\"' > {ev}/net/net_dev_queue/filter && "
              f"echo 1 > {ev}/net/net_dev_queue/enable")
    if probe:
        assert set(m.group(5).strip(",").split(",")) == {"lo", "eth0"}, (
            f"interfaces {m.group(5)}: the probe counts every device's drops")
        assert m.group(3).startswith("armv"), (
            f"the probe reads the offset from r1 of 32-bit ARM, the guest is {m.group(3)}")
        assert b.run(f"test -e {TRACING}/kprobe_events", check=False)[0] == 0, (
            f"this kernel counts the core's TX drops in {CORE_STATS_INC}() but has no "
            "kprobe events (CONFIG_KPROBE_EVENTS) to count them with")
        # every counter's hits, with the offset: noop_enqueue()'s check it
        b.run(f"echo 'p:{CORE_TX_DROP_EVENT} {CORE_STATS_INC} field=%r1:u32 "
              f"caller=%lr:symbol' >> {TRACING}/kprobe_events && "
              f"echo 1 > {ev}/{CORE_TX_DROP_EVENT}/enable")
    b.run(f"echo 1 > {TRACING}/tracing_on")
    return probe


def trace_xmit_count(b, probe):
    """What trace_xmit_start() counted, the trace stopped: handed (frames
    the driver took), queued, core_dropped (the core's tx_dropped counts),
    and core_callers (function: those drops).  No event was lost, no hit
    of the probe missed, and none of its tx_dropped counts came from the
    driver."""
    name = CORE_TX_DROP_EVENT.split("/")[1]
    out = b.out(f"cd {TRACING} && echo 0 > tracing_on && "
                f"echo xmit=$(grep -c ' net_dev_xmit: ' trace) "
                f"queue=$(grep -c ' net_dev_queue: ' trace) hits=$(grep -c ' {name}: ' trace); "
                f"grep -E '^(overrun|commit overrun|dropped events):' per_cpu/cpu0/stats; "
                f"grep -s ' {name} ' kprobe_profile; "
                f"grep -o ' {name}: .*' trace "
                f"| sed -E 's/.* field=([0-9]+) caller=([^+ ]*).*/hit \\1 \\2/' "
                f"| sort | uniq -c")
    m = re.search(r"xmit=(\d+) queue=(\d+) hits=(\d+)", out)
    assert m, f"no trace counts in {out!r}"
    lost = {k: int(v) for k, v in
            re.findall(r"^(overrun|commit overrun|dropped events): (\d+)", out, re.M)}
    assert len(lost) == 3 and not any(lost.values()), f"the trace lost events: {lost}"
    hits = {(int(f), c): int(n) for n, f, c in
            re.findall(r"^\s*(\d+) hit (\d+) (\S+)$", out, re.M)}
    assert sum(hits.values()) == int(m.group(3)), (
        f"{m.group(3)} probe events, {sum(hits.values())} of them read: {out!r}")
    if probe:
        profile = re.search(rf"^\s*{name}\s+(\d+)\s+(\d+)\s*$", out, re.M)
        assert profile, f"no kprobe_profile line for {name}: {out!r}"
        nhit, nmissed = int(profile.group(1)), int(profile.group(2))
        assert nmissed == 0, f"the kprobe missed {nmissed} hits"
        assert nhit >= sum(hits.values()), f"{nhit} kprobe hits, {sum(hits.values())} traced"
        # bites where noop_enqueue() dropped something (the carrier-off
        # test asks that it did); elsewhere there is nothing to check
        noop = {f for f, c in hits if c == "noop_enqueue"}
        assert noop <= {CORE_TX_DROPPED_OFFSET}, (
            f"noop_enqueue() counted at offsets {sorted(noop)}: tx_dropped is not at "
            f"{CORE_TX_DROPPED_OFFSET}")
        mine = set(b.out(f"grep '\\[{OURS}\\]$' /proc/kallsyms "
                         "| awk '{print $3}'").split())
        assert mine, f"no symbol of {OURS} in /proc/kallsyms"
        ours = {c for f, c in hits if c in mine}
        assert not ours, f"the driver counted through the core's counters: {sorted(ours)}"
        odd = {c for f, c in hits if f == CORE_TX_DROPPED_OFFSET} - CORE_TX_DROP_CALLERS
        assert not odd, f"tx_dropped counted by callers not of the core's TX path: {sorted(odd)}"
    else:
        assert not hits, f"probe events on a kernel with nothing probed: {hits}"
    callers = {c: n for (f, c), n in hits.items() if f == CORE_TX_DROPPED_OFFSET}
    return {"handed": int(m.group(1)), "queued": int(m.group(2)),
            "core_dropped": sum(callers.values()), "core_callers": callers}


def test_driver_core_tx_drops_are_told_apart(logdir):
    """With the carrier off the stack's frames never reach the driver.
    6.12's noop qdisc, which linkwatch puts in place then, counts each in
    the interface's tx_dropped (6.1's counts none): the kprobe of the TX
    accounting test below sees each of those, and the driver none."""
    with boot(logdir) as b:
        # nothing of the boot's in flight: every frame queued from here
        # on is this test's
        b.wait_quiet()
        probe = trace_xmit_start(b, queued=True)
        l0 = link_stats(b)
        b.set_link(False)
        until(lambda: carrier(b) == 0, 10, "the carrier stayed on with the link down")
        # linkwatch sets the operstate, then swaps in the noop qdisc (on
        # 6.12 reading the carrier runs it at once; 6.1 waits up to 1 s)
        until(lambda: b.out("cat /sys/class/net/eth0/operstate").strip().endswith("down"),
              10, "linkwatch never took the link down")
        time.sleep(0.5)
        # the gateway is not resolved: ARP requests, one a second, until
        # the neighbour entry fails (the last may come after ping ends)
        b.run("ping -c 3 -i 0.5 -W 1 10.0.2.2 >/dev/null", check=False, timeout=15)
        until(lambda: re.search(r"INCOMPLETE|PROBE|DELAY",
                                b.out("ip neigh show 10.0.2.2 dev eth0")) is None,
              10, "the gateway's neighbour entry kept probing")
        d = delta(link_stats(b), l0)
        t = trace_xmit_count(b, probe)
        assert t["handed"] == 0 and d["tx_packets"] == 0, (
            f"with the carrier off the driver was handed {t['handed']} frames "
            f"and sent {d['tx_packets']}")
        assert t["queued"] > 0, "the stack queued no frame with the carrier off: nothing tested"
        if probe:
            assert t["core_dropped"] == t["queued"] == d["tx_dropped"], (
                f"{t['queued']} frames queued with the carrier off, {t['core_dropped']} "
                f"dropped by the core, tx_dropped rose by {d['tx_dropped']}")
            assert set(t["core_callers"]) == {"noop_enqueue"}, t["core_callers"]
        else:
            assert d["tx_dropped"] == 0, (
                f"tx_dropped rose by {d['tx_dropped']} on a kernel whose core drops "
                "cannot be counted apart")
        b.set_link(True)
        until(lambda: carrier(b) == 1, 10, "the carrier did not come back")
        ping_ok(b)
        check_no_splats(b)
        return (f"carrier off: {t['queued']} frames queued, {t['core_dropped']} dropped by "
                + ("the noop qdisc and counted apart" if probe else
                   "the core, none counted in tx_dropped by this kernel"))


# It counts with trace events (trace_xmit_start: net_dev_xmit, and from
# 6.12 on a kprobe), which only the test kernel has (config/linux.fragment
# has no event tracing): test_kernel, like the two below
test_driver_core_tx_drops_are_told_apart.test_kernel = True


def test_driver_chip_resets_under_tx_flood_account_every_frame(logdir):
    """The chip resets behind the driver while the guest transmits as fast
    as it can.  As on silicon, each reset also resets the PHY, whose link
    is down until it has negotiated again: frames handed over meanwhile
    cannot go out (they are counted as dropped).  Every frame the stack
    handed the driver (the kernel's net_dev_xmit event) is counted once,
    as sent, dropped or an error; every frame the chip sent is counted as
    sent and reached the host; a frame lost to a reset itself is an error
    (at most the one in flight and the one the link loss cut); no TX
    watchdog fires; and every frame is freed once (kmemleak scans at the
    board's stop).  Recovery races the stack's next frame for the
    one TX slot: a frame parked and then overwritten is a leak; debugfs
    inject_restore_delay_ms widens that window for half the resets."""
    with boot(logdir) as b:
        core_probe = trace_xmit_start(b)
        s0, (l0, e0) = b.quiet_reading(lambda: (link_stats(b), ethtool_stats(b)))
        rcvbuf0 = host_udp_rcvbuf_errors()
        # the driver notices a reset at its next status read: the flood
        # makes them, so it outlasts the resets (the test kernel sends a
        # few hundred frames a second, fewer on a loaded host)
        report = os.path.join(b.logdir, f"{b.name}.iperf3-tx-flood.json")
        if os.path.exists(report):     # iperf3 appends to its log file
            os.remove(report)
        p = background_iperf(b, "-u", "-b", "20M", "-l", "1472", "-R", "-J",
                             "--logfile", report, seconds=30)
        try:
            for i in range(6):
                # every other restore waits before it hands the TX slot
                # back: the stack's next frame races that hand-back
                b.run(f"echo {200 if i % 2 else 0} > {DEBUGFS}/inject_restore_delay_ms")
                before = ethtool_stats(b)["chip_lost"]
                b.inject("chip-reset")
                until(lambda: ethtool_stats(b)["chip_lost"] > before, 10,
                      "the driver did not notice the model's reset under a TX flood "
                      f"(iperf3 {'still running' if p.poll() is None else 'ended'})")
                until(lambda: carrier(b) == 1, 10,
                      "the carrier did not come back after a chip reset")
                time.sleep(0.5)
        finally:
            p.wait(timeout=90)
        assert p.returncode == 0, f"iperf3 failed ({p.returncode}): see {report}"
        with open(report) as f:
            udp = json.load(f)["end"]["sum"]
        # the driver accounts its last frame at its next status read: a
        # ping makes one (its own frames count on both sides)
        ping_ok(b)
        st, (l1, e1) = b.quiet_reading(lambda: (link_stats(b), ethtool_stats(b)))
        d, e = delta(l1, l0), delta(e1, e0)
        t = trace_xmit_count(b, core_probe)
        handed, core_dropped = t["handed"], t["core_dropped"]
        host_full = host_udp_rcvbuf_errors() - rcvbuf0
        chip = st["tx-frames"] - s0["tx-frames"]
        assert chip > 100, f"only {chip} frames left the chip"
        assert d["tx_packets"] <= chip <= d["tx_packets"] + d["tx_errors"], (
            f"the chip sent {chip} frames, the driver counted {d['tx_packets']} "
            f"sent and {d['tx_errors']} errors")
        # each frame the driver took, counted once (the last one at the
        # next status read: the ping's reply made it); tx_dropped also
        # holds the frames the core dropped itself with the carrier off
        counted = d["tx_packets"] + d["tx_dropped"] - core_dropped + d["tx_errors"]
        assert counted == handed, (
            f"the stack handed the driver {handed} frames; it counted {d['tx_packets']} "
            f"sent, {d['tx_dropped'] - core_dropped} dropped, {d['tx_errors']} errors "
            f"({counted}; the core dropped {core_dropped} itself"
            + ("" if core_probe else ", not counted on this kernel") + ")")
        # the device is detached while the chip is reset: no TX watchdog;
        # each reset costs at most the frame in flight, and the frame the
        # reset PHY's link loss cut (a carrier error)
        assert e["tx_timeout"] == 0, f"{e['tx_timeout']} TX timeouts"
        assert d["tx_carrier_errors"] <= e["chip_lost"], (
            f"{d['tx_carrier_errors']} carrier errors for {e['chip_lost']} resets")
        assert d["tx_errors"] <= e["chip_lost"] + e["tx_aborted_errors"] + d["tx_carrier_errors"], (
            f"{d['tx_errors']} TX errors for {e['chip_lost']} resets, "
            f"{e['tx_aborted_errors']} aborts and {d['tx_carrier_errors']} carrier errors")
        # and the receiving end got every datagram the chip sent: the
        # chip's frames beyond the datagrams received are iperf3's control
        # connection, ARP and the ping, a few dozen, and datagrams a busy
        # host had no socket buffer room for (counted by the host)
        got = udp["packets"] - udp["lost_packets"]
        assert got <= chip <= got + CONTROL_FRAMES_MAX + host_full, (
            f"the chip sent {chip} frames and the host received {got} datagrams "
            f"(of {udp['packets']}; {host_full} found its buffer full): more than "
            f"{CONTROL_FRAMES_MAX} frames apart")
        check_no_splats(b)
        return (f"{e['chip_lost']} chip resets under {chip} frames: {handed} handed to the "
                f"driver, {d['tx_packets']} sent, "
                f"{d['tx_dropped'] - core_dropped} dropped with the link down "
                f"(and {core_dropped} by the core: {t['core_callers']}), "
                f"{d['tx_errors']} errors; "
                f"host got {got} of {udp['packets']}")


test_driver_chip_resets_under_tx_flood_account_every_frame.timeout = 300
test_driver_chip_resets_under_tx_flood_account_every_frame.test_kernel = True   # trace events


# the driver checks a chip it has not heard from for half a second; the
# test kernel's slowness and the polling here add to that
QUIET_RESET_NOTICED_S = 5


def test_driver_chip_reset_on_a_quiet_link_is_noticed(logdir):
    """A chip reset behind the driver (brown-out, ESD) leaves its interrupts
    disabled: on a quiet link, or one that only receives, no interrupt and
    no transmission would ever tell the driver.  It must find out on its
    own, restore the chip and receive again: the guest sends nothing until
    the reset has been noticed (the health check noticed it), and then a
    frame from the host must reach it."""
    with boot(logdir) as b:
        st0 = b.wait_quiet()
        probe = trace_xmit_start(b)
        e0 = ethtool_stats(b)
        rx0 = link_stats(b)["rx_packets"]
        b.inject("chip-reset")
        until(lambda: ethtool_stats(b)["chip_lost"] > e0["chip_lost"], QUIET_RESET_NOTICED_S,
              "the driver never noticed the chip's reset on a quiet link")
        e1 = ethtool_stats(b)
        # what left the chip (the model's count): the driver counts a
        # frame sent at its next status read, which may be the health
        # check's that found the reset
        sent = b.stats()["tx-frames"] - st0["tx-frames"]
        handed = trace_xmit_count(b, probe)["handed"]
        assert sent == 0 and handed == 0, (
            f"the chip sent {sent} frames and the stack handed the driver {handed}: "
            "not a quiet link")
        assert e1["health_checks"] > e0["health_checks"], "noticed, but not by a health check"
        until(lambda: carrier(b) == 1, 10, "the carrier did not come back after the reset")
        # frames from the host only: UDP to a closed port of the guest
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _ in range(5):
                s.sendto(bytes(100), ("127.0.0.1", b.iperf_port))
                time.sleep(0.1)
        until(lambda: link_stats(b)["rx_packets"] > rx0, 10,
              "no frame from the host was received after the restore")
        ping_ok(b)
        check_no_splats(b)
        return (f"noticed by health check {e1['health_checks']} with no frame sent, "
                "restored, frames received again")


test_driver_chip_reset_on_a_quiet_link_is_noticed.test_kernel = True   # trace events


def log_count(b, text):
    """How many kernel log records so far contain text."""
    return sum(text in t for _, t in b.kernel_log())


def test_driver_restore_hands_the_tx_slot_back_once(logdir):
    """A lost chip noticed by the IRQ thread (RX traffic, TX idle) is
    restored while the guest starts to transmit as fast as it can: debugfs
    inject_restore_delay_ms holds reset_work's hand-back of the TX slot for
    1.5 s, so the stack's frames race it.  Only the path that consumed a
    frame may wake the queue: a queue woken with a frame still parked lets
    the stack's next frame overwrite it, a leaked skb (kmemleak scans as the
    board stops) that was never sent nor counted."""
    port = free_port()
    srv = subprocess.Popen(["iperf3", "-s", "-1", "-p", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with boot(logdir) as b:
            b.run(f"echo 1500 > {DEBUGFS}/inject_restore_delay_ms")
            b.run("rm -f /tmp/go /tmp/done; (while [ ! -e /tmp/go ]; do sleep 0.05; done; "
                  f"iperf3 -c 10.0.2.2 -p {port} -u -b 20M -l 1400 -t 4 >/tmp/iperf.log 2>&1; "
                  "touch /tmp/done) >/dev/null 2>&1 & true")
            s0, l0 = b.quiet_reading(lambda: link_stats(b))
            lost0 = log_count(b, "chip lost its state")
            back0 = log_count(b, "chip reset and reconfigured")
            stop = threading.Event()
            flood = threading.Thread(target=udp_flood, args=(b, stop), daemon=True)
            flood.start()
            try:
                b.set_model("x-spi-absent", True)
                until(lambda: log_count(b, "chip lost its state") > lost0, 20,
                      "the IRQ thread never found the chip gone under RX traffic")
            finally:
                stop.set()
                flood.join()
                b.set_model("x-spi-absent", False)
            until(lambda: log_count(b, "chip reset and reconfigured") > back0, 20,
                  "the chip was never restored")
            # the hand-back waits 1.5 s from here: transmit through it
            b.run("touch /tmp/go")
            b.run("until [ -e /tmp/done ]; do sleep 0.2; done", timeout=60)
            sent = b.out("cat /tmp/iperf.log | tail -4")
            b.run(f"echo 0 > {DEBUGFS}/inject_restore_delay_ms")
            ping_ok(b)
            st, l1 = b.quiet_reading(lambda: link_stats(b))
            d = delta(l1, l0)
            chip = st["tx-frames"] - s0["tx-frames"]
            assert chip > 100, f"only {chip} frames left the chip: {sent}"
            assert d["tx_packets"] <= chip <= d["tx_packets"] + d["tx_errors"], (
                f"the chip sent {chip} frames, the driver counted {d['tx_packets']} "
                f"sent and {d['tx_errors']} errors")
            check_no_splats(b)
            return f"{chip} frames sent through a delayed hand-back, counts agree"
    finally:
        srv.kill()
        srv.wait()


test_driver_restore_hands_the_tx_slot_back_once.timeout = 240
# what it is after, a parked frame overwritten, only kmemleak sees
test_driver_restore_hands_the_tx_slot_back_once.test_kernel = True


def udp_flood(b, stop):
    """UDP datagrams to a closed guest port until stop is set: the model
    paces them at the link speed, faster than the driver drains the ring,
    so the ring overflows and the driver drains it from rx_work."""
    data = bytes(1400)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        while not stop.is_set():
            try:
                s.sendto(data, ("127.0.0.1", b.iperf_port))
            except OSError:
                time.sleep(0.001)   # the host's socket buffer is full


# The shortest SPI transfer the driver takes (ENC_XFER_MIN): the opcode, a
# full-size frame as the ring holds it (8 bytes of header, 1522 of frame)
# and the next frame's header, which confirms a frame to step over
SHORT_TRANSFER = 1 + 8 + 1522 + 8


def udp_no_ports(b):
    """The guest's count of UDP datagrams to a closed port (the flood's)."""
    rows = [l.split() for l in b.out("grep '^Udp:' /proc/net/snmp").splitlines()
            if l.startswith("Udp:")]
    assert len(rows) >= 2 and "NoPorts" in rows[0], f"/proc/net/snmp Udp rows: {rows}"
    return int(rows[1][rows[0].index("NoPorts")])


def test_driver_rx_bursts_fit_the_controllers_transfers(logdir):
    """An SPI controller whose transfers are shorter than the RX ring
    (spi_max_transfer_size(); the board's PL022 has no limit, so the
    driver's max_transfer test knob stands in for one) gets RX bursts no
    longer than that: under a flood of full-size frames every burst reads
    at most one frame and every frame the chip stored arrives, with no
    RX reset.  A controller a byte too short is refused at probe, saying
    why."""
    with boot(logdir, name="short", params=f"max_transfer={SHORT_TRANSFER}") as b:
        s0, (e0, l0, big0) = b.quiet_reading(
            lambda: (ethtool_stats(b), link_stats(b), udp_no_ports(b)))
        stop = threading.Event()
        flood = threading.Thread(target=udp_flood, args=(b, stop), daemon=True)
        flood.start()
        try:
            until(lambda: b.stats()["rx-frames"] - s0["rx-frames"] > 300, 60,
                  "the flood stored too few frames")
        finally:
            stop.set()
            flood.join()
        st, (e1, l1, big) = b.quiet_reading(
            lambda: (ethtool_stats(b), link_stats(b), udp_no_ports(b)), timeout=30)
        big -= big0
        reads0, reads1 = s0["classes"]["sram-read"], st["classes"]["sram-read"]
        bursts = reads1["transactions"] - reads0["transactions"]
        nbytes = reads1["bytes"] - reads0["bytes"]
        stored = st["rx-frames"] - s0["rx-frames"]
        got = l1["rx_packets"] - l0["rx_packets"]
        resets = e1["rx_resets"] - e0["rx_resets"]
        assert resets == 0, f"{resets} RX resets reading through short transfers"
        assert got == stored, (
            f"the chip stored {stored} frames, the driver delivered {got}, with "
            f"{e1['rx_rewinds'] - e0['rx_rewinds']} rewinds; the guest's rx_packets "
            f"{l0['rx_packets']} -> {l1['rx_packets']}, the model's rx-frames "
            f"{s0['rx-frames']} -> {st['rx-frames']}")
        # the opcode and what it reads: SHORT_TRANSFER at most
        assert nbytes <= bursts * SHORT_TRANSFER, \
            f"{bursts} RX bursts moved {nbytes} bytes: longer than {SHORT_TRANSFER}"
        # a flood frame takes 1454 bytes of the ring: two never share a burst
        assert big > 0 and bursts >= big, f"{bursts} RX bursts for {big} flood frames"
        check_no_splats(b)
        note = (f"{got} frames ({big} of the flood) in {bursts} bursts of "
                f"{nbytes / bursts:.0f} bytes on average, "
                f"{e1['rx_rewinds'] - e0['rx_rewinds']} rewinds")
    with Board(logdir, name="too-short") as b:
        b.run(f"modprobe {OURS} max_transfer={SHORT_TRANSFER - 1}", timeout=60)
        bound = chip_driver(b)
        said = b.out("dmesg | grep 'cannot carry a frame' || true").strip()
        assert bound is None, f"a controller too short for a frame: the chip is bound to {bound}"
        assert f"{SHORT_TRANSFER - 1} bytes" in said, \
            f"no clear message: {b.out('dmesg | tail -3')}"
        check_no_splats(b)
    return f"{note}; {SHORT_TRANSFER - 1}: {said.split('] ', 1)[-1]}"


# what reset_work may put on the bus while the chip is gone: a retry every
# 100 ms (ENC_RESTORE_RETRY), each at most 10 EUDAST write + read probes
RESTORE_PROBES_PER_S = 10 * 2 / 0.1


def test_driver_chip_gone_under_rx_flood_stays_quiet(logdir):
    """The chip stops answering while a UDP flood keeps rx_work draining
    the ring.  A chip gone reads as all ones, which looks like 255 frames
    pending: the driver must take it for a lost chip, not frames, and
    detach the device until it is back, so the TX watchdog does not fire
    again and again, with the carrier off.  While it is gone no RX reset, error or timeout is
    counted and the bus carries only the restore's retries (every 100 ms);
    once it answers again the device is back and frames flow."""
    with boot(logdir) as b:
        stop = threading.Event()
        flood = threading.Thread(target=udp_flood, args=(b, stop), daemon=True)
        flood.start()
        try:
            until(lambda: ethtool_stats(b)["rx_deferrals"] > 0, 30,
                  "the flood never overflowed the ring (RX never deferred to rx_work)")
            e0, l0 = ethtool_stats(b), link_stats(b)
            b.set_model("x-spi-absent", True)
            try:
                until(lambda: detached(b), 10, "the device was not detached with the chip gone")
                until(lambda: carrier(b) == 0, 5,
                      "the carrier stayed on with the chip gone (device detached)")
                time.sleep(0.5)
                t0, s0 = time.monotonic(), b.stats()
                time.sleep(3)
                t1, s1 = time.monotonic(), b.stats()
                assert detached(b), "the device came back while the chip was still gone"
            finally:
                stop.set()
                flood.join()
                b.set_model("x-spi-absent", False)
        finally:
            stop.set()
        # back: the driver resets the chip, whose PHY negotiates the link
        # again, as on silicon, before the carrier is on
        until(lambda: carrier(b) == 1, 10, "the carrier did not come back with the chip")
        ping_ok(b)
        assert carrier(b) == 1, "the carrier went off again after a ping answered"
        e1, l1 = ethtool_stats(b), link_stats(b)
        grew = {k: e1[k] - e0[k] for k in ("rx_resets", "rx_crc_errors", "rx_length_errors",
                                           "tx_timeout", "tx_resets", "irq_storms")
                if e1[k] != e0[k]}
        assert not grew, f"while the chip was gone the driver counted {grew}"
        assert e1["chip_lost"] == e0["chip_lost"] + 1, \
            f"chip_lost {e0['chip_lost']} -> {e1['chip_lost']}: one loss, one recovery"
        errors = {k: l1[k] - l0[k] for k in ("rx_errors", "rx_frame_errors", "rx_length_errors",
                                             "rx_crc_errors") if l1[k] != l0[k]}
        assert not errors, f"errors counted for a chip that was gone: {errors}"
        # the restore retries every 100 ms, probing the chip with at most
        # 10 write + read pairs of EUDAST: up to 200 transactions/s; rx
        # work on a chip that reads as 255 frames pending costs thousands
        per_s = (s1["absent-transactions"] - s0["absent-transactions"]) / (t1 - t0)
        assert 0 < per_s <= RESTORE_PROBES_PER_S, \
            f"{per_s:.0f} bus transactions/s while the chip was gone"
        check_no_splats(b)
        return f"detached while gone, {per_s:.0f} transactions/s, no RX reset or error, back after"


test_driver_chip_gone_under_rx_flood_stays_quiet.timeout = 200


def wait_back(b, after, seconds=10):
    """Wait for eth0 to be attached again with its carrier on.  A lost
    chip is reset with its PHY, which negotiates the link again, as on
    silicon, before the carrier is on: a frame sent before that is
    dropped with the link down.  phylib reads the link (latched low by
    the PHY's reset) as the restore restarts autonegotiation, so the
    carrier is not on before the link is."""
    until(lambda: not detached(b) and carrier(b) == 1, seconds,
          f"eth0 and its carrier did not come back after {after}")


def carrier(b):
    """/sys/class/net/eth0/carrier as an int (kernel messages on the
    console skipped)."""
    out = b.out("cat /sys/class/net/eth0/carrier")
    vals = [l.strip() for l in out.splitlines() if l.strip() in ("0", "1")]
    assert len(vals) == 1, f"carrier read as {out!r}"
    return int(vals[0])


def test_driver_phy_access_to_a_chip_gone_is_a_lost_chip(logdir):
    """A PHY access (here ethtool -r) to a chip that stopped answering reads
    MISTAT as all ones, BUSY for ever.  That is a chip gone, not a slow PHY:
    the access fails with ENODEV at once (phylib's state machine takes that
    quietly, where a timeout halts it with a WARN and the link never comes
    back) and the driver recovers the chip as any lost one."""
    with boot(logdir) as b:
        b.wait_quiet()
        lost0 = ethtool_stats(b)["chip_lost"]
        b.set_model("x-spi-absent", True)
        try:
            rc, out = b.run("ethtool -r eth0", check=False)
            until(lambda: detached(b), 5,
                  f"a PHY access to a chip gone was not taken for a lost chip "
                  f"(ethtool -r: rc {rc}, {out.strip()[-120:]!r})")
            assert rc != 0 and "No such device" in out, \
                f"ethtool -r on a chip gone: rc {rc}, {out.strip()[-120:]!r}"
        finally:
            b.set_model("x-spi-absent", False)
        wait_back(b, "the chip came back")
        ping_ok(b)
        lost = ethtool_stats(b)["chip_lost"] - lost0
        assert lost == 1, f"chip_lost moved by {lost}"
        assert carrier(b) == 1, "carrier off again after a ping answered"
        check_no_splats(b)
        return f"ethtool -r: {out.strip()[-60:]!r}; detached, recovered"


def mii_commands(b):
    """(reads, writes) of PHY registers: as the model executed them and as
    the driver started them, read once the bus has been quiet.  The driver
    is read before and after the model, until both readings agree and the
    model's did not move meanwhile: a PHY read started in between (a late
    link interrupt) is not a mismatch.  Only the PHY counts are compared:
    an idle driver's health check reads the status now and then."""
    for _ in range(10):
        st = b.wait_quiet()
        e0 = ethtool_stats(b)
        m = b.stats()
        e1 = ethtool_stats(b)
        d0, d1 = (e0["mii_reads"], e0["mii_writes"]), (e1["mii_reads"], e1["mii_writes"])
        mii0, mii = (st["mii-reads"], st["mii-writes"]), (m["mii-reads"], m["mii-writes"])
        if d0 == d1 and mii == mii0:
            return mii, d1
    raise AssertionError("the PHY accesses never settled (model and driver readings)")


def test_driver_chip_reset_starts_no_mii_command(logdir):
    """After the chip resets behind the driver, the driver restores its
    registers from the regmap cache: that must not replay an MII command
    (MICMD.MIIRD, a write to MIWR) and so start a PHY read or write that
    nobody asked for.  The model counts the MII commands it executes, the
    driver those it starts: the two must move together."""
    with boot(logdir) as b:
        # a PHY write (BMCR: restart autonegotiation) leaves MIREGADR and
        # MIWR holding a command a replay would start again
        b.run("ethtool -r eth0")
        b.out("wait-carrier eth0 1 10")
        m0, d0 = mii_commands(b)
        assert d0[1] > 0, f"ethtool -r wrote no PHY register: {d0}"
        for _ in range(3):
            before = ethtool_stats(b)["chip_lost"]
            b.inject("chip-reset")
            # the driver reads the chip's status before its second frame
            b.run("ping -c 3 -i 0.2 -W 1 10.0.2.2 >/dev/null", check=False, timeout=15)
            until(lambda: ethtool_stats(b)["chip_lost"] > before, 10,
                  "the driver did not notice the model's chip reset")
            wait_back(b, "a chip reset")
            ping_ok(b)
        m1, d1 = mii_commands(b)
        model = (m1[0] - m0[0], m1[1] - m0[1])
        drv = (d1[0] - d0[0], d1[1] - d0[1])
        assert model == drv, (
            f"over 3 chip resets the chip ran {model[0]} PHY reads and {model[1]} "
            f"writes, the driver started {drv[0]} and {drv[1]}")
        check_no_splats(b)
        return f"3 chip resets: {drv[0]} PHY reads and {drv[1]} writes, each asked for"


test_driver_chip_reset_starts_no_mii_command.timeout = 200

# The SFR file's gaps (chip-facts 2.1): bank offsets 0x16-0x1F of banks 1-3
# reach the common registers again, and 0x4C-0x51 and 0x92-0x9F hold none.
SFR_HOLES = {*range(0x36, 0x40, 2), *range(0x4c, 0x52, 2), *range(0x56, 0x60, 2),
             *range(0x76, 0x80, 2), *range(0x92, 0xa0, 2)}
# the SRAM windows: reading one moves its pointer
SFR_WINDOWS = {0x80, 0x82, 0x84}
SFR_LAST = 0x9e


def test_driver_regmap_debugfs_read_touches_nothing(logdir):
    """Reading the regmap's debugfs `registers` file in full reads every
    register the chip has, skips its holes, mirrors and SRAM windows, and
    does nothing else: the only SPI transactions are register reads, and
    no MII command starts."""
    with boot(logdir, up=False) as b:
        path = "/sys/kernel/debug/regmap/spi0.0-sfr/registers"
        s0 = b.wait_quiet()
        dump = b.out(f"cat {path}")
        s1 = b.wait_quiet()
        # a line per register: "addr: value", both in hex
        listed = {int(l.split(":")[0], 16) for l in dump.splitlines() if ":" in l}
        holes = sorted(listed & SFR_HOLES)
        assert not holes, f"debugfs reads holes and mirrors: {[hex(a) for a in holes]}"
        want = set(range(0, SFR_LAST + 1, 2)) - SFR_HOLES - SFR_WINDOWS
        assert listed == want, (f"debugfs lists {sorted(map(hex, listed - want))} "
                                f"and misses {sorted(map(hex, want - listed))}")
        moved = {c: v["transactions"] - s0["classes"][c]["transactions"]
                 for c, v in s1["classes"].items()
                 if v["transactions"] != s0["classes"][c]["transactions"]}
        assert set(moved) <= {"rcru"} and moved, f"a register dump sent {moved}"
        assert moved["rcru"] <= len(listed), \
            f"{moved['rcru']} register reads for {len(listed)} registers listed"
        mii = (s1["mii-reads"] - s0["mii-reads"], s1["mii-writes"] - s0["mii-writes"])
        assert mii == (0, 0), f"a register dump started MII reads/writes {mii}"
        return f"{len(listed)} registers listed with {moved['rcru']} register reads"


def test_driver_set_mac_address_while_up(logdir):
    with boot(logdir) as b:
        new = "52:54:00:de:ad:01"
        b.run(f"ip link set eth0 address {new}")
        assert b.out("cat /sys/class/net/eth0/operstate") == "up"
        assert station_mac(b) == new, f"MAADR holds {station_mac(b)}"
        b.run("ip neigh flush dev eth0")
        ping_ok(b)
        check_no_splats(b)


def test_driver_update_bits_offload(logdir):
    """Volatile-register updates go out as one BFSU or BFCU of both bytes;
    with offload=0 (same build) the regmap core reads and writes instead.
    Over the same link cycles the offload board moves fewer transactions,
    besides the status reads of interrupts and health checks, whose number
    is timing."""
    results = {}
    for params in ("", "offload=0"):
        with boot(logdir, name=f"board-{params or 'offload'}", params=params) as b:
            b.wait_quiet()
            d0, s0 = ethtool_stats(b), b.stats()
            for _ in range(6):
                b.set_link(False)
                b.out("wait-carrier eth0 0 2")
                b.set_link(True)
                b.out("wait-carrier eth0 1 2")
            ping_ok(b, 5)
            d1, s1 = ethtool_stats(b), b.stats()
            c0, c1 = s0["classes"], s1["classes"]
            bf = {k: c1[k]["commands"] - c0[k]["commands"] for k in ("bfsu", "bfcu")}
            bf_bytes = sum(c1[k]["bytes"] - c0[k]["bytes"] for k in ("bfsu", "bfcu"))
            no_banked_traffic(s1)
            # a health check comes after each 500 ms the chip was not heard
            # from, one status burst on a quiet chip: how many fall in the
            # window is timing, not offload, so each is taken out, and so is
            # each interrupt's status read
            checks = d1["health_checks"] - d0["health_checks"]
            irqs = d1["irqs"] - d0["irqs"]
            results[params or "offload"] = (bf, d1["update_bits_offloaded"] - d0["update_bits_offloaded"],
                                            s1["transactions"] - s0["transactions"] - checks - irqs,
                                            checks + irqs)
            if params:
                assert sum(bf.values()) == 0, f"offload=0 still sent {bf}"
                assert d1["update_bits_offloaded"] == 0, "offload=0 counted offloaded updates"
            else:
                n = sum(bf.values())
                assert n > 0, "no BFSU/BFCU"
                assert bf_bytes == 4 * n, f"{n} bit-field commands took {bf_bytes} bytes (not 4 each)"
                assert d1["update_bits_offloaded"] - d0["update_bits_offloaded"] >= n / 2
            check_no_splats(b)
    on, off = results["offload"], results["offload=0"]
    assert on[2] < off[2], (f"offload saved nothing: {on[2]} vs {off[2]} transactions "
                            f"besides {on[3]} and {off[3]} status reads (IRQs, health checks)")
    return (f"transactions {on[2]} with offload, {off[2]} without "
            f"(besides {on[3]} and {off[3]} status reads of IRQs and health checks)")


test_driver_update_bits_offload.timeout = 200


def test_driver_config_cache_costs_no_reads(logdir):
    """RX-mode changes touch only cached registers: writes, never reads."""
    with boot(logdir) as b:
        b.wait_quiet()
        d0, s0 = ethtool_stats(b), b.stats()
        b.run("ip link set eth0 promisc on; ip link set eth0 allmulticast on; "
              "ip maddr add 01:00:5e:00:00:42 dev eth0; ip link set eth0 promisc off; "
              "ip link set eth0 allmulticast off; ip maddr del 01:00:5e:00:00:42 dev eth0")
        b.settle_after(s0)      # the rx_mode work has run
        # the driver's counters around the model's: a health check between
        # the two readings counts in both
        s1 = b.stats()
        d1 = ethtool_stats(b)
        reads = s1["classes"]["rcru"]["transactions"] - s0["classes"]["rcru"]["transactions"]
        irqs = d1["irqs"] - d0["irqs"]
        checks = d1["health_checks"] - d0["health_checks"]
        writes = s1["classes"]["wcru"]["transactions"] - s0["classes"]["wcru"]["transactions"]
        assert writes > 0, "the RX-mode changes wrote nothing"
        # every IRQ reads the status once, and so does every check of a
        # chip not heard from for a while; nothing else may read
        assert reads <= irqs + checks, \
            f"{reads} register reads for {irqs} interrupts and {checks} health checks"
        assert d1["sfr_reads"] == d0["sfr_reads"], "regmap read registers"
        check_no_splats(b)
        return f"{writes} writes, {reads} reads ({irqs} IRQs, {checks} health checks)"


def test_driver_chain_cmds(logdir):
    """chain_cmds=1: the SETPKTDECs of an RX batch lead the ERXTAIL write
    in one CS frame.  The model counts a transaction under its first
    command's class, so a chained ERXTAIL WCRU is a WCRU command without a
    WCRU transaction.  Every frame the chip stored still reaches the
    guest, and the link works afterwards.  The control, the same workload
    with chain_cmds=0, shows the model counts each command as a
    transaction of its own there (so the counts below can tell)."""
    with boot(logdir, params="chain_cmds=0", name="unchained") as b:
        s, _, _ = udp_saturation(b, False, seconds=4, window=(1.0, 3.0))
        wcru, cmd = s["classes"]["wcru"], s["classes"]["command"]
        assert wcru["commands"] == wcru["transactions"] > 0, f"chain_cmds=0: wcru {wcru}"
        assert cmd["commands"] == cmd["transactions"] > 0, f"chain_cmds=0: commands {cmd}"
    with boot(logdir, params="chain_cmds=1") as b:
        assert b.out(f"cat /sys/module/{OURS}/parameters/chain_cmds") == "Y"
        s, _, link = udp_saturation(b, False, seconds=4, window=(1.0, 3.0))
        wcru, cmd = s["classes"]["wcru"], s["classes"]["command"]
        chained = wcru["commands"] - wcru["transactions"]
        assert chained > 0, f"no ERXTAIL write rode in a SETPKTDEC frame: wcru {wcru}"
        # one SETPKTDEC a frame taken, several to a CS frame in a batch
        assert cmd["commands"] >= s["rx-frames"], (cmd, s["rx-frames"])
        assert cmd["commands"] > cmd["transactions"], f"no two commands shared a frame: {cmd}"
        taken = link["rx_packets"] + link["rx_errors"] + link["rx_dropped"]
        assert link["rx_packets"] <= s["rx-frames"] <= taken, \
            f"model stored {s['rx-frames']} frames, the guest counted {link}"
        st = ethtool_stats(b)
        assert st["rx_resets"] == 0, f"the chained releases upset the ring: {st}"
        ping_ok(b)
        return (f"{s['rx-frames']} frames; {chained} ERXTAIL writes chained behind "
                f"{cmd['commands'] - cmd['transactions']} extra SETPKTDECs")


test_driver_chain_cmds.timeout = 300

# A part whose factory MAC is blank: MAADR resets to zero (the model's
# x-factory-mac-blank), and the overlay gives no address either.
BLANK_FACTORY_MAC = ["-global", "encx24j600.x-factory-mac-blank=on"]


def station_mac(b):
    d = b.out("ethtool -d eth0 raw on | od -An -v -tx1 -j 96 -N 6").split()
    return ":".join([d[4], d[5], d[2], d[3], d[0], d[1]])    # MAADR3, 2, 1 at 0x60


def test_driver_random_mac_when_none_is_valid(logdir):
    """No address in the device tree and none valid in MAADR: a random,
    locally administered unicast address, written to the chip (its
    unicast filter then takes the replies), new at every probe."""
    seen = []
    with boot(logdir, extra_qemu=BLANK_FACTORY_MAC, up=False) as b:
        for probe in range(2):
            if probe:
                b.run(f"rmmod {OURS}")
                b.load_driver(OURS)
            mac = b.out("cat /sys/class/net/eth0/address")
            first = int(mac.split(":")[0], 16)
            assert mac != b.mac and not first & 1 and first & 2, \
                f"probe {probe + 1}: {mac} is not a locally administered unicast address"
            assert b.out("cat /sys/class/net/eth0/addr_assign_type") == "1", \
                "addr_assign_type is not NET_ADDR_RANDOM"
            said = b.out(f"dmesg | grep -c 'no valid MAC address, using random {mac}' || true")
            assert said == "1", f"probe {probe + 1}: the kernel log does not name {mac}"
            assert station_mac(b) == mac, f"MAADR holds {station_mac(b)}, eth0 {mac}"
            seen.append(mac)
        b.net_up()
        ping_ok(b)
    assert seen[0] != seen[1], f"the same 'random' address twice: {seen[0]}"
    return f"random addresses {seen[0]}, {seen[1]}"


test_driver_random_mac_when_none_is_valid.timeout = 180
