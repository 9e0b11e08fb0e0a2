"""Hostile and malformed traffic from a crafted-frame peer on a socket
netdev: each kind is accepted, filtered or dropped as the chip's filters
(docs/qemu-model.md) and the driver's policy say, counted where it should
be, and nothing breaks: the guest answers a ping afterwards.

The model runs with x-rx-fcs=on, so the peer sends the wire's bytes, FCS
included: frames with a bad CRC and true runts can be expressed
(docs/qemu-model.md)."""
from lib.peer import PEER_MAC, frame, wire
from test_driver import ethtool_stats, link_stats
from test_driver_peer import GUEST_MAC, boot_peer, send_and_count

OTHER_MAC = "02:00:00:99:88:77"
PAUSE_DST = "01:80:c2:00:00:01"


def model_delta(after, before):
    return {k: after[k] - before[k] for k in after if isinstance(after[k], int)}


class Raw(bytes):
    """Wire bytes, FCS included, sent as they are."""


class RawPeer:
    """Sends Raw frames verbatim and the rest as a MAC would."""

    def __init__(self, peer):
        self.peer = peer

    def send(self, f):
        if isinstance(f, Raw):
            self.peer.send_wire(f)
        else:
            self.peer.send(f)


def run_kind(b, peer, frames, gap=0.002):
    s0, d0 = b.stats(), ethtool_stats(b)
    got = send_and_count(b, RawPeer(peer), frames, gap)
    s1, d1 = b.stats(), ethtool_stats(b)
    return got, model_delta(s1, s0), {k: d1[k] - d0.get(k, 0) for k in d1}


def short_frames(b, peer):
    """Short frames: the sender pads what is shorter than 60 bytes; the
    chip stores them as sent, the driver delivers them."""
    short = [frame(GUEST_MAC, payload=bytes(n)) for n in (0, 10, 30, 45)]
    got, m, _ = run_kind(b, peer, short)
    return got["rx_packets"] == 4 and got["rx_bytes"] == 4 * 60, (got, m)


def true_runts(b, peer):
    """Under 64 bytes with the FCS (a collision fragment): the driver's
    RUNTEN drops them in the chip."""
    runts = [Raw(wire(frame(GUEST_MAC, payload=bytes(n)), pad=False)) for n in (0, 10, 30, 45)]
    got, m, _ = run_kind(b, peer, runts)
    return (got["rx_packets"] == 0 and m["rx-frames"] == 0 and m["rx-filtered"] == 4
            and got["rx_errors"] == 0), (got, m)


def fragments(b, peer):
    """Shorter than an Ethernet header and an FCS: no frame at all."""
    got, m, _ = run_kind(b, peer, [Raw(bytes(5)), Raw(bytes(13)), Raw(bytes(17))])
    return got["rx_packets"] == 0 and m["rx-frames"] == 0 and m["rx-dropped"] == 3, (got, m)


def bad_crc_ours(b, peer):
    """The chip stores the frame with the CRC error bit (CRCEN is off,
    docs/driver.md); the driver drops and counts it."""
    bad = Raw(wire(frame(GUEST_MAC, payload=bytes(100)), good_fcs=False))
    got, m, d = run_kind(b, peer, [bad] * 20)
    return (got["rx_packets"] == 0 and got["rx_crc_errors"] == 20 and got["rx_errors"] == 20
            and m["rx-bad-fcs"] == 20
            and m["rx-frames"] == 20), (got, m, d)


def bad_crc_other(b, peer):
    bad_other = Raw(wire(frame(OTHER_MAC, payload=bytes(100)), good_fcs=False))
    got, m, _ = run_kind(b, peer, [bad_other] * 5)
    return (got["rx_packets"] == 0 and got["rx_crc_errors"] == 0 and m["rx-bad-fcs"] == 5
            and m["rx-filtered"] == 5), (got, m)


