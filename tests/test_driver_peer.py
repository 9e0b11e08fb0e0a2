"""Our driver against a crafted-frame peer on a socket netdev (tests/lib/peer.py):
receive filters (multicast hash, promiscuous, all-multicast), VLAN-size
frames, FCS stripping, the receive ring's tail wrap at the ring start, and
what a corrupt frame header in the ring costs.
"""
import struct
import threading
import time

from lib.board import OURS, Board, GuestError
from lib.faults import ethtool_stats
from lib.peer import PEER_MAC, Peer, ether_crc_index, frame, icmp_echo_reply
from test_driver import DEBUGFS, check_no_splats, link_stats

# the driver's tests run on every kernel of the suite (tests/run.py)
EVERY_KERNEL = True

GUEST_MAC = "52:54:00:12:34:56"
SRAM_END = 0x5fff


def boot_peer(logdir, fcs=False):
    """A board whose NIC is wired to a crafted-frame peer; with fcs the
    peer sends the wire's bytes, FCS included (the model's x-rx-fcs)."""
    peer = Peer(fcs=fcs)
    b = Board(logdir, mac=GUEST_MAC, nic=f"socket,connect=127.0.0.1:{peer.port}",
              extra_qemu=["-global", "encx24j600.x-rx-fcs=on"] if fcs else [])
    try:
        b.start()
        peer.accept()
        b.load_driver(OURS)
        b.run("ip link set eth0 up && wait-carrier eth0 1 5")
    except BaseException:  # a time bound too: no QEMU left behind
        b.stop()
        peer.close()
        raise
    return b, peer


def regs(b):
    """The driver's register dump (ethtool -d raw) as bytes."""
    out = b.out("ethtool -d eth0 raw on | od -An -v -tx1")
    return bytes(int(x, 16) for x in out.split())


def reg16(dump, addr):
    return struct.unpack_from("<H", dump, addr)[0]


def bursts(frames, limit):
    """Split frames into runs whose ring footprint (8-byte header, frame,
    4-byte FCS) is at most limit bytes each."""
    run, used = [], 0
    for f in frames:
        if run and used + len(f) + 12 > limit:
            yield run
            run, used = [], 0
        run.append(f)
        used += len(f) + 12
    if run:
        yield run


def send_and_count(b, peer, frames, gap=0.002, ring_share=None):
    """Send frames and return how the guest's link counters moved.  With
    ring_share, the frames go in bursts of at most that many bytes of ring
    (8-byte header, frame, 4-byte FCS), each handled before the next."""
    before = link_stats(b)
    for run in bursts(frames, ring_share) if ring_share else [frames]:
        seen = b.frames_accounted()
        for f in run:
            peer.send(f)
            time.sleep(gap)
        # every frame sent stored, filtered or dropped by the model, and
        # every stored one taken by the driver once the bus has gone quiet
        b.wait_frames(seen, len(run))
    after = link_stats(b)
    return {k: after[k] - before[k] for k in after}


def two_groups():
    """A multicast group and a second one whose hash bit differs."""
    joined = "01:00:5e:01:02:03"
    idx = ether_crc_index(joined)
    for last in range(256):
        other = f"01:00:5e:01:02:{last:02x}"
        if ether_crc_index(other) != idx:
            return joined, other, idx, ether_crc_index(other)
    raise AssertionError("no group with a different hash bit")


def test_driver_multicast_hash_filter(logdir):
    b, peer = boot_peer(logdir)
    try:
        joined, other, i1, i2 = two_groups()
        before = b.stats()
        b.run(f"ip maddr add {joined} dev eth0")
        b.settle_after(before)      # the rx_mode work wrote the filters
        d = regs(b)
        ht = sum(reg16(d, 0x20 + 2 * i) << (16 * i) for i in range(4))
        erxfcon = reg16(d, 0x34)
        assert erxfcon & 0x8000, f"ERXFCON 0x{erxfcon:04x}: hash filter not enabled"
        assert ht & (1 << i1), f"hash table 0x{ht:016x} lacks bit {i1} of {joined}"
        assert not ht & (1 << i2), f"hash table 0x{ht:016x} has bit {i2} of {other}"
        n = 10
        got = send_and_count(b, peer, [frame(joined, payload=bytes(46))] * n)
        assert got["rx_packets"] == n and got["multicast"] == n, \
            f"{n} frames to joined {joined}: driver counted {got}"
        got = send_and_count(b, peer, [frame(other, payload=bytes(46))] * n)
        assert got["rx_packets"] == 0, \
            f"frames to {other} (hash bit {i2}, not set) were received: {got}"
        # all-multicast takes every group
        before = b.stats()
        b.run("ip link set eth0 allmulticast on")
        b.settle_after(before)      # the rx_mode work wrote the filters
        got = send_and_count(b, peer, [frame(other, payload=bytes(46))] * n)
        assert got["rx_packets"] == n, f"allmulticast: {got['rx_packets']} of {n} received"
        before = b.stats()
        b.run("ip link set eth0 allmulticast off")
        b.settle_after(before)      # the rx_mode work wrote the filters
        got = send_and_count(b, peer, [frame(other, payload=bytes(46))] * n)
        assert got["rx_packets"] == 0, "allmulticast off still receives other groups"
        check_no_splats(b)
        return f"{joined} -> bit {i1} received, {other} -> bit {i2} filtered"
    finally:
        b.stop()
        peer.close()


