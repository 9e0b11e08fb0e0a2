#!/usr/bin/env python3
"""Soak: our driver under load, link flaps, module reloads and injected
faults, on the test kernel (lockdep, KASAN, UBSAN ...).

  soak.py                  10 minutes of load, every fault 100 times
  soak.py --seconds 60 --rounds 3    the suite's short version

Load: iperf3 in both directions at once (--bidir) in 10 s runs, the
link flapped from the host every 30 s (in the middle of a run) and the
module reloaded every 60 s (between runs).  Then every fault of
tests/lib/faults.py, each --rounds times: the driver must count it and
answer a ping again within 2 s.  Figures (throughput over time,
recoveries, errors, recovery times, leaks, kernel splats) go to
build/soak/report.{md,json} (or --out DIR); the exit status is 0 only if
nothing failed.
"""
import argparse
import json
import os
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "tests"))
os.environ.setdefault("KFLAVOR", "debug")

from lib.board import BUILD, OURS, Board, GuestError  # noqa: E402
from lib.faults import FAULTS, ethtool_stats, inject_and_recover, ping_recover  # noqa: E402
from lib.kmemleak import KMEMLEAK, leaks_of, records  # noqa: E402
from lib.provoke import PROVOCATIONS, provoke  # noqa: E402

DEFAULT_OUT = os.path.join(BUILD, "soak")
RUN_S = 10
FLAP_EVERY_S = 30
RELOAD_EVERY_S = 60
# driver counters that mean something was recovered from
RECOVERY_COUNTERS = ["rx_resets", "rx_over_errors", "tx_aborted_errors", "tx_resets", "tx_timeout",
                     "link_changes", "chip_lost", "irq_storms", "rx_deferrals"]