def oversized(b, peer):
    """Over MAMXFL, which the driver sets to 1522 bytes with the FCS (a
    VLAN-tagged full frame)."""
    big = [frame(GUEST_MAC, payload=bytes(n - 14)) for n in (1519, 1600, 9000, 65535)]
    got, m, _ = run_kind(b, peer, big, gap=0.02)
    return got["rx_packets"] == 0 and m["rx-frames"] == 0 and m["rx-dropped"] >= 4, (got, m)


def other_mac(b, peer):
    got, m, _ = run_kind(b, peer, [frame(OTHER_MAC, payload=bytes(100))] * 20)
    return got["rx_packets"] == 0 and m["rx-filtered"] >= 20, (got, m)


def pause_frames(b, peer):
    """802.3x pause frames: MAC control, consumed by the MAC."""
    pause = frame(PAUSE_DST, src=PEER_MAC, ethertype=0x8808,
                  payload=b"\x00\x01\xff\xff" + bytes(42))
    got, m, _ = run_kind(b, peer, [pause] * 10)
    return got["rx_packets"] == 0 and m["rx-frames"] == 0, (got, m)


def burst(b, peer):
    """Minimum-size frames back to back."""
    frames = [frame(GUEST_MAC, payload=bytes(46))] * 3000
    got, m, d = run_kind(b, peer, frames, gap=0)
    stored = m["rx-frames"]
    return (got["rx_packets"] == stored and stored > 0
            and stored + m["rx-dropped"] + m.get("rx-wire-dropped", 0) >= 3000
            and (m["rx-dropped"] == 0 or got["rx_over_errors"] > 0)), \
        (got, m, {k: v for k, v in d.items() if v})


def good_frame_after(b, peer):
    got = send_and_count(b, peer, [frame(GUEST_MAC, payload=bytes(100))])
    return got["rx_packets"] == 1 and got["rx_errors"] == 0, got


# (what must hold, the case); each case runs whatever became of the ones
# before it, and a case that raises fails alone
CASES = [
    ("short frames padded by the sender: stored and delivered, 60 bytes each", short_frames),
    ("true runts (18-63 bytes with FCS): dropped by RUNTEN, counted by the model", true_runts),
    ("fragments under 18 bytes: dropped by the MAC, nothing delivered", fragments),
    ("bad CRC for us: stored by the chip, dropped and counted by the driver", bad_crc_ours),
    ("bad CRC for another MAC: filtered by the chip, not counted as ours", bad_crc_other),
    ("oversized frames (1519 B + FCS to 64 KiB): dropped by MAMXFL, counted by the model",
     oversized),
    ("frames for another MAC: filtered by the chip, none delivered", other_mac),
    ("pause frames: consumed by the MAC, none delivered", pause_frames),
    ("a burst of 3000 minimum-size frames: every frame the chip stored is delivered, "
     "the rest counted as overruns or wire drops", burst),
    ("a good frame still arrives afterwards", good_frame_after),
]


def test_bad_input_from_the_network(logdir):
    b, peer = boot_peer(logdir, fcs=True)
    results = []
    try:
        for name, case in CASES:
            try:
                ok, detail = case(b, peer)
                results.append((name, bool(ok), "" if ok else str(detail)))
            except Exception as e:  # noqa: BLE001 - one case must not hide the others
                results.append((name, False, f"{type(e).__name__}: {e}"))
        try:
            st = link_stats(b)
            ok = (st["rx_errors"] == 20 and st["rx_crc_errors"] == 20
                  and st["rx_length_errors"] == 0)
            results.append(("no receive errors but the 20 bad CRCs (nothing else "
                            "malformed reached the driver)", ok, "" if ok else str(st)))
        except Exception as e:  # noqa: BLE001
            results.append(("the driver's counters can be read", False, str(e)))
    finally:
        b.stop()
        peer.close()
    return results


# 10 cases, each bounded by wait_frames (30 s) and wait_quiet (20 s)
test_bad_input_from_the_network.timeout = 600
