#!/usr/bin/env python3
"""Benchmark: bus transactions and throughput of four drivers on one model.

The drivers: ours, ours with the update_bits offload left out, ours with
one-byte commands chained (chain_cmds=1), and the in-tree encx24j600.
Two parts, each on boards of its own:

- one run of the fixed workloads per driver (ping, TCP, UDP at
  saturation, a link cycle, an RX-mode change), the chip model's SPI
  counters (the ground truth) read around each and cross-checked with our
  driver's own counters (ethtool -S);
- the offered-load sweep (bench_sweep.py): UDP both ways at fixed rates
  and at saturation, MTU and small frames, with TCP both ways and ping,
  repeated with the driver order shuffled; medians with min-max, and the
  goals judged against the spreads.

  bench.py            full run (about 40 minutes)
  bench.py --short    one short repetition (the test suite's)

Writes build/bench/{results.json,results.md,transactions.png,
sweep-transactions.png,sweep-delivered.png} (or --out DIR).  Exits
non-zero if a board's kernel reported a problem (lockdep, KASAN, WARN,
BUG ... anywhere in its kernel log), one of our drivers stopped answering,
or a chart could not be drawn.  The in-tree driver's wedge under load is a
result, recorded where it happens.
"""
import argparse
import contextlib
import json
import os
import random
import re
import subprocess
import sys
import threading
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "tests"))

from lib.board import BUILD, IN_TREE, KVER, OURS, Board, GuestError  # noqa: E402
from lib.provoke import PROVOCATIONS, provoke  # noqa: E402

import bench_sweep as sw  # noqa: E402

OUT = os.path.join(BUILD, "bench")

# The kernel's own per-interface counters, read around every workload: the
# guest's count of frames, checked against the model's (any driver).
NETDEV_COUNTERS = ["rx_packets", "tx_packets", "rx_errors", "tx_errors", "rx_dropped",
                   "tx_dropped"]
# and the guest's UDP counters: datagrams delivered, and dropped on the way
UDP_COUNTERS = ["InDatagrams", "InErrors", "InCsumErrors", "RcvbufErrors", "NoPorts"]

DRIVERS = {
    "ours": (OURS, ""),
    "ours-no-offload": (OURS, "offload=0"),
    "ours-chain": (OURS, "chain_cmds=1"),
    "in-tree": (IN_TREE, ""),
}

# Opcode classes as the model names them, in chart order.
CLASSES = ["sram-read", "sram-write", "rcru", "wcru", "bfsu", "bfcu",
           "pointer-read", "pointer-write", "command", "rcr", "wcr", "bfs",
           "bfc", "bank-select", "rbsel", "unknown"]

# Silicon projection: the chip clocks SPI at up to 14 MHz.  Each transaction
# also costs CS setup/hold and the host's turnaround between messages; we
# assume 5 us per transaction (a fast SPI controller with a short interrupt
# path; Linux on a small ARM is usually slower).
SPI_HZ = 14_000_000
PER_TRANSACTION_S = 5e-6
MTU_FRAME = 1514
# the sweep's small frames: a 64-byte UDP payload + UDP, IPv4 and Ethernet
# headers (FCS not counted, as for MTU_FRAME)
SMALL_FRAME = 64 + 8 + 20 + 14

# Workloads whose amount of work does not depend on the driver's speed.
FIXED_WORKLOADS = ["ping", "link_cycle", "rx_mode"]


def iperf3(port, *args, seconds, timeout_extra=40):
    cmd = ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds),
           "-J", "--connect-timeout", "5000", *args]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       timeout=seconds + timeout_extra)
    try:
        res = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise GuestError(f"iperf3 {' '.join(args)}: no JSON ({p.stderr.strip()[-300:]})") from e
    if "error" in res:
        raise GuestError(f"iperf3 {' '.join(args)}: {res['error']}")
    return res


def driver_counters(b):
    """Our driver's ethtool -S counters, or {} for a driver without them."""
    rc, out = b.run("ethtool -S eth0", check=False)
    stats = {}
    if rc == 0:
        for line in out.splitlines():
            k, sep, v = line.strip().partition(":")
            if sep and v.strip().isdigit():
                stats[k.strip()] = int(v)
    return stats


def netdev_counters(b):
    out = b.out("(cd /sys/class/net/eth0/statistics && cat " + " ".join(NETDEV_COUNTERS) + ")")
    return dict(zip(NETDEV_COUNTERS, (int(v) for v in out.split())))


def udp_counters(b):
    """The guest's UDP counters (/proc/net/snmp): datagrams delivered to
    sockets, and those dropped on the way (bad checksum, full buffers)."""
    lines = [l.split() for l in b.out("grep '^Udp:' /proc/net/snmp").splitlines()]
    return {k: int(v) for k, v in zip(lines[0][1:], lines[1][1:])}