def bidir(b, seconds):
    """One iperf3 --bidir run; (host-to-guest, guest-to-host) Mbit/s."""
    b.run("iperf-server")
    cmd = ["iperf3", "-c", "127.0.0.1", "-p", str(b.iperf_port), "-t", str(seconds),
           "--bidir", "-J", "--connect-timeout", "5000"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p


def bidir_result(p, seconds):
    try:
        out, err = p.communicate(timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return None, f"iperf3 did not finish within {seconds + 60} s"
    try:
        res = json.loads(out)
    except json.JSONDecodeError:
        return None, f"no JSON from iperf3: {err.strip()[-200:]}"
    if "error" in res:
        return None, res["error"]
    end = res["end"]
    h2g = end["sum_received"]["bits_per_second"] / 1e6
    g2h = end["sum_received_bidir_reverse"]["bits_per_second"] / 1e6
    return (round(h2g, 2), round(g2h, 2)), None


def counters(b):
    st = ethtool_stats(b)
    return {k: st.get(k, 0) for k in RECOVERY_COUNTERS}


def load_phase(b, seconds, log):
    timeline, errors, totals = [], [], {k: 0 for k in RECOVERY_COUNTERS}
    start = time.monotonic()
    next_flap, next_reload = FLAP_EVERY_S, RELOAD_EVERY_S
    flaps = reloads = 0
    base = counters(b)
    while time.monotonic() - start < seconds:
        t = round(time.monotonic() - start)
        p = bidir(b, RUN_S)
        flapped = False
        if time.monotonic() - start + RUN_S / 2 >= next_flap:
            time.sleep(RUN_S / 2)
            b.set_link(False)
            time.sleep(0.3)
            b.set_link(True)
            flaps += 1
            flapped = True
            next_flap += FLAP_EVERY_S
        mbps, err = bidir_result(p, RUN_S)
        timeline.append({"t": t, "h2g_mbps": mbps and mbps[0], "g2h_mbps": mbps and mbps[1],
                         "flap": flapped, "error": err})
        log(f"  t={t:>4}s  h2g {mbps[0] if mbps else '-':>6}  g2h {mbps[1] if mbps else '-':>6}"
            f"{'  (link flapped)' if flapped else ''}{'  ' + err if err else ''}")
        if err:
            errors.append(f"t={t}s: iperf3: {err}")
        try:
            ping_recover(b, 10)
        except GuestError as e:
            errors.append(f"t={t}s: no ping after the run: {e}")
        if time.monotonic() - start >= next_reload:
            now = counters(b)
            for k in totals:
                totals[k] += now[k] - base[k]
            b.run(f"ip link set eth0 down; rmmod {OURS}")
            b.load_driver(OURS)
            b.net_up()
            base = counters(b)
            reloads += 1
            next_reload += RELOAD_EVERY_S
            log(f"  t={round(time.monotonic() - start):>4}s  module reloaded")
    now = counters(b)
    for k in totals:
        totals[k] += now[k] - base[k]
    return {"seconds": round(time.monotonic() - start), "timeline": timeline,
            "flaps": flaps, "reloads": reloads, "errors": errors, "recoveries": totals}


def fault_phase(b, rounds, log):
    res = {}
    for fault in FAULTS:
        times, fails = [], []
        for _ in range(rounds):
            try:
                times.append(inject_and_recover(b, fault))
            except (AssertionError, GuestError) as e:
                fails.append(str(e).splitlines()[0])
        res[fault] = {"survived": len(times), "failed": len(fails),
                      "recovery_ms_max": max(times) if times else None,
                      "recovery_ms_avg": round(sum(times) / len(times)) if times else None,
                      "failures": fails[:5]}
        log(f"  {fault:<16} {len(times)}/{rounds} recovered"
            + (f", worst {max(times)} ms, avg {res[fault]['recovery_ms_avg']} ms" if times else "")
            + (f"; {fails[0]}" if fails else ""))
    return res


def report(r):
    lines = ["# Soak", "",
             f"{r['load']['seconds']} s of iperf3 --bidir on the test kernel, "
             f"{r['load']['flaps']} link flaps, {r['load']['reloads']} module reloads; "
             f"then every fault {r['rounds']} times.", "",
             "| t (s) | host-to-guest Mbit/s | guest-to-host Mbit/s | event |", "|---|---|---|---|"]
    for e in r["load"]["timeline"]:
        ev = "link flap" if e["flap"] else ""
        if e["error"]:
            ev += f" iperf3: {e['error']}"
        lines.append(f"| {e['t']} | {e['h2g_mbps'] or '-'} | {e['g2h_mbps'] or '-'} | {ev} |")
    lines += ["", "Recoveries counted by the driver during the load (ethtool -S): "
              + ", ".join(f"{k} {v}" for k, v in r["load"]["recoveries"].items() if v), ""]
    lines += ["| fault | survived | failed | recovery ms max / avg |", "|---|---|---|---|"]
    for f, v in r["faults"].items():
        lines.append(f"| {f} | {v['survived']} | {v['failed']} | "
                     f"{v['recovery_ms_max']} / {v['recovery_ms_avg']} |")
    rounds = sum(v["survived"] + v["failed"] for v in r["faults"].values())
    survived = sum(v["survived"] for v in r["faults"].values())
    worst = max((v["recovery_ms_max"] or 0) for v in r["faults"].values()) if r["faults"] else 0
    lines += ["", f"- fault rounds: {rounds}, survived {survived} (ping back within "
              f"2 s), worst recovery {worst} ms; the model counted "
              f"{r.get('model_injections')} injections of its own"]
    lines += [f"- errors: {len(r['errors'])}" + "".join(f"\n  - {e}" for e in r["errors"][:20]),
              f"- kmemleak records: {r['leaks']} ({r['leaks_ours']} of memory our module allocated)",
              f"- kernel splats (lockdep, KASAN, UBSAN, WARN, BUG ...): {len(r['splats'])}"
              + "".join(f"\n  - {s}" for s in r["splats"][:10])]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--out", default=DEFAULT_OUT,
                    help="where the report and logs go (default build/soak)")
    ap.add_argument("--provoke", choices=PROVOCATIONS,
                    help="make the guest kernel report a problem first (test kernel's "
                    "lkdtm): the run must fail, naming it (tests/test_harness.py)")
    args = ap.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    logf = open(os.path.join(out, "soak.log"), "w")

    def log(msg):
        print(msg, flush=True)
        logf.write(msg + "\n")

    r = {"rounds": args.rounds, "errors": []}
    log(f"==> soak: {args.seconds} s of load, every fault {args.rounds} times "
        f"(logs: {os.path.relpath(out)})")
    with Board(os.path.join(out, "logs"), name="soak") as b:
        b.load_driver(OURS)
        b.net_up()
        b.run(f"[ ! -e {KMEMLEAK} ] || echo clear > {KMEMLEAK}")
        if args.provoke:
            log(f"==> provoking a kernel {args.provoke} (lkdtm): this run must fail")
            provoke(b, args.provoke)
        log("==> load: iperf3 --bidir, link flaps, module reloads")
        r["load"] = load_phase(b, args.seconds, log)
        log("==> faults")
        r["faults"] = fault_phase(b, args.rounds, log)
        # the model's own count of what it injected (the faults it can)
        r["model_injections"] = b.stats().get("injections")
        b.run(f"ip link set eth0 down; rmmod {OURS}")
        kmemleak = b.leak_report()
        r["leaks"] = len(records(kmemleak))
        r["leaks_ours"] = len(leaks_of(kmemleak, OURS))
    # what the board's stop found: every kernel problem in its whole kernel
    # log (every level), its leak scan, and a guest that no longer answered
    r["splats"] = b.problems
    r["errors"] = r["load"]["errors"] + [f"{f}: {x}" for f, v in r["faults"].items()
                                         for x in v["failures"]]
    failed = bool(r["errors"] or r["leaks"] or r["splats"]
                  or any(v["failed"] for v in r["faults"].values()))
    r["ok"] = not failed
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(r, f, indent=1)
    md = report(r)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(md)
    print(md)
    print(f"written: {os.path.relpath(out)}/report.md, report.json")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
