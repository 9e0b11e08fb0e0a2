"""A host-side Ethernet peer for the board: QEMU's socket netdev connects
to it, and the test sends and receives raw frames.

    peer = Peer()                                   # listens on 127.0.0.1
    b = Board(logdir, nic=f"socket,connect=127.0.0.1:{peer.port}").start()
    peer.accept()
    peer.send(frame)                                # bytes, no FCS
    f = peer.recv(timeout=2, match=lambda f: ...)   # None on timeout

QEMU's stream socket netdev frames every packet with a 4-byte big-endian
length.  Frames the guest sends are queued by a reader thread.

With the model's x-rx-fcs property on, the peer speaks the wire's bytes:
Peer(fcs=True).send() pads and appends a good FCS as a sending MAC would,
send_wire() sends bytes as they are (bad CRCs, true runts: see wire()).
"""
import queue
import socket
import struct
import threading
import time
import zlib

PEER_MAC = bytes.fromhex("020000aabbcc")
ETH_P_VLAN = 0x8100


def mac_bytes(mac):
    return bytes.fromhex(mac.replace(":", ""))


def ether_crc_index(mac):
    """The ENCX24J600 hash table index of a destination address: bits 28:23
    of the Ethernet CRC as Linux's ether_crc() computes it."""
    crc = zlib.crc32(mac_bytes(mac) if isinstance(mac, str) else mac) ^ 0xffffffff
    rev = int(f"{crc:032b}"[::-1], 2)
    return (rev >> 23) & 0x3f


def frame(dst, src=PEER_MAC, ethertype=0x88b5, payload=b"", vlan=None):
    """An Ethernet frame without FCS; dst/src as bytes or "aa:bb:..."."""
    dst = mac_bytes(dst) if isinstance(dst, str) else dst
    src = mac_bytes(src) if isinstance(src, str) else src
    hdr = dst + src
    if vlan is not None:
        hdr += struct.pack("!HH", ETH_P_VLAN, vlan)
    return hdr + struct.pack("!H", ethertype) + payload


def ip_checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def icmp_echo_reply(req):
    """Build the reply to an IPv4 ICMP echo request frame (optionally VLAN
    tagged), or return None if req is not one."""
    off = 12
    tag = b""
    if struct.unpack_from("!H", req, off)[0] == ETH_P_VLAN:
        tag = req[off:off + 4]
        off += 4
    if struct.unpack_from("!H", req, off)[0] != 0x0800:
        return None
    ip = req[off + 2:]
    ihl = (ip[0] & 0xf) * 4
    if ip[9] != 1 or ip[ihl] != 8:
        return None
    total = struct.unpack_from("!H", ip, 2)[0]
    ip = bytearray(ip[:total])
    ip[12:16], ip[16:20] = ip[16:20], ip[12:16]
    ip[10:12] = b"\0\0"
    ip[10:12] = struct.pack("!H", ip_checksum(bytes(ip[:ihl])))
    icmp = ip[ihl:]
    icmp[0] = 0
    icmp[2:4] = b"\0\0"
    icmp[2:4] = struct.pack("!H", ip_checksum(bytes(icmp)))
    ip[ihl:] = icmp
    return req[6:12] + req[0:6] + tag + req[off:off + 2] + bytes(ip)


ETH_ZLEN = 60   # minimum frame without FCS


def wire(f, pad=True, good_fcs=True):
    """f as a sending MAC puts it on the wire: padded to 60 bytes (unless
    pad is False: a true runt) and followed by its FCS, wrong if asked."""
    if pad:
        f = f + bytes(max(0, ETH_ZLEN - len(f)))
    fcs = zlib.crc32(f)
    if not good_fcs:
        fcs ^= 0x00000001
    return f + struct.pack("<I", fcs)


class Peer:
    def __init__(self, fcs=False):
        self.fcs = fcs          # the model runs with x-rx-fcs=on
        self.srv = socket.socket()
        self.srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(1)
        self.port = self.srv.getsockname()[1]
        self.conn = None
        self.frames = queue.Queue()
        self.responders = []    # callables frame -> reply frame or None
        self._reader = None
        self._closed = False

    def accept(self, timeout=30):
        self.srv.settimeout(timeout)
        self.conn, _ = self.srv.accept()
        self.conn.settimeout(None)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        return self

    def _recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.conn.recv(n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    def _read(self):
        try:
            while not self._closed:
                (n,) = struct.unpack("!I", self._recv_exact(4))
                f = self._recv_exact(n)
                for r in self.responders:
                    reply = r(f)
                    if reply:
                        self.send(reply)
                self.frames.put(f)
        except (EOFError, OSError):
            pass

    def send(self, f):
        """A frame without FCS, sent as a MAC would send it."""
        self.send_wire(wire(f) if self.fcs else f)

    def send_wire(self, f):
        """Bytes as they are (with fcs: the wire's, FCS included)."""
        self.conn.sendall(struct.pack("!I", len(f)) + f)

    def recv(self, timeout=2, match=None):
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            try:
                f = self.frames.get(timeout=left)
            except queue.Empty:
                return None
            if match is None or match(f):
                return f

    def close(self):
        self._closed = True
        for s in (self.conn, self.srv):
            try:
                s and s.close()
            except OSError:
                pass