def snapshot(b):
    """Model and driver counters at one quiet instant: re-read until no bus
    transaction happened while the driver's counters were read (frames
    still queued in QEMU's user network can arrive after a workload)."""
    for _ in range(20):
        m1 = b.stats()
        d = driver_counters(b)
        d.update({f"netdev.{k}": v for k, v in netdev_counters(b).items()})
        d.update({f"udp.{k}": v for k, v in udp_counters(b).items()})
        m2 = b.stats()
        if m1["transactions"] == m2["transactions"]:
            return m1, d
        time.sleep(0.2)
    raise GuestError("the bus never went quiet long enough to read the counters")


def model_delta(a, b):
    out = {k: b[k] - a[k] for k in b if isinstance(b[k], int)}
    out["classes"] = {c: {k: v[k] - a["classes"].get(c, {}).get(k, 0) for k in v}
                      for c, v in b["classes"].items()}
    return out


def measure(b, fn):
    """Run fn() between two quiet readings of model and driver counters."""
    b.reset_stats()
    m0, d0 = snapshot(b)
    t0 = time.monotonic()
    extra = fn() or {}
    elapsed = time.monotonic() - t0
    time.sleep(0.5)
    m1, d1 = snapshot(b)
    delta = {k: d1[k] - d0.get(k, 0) for k in d1}
    return {"model": model_delta(m0, m1), "driver": delta, "seconds": round(elapsed, 2), **extra}


def ping(b, count, interval):
    out = b.out(f"ping -q -c {count} -i {interval} -W 2 10.0.2.2",
                timeout=count * interval + 30)
    res = {}
    for line in out.splitlines():
        if "packet loss" in line:
            parts = line.split(",")
            tx = int(parts[0].split()[0])
            rx = int(parts[1].split()[0])
            res["ping_loss_pct"] = round(100.0 * (tx - rx) / tx, 1)
        if "min/avg/max" in line:
            mn, avg, mx = line.split("=")[1].split()[0].split("/")
            res.update(ping_rtt_min_ms=float(mn), ping_rtt_avg_ms=float(avg),
                       ping_rtt_max_ms=float(mx))
    if "ping_loss_pct" not in res:
        raise GuestError(f"no ping summary:\n{out}")
    return res


def tcp(b, reverse, seconds):
    b.run("iperf-server")
    res = iperf3(b.iperf_port, *(["-R"] if reverse else []), seconds=seconds)
    return {"mbps": round(res["end"]["sum_received"]["bits_per_second"] / 1e6, 3),
            "bytes": res["end"]["sum_received"]["bytes"]}


def udp(b, reverse, seconds):
    """UDP at an offered rate well above what the link sustains; the rate
    reported is what the receiver got.  The model's counters are also read
    twice inside the data phase (1.5 s after the start and before the end,
    a quarter of the run for short runs), where
    only data frames move: the steady state, without iperf3's control
    connection."""
    b.run("iperf-server")
    args = ["-u", "-b", "200M", "-l", "1472"] + (["-R"] if reverse else [])
    out = []

    def client():
        try:
            out.append(iperf3(b.iperf_port, *args, seconds=seconds))
        except (GuestError, subprocess.TimeoutExpired) as e:
            out.append(e)
    t = threading.Thread(target=client)
    t0 = time.monotonic()
    t.start()
    edge = min(1.5, seconds / 4)
    time.sleep(edge)
    w0 = b.stats()
    time.sleep(max(0.0, seconds - edge - (time.monotonic() - t0)))
    w1 = b.stats()
    t.join()
    if isinstance(out[0], Exception):
        raise out[0]
    res = out[0]
    # what the receiving iperf3 counted (the guest's server for udp_rx,
    # the host's client for udp_tx): "sum" mixes the sender's packet count
    # with the receiver's losses
    s, sent = res["end"]["sum_received"], res["end"]["sum_sent"]
    got = s["packets"] - s["lost_packets"]
    # the receiving socket's buffer: datagrams still queued in it when
    # the guest's server closes it are counted by no UDP counter
    rcvbuf = None if reverse else int(b.out("cat /proc/sys/net/core/rmem_default"))
    return {"mbps": round(s["bytes"] * 8 / s["seconds"] / 1e6, 3),
            "datagrams_received": got,
            "rcvbuf_bytes": rcvbuf,
            "offered_mbps": round(sent["bits_per_second"] / 1e6, 3),
            "lost_pct": round(s.get("lost_percent", 0.0), 1),
            "data_phase": model_delta(w0, w1)}


def link_cycle(b):
    b.set_link(False)
    down = b.out("wait-carrier eth0 0 5", timeout=15)
    b.set_link(True)
    up = b.out("wait-carrier eth0 1 10", timeout=20)
    return {"down": down, "up": up}


def rx_mode(b):
    b.run("ip link set eth0 promisc on; ip link set eth0 promisc off")
    b.run("ip maddr add 01:00:5e:01:02:03 dev eth0; ip maddr del 01:00:5e:01:02:03 dev eth0")
    b.run("ip link set eth0 allmulticast on; ip link set eth0 allmulticast off")
    time.sleep(0.5)     # rx_mode work runs after the ioctl returns


