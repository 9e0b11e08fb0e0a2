"""Hostile and malformed traffic from a crafted-frame peer on a socket
netdev: each kind is accepted, filtered or dropped as the chip's filters
(docs/qemu-model.md) and the driver's policy say, counted where it should
be, and nothing breaks: the guest answers a ping afterwards.

Frames with a bad CRC cannot be sent: QEMU's network layer carries frames
without an FCS and the model appends a good one (docs/qemu-model.md)."""
from lib.peer import PEER_MAC, frame
from test_driver import check_no_splats, ethtool_stats, link_stats
from test_driver_peer import GUEST_MAC, boot_peer, send_and_count

OTHER_MAC = "02:00:00:99:88:77"
PAUSE_DST = "01:80:c2:00:00:01"


def model_delta(after, before):
    return {k: after[k] - before[k] for k in after if isinstance(after[k], int)}


def still_works(b, peer):
    """A well-formed frame for us still arrives after the bad ones."""
    got = send_and_count(b, peer, [frame(GUEST_MAC, payload=bytes(100))])
    assert got["rx_packets"] == 1, f"a good frame after the bad ones: {got}"


def run_kind(b, peer, frames, gap=0.002):
    s0, d0 = b.stats(), ethtool_stats(b)
    got = send_and_count(b, peer, frames, gap)
    s1, d1 = b.stats(), ethtool_stats(b)
    return got, model_delta(s1, s0), {k: d1[k] - d0.get(k, 0) for k in d1}


def test_bad_input_from_the_network(logdir):
    b, peer = boot_peer(logdir)
    results = []

    def check(name, ok, detail):
        results.append((name, bool(ok), "" if ok else str(detail)))
    try:
        # runts: the wire pads what is shorter than 60 bytes; the chip
        # stores them padded (RUNTEN drops only true runts, which a
        # switch never forwards), the driver delivers them
        runts = [frame(GUEST_MAC, payload=bytes(n)) for n in (0, 10, 30, 45)]
        got, m, _ = run_kind(b, peer, runts)
        check("runts: stored padded to 60 bytes and delivered",
              got["rx_packets"] == 4 and got["rx_bytes"] == 4 * 60, (got, m))
        # shorter than an Ethernet header: no frame at all
        got, m, _ = run_kind(b, peer, [bytes(5), bytes(13)])
        check("fragments under 14 bytes: dropped by the MAC, nothing delivered",
              got["rx_packets"] == 0 and m["rx-frames"] == 0, (got, m))
        # oversized, up to 64 KiB: over MAMXFL, which the driver sets to
        # 1522 bytes with the FCS (a VLAN-tagged full frame)
        big = [frame(GUEST_MAC, payload=bytes(n - 14)) for n in (1519, 1600, 9000, 65535)]
        got, m, _ = run_kind(b, peer, big, gap=0.02)
        check("oversized frames (1519 B + FCS to 64 KiB): dropped by MAMXFL, counted by the model",
              got["rx_packets"] == 0 and m["rx-frames"] == 0 and m["rx-dropped"] >= 4,
              (got, m))
        # frames for somebody else: the unicast filter
        got, m, _ = run_kind(b, peer, [frame(OTHER_MAC, payload=bytes(100))] * 20)
        check("frames for another MAC: filtered by the chip, none delivered",
              got["rx_packets"] == 0 and m["rx-filtered"] >= 20, (got, m))
        # 802.3x pause frames: MAC control, consumed by the MAC
        pause = frame(PAUSE_DST, src=PEER_MAC, ethertype=0x8808,
                      payload=b"\x00\x01\xff\xff" + bytes(42))
        got, m, _ = run_kind(b, peer, [pause] * 10)
        check("pause frames: consumed by the MAC, none delivered",
              got["rx_packets"] == 0 and m["rx-frames"] == 0, (got, m))
        # a burst of minimum-size frames, back to back
        burst = [frame(GUEST_MAC, payload=bytes(46))] * 3000
        got, m, d = run_kind(b, peer, burst, gap=0)
        stored = m["rx-frames"]
        check("a burst of 3000 minimum-size frames: every frame the chip stored "
              "is delivered, the rest counted as overruns or wire drops",
              got["rx_packets"] == stored and stored > 0
              and stored + m["rx-dropped"] + m.get("rx-wire-dropped", 0) >= 3000
              and (m["rx-dropped"] == 0 or got["rx_over_errors"] > 0),
              (got, m, {k: v for k, v in d.items() if v}))
        still_works(b, peer)
        check("a good frame still arrives afterwards", True, "")
        st = link_stats(b)
        check("no receive errors from any of it (nothing malformed reached the driver)",
              st["rx_errors"] == 0 and st["rx_crc_errors"] == 0, st)
        check_no_splats(b)
    finally:
        b.stop()
        peer.close()
    return results


test_bad_input_from_the_network.timeout = 300