def test_driver_promiscuous(logdir):
    b, peer = boot_peer(logdir)
    try:
        stranger = "02:11:22:33:44:55"
        # the chip's hash filter takes unicast too (DS 10.9): a group the
        # guest joined that shares the stranger's bit would let it in
        d = regs(b)
        ht = sum(reg16(d, 0x20 + 2 * i) << (16 * i) for i in range(4))
        bit = ether_crc_index(stranger)
        assert not (reg16(d, 0x34) & 0x8000 and ht & (1 << bit)), (
            f"hash table 0x{ht:016x} has bit {bit} of {stranger}: a joined group shares "
            "it, so the chip takes that unicast by hash; the test needs another stranger")
        n = 10
        got = send_and_count(b, peer, [frame(stranger, payload=bytes(46))] * n)
        assert got["rx_packets"] == 0, f"unicast to {stranger} received without promisc"
        before = b.stats()
        b.run("ip link set eth0 promisc on")
        b.settle_after(before)      # the rx_mode work wrote the filters
        got = send_and_count(b, peer, [frame(stranger, payload=bytes(46))] * n)
        assert got["rx_packets"] == n, f"promisc: {got['rx_packets']} of {n} received"
        before = b.stats()
        b.run("ip link set eth0 promisc off")
        b.settle_after(before)      # the rx_mode work wrote the filters
        got = send_and_count(b, peer, [frame(stranger, payload=bytes(46))] * n)
        assert got["rx_packets"] == 0, "promisc off still receives other unicast"
        check_no_splats(b)
    finally:
        b.stop()
        peer.close()


def test_driver_fcs_stripped(logdir):
    b, peer = boot_peer(logdir)
    try:
        sizes = [60, 61, 100, 1000, 1514]
        got = send_and_count(b, peer, [frame(GUEST_MAC, payload=bytes(n - 14)) for n in sizes])
        assert got["rx_packets"] == len(sizes), got
        assert got["rx_bytes"] == sum(sizes), \
            f"rx_bytes {got['rx_bytes']} for frames of {sizes} (sum {sum(sizes)}): FCS not stripped?"
        check_no_splats(b)
    finally:
        b.stop()
        peer.close()


def test_driver_vlan_1522_frames(logdir):
    """A VLAN interface pings the peer with 1472-byte payloads: 1518-byte
    tagged frames, 1522 bytes on the wire with the FCS, both ways."""
    b, peer = boot_peer(logdir)
    try:
        peer.responders.append(icmp_echo_reply)
        pm = ":".join(f"{x:02x}" for x in PEER_MAC)
        b.run("ip link add link eth0 name eth0.5 type vlan id 5 && "
              "ip addr add 192.168.5.1/24 dev eth0.5 && ip link set eth0.5 up && "
              f"ip neigh add 192.168.5.2 lladdr {pm} dev eth0.5")
        out = b.out("ping -c 3 -W 2 -s 1472 192.168.5.2", timeout=20)
        sent = peer.recv(timeout=1, match=lambda f: len(f) == 1518)
        assert sent and struct.unpack_from("!HH", sent, 12) == (0x8100, 5), \
            "the peer saw no 1518-byte frame tagged with VLAN 5"
        assert " 0% packet loss" in out, f"ping over the VLAN:\n{out}"
        check_no_splats(b)
        return "1518-byte tagged frames both ways"
    finally:
        b.stop()
        peer.close()