def run_driver(name, short, out, provocation=None):
    module, params = DRIVERS[name]
    print(f"==> {name}: booting, modprobe {module} {params}".rstrip(), flush=True)
    logdir = os.path.join(out, "logs")
    w = {}
    with Board(logdir, name=name) as b:
        b.load_driver(module, params)
        b.net_up()
        if provocation:
            print(f"    provoking a kernel {provocation} (lkdtm): this run must fail",
                  flush=True)
            provoke(b, provocation)
        b.run("iperf-server")
        if short:
            plan = [("ping", lambda: ping(b, 10, 0.1)),
                    ("udp_rx", lambda: udp(b, False, 2)),
                    ("tcp_rx", lambda: tcp(b, False, 2))]
        else:
            plan = [("ping", lambda: ping(b, 100, 0.1)),
                    ("tcp_rx", lambda: tcp(b, False, 10)),
                    ("tcp_tx", lambda: tcp(b, True, 10)),
                    ("udp_rx", lambda: udp(b, False, 5)),
                    ("udp_tx", lambda: udp(b, True, 5)),
                    ("link_cycle", lambda: link_cycle(b)),
                    ("rx_mode", lambda: rx_mode(b))]
        for k, fn in plan:
            try:
                w[k] = measure(b, fn)
            except (GuestError, subprocess.TimeoutExpired, KeyError, ValueError) as e:
                # A driver that wedges under a workload is a result, not a
                # reason to lose the others: record it and go on.
                msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                w[k] = {"error": msg}
                print(f"    {k:<11} FAILED: {msg}", flush=True)
        for k, v in w.items():
            if "error" not in v:
                print(f"    {k:<11} {v['model']['transactions']:>8} transactions "
                      f"{v['model']['bytes']:>10} bytes  {v['seconds']:>6}s", flush=True)
    # what the board's stop found: kernel problems anywhere in its whole
    # kernel log (every level), leaks, a guest that no longer answered
    for p in b.problems:
        print(f"    KERNEL PROBLEM: {p}", flush=True)
    return w, b.problems, b.release


def per_frame(work, frames_key):
    m = work["model"]
    frames = m[frames_key]
    if frames == 0:
        return None
    return {
        "frames": frames,
        "transactions_per_frame": m["transactions"] / frames,
        "spi_bytes_per_frame": m["bytes"] / frames,
        "by_class": {c: v["transactions"] / frames for c, v in m["classes"].items()
                     if v["transactions"]},
    }


