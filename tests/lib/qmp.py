"""A small QMP client: enough to query and poke the board from the host."""
import json
import socket
import time


class QMPError(Exception):
    pass


class QMP:
    def __init__(self, path, timeout=30.0):
        self.path = path
        self.timeout = timeout
        self.sock = None
        self.buf = b""
        self.events = []

    def connect(self, deadline_s=30.0):
        end = time.monotonic() + deadline_s
        while True:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(self.timeout)
                s.connect(self.path)
                break
            except OSError:
                s.close()
                if time.monotonic() > end:
                    raise QMPError(f"cannot connect to QMP socket {self.path}")
                time.sleep(0.1)
        self.sock = s
        greeting = self._read_msg()
        if "QMP" not in greeting:
            raise QMPError(f"unexpected QMP greeting: {greeting}")
        self.cmd("qmp_capabilities")

    def _read_msg(self):
        while b"\n" not in self.buf:
            try:
                data = self.sock.recv(65536)
            except socket.timeout as e:
                raise QMPError("QMP timed out") from e
            if not data:
                raise QMPError("QMP connection closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def cmd(self, command, /, **args):
        msg = {"execute": command}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            resp = self._read_msg()
            if "event" in resp:
                self.events.append(resp)
                continue
            if "error" in resp:
                raise QMPError(f"{command}: {resp['error'].get('desc', resp)}")
            return resp.get("return")

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None