def lengths_to_fill(d):
    """Frame lengths (no FCS, even, 60..1514) whose ring footprint (8-byte
    header + frame + 4-byte FCS) adds up to exactly d bytes."""
    n = max(1, -(-d // 1200))
    while True:
        base = (d // n) & ~1
        lens = [base - 12] * (n - 1) + [d - base * (n - 1) - 12]
        if all(60 <= x <= 1514 for x in lens):
            return lens
        n += 1


# The driver writes ERXTAIL back once it holds back a quarter of the ring
# (ENC_RX_TAIL_LAZY in drivers/net/encx24j600/enc424j600.h); a frame's ring
# footprint is 8 bytes of header, the frame and its 4-byte FCS
FOOTPRINT_MIN, FOOTPRINT_MAX = 8 + 60 + 4, 8 + 1514 + 4


def tail_write_at(b, peer, erxst, target):
    """Send frames so that the driver's next ERXTAIL write has the next
    frame at ring address `target`: every frame boundary before it less
    than a quarter of the ring past the tail the chip holds, `target` a
    quarter or more.  The driver gives a frame that arrived alone its
    space back only then (a batch of several frames at once), so the
    frames go one at a time, each taken before the next is sent.  Returns
    (whether ERXTAIL now has the next frame at `target`, frames sent);
    not reached when `target` is out of one step's reach (a quarter of
    the ring to a quarter and 1400 bytes)."""
    ring = SRAM_END + 1 - erxst
    lazy = ring // 4

    def dist(x, y):
        return (y - x) % ring
    d = regs(b)
    tail, head = reg16(d, 0x06), reg16(d, 0x08)
    start = erxst + (tail + 2 - erxst) % ring     # first byte held back
    span, ahead = dist(start, target), dist(head, target)
    if not (lazy <= span <= lazy + 1400 and ahead >= FOOTPRINT_MIN):
        return False, 0
    # the last frame crosses the quarter line; those before it stay short
    # of it (a frame is at most FOOTPRINT_MAX, so what is left before the
    # last is a frame or more)
    last = ahead if ahead <= FOOTPRINT_MAX else max(FOOTPRINT_MIN, span - lazy + 2)
    lens = (lengths_to_fill(ahead - last) if ahead > last else []) + [last - 12]
    for n in lens:
        seen = b.frames_accounted()
        peer.send(frame(GUEST_MAC, payload=bytes(n - 14)))
        b.wait_frames(seen, 1)      # stored and taken before the next
    return reg16(regs(b), 0x06) == erxst + (target - 2 - erxst) % ring, len(lens)


def test_driver_erxtail_wrap_at_ring_start(logdir):
    """Fill the ring exactly to its end, so the next-packet pointer of the
    last frame is ERXST, with that frame's batch the one that writes
    ERXTAIL back: ERXTAIL must become 0x5FFE (the in-tree driver writes
    ERXST - 2, outside the ring).  Then wrap the ring many times."""
    b, peer = boot_peer(logdir)
    try:
        d = regs(b)
        erxst = reg16(d, 0x04)
        ring = SRAM_END + 1 - erxst
        lazy = ring // 4
        # steps of a quarter ring and up to 1400 bytes more bring the tail
        # to where the ring's end is one step away
        want = erxst + (ring - lazy - 700) % ring   # one step before the end
        before, sent = link_stats(b), 0
        for _ in range(30):
            reached, n = tail_write_at(b, peer, erxst, erxst)
            sent += n
            if reached:
                break
            dump = regs(b)
            t, head = reg16(dump, 0x06), reg16(dump, 0x08)
            start = erxst + (t + 2 - erxst) % ring
            d = (want - start) % ring
            d += ring if d < lazy else 0
            k = -(-d // (lazy + 1400))
            held = (head - start) % ring
            # at least a frame ahead of what the chip holds
            s = max(min(max(d // k & ~1, lazy), lazy + 1400), held + FOOTPRINT_MIN)
            step = erxst + (start - erxst + s) % ring
            sent += tail_write_at(b, peer, erxst, step)[1]
        else:
            raise AssertionError("the ring's end never came within one step")
        d = regs(b)
        tail, head2 = reg16(d, 0x06), reg16(d, 0x08)
        after = link_stats(b)
        got = {k: after[k] - before[k] for k in ("rx_packets", "rx_errors")}
        assert got == {"rx_packets": sent, "rx_errors": 0}, \
            f"{sent} frames sent one at a time: {got}"
        assert head2 == erxst, f"ERXHEAD 0x{head2:04x} after filling to the end (ERXST 0x{erxst:04x})"
        assert tail == SRAM_END - 1, \
            f"ERXTAIL 0x{tail:04x} with the next frame at ERXST; expected 0x{SRAM_END - 1:04x}"
        # many more wraps: everything arrives, no ring resets.  The frames go
        # in bursts of at most half a ring, each taken by the driver before
        # the next, so no frame may be lost to a full ring however slowly
        # the emulated CPU runs (how fast the driver drains is the
        # benchmark's business, not this test's).
        ring = SRAM_END + 1 - erxst
        frames = [frame(GUEST_MAC, payload=bytes(n - 14)) for n in (1514, 700, 60, 1200, 333)] * 60
        total = sum(len(f) + 12 for f in frames)
        got = send_and_count(b, peer, frames, ring_share=ring // 2)
        drv = b.out("ethtool -S eth0 | grep -E 'rx_resets|rx_rewinds'")
        assert got["rx_packets"] == len(frames) and got["rx_errors"] == 0 \
            and got["rx_over_errors"] == 0, \
            f"{len(frames)} frames ({total / ring:.1f} ring wraps): {got}; {drv}"
        assert "rx_resets: 0" in drv, drv
        check_no_splats(b)
        return f"tail 0x{tail:04x} at the ring start; {total / ring:.1f} more wraps clean"
    finally:
        b.stop()
        peer.close()


def test_driver_failed_open_leaves_the_chip_quiet(logdir):
    """An open that fails at its last step (debugfs inject_open_fail: the
    RX ring, the interrupt enables and the IRQ already set up) leaves the
    chip as a down interface has it: RX off, so it stores no frame, no
    interrupt enabled, no IRQ handler, even with an interrupt pending as it
    fails.  The next open works and receives.  (Frames that arrive while RX
    is off are lost, as on the wire: the model does not hold them.)"""
    b, peer = boot_peer(logdir)
    try:
        # down as after a fresh probe, the PHY awake: taken down, phylib
        # powers the PHY down (phy_stop: BMCR_PDOWN, the chip's
        # PHCON1.PSLEEP), and a failing open never gets to wake it, so no
        # frame would arrive through it
        b.run(f"rmmod {OURS}")
        b.load_driver(OURS)
        # frames arriving all through the open: the ones stored once it has
        # turned RX on raise PKTIF, up when it sets INTIE, so the IRQ thread
        # wakes and waits for the lock the failing open holds; it must then
        # find the device down, not a chip that lost its state (to be
        # restored: RX and interrupts back on)
        lost0 = ethtool_stats(b)["chip_lost"]
        stop = threading.Event()

        def stream():
            while not stop.is_set():
                peer.send(frame(GUEST_MAC, payload=bytes(100)))
                time.sleep(0.0002)

        # the window from ENABLERX to the failure is a few SPI transactions:
        # try until a frame stored in it woke the IRQ thread (its runs are
        # counted on entry, under the lock the failing open holds)
        for attempt in range(1, 11):
            irqs0 = ethtool_stats(b)["irqs"]
            b.run(f"echo 1 > {DEBUGFS}/inject_open_fail")
            sender = threading.Thread(target=stream)
            stop.clear()
            sender.start()
            try:
                time.sleep(0.2)
                rc, out = b.run("ip link set eth0 up", check=False)
                time.sleep(0.2)
            finally:
                stop.set()
                sender.join()
            assert rc != 0, f"the open succeeded with a failure injected: {out}"
            if ethtool_stats(b)["irqs"] > irqs0:
                break
        else:
            raise AssertionError("in 10 failing opens no interrupt was pending as the open failed")
        s0 = b.wait_quiet()
        lost = ethtool_stats(b)["chip_lost"] - lost0
        assert lost == 0, f"the failed open was taken for a lost chip {lost} times"
        n = 5
        for _ in range(n):
            peer.send(frame(GUEST_MAC, payload=bytes(100)))
        time.sleep(1)
        s1 = b.wait_quiet()
        stored = s1["rx-frames"] - s0["rx-frames"]
        assert stored == 0, f"after a failed open the chip stored {stored} of {n} frames: RX left on"
        d = regs(b)
        econ1, eie = reg16(d, 0x1e), reg16(d, 0x72)
        assert not econ1 & 0x0001, f"ECON1 0x{econ1:04x}: RXEN left on"
        assert eie == 0, f"EIE 0x{eie:04x}: interrupts left enabled"
        irq = b.out("grep -c eth0 /proc/interrupts || true")
        assert irq.strip() == "0", "the IRQ handler outlived the failed open"
        b.run("ip link set eth0 up && wait-carrier eth0 1 5")
        b.wait_quiet()
        before, s2 = link_stats(b), b.stats()
        for _ in range(n):
            peer.send(frame(GUEST_MAC, payload=bytes(100)))
        b.wait_frames(b.frames_accounted(s2), n)
        got = link_stats(b)["rx_packets"] - before["rx_packets"]
        assert got == n, f"{got} of the {n} frames sent after the next open arrived"
        check_no_splats(b)
        return (f"an interrupt pending as the open failed (attempt {attempt}); RX off, "
                f"EIE 0 after it; {n} frames sent after the next open arrived")
    finally:
        b.stop()
        peer.close()


def test_driver_rx_impossible_length_drops_one_frame(logdir):
    """A stored frame whose byte count is impossible (the model's rx-bad-rsv:
    0xFFFF) but whose next-packet pointer is a frame boundary inside what
    the chip has stored costs that one frame, counted as a length error:
    not an RX reset, which would throw away the frames behind it."""
    b, peer = boot_peer(logdir)
    try:
        n = 8
        e0 = ethtool_stats(b)
        b.inject("rx-bad-rsv")
        # back to back: the frames behind the bad one wait in the ring
        got = send_and_count(b, peer, [frame(GUEST_MAC, payload=bytes([i]) * 200)
                                       for i in range(n)], gap=0)
        e1 = ethtool_stats(b)
        assert b.stats()["injected"]["rx-bad-rsv"] == 1, "the fault never took effect"
        resets = e1["rx_resets"] - e0["rx_resets"]
        assert resets == 0, \
            f"one frame with an impossible length reset RX ({resets}); {n} frames: {got}"
        assert got["rx_packets"] == n - 1 and got["rx_length_errors"] == 1 \
            and got["rx_errors"] == 1, f"{n} frames, the first with an impossible length: {got}"
        check_no_splats(b)
        return f"{n} frames, one with byte count 0xFFFF: {n - 1} delivered, 1 length error, no RX reset"
    finally:
        b.stop()
        peer.close()


def test_driver_rx_frame_past_head_does_not_spin(logdir):
    """PKTCNT says a frame is stored, but its header (byte count and next
    pointer agreeing) claims bytes past ERXHEAD (the model's rx-past-head):
    a batch that can release nothing.  The driver must not run its
    real-time IRQ thread round and round on it: a second look that finds
    the same is a corrupt ring, reset once; frames flow again after."""
    b, peer = boot_peer(logdir)
    try:
        s0 = b.wait_quiet()
        e0 = ethtool_stats(b)
        b.inject("rx-past-head")
        peer.send(frame(GUEST_MAC, payload=bytes(100)))
        deadline = time.monotonic() + 10
        while b.frames_accounted() < b.frames_accounted(s0) + 1:
            assert time.monotonic() < deadline, "the model never took the frame"
            time.sleep(0.05)
        assert b.stats()["injected"]["rx-past-head"] == 1, "the fault never took effect"
        # asked of the model first: a spinning guest may not answer at all
        try:
            s1 = b.wait_quiet(timeout=20)
        except GuestError as e:
            raise AssertionError(f"the bus never went quiet after the frame: spinning ({e})")
        # what it takes: two looks at the ring (status burst, RX burst,
        # the first look's ERXRDPT rewind) and one RX reset (about a dozen
        # commands and register writes), plus the odd frame of the
        # guest's own; a driver that goes round costs thousands
        busy = s1["transactions"] - s0["transactions"]
        assert busy <= 40, f"{busy} bus transactions for one frame: spinning"
        e1 = ethtool_stats(b)
        irqs = e1["irqs"] - e0["irqs"]
        # two looks, and a run or two for what the reset leaves in EIR
        assert irqs <= 10, f"the IRQ thread ran {irqs} times for one frame"
        assert e1["rx_resets"] - e0["rx_resets"] == 1, \
            f"rx_resets {e0['rx_resets']} -> {e1['rx_resets']}: the stall was not resolved by one RX reset"
        got = send_and_count(b, peer, [frame(GUEST_MAC, payload=bytes(100))] * 3)
        assert got["rx_packets"] == 3, f"after the reset: {got}"
        check_no_splats(b)
        return f"{irqs} IRQ thread runs, {busy} bus transactions for the frame, 1 RX reset"
    finally:
        b.stop()
        peer.close()