def summarize(name, w):
    failed = {k: v["error"] for k, v in w.items() if "error" in v}
    w = {k: v for k, v in w.items() if "error" not in v}
    s = {"failed_workloads": failed,
         "workloads": {k: {kk: vv for kk, vv in v.items() if kk != "model"}
                       | {"model_transactions": v["model"]["transactions"],
                          "model_bytes": v["model"]["bytes"],
                          "model_classes": v["model"]["classes"],
                          "rx_frames": v["model"]["rx-frames"],
                          "tx_frames": v["model"]["tx-frames"]}
                       for k, v in w.items()}}
    rx = per_frame(w["udp_rx"], "rx-frames") if "udp_rx" in w else None
    tx = per_frame(w["udp_tx"], "tx-frames") if "udp_tx" in w else None
    s["rx_frames"] = rx["frames"] if rx else 0
    s["tx_frames"] = tx["frames"] if tx else 0
    s["rx_transactions_per_frame"] = rx and round(rx["transactions_per_frame"], 3)
    s["tx_transactions_per_frame"] = tx and round(tx["transactions_per_frame"], 3)
    s["rx_spi_bytes_per_frame"] = rx and round(rx["spi_bytes_per_frame"], 1)
    s["tx_spi_bytes_per_frame"] = tx and round(tx["spi_bytes_per_frame"], 1)
    # the same, over the data phase only (see udp())
    for dirn, key in (("rx", "udp_rx"), ("tx", "udp_tx")):
        dp = w.get(key, {}).get("data_phase")
        frames = dp and dp[f"{dirn}-frames"]
        s[f"{dirn}_data_phase_frames"] = frames or 0
        s[f"{dirn}_transactions_per_frame_data_phase"] = \
            round(dp["transactions"] / frames, 4) if frames else None
    s["rx_by_class"] = rx and rx["by_class"]
    s["tx_by_class"] = tx and tx["by_class"]

    # update_bits: our driver counts its requests; the model counts the
    # bit-set/clear commands that carried them (in-tree: banked BFS/BFC).
    total_classes = {}
    drv_total = {}
    for v in w.values():
        for c, cv in v["model"]["classes"].items():
            t = total_classes.setdefault(c, {"transactions": 0, "commands": 0})
            t["transactions"] += cv["transactions"]
            t["commands"] += cv["commands"]
        for k, dv in v["driver"].items():
            drv_total[k] = drv_total.get(k, 0) + dv
    bf = sum(total_classes.get(c, {}).get("commands", 0) for c in ("bfs", "bfc", "bfsu", "bfcu"))
    s["update_bits_ops"] = drv_total.get("update_bits_calls", drv_total.get("update_bits_offloaded"))
    s["update_bits_transactions"] = bf
    # interrupt flags the driver cleared before it had read them (model):
    # what a read-modify-write of EIR costs besides the extra transaction
    s["eir_flags_lost"] = sum(v["model"]["eir-flags-lost"] for v in w.values())
    s["eir_flags_lost_by_workload"] = {k: v["model"]["eir-flags-lost"] for k, v in w.items()}
    s["spi_sync_calls"] = drv_total.get("spi_syncs")
    s["driver_spi_transactions"] = drv_total.get("spi_transactions")
    s["model_transactions"] = sum(v["model"]["transactions"] for v in w.values())
    s["iperf_rx_mbps"] = w["tcp_rx"]["mbps"] if "tcp_rx" in w else None
    s["iperf_tx_mbps"] = w["tcp_tx"]["mbps"] if "tcp_tx" in w else None
    s["udp_rx_mbps"] = w["udp_rx"]["mbps"] if "udp_rx" in w else None
    s["udp_tx_mbps"] = w["udp_tx"]["mbps"] if "udp_tx" in w else None
    for k in ("ping_rtt_min_ms", "ping_rtt_avg_ms", "ping_rtt_max_ms", "ping_loss_pct"):
        s[k] = w.get("ping", {}).get(k)
    # Cross-check: the driver's own count of CS assertions must match the
    # model's, workload by workload (drivers without counters: None).
    checks = []
    for k, v in w.items():
        d = v["driver"].get("spi_transactions")
        if d is not None:
            checks.append({"workload": k, "driver": d, "model": v["model"]["transactions"]})
    s["counter_check"] = checks
    s["counters_agree"] = all(c["driver"] == c["model"] for c in checks) if checks else None
    # Frames: the guest's own interface counters (any driver) against the
    # frames the model stored and sent, workload by workload.
    s["frame_check"] = [{"workload": k,
                         "model_rx": v["model"]["rx-frames"], "model_tx": v["model"]["tx-frames"],
                         **{c: v["driver"].get(f"netdev.{c}") for c in NETDEV_COUNTERS},
                         **{f"udp_{c}": v["driver"].get(f"udp.{c}") for c in UDP_COUNTERS}}
                        for k, v in w.items()]
    # datagrams the guest's UDP dropped for a bad checksum in the UDP run
    # (a driver that reports a wrong CHECKSUM_COMPLETE sum loses them there)
    s["udp_rx_csum_errors"] = w["udp_rx"]["driver"].get("udp.InCsumErrors") \
        if "udp_rx" in w else None
    s["projection_14mhz"] = {
        d: project(s[f"{d}_transactions_per_frame"], s[f"{d}_spi_bytes_per_frame"])
        for d in ("rx", "tx") if s.get(f"{d}_transactions_per_frame")}
    return s


def project(tpf, bpf):
    t = bpf * 8 / SPI_HZ + tpf * PER_TRANSACTION_S
    return {"frames_per_s": round(1 / t), "mbps": round(MTU_FRAME * 8 / t / 1e6, 2),
            "seconds_per_frame": t}


def sweep_projection(sweep):
    """Frames/s and Mbit/s on silicon at 14 MHz from the sweep's medians,
    per driver, direction and payload: at saturation (where a driver
    batches most), or at the highest rate it survived."""
    out = {}
    for name, dirs in sweep.items():
        for dirn, by_payload in dirs.items():
            for payload, pts in by_payload.items():
                ok = [p for p in pts if p["repeats"] and not p["wedged"]
                      and p["transactions_per_frame"]]
                if not ok:
                    continue
                p = ok[-1]
                t = p["spi_bytes_per_frame"] * 8 / SPI_HZ \
                    + p["transactions_per_frame"] * PER_TRANSACTION_S
                frame = MTU_FRAME if int(payload) > 64 else SMALL_FRAME
                out.setdefault(name, {}).setdefault(dirn, {})[payload] = {
                    "from": "saturation" if p["saturation"] else f"{p['offered_mbps']} Mbit/s",
                    "transactions_per_frame": round(p["transactions_per_frame"], 3),
                    "spi_bytes_per_frame": round(p["spi_bytes_per_frame"], 1),
                    "frames_per_s": round(1 / t), "mbps": round(frame * 8 / t / 1e6, 2)}
    return out


