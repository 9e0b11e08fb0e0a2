#!/usr/bin/env python3
"""The main job: boot the board, bring the NIC up, ping, iperf3 both ways,
and report the SPI bus transactions the chip model counted, then the
transactions the update_bits offload saves on a short workload."""
import json
import os
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "tests"))

from lib.board import BUILD, OURS, Board, GuestError  # noqa: E402


def iperf(port, reverse):
    cmd = ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", "5", "-J",
           "--connect-timeout", "5000"] + (["-R"] if reverse else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    res = json.loads(p.stdout)
    if "error" in res:
        raise GuestError(f"iperf3: {res['error']}")
    return res["end"]["sum_received"]["bits_per_second"] / 1e6


def show_stats(title, s):
    print(f"\n{title}")
    print(f"  {'class':<14}{'transactions':>14}{'commands':>10}{'bytes':>12}")
    for name, c in sorted(s["classes"].items(), key=lambda kv: -kv[1]["transactions"]):
        if c["transactions"] or c["commands"]:
            print(f"  {name:<14}{c['transactions']:>14}{c['commands']:>10}{c['bytes']:>12}")
    print(f"  {'total':<14}{s['transactions']:>14}{'':>10}{s['bytes']:>12}")
    print(f"  frames: rx {s['rx-frames']} (dropped {s['rx-dropped']}), tx {s['tx-frames']}")


def workload(b, params):
    """Reload the driver with params, then a fixed short workload: 3 s of
    UDP host-to-guest at saturation.  The frames moved differ from run to
    run, so the comparison is per received frame."""
    b.run(f"rmmod {OURS} 2>/dev/null; true")
    b.load_driver(OURS, params)
    b.net_up()
    b.run("iperf-server")
    b.reset_stats()
    cmd = ["iperf3", "-c", "127.0.0.1", "-p", str(b.iperf_port), "-t", "3", "-J",
           "--connect-timeout", "5000", "-u", "-b", "200M", "-l", "1472"]
    subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    s = b.stats()
    if not s["rx-frames"]:
        raise GuestError("no frames received in the offload workload")
    return s


def main():
    logdir = os.path.join(BUILD, "demo")
    print(f"==> booting versatilepb with an ENCX24J600 (logs: {os.path.relpath(logdir)})")
    # the model's autonegotiation takes as long as silicon's (2 s)
    # the link as on silicon: the PHY's own 2 s negotiation, a paced wire
    with Board(logdir, name="demo", autoneg_ms=None, paced=True) as b:
        b.load_driver(OURS)
        dmesg = b.out(f"dmesg | grep -i {OURS} | tail -n 3")
        print("driver probed:\n  " + dmesg.replace("\n", "\n  "))
        print(f"MAC: {b.out('cat /sys/class/net/eth0/address')}")
        print(f"link: {b.net_up()}")
        b.reset_stats()
        ping = b.out("ping -c 10 -i 0.2 -W 2 10.0.2.2", timeout=30)
        print("ping 10.0.2.2: " + " / ".join(ping.splitlines()[-2:]))
        b.run("iperf-server")
        h2g = iperf(b.iperf_port, reverse=False)
        b.run("iperf-server")
        g2h = iperf(b.iperf_port, reverse=True)
        print(f"iperf3 TCP: host-to-guest {h2g:.2f} Mbit/s, guest-to-host {g2h:.2f} Mbit/s")
        show_stats("SPI bus transactions counted by the chip model (ping + iperf3):", b.stats())

        on = workload(b, "")
        off = workload(b, "offload=0")
        bf = ("bfsu", "bfcu")
        print("\nupdate_bits offload, 3 s of UDP host-to-guest at saturation, per received frame:")
        for name, st in (("offload on ", on), ("offload off", off)):
            print(f"  {name}: {st['transactions'] / st['rx-frames']:.3f} transactions, "
                  f"{st['bytes'] / st['rx-frames']:.1f} bytes "
                  f"({st['rx-frames']} frames, {sum(st['classes'][c]['commands'] for c in bf)} BFSU/BFCU)")
        t_on = on["transactions"] / on["rx-frames"]
        t_off = off["transactions"] / off["rx-frames"]
        print(f"  saved      : {t_off - t_on:.3f} transactions per frame "
              f"({100.0 * (t_off - t_on) / t_off:.1f}%)")
    # what the board's stop found in the whole kernel log (every level)
    if b.problems:
        print("\nkernel problems:\n  " + "\n  ".join(b.problems)
              + f"\n(kernel log: {os.path.relpath(b.kmsg_log)})")
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except GuestError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