def projection_report(sweep, proj):
    L = ["## Projection for silicon at 14 MHz SPI, from the sweep", "",
         "Assumptions: the chip's SPI clock at its maximum, 14 MHz; "
         f"{PER_TRANSACTION_S * 1e6:.0f} us per transaction for chip select, the SPI "
         "controller's set-up and the host's turnaround (a fast controller with a short "
         "interrupt path; Linux on a small ARM is usually slower); the bytes and "
         "transactions per frame the model counted, medians at saturation (or the highest "
         "rate a driver survived, named); the host's CPU and the wire never the limit; "
         f"frames of {MTU_FRAME} bytes (1472-byte payloads) and {SMALL_FRAME} bytes "
         "(64-byte payloads).", "",
         "| driver | direction | payload | from | transactions/frame | SPI bytes/frame | "
         "frames/s | Mbit/s |", "|---|---|---|---|---|---|---|---|"]
    for name, dirs in sweep.items():
        for dirn, by_payload in dirs.items():
            for payload in by_payload:
                p = proj.get(name, {}).get(dirn, {}).get(payload)
                if p is None:
                    L.append(f"| {name} | {dirn.upper()} | {payload} B | survived no point "
                             "| n/a | n/a | n/a | n/a |")
                    continue
                L.append(f"| {name} | {dirn.upper()} | {payload} B | {p['from']} | "
                         f"{p['transactions_per_frame']} | {p['spi_bytes_per_frame']} | "
                         f"{p['frames_per_s']} | {p['mbps']} |")
    return "\n".join(L) + "\n"


def ratio(a, b):
    return round(a / b, 2) if a and b else None


def report(res, short):
    d = res["drivers"]
    names = list(d)
    lines = ["# ENCX24J600 drivers on the QEMU model" + (" (short run)" if short else ""), ""]
    releases = sorted(set(res["kernel"]["releases"].values()))
    lines += [f"Guest kernel: Linux {', '.join(releases)} (KVER={res['kernel']['version']}).",
              ""]
    rows = [("RX frames (UDP run)", "rx_frames"), ("TX frames (UDP run)", "tx_frames"),
            ("RX transactions/frame", "rx_transactions_per_frame"),
            ("TX transactions/frame", "tx_transactions_per_frame"),
            ("RX transactions/frame, data phase", "rx_transactions_per_frame_data_phase"),
            ("TX transactions/frame, data phase", "tx_transactions_per_frame_data_phase"),
            ("RX SPI bytes/frame", "rx_spi_bytes_per_frame"),
            ("TX SPI bytes/frame", "tx_spi_bytes_per_frame"),
            ("update_bits ops (driver)", "update_bits_ops"),
            ("BFS/BFC commands (model)", "update_bits_transactions"),
            ("interrupt flags lost: cleared unread (model)", "eir_flags_lost"),
            ("spi_sync calls (driver)", "spi_sync_calls"),
            ("transactions, all workloads (model)", "model_transactions"),
            ("driver counters agree with model", "counters_agree"),
            ("iperf3 TCP host-to-guest Mbit/s", "iperf_rx_mbps"),
            ("iperf3 TCP guest-to-host Mbit/s", "iperf_tx_mbps"),
            ("iperf3 UDP host-to-guest Mbit/s", "udp_rx_mbps"),
            ("iperf3 UDP guest-to-host Mbit/s", "udp_tx_mbps"),
            ("UDP datagrams with a bad checksum (UDP host-to-guest)", "udp_rx_csum_errors"),
            ("ping RTT min/avg/max ms", None), ("ping loss %", "ping_loss_pct")]
    lines.append("| | " + " | ".join(names) + " |")
    lines.append("|---|" + "---|" * len(names))
    for label, key in rows:
        if key is None:
            vals = [f"{d[n]['ping_rtt_min_ms']}/{d[n]['ping_rtt_avg_ms']}/{d[n]['ping_rtt_max_ms']}"
                    for n in names]
        else:
            vals = ["n/a" if d[n].get(key) is None else
                    (f"{d[n][key]:.2f}" if isinstance(d[n][key], float) else str(d[n][key]))
                    for n in names]
        lines.append(f"| {label} | " + " | ".join(vals) + " |")
    for n in names:
        for k, msg in d[n].get("failed_workloads", {}).items():
            lines.append(f"\n- **{n}: workload `{k}` failed**: {msg}")
    lines += ["", "## Per-frame transactions by opcode class (UDP runs)", ""]
    for dirn in ("rx", "tx"):
        used = sorted({c for n in names for c in (d[n].get(f"{dirn}_by_class") or {})},
                      key=CLASSES.index)
        if not used:
            continue
        lines.append(f"| {dirn.upper()} | " + " | ".join(used) + " |")
        lines.append("|---|" + "---|" * len(used))
        for n in names:
            bc = d[n].get(f"{dirn}_by_class") or {}
            lines.append(f"| {n} | " + " | ".join(f"{bc.get(c, 0):.2f}" for c in used) + " |")
        lines.append("")
    lines += ["## Offload and peer", ""]
    o, f = d.get("ours", {}), d.get("ours-no-offload", {})
    # Only workloads that do the same work whatever the driver's speed
    # compare by totals; TCP and UDP runs move as much as each driver can.
    fixed = [k for k in FIXED_WORKLOADS
             if k in o.get("workloads", {}) and k in f.get("workloads", {})]
    if fixed:
        on = sum(o["workloads"][k]["model_transactions"] for k in fixed)
        off = sum(f["workloads"][k]["model_transactions"] for k in fixed)
        lines.append(f"- transactions saved by the update_bits offload on the fixed workloads "
                     f"({', '.join(fixed)}): {off - on} of {off} ({100.0 * (off - on) / off if off else 0:.1f}%)")
    for dirn in ("rx", "tx"):
        k = f"{dirn}_transactions_per_frame"
        if o.get(k) and f.get(k):
            lines.append(f"- {dirn.upper()} transactions per frame, offload off - on: "
                         f"{f[k]:.3f} - {o[k]:.3f} = {f[k] - o[k]:.3f} ({100.0 * (f[k] - o[k]) / f[k]:.1f}%)")
    lost = [f"{n} {d[n]['eir_flags_lost']}" for n in names if d[n].get("eir_flags_lost") is not None]
    if lost:
        lines.append("- interrupt flags lost, all workloads (EIR flags the driver cleared "
                     "before reading them; a read-modify-write of EIR loses a flag raised "
                     "between its read and its write): " + ", ".join(lost))
    # the sweep's goals, judged on medians and spreads, are in its section;
    # these are the single runs', one run each
    for k, v in res.get("single_run_goals", {}).items():
        lines.append(f"- single run (indicative, no spread): {k}: {v['value']} "
                     f"(goal {v['goal']}) {'met' if v['met'] else 'MISSED'}")
    lines += ["", "## Projection for silicon at 14 MHz SPI", "",
              f"Assumes {PER_TRANSACTION_S * 1e6:.0f} us of CS and host overhead per "
              f"transaction on top of the bytes clocked; MTU frames of {MTU_FRAME} bytes.", "",
              "| | RX frames/s | RX Mbit/s | TX frames/s | TX Mbit/s |", "|---|---|---|---|---|"]
    for n in names:
        p = d[n]["projection_14mhz"]
        cell = lambda k, f: str(p[k][f]) if k in p else "n/a"  # noqa: E731
        lines.append(f"| {n} | {cell('rx', 'frames_per_s')} | {cell('rx', 'mbps')} | "
                     f"{cell('tx', 'frames_per_s')} | {cell('tx', 'mbps')} |")
    return "\n".join(lines) + "\n"


def goals(d):
    o, t = d["ours"], d["in-tree"]
    out = {}

    def add(name, value, goal, met):
        out[name] = {"value": value, "goal": goal, "met": bool(met)}
    for dirn in ("rx", "tx"):
        k = f"{dirn}_transactions_per_frame"
        r = ratio(t.get(k), o.get(k))
        if r is not None:
            add(f"{dirn.upper()} transactions/frame, in-tree / ours", r, ">= 3", r >= 3)
    # issue goals for our driver alone (data phase: only data frames)
    for dirn, limit in (("rx", 2), ("tx", 3)):
        v = o.get(f"{dirn}_transactions_per_frame_data_phase")
        if v is not None:
            # at each edge of the window a frame's transactions may be
            # split from its count (tests/test_driver.py argues the 3)
            n = o[f"{dirn}_data_phase_frames"]
            add(f"{dirn.upper()} transactions/frame, ours, data phase", v, f"<= {limit}",
                v * n <= limit * n + 3)
    for k, label in (("iperf_rx_mbps", "TCP host-to-guest"), ("iperf_tx_mbps", "TCP guest-to-host")):
        r = ratio(o.get(k), t.get(k))
        if r is not None:
            add(f"{label} throughput, ours / in-tree", r, ">= 1", r >= 1)
    r = ratio(o.get("ping_rtt_avg_ms"), t.get("ping_rtt_avg_ms"))
    if r is not None:
        add("ping RTT avg, ours / in-tree", r, "<= 1", r <= 1)
    return out


def class_source(res):
    """Where the opcode-class chart takes its bars from: per direction,
    the highest fixed rate of the sweep (MTU frames) that every driver
    survived in every repetition, so the in-tree driver has bars too; the
    single UDP run at saturation without a sweep.  Returns
    ({name: {dirn: by_class}}, {dirn: label})."""
    names = list(res["drivers"])
    sweep = res.get("sweep") or {}
    by, labels = {n: {} for n in names}, {}
    for dirn in ("rx", "tx"):
        rate = None
        for r in reversed([r for r in res.get("sweep_rates", []) if r is not None]):
            pts = [sw.point(sweep, n, dirn, sw.PAYLOADS[0], r) for n in names]
            if all(p and p["repeats"] and not p["wedged"] and p["transactions_per_frame"]
                   and p["by_class"] for p in pts):
                rate = r
                break
        if rate is not None:
            for n in names:
                by[n][dirn] = sw.point(sweep, n, dirn, sw.PAYLOADS[0], rate)["by_class"]
            labels[dirn] = f"{rate} Mbit/s offered"
        else:
            for n in names:
                by[n][dirn] = res["drivers"][n].get(f"{dirn}_by_class") or {}
            labels[dirn] = "saturation, single run"
    return by, labels


def chart(res, out):
    """Transactions per frame by opcode class, every driver, RX and TX."""
    names = list(res["drivers"])
    by, labels = class_source(res)
    res["class_chart_load"] = labels
    dat = os.path.join(out, "transactions.dat")
    used = [c for c in CLASSES if any(by[n][dirn].get(c) for n in names for dirn in ("rx", "tx"))]
    with open(dat, "w") as f:
        f.write("driver " + " ".join(used) + "\n")
        for n in names:
            for dirn in ("rx", "tx"):
                bc = by[n][dirn]
                f.write(f"{n}/{dirn.upper()} " + " ".join(f"{bc.get(c, 0):.3f}" for c in used) + "\n")
    png = os.path.join(out, "transactions.png")
    if os.path.exists(png):
        os.remove(png)      # an old chart must not pass for this run's
    plot = ", ".join(f"'{dat}' using {i + 2}{':xtic(1)' if i == 0 else ''} title '{c}'"
                     for i, c in enumerate(used))
    script = f"""set terminal pngcairo size 1100,560
set output '{png}'
set title 'SPI bus transactions per frame by opcode class (UDP, MTU frames; RX at {labels["rx"]}, TX at {labels["tx"]})'
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border -1
set boxwidth 0.7
set key outside right
set ylabel 'transactions per frame'
set xtics rotate by -30
plot {plot}
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True, timeout=60)
    except OSError as e:
        raise ChartError(f"no chart: gnuplot did not run ({e}); install the Debian "
                         "package gnuplot-nox (make deps)") from e
    except subprocess.CalledProcessError as e:
        raise ChartError(f"no chart: gnuplot failed: {e.stderr.strip()[-300:]}") from e
    try:
        with open(png, "rb") as f:
            magic = f.read(8)
    except OSError as e:
        raise ChartError(f"no chart: gnuplot wrote no {png} ({e.strerror})") from e
    if magic != b"\x89PNG\r\n\x1a\n":
        raise ChartError(f"no chart: {png} is not a PNG")
    return png


# A board whose guest stopped answering: for the in-tree driver under UDP
# saturation, its documented wedge (its real-time IRQ thread never
# returns), not a problem of the harness.  Any kernel report (WARN, BUG,
# lockdep, KASAN ...) fails the run whichever driver it came with.
WEDGED = re.compile(r"the guest (did not answer|stopped answering)")


class ChartError(Exception):
    pass


def ping_extra(b, count, interval):
    """Ping the gateway; RTTs, and the bus transactions per round trip
    (one frame each way)."""
    m = measure(b, lambda: ping(b, count, interval))
    rt = min(m["model"]["rx-frames"], m["model"]["tx-frames"])
    return {k: m[k] for k in ("ping_rtt_min_ms", "ping_rtt_avg_ms", "ping_rtt_max_ms",
                              "ping_loss_pct")} | {
        "transactions_per_round_trip": m["model"]["transactions"] / rt if rt else None}


# Frames that arrive alone, each on an interrupt of its own, as ping
# replies do: 64-byte UDP payloads at 100 kbit/s (a frame every 5 ms)
LONE_RATE_MBPS = 0.1


def sweep_extras(short):
    s = 2 if short else 6
    return [("ping", lambda b: ping_extra(b, 10 if short else 30, 0.1)),
            ("rx_lone", lambda b: sw.run_point(b, "rx", 64, LONE_RATE_MBPS, 3 if short else 4,
                                               iperf3, model_delta)),
            ("tcp_rx", lambda b: tcp(b, False, s)),
            ("tcp_tx", lambda b: tcp(b, True, s))]


def run_sweep(names, repeats, short, seed, out, problems):
    """The offered-load sweep, every driver, `repeats` times with the
    driver order shuffled between repetitions."""
    rates = sw.SHORT_RATES if short else sw.RATES
    seconds = sw.SHORT_POINT_S if short else sw.POINT_S
    logdir = os.path.join(out, "logs")
    rng = random.Random(seed)
    boards = iter(range(1, 1 << 30))

    @contextlib.contextmanager
    def boot(name):
        module, params = DRIVERS[name]
        b = Board(logdir, name=f"sweep-{name}-{next(boards)}")
        with b:
            b.load_driver(module, params)
            b.net_up()
            yield b
        problems.setdefault(name, []).extend(b.problems)
        for p in b.problems:
            print(f"    {name}: {p}", flush=True)

    runs, extras = {n: [] for n in names}, {n: [] for n in names}
    for r in range(repeats):
        order = list(names)
        rng.shuffle(order)
        print(f"==> sweep, repetition {r + 1} of {repeats}: {', '.join(order)}", flush=True)
        for name in order:
            samples, extra = sw.run_repeat(name, boot, rates, sw.PAYLOADS, seconds,
                                           sweep_extras(short),
                                           lambda m: print(m, flush=True),
                                           iperf3, model_delta)
            runs[name].append(samples)
            extras[name].append(extra)
    return sw.aggregate(runs, rates, sw.PAYLOADS), sw.aggregate_extras(extras), rates


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--short", action="store_true",
                    help="short workloads and one short repetition of a smaller sweep")
    ap.add_argument("--drivers", default=",".join(DRIVERS))
    ap.add_argument("--repeats", type=int, default=None,
                    help="repetitions of the sweep (default 3; 1 with --short)")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed of the driver-order shuffle (default: random, printed)")
    ap.add_argument("--no-sweep", action="store_true", help="the single runs only")
    ap.add_argument("--out", default=OUT, help="where the results go (default build/bench)")
    ap.add_argument("--provoke", choices=PROVOCATIONS,
                    help="make each guest kernel report a problem first (test kernel's "
                    "lkdtm): the run must fail, naming it (tests/test_harness.py)")
    args = ap.parse_args()
    names = args.drivers.split(",")
    unknown = [n for n in names if n not in DRIVERS]
    if unknown:
        ap.error(f"unknown driver(s) {', '.join(unknown)}; known: {', '.join(DRIVERS)}")
    repeats = args.repeats or (1 if args.short else 3)
    if repeats < 1:
        ap.error("--repeats must be at least 1")
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    out = args.out
    os.makedirs(out, exist_ok=True)
    res = {"drivers": {}, "splats": {}, "short": args.short,
           "assumptions": {"spi_hz": SPI_HZ, "per_transaction_s": PER_TRANSACTION_S,
                           "mtu_frame_bytes": MTU_FRAME,
                           "small_frame_bytes": SMALL_FRAME}}
    # the kernel every driver ran on (make KVER=... bench), as its guest
    # told it: the figures of one kernel are not another's
    res["kernel"] = {"version": KVER, "releases": {}}
    for name in names:
        w, splats, release = run_driver(name, args.short, out, args.provoke)
        res["drivers"][name] = summarize(name, w)
        res["splats"][name] = splats
        res["kernel"]["releases"][name] = release
    if not args.no_sweep and not args.provoke:
        print(f"==> offered-load sweep: {repeats} repetition(s), shuffle seed {seed}", flush=True)
        problems = {}
        sweep, agg, rates = run_sweep(names, repeats, args.short, seed, out, problems)
        for name, p in problems.items():
            res["splats"][name] = res["splats"].get(name, []) + p
        res.update(sweep=sweep, sweep_extras=agg, sweep_seed=seed, sweep_repeats=repeats,
                   sweep_rates=rates, sweep_payloads=sw.PAYLOADS,
                   sweep_seconds=sw.SHORT_POINT_S if args.short else sw.POINT_S)
        res["sweep_projection_14mhz"] = sweep_projection(sweep)
    res["single_run_goals"] = goals(res["drivers"]) \
        if {"ours", "in-tree"} <= set(res["drivers"]) else {}
    res["goals"] = res["single_run_goals"]
    if "sweep" in res:
        res["goals"] = sw.sweep_goals(res["sweep"], res["sweep_extras"], res["sweep_rates"],
                                      sw.PAYLOADS)
    failed = False
    charts = []
    try:
        charts.append(chart(res, out))
        if "sweep" in res:
            charts.append(sw.sweep_chart(
                res["sweep"], res["sweep_rates"], sw.PAYLOADS, out, "transactions_per_frame",
                "transactions per frame", "sweep-transactions",
                "SPI bus transactions per frame (data phase, median) against offered load"))
            charts.append(sw.sweep_chart(
                res["sweep"], res["sweep_rates"], sw.PAYLOADS, out, "delivered_mbps",
                "delivered Mbit/s", "sweep-delivered",
                "Delivered rate (median) against offered load"))
    except (ChartError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        failed = True
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    md = report(res, args.short)
    if "sweep" in res:
        md += "\n" + sw.sweep_report(res["sweep"], res["sweep_extras"], res["goals"],
                                     res["sweep_rates"], sw.PAYLOADS, repeats, seed)
        md += "\n" + projection_report(res["sweep"], res["sweep_projection_14mhz"])
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(md)
    print()
    print(md)
    print(f"written: {os.path.relpath(out)}/results.json, results.md"
          + "".join(f", {os.path.basename(c)}" for c in charts))
    for name, problems in res["splats"].items():
        for p in problems:
            if name == "in-tree" and WEDGED.search(p):
                # the peer's known wedge (docs/qemu-model.md): a result,
                # already in its failed workloads, not a harness failure
                print(f"note: in-tree: {p}", file=sys.stderr)
                continue
            print(f"error: {name}: the guest kernel reported a problem: {p}", file=sys.stderr)
            failed = True
    for name in names:
        if name == "in-tree":
            continue
        for k, x in res.get("sweep_extras", {}).get(name, {}).items():
            if x["errors"]:
                print(f"error: {name}: {k}: {'; '.join(x['errors'])}", file=sys.stderr)
                failed = True
        for dirn, by_payload in res.get("sweep", {}).get(name, {}).items():
            for payload, pts in by_payload.items():
                for p in pts:
                    if p["wedged"] or p["errors"]:
                        print(f"error: {name}: {dirn} {payload} B at "
                              f"{sw.rate_label(None if p['saturation'] else p['offered_mbps'])}: "
                              f"{'; '.join(p['errors'])}", file=sys.stderr)
                        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except GuestError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
