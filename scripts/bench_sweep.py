"""The benchmark's offered-load sweep (used by bench.py).

For every driver: UDP in both directions at a few fixed offered rates and
at saturation, with MTU datagrams and with small ones, each point repeated
with the driver order shuffled between repetitions.  A point gives frames
offered, delivered and lost (iperf3's receiver), the bus transactions and
SPI bytes per frame over the point's data phase (the chip model's
counters: the ground truth) and the guest CPU time per frame (the guest's
/proc/stat).  Points are aggregated as median with min and max; a ratio
between two drivers is called met or missed only when the spreads say so.

A driver that stops answering at a point is recorded as wedged there, the
higher rates of that series as wedged without running them (a driver
that does not survive 5 Mbit/s does not survive 10), and the next series
gets a new board.  A point whose iperf3 run failed while the guest still
answers is recorded as failed, and the series goes on; on a new board if
the run never ended (its guest is in doubt).  Either way the driver did
not survive the point ("wedged" in the results).
"""
import os
import statistics
import subprocess
import threading
import time

# Offered rates in Mbit/s; None is saturation: iperf3 asked for far more
# than a 10 Mbit/s-class SPI chip can move.
RATES = [1, 2, 5, 10, None]
SHORT_RATES = [2, None]
SATURATION_MBPS = 200
# UDP payloads: MTU frames (1472 + 28 + 14 = 1514 bytes on the wire) and
# small frames (64 + 42 = 106 bytes), where per-frame overhead shows
PAYLOADS = [1472, 64]
DIRECTIONS = ["rx", "tx"]
POINT_S = 4
SHORT_POINT_S = 3
# /proc/stat counts in USER_HZ, 100 on every Linux architecture's ABI
USER_HZ = 100
# The data phase begins once this many frames have moved in the point's
# direction: above what iperf3's control connection sends before the test
# starts (its handshake and parameters: under ten frames a direction)
DATA_STARTED_FRAMES = 16
# A reading of the guest's /proc/stat (a command on its console) that
# takes longer is not at the window's edge: no CPU figure from it
CPU_READ_MAX_S = 0.5
# A point's iperf3 run that has not ended this long after its seconds
# never will: a healthy guest ends one within a second, and the in-tree
# driver's interrupt thread at RX saturation leaves its guest some 5% of
# the CPU ("sched: RT throttling activated") for as long as it is flooded
RUN_GRACE_S = 15

# Per point, each a median over the repeats with its min and max
METRICS = ["sent_mbps", "delivered_mbps", "pps", "offered_frames", "delivered_frames",
           "frames", "lost", "window_frames",
           "transactions_per_frame", "transactions_per_frame_tail_apart",
           "spi_bytes_per_frame", "cpu_us_per_frame", "cpu_busy_pct", "overrun_s"]


def rate_label(rate):
    return "saturation" if rate is None else f"{rate} Mbit/s"


class Wedged(Exception):
    """The guest stopped answering: the board is lost."""


class Lost(Wedged):
    """The guest did not answer before the point started: the aftermath
    of an earlier point, not this one's doing."""


class PointError(Exception):
    """The point failed, but the guest still answers."""


class Unfinished(PointError):
    """The point's run did not end within its grace (RUN_GRACE_S), though
    the guest still answers a command: a guest in doubt, which the next
    point would first wait for."""


def frames_key(dirn):
    return "rx-frames" if dirn == "rx" else "tx-frames"


def cpu_jiffies(b):
    """The guest's busy and total CPU time so far, in USER_HZ ticks."""
    f = [int(v) for v in b.out("head -1 /proc/stat", timeout=20).split()[1:8]]
    # user nice system idle iowait irq softirq (steal left out: time the
    # host gave elsewhere is not the guest's work)
    return sum(f) - f[3] - f[4], sum(f)


def first_line(e):
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def guest_answers(b):
    try:
        b.run("true", timeout=20)
        return True
    except Exception:       # noqa: BLE001 (any failure: the guest is gone)
        return False


def run_point(b, dirn, payload, rate, seconds, iperf3, model_delta):
    """One UDP run at one offered rate; returns its sample.  The model's
    counters are read at the run's edges (frames moved) and inside its
    data phase, a quarter of the run in from each edge (per-frame figures:
    the steady state, without iperf3's control connection), the guest's
    CPU time over the same window."""
    fk = frames_key(dirn)
    try:
        b.run("iperf-server")
    except Exception as e:  # noqa: BLE001
        raise Lost(f"the guest did not answer before the point: {e}") from e
    s0 = b.stats()
    args = ["-u", "-b", f"{rate or SATURATION_MBPS}M", "-l", str(payload)]
    if dirn == "tx":
        args.append("-R")
    out = []
    ended = []

    def client():
        try:
            out.append(iperf3(b.iperf_port, *args, seconds=seconds,
                              timeout_extra=RUN_GRACE_S))
        except Exception as e:  # noqa: BLE001 (reported below)
            out.append(e)
        finally:
            ended.append(time.monotonic())
    t = threading.Thread(target=client)
    t0 = time.monotonic()
    t.start()
    # the data phase starts with the first data frames, after iperf3's
    # set-up (longer on a slow guest): the window is timed from there
    while time.monotonic() - t0 < seconds / 2 and \
            b.stats()[fk] - s0[fk] < DATA_STARTED_FRAMES:
        time.sleep(0.02)
    t1 = time.monotonic()
    edge = seconds / 4
    time.sleep(edge)
    cpu = []

    def window_cpu():
        """The guest's CPU time and the frames moved when it was read; none
        when the guest took long to answer (the reading would not be at
        the window's edge)."""
        a = time.monotonic()
        try:
            c = cpu_jiffies(b)
        except Exception:   # noqa: BLE001 (a guest too busy to answer: no CPU figure)
            c = None
        done = time.monotonic()
        cpu.append((c, b.stats()[fk]) if c and done - a < CPU_READ_MAX_S else None)
    w0 = b.stats()
    window_cpu()
    time.sleep(max(0.0, seconds - edge - (time.monotonic() - t1)))
    w1 = b.stats()
    window_cpu()
    t.join()
    # how long past its seconds the iperf3 run took (its set-up and
    # teardown): a good run ends well inside RUN_GRACE_S
    overrun = ended[0] - t0 - seconds
    if isinstance(out[0], Exception):
        msg = str(out[0]).strip().splitlines()[0] if str(out[0]).strip() \
            else type(out[0]).__name__
        if not guest_answers(b):
            raise Wedged(msg)
        if isinstance(out[0], subprocess.TimeoutExpired):
            raise Unfinished(msg)
        raise PointError(msg)
    if not guest_answers(b):
        raise Wedged("the guest did not answer after the point")
    s1 = b.stats()
    res = out[0]
    # what the receiving iperf3 counted (the guest's server for rx, the
    # host's client for tx)
    r, sent = res["end"]["sum_received"], res["end"]["sum_sent"]
    whole, win = model_delta(s0, s1), model_delta(w0, w1)
    frames, wframes = whole[fk], win[fk]
    got = r["packets"] - r["lost_packets"]
    busy = total = cpu_frames = None
    if None not in cpu:
        (c0, f0), (c1, f1) = cpu
        busy, total, cpu_frames = c1[0] - c0[0], c1[1] - c0[1], f1 - f0
    return {
        "sent_mbps": sent["bits_per_second"] / 1e6,
        "delivered_mbps": r["bytes"] * 8 / r["seconds"] / 1e6,
        "pps": got / r["seconds"],
        "offered_frames": r["packets"],
        "delivered_frames": got,
        "lost": r["lost_packets"],
        "frames": frames,
        "window_frames": wframes,
        "transactions_per_frame": win["transactions"] / wframes if wframes else None,
        # RX: without the WCRU transactions (our driver's ERXTAIL writes,
        # given back once per quarter ring for frames that arrive alone)
        "transactions_per_frame_tail_apart":
            (win["transactions"] - win["classes"].get("wcru", {}).get("transactions", 0))
            / wframes if wframes and dirn == "rx" else None,
        "spi_bytes_per_frame": win["bytes"] / wframes if wframes else None,
        "by_class": {c: v["transactions"] / wframes for c, v in win["classes"].items()
                     if v["transactions"]} if wframes else {},
        "cpu_us_per_frame": busy * 1e6 / USER_HZ / cpu_frames
        if busy is not None and cpu_frames else None,
        "cpu_busy_pct": 100.0 * busy / total if total else None,
        "overrun_s": overrun,
    }


def run_repeat(name, boot, rates, payloads, seconds, extras, log, iperf3, model_delta):
    """One repetition for one driver: the extras (TCP, ping: [(name,
    fn(board))]) on a fresh board, then every series, rates rising.  Returns (samples, extras):
    samples[(dirn, payload, rate)] is a sample, {"wedged": msg} or
    {"error": msg}."""
    samples, extra = {}, {}
    cm = b = None

    def fresh(lost=False, again=True):
        nonlocal cm, b
        if lost:
            # the guest is gone: end QEMU at once rather than wait for it
            # at the board's stop (its kernel log is still checked)
            try:
                b.quit()
            except Exception:   # noqa: BLE001 (QEMU may be gone too)
                pass
        if cm:
            cm.__exit__(None, None, None)
        cm = b = None
        if again:
            c = boot(name)
            b = c.__enter__()
            cm = c

    def board():
        """The board, a new one if the last was lost; None if none boots."""
        nonlocal cm, b
        if b is None:
            try:
                fresh()
            except Exception as e:  # noqa: BLE001 (recorded, the sweep goes on)
                cm = b = None
                log(f"    {name}: no board: {first_line(e)}")
                return None, f"board lost: {first_line(e)}"
        return b, None

    try:
        for k, fn in extras:
            bd, why = board()
            if bd is None:
                extra[k] = {"error": why}
                continue
            try:
                extra[k] = fn(bd)
            except Exception as e:  # noqa: BLE001 (a result, not a crash)
                log(f"    {name} {k}: FAILED: {first_line(e)}")
                extra[k] = {"error": first_line(e)}
                if isinstance(e, Unfinished) or not guest_answers(bd):
                    fresh(lost=True, again=False)
        for dirn in DIRECTIONS:
            for payload in payloads:
                wedged = None
                for rate in rates:
                    key = (dirn, payload, rate)
                    if wedged:
                        samples[key] = {"not_run": f"not run: wedged at a lower rate ({wedged})"}
                        continue
                    bd, why = board()
                    if bd is None:
                        samples[key] = {"wedged": why}
                        continue
                    try:
                        try:
                            s = run_point(bd, dirn, payload, rate, seconds, iperf3, model_delta)
                        except Lost as e:
                            # a board an earlier point left dying: this
                            # point gets a new one, once
                            log(f"    {name}: {first_line(e)}: a new board")
                            fresh(lost=True, again=False)
                            bd, why = board()
                            if bd is None:
                                raise Wedged(why) from e
                            s = run_point(bd, dirn, payload, rate, seconds, iperf3, model_delta)
                        samples[key] = s
                        log(f"    {name} {dirn} {payload:>4} B {rate_label(rate):>11}: "
                            f"{s['delivered_mbps']:6.2f} Mbit/s {s['pps']:7.0f} pps  "
                            + (f"{s['transactions_per_frame']:.3f}" if
                               s['transactions_per_frame'] is not None else "n/a")
                            + " transactions/frame")
                    except PointError as e:
                        samples[key] = {"error": str(e),
                                        "unfinished": isinstance(e, Unfinished)}
                        log(f"    {name} {dirn} {payload} B {rate_label(rate)}: FAILED: {e}")
                        if isinstance(e, Unfinished):
                            # the next point on a new board, not after
                            # waiting for this one's guest
                            log(f"    {name}: the run did not end: a new board")
                            fresh(lost=True, again=False)
                    except Exception as e:  # noqa: BLE001 (Wedged, or the board failed)
                        if not isinstance(e, Wedged) and guest_answers(bd):
                            # the harness failed, not the driver: the
                            # point is lost, the series goes on
                            samples[key] = {"error": f"harness: {first_line(e)}"}
                            log(f"    {name} {dirn} {payload} B {rate_label(rate)}: FAILED "
                                f"(harness): {first_line(e)}")
                            continue
                        wedged = rate_label(rate)
                        samples[key] = {"wedged": first_line(e)}
                        log(f"    {name} {dirn} {payload} B {rate_label(rate)}: WEDGED: "
                            f"{first_line(e)}")
                if wedged:
                    fresh(lost=True, again=False)
    finally:
        if cm:
            cm.__exit__(None, None, None)
    return samples, extra


def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None, None, None
    return statistics.median(vals), min(vals), max(vals)


def aggregate_point(rate, runs):
    ok = [s for s in runs if not {"wedged", "error", "not_run"} & set(s)]
    wedged = [s["wedged"] for s in runs if "wedged" in s]
    failed = [s["error"] for s in runs if "error" in s]
    not_run = [s["not_run"] for s in runs if "not_run" in s]
    # "wedged": the driver did not survive the point in some run: the
    # guest lost there (wedged_runs), the run failed (failed_runs), or not
    # run because the guest was lost at a lower rate (not_run_runs)
    p = {"offered_mbps": rate or SATURATION_MBPS, "saturation": rate is None,
         "repeats": len(ok), "wedged": bool(wedged or failed or not_run),
         "wedged_runs": len(wedged), "failed_runs": len(failed),
         "not_run_runs": len(not_run), "errors": failed + wedged + not_run}
    for k in METRICS:
        med, lo, hi = spread([s[k] for s in ok])
        p[k], p[f"{k}_min"], p[f"{k}_max"] = med, lo, hi
    classes = {c for s in ok for c in s["by_class"]}
    p["by_class"] = {c: statistics.median([s["by_class"].get(c, 0.0) for s in ok])
                     for c in sorted(classes)}
    return p


def aggregate(runs_by_driver, rates, payloads):
    """runs_by_driver[name] = [samples of one repeat, ...] ->
    sweep[name][dirn][payload] = [point, ...] in rate order."""
    sweep = {}
    for name, reps in runs_by_driver.items():
        sweep[name] = {d: {str(p): [aggregate_point(r, [rep[(d, p, r)] for rep in reps
                                                        if (d, p, r) in rep])
                                    for r in rates]
                           for p in payloads}
                       for d in DIRECTIONS}
    return sweep


def aggregate_extras(extras_by_driver):
    """extras[name] = [{workload: {figure: value}}, ...] -> medians with
    min and max of every numeric figure."""
    out = {}
    for name, reps in extras_by_driver.items():
        o = out[name] = {}
        for k in sorted({k for rep in reps for k in rep}):
            runs = [rep[k] for rep in reps if k in rep and "error" not in rep[k]]
            o[k] = {"repeats": len(runs),
                    "errors": [rep[k]["error"] for rep in reps if "error" in rep.get(k, {})]}
            for f in sorted({f for r in runs for f, v in r.items()
                             if isinstance(v, (int, float)) and not isinstance(v, bool)}):
                o[k][f], o[k][f"{f}_min"], o[k][f"{f}_max"] = spread([r.get(f) for r in runs])
    return out


def compare(a, b, key, goal, higher_is_better=True):
    """The ratio a/b of two aggregated figures (dicts with key, key_min,
    key_max) against a goal: "met" or "missed" only when the whole range
    the spreads allow is on one side of the goal, "within noise" otherwise."""
    if not a or not b or a.get(key) is None or b.get(key) is None or not b[key]:
        return None
    lo_a, hi_a = a.get(f"{key}_min", a[key]), a.get(f"{key}_max", a[key])
    lo_b, hi_b = b.get(f"{key}_min", b[key]), b.get(f"{key}_max", b[key])
    if not lo_b or not hi_b:
        return None
    r, lo, hi = a[key] / b[key], lo_a / hi_b, hi_a / lo_b
    if higher_is_better:
        verdict = "met" if lo >= goal else "missed" if hi < goal else "within noise"
        target = f">= {goal}"
    else:
        verdict = "met" if hi <= goal else "missed" if lo > goal else "within noise"
        target = f"<= {goal}"
    return {"value": round(r, 3), "min": round(lo, 3), "max": round(hi, 3),
            "target": target, "goal": target, "verdict": verdict, "met": verdict == "met"}


def point(sweep, name, dirn, payload, rate):
    for p in sweep.get(name, {}).get(dirn, {}).get(str(payload), []):
        if p["offered_mbps"] == (rate or SATURATION_MBPS) and p["saturation"] == (rate is None):
            return p
    return None


def judged(o, t, c, target, peer_lost_meets=False):
    """A goal's verdict at a point, with who survived it: ours not
    surviving every run misses it; the in-tree driver not surviving says
    so (and meets a goal on what ours delivers where it delivers
    nothing)."""
    if not o or not o["repeats"] or o.get("wedged") or o.get("errors"):
        runs = lost_runs(o) if o else 0
        return {"value": None, "target": target, "goal": target, "met": False,
                "verdict": "missed: ours did not survive", "note": f"{runs} run(s) lost"}
    if not t or not t["repeats"]:
        return {"value": None, "target": target, "goal": target, "met": peer_lost_meets,
                "verdict": ("met: " if peer_lost_meets else "") + "in-tree did not survive here"}
    c = dict(c or {"value": None, "target": target, "goal": target, "met": False,
                   "verdict": "no figure"})
    if t.get("wedged") or t.get("errors"):
        c["note"] = f"in-tree survived {t['repeats']} of {t['repeats'] + lost_runs(t)} runs"
    return c


def lost_runs(p):
    """Runs of a point (or an extra workload) that gave no figure."""
    if "wedged_runs" in p:
        return p["wedged_runs"] + p["failed_runs"] + p.get("not_run_runs", 0)
    return len(p.get("errors", []))


def sweep_goals(sweep, extras, rates, payloads):
    """The issue's goals for the table, from the medians and spreads."""
    g = {}
    if "ours" not in sweep or "in-tree" not in sweep:
        return g
    for dirn in DIRECTIONS:
        for payload in payloads:
            for rate in rates:
                o = point(sweep, "ours", dirn, payload, rate)
                t = point(sweep, "in-tree", dirn, payload, rate)
                name = (f"{dirn.upper()} transactions/frame at {rate_label(rate)}, "
                        f"{payload} B, in-tree / ours")
                g[name] = judged(o, t, compare(t, o, "transactions_per_frame", 3), ">= 3")
        o, t = point(sweep, "ours", dirn, 64, None), point(sweep, "in-tree", dirn, 64, None)
        c = compare(o, t, "pps", 2)
        if c is None and t and t["repeats"] and t.get("pps_max") == 0 and o and o.get("pps"):
            # the peer survived but delivered nothing: any rate is more
            c = {"value": None, "target": ">= 2", "goal": ">= 2", "met": True,
                 "verdict": "met: in-tree delivered nothing"}
        g[f"{dirn.upper()} small-frame packet rate at saturation, ours / in-tree"] = \
            judged(o, t, c, ">= 2", peer_lost_meets=True)
    o, t = extras.get("ours", {}), extras.get("in-tree", {})
    for k, label in (("tcp_rx", "TCP host-to-guest"), ("tcp_tx", "TCP guest-to-host")):
        g[f"{label} throughput, ours / in-tree"] = judged(
            o.get(k), t.get(k), compare(o.get(k), t.get(k), "mbps", 1), ">= 1")
    g["ping RTT avg, ours / in-tree"] = judged(
        o.get("ping"), t.get("ping"),
        compare(o.get("ping"), t.get("ping"), "ping_rtt_avg_ms", 1, higher_is_better=False),
        "<= 1")
    # every transaction counts, the ERXTAIL writes too (given back once
    # per quarter ring for frames that arrive alone: the note says what
    # they add)
    p = o.get("rx_lone")
    c = None
    if p and p.get("transactions_per_frame") is not None:
        v, lo, hi = (p["transactions_per_frame"], p["transactions_per_frame_min"],
                     p["transactions_per_frame_max"])
        c = {"value": round(v, 3), "min": round(lo, 3), "max": round(hi, 3),
             "target": "<= 3", "goal": "<= 3",
             "verdict": "met" if hi <= 3 else "missed" if lo > 3 else "within noise",
             "met": hi <= 3}
        if p.get("transactions_per_frame_tail_apart") is not None:
            c["note"] = (f"{p['transactions_per_frame_tail_apart']:.3f} without the "
                         "ERXTAIL writes (WCRU)")
    name = "ping-sized frames arriving alone: RX transactions per frame, ours"
    if not p or not p["repeats"] or p.get("errors"):
        g[name] = {"value": None, "target": "<= 3", "goal": "<= 3", "met": False,
                   "verdict": "missed: ours did not survive",
                   "note": f"{lost_runs(p) if p else 0} run(s) lost"}
    else:
        g[name] = c or {"value": None, "target": "<= 3", "goal": "<= 3", "met": False,
                        "verdict": "no figure"}
    return g


def fmt(p, key, digits=2):
    if not p or p.get(key) is None:
        return "n/a"
    v, lo, hi = p[key], p.get(f"{key}_min"), p.get(f"{key}_max")
    if lo is None or hi is None or p.get("repeats", 1) < 2:
        return f"{v:.{digits}f}"
    return f"{v:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def sweep_report(sweep, extras, goals, rates, payloads, repeats, seed):
    names = list(sweep)
    L = ["## Offered-load sweep (UDP)", "",
         *(["**One run: no spreads, so the verdicts below are indicative only.**", ""]
           if repeats < 2 else []),
         f"Each figure is the median of {repeats} run(s), min-max in brackets; driver "
         f"order shuffled between repetitions (seed {seed}).  Transactions and SPI bytes "
         "per frame over each point's data phase (the model's counters); delivered rate "
         "and packets per second from iperf3's receiver; CPU from the guest's /proc/stat "
         "(busy time, steal left out, over the data phase, per frame moved then; n/a "
         "where the guest took over 0.5 s to answer).", ""]
    for dirn in DIRECTIONS:
        for payload in payloads:
            L += [f"### {dirn.upper()}, {payload}-byte payloads", "",
                  "| offered | " + " | ".join(names) + " |",
                  "|---|" + "---|" * len(names)]
            for what, key, digits in (("transactions/frame", "transactions_per_frame", 3),
                                      ("delivered Mbit/s", "delivered_mbps", 2),
                                      ("packets/s", "pps", 0),
                                      ("SPI bytes/frame", "spi_bytes_per_frame", 1),
                                      ("guest CPU us/frame", "cpu_us_per_frame", 0),
                                      ("lost", "lost", 0)):
                for rate in rates:
                    cells = []
                    for n in names:
                        p = point(sweep, n, dirn, payload, rate)
                        if p and not p["repeats"]:
                            cells.append(f"wedged at {rate_label(rate)} offered"
                                         if p["wedged_runs"] else
                                         f"failed at {rate_label(rate)} offered"
                                         if p["failed_runs"] else
                                         "not run: wedged at a lower rate")
                        else:
                            c = fmt(p, key, digits)
                            if p and p["wedged"]:
                                c += f" (did not survive {lost_runs(p)} run(s))"
                            cells.append(c)
                    L.append(f"| {what}, {rate_label(rate)} | " + " | ".join(cells) + " |")
            L.append("")
    L += ["## TCP and ping", "", "| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for label, k, f, digits in (("TCP host-to-guest Mbit/s", "tcp_rx", "mbps", 2),
                                ("TCP guest-to-host Mbit/s", "tcp_tx", "mbps", 2),
                                ("ping RTT avg ms", "ping", "ping_rtt_avg_ms", 2),
                                ("RX transactions per frame, 64-byte frames arriving "
                                 "alone (100 kbit/s)", "rx_lone", "transactions_per_frame", 3),
                                ("ping transactions per round trip", "ping",
                                 "transactions_per_round_trip", 2)):
        L.append(f"| {label} | " + " | ".join(fmt(extras.get(n, {}).get(k), f, digits)
                                              for n in names) + " |")
    L += ["", "## Goals (medians; met or missed only outside the spread)", ""]
    for k, v in goals.items():
        note = f" ({v['note']})" if v.get("note") else ""
        if v.get("value") is None:
            L.append(f"- {k}: n/a (goal {v['target']}): {v['verdict']}{note}")
        else:
            L.append(f"- {k}: {v['value']} ({v['min']}-{v['max']}) (goal {v['target']}): "
                     f"{v['verdict']}{note}")
    return "\n".join(L) + "\n"


def gnuplot(script, png):
    if os.path.exists(png):
        os.remove(png)      # an old chart must not pass for this run's
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True, timeout=60)
    except OSError as e:
        raise RuntimeError(f"no chart: gnuplot did not run ({e}); install the Debian "
                           "package gnuplot-nox (make deps)") from e
    except subprocess.CalledProcessError as e:
        raise RuntimeError(f"no chart: gnuplot failed: {e.stderr.strip()[-300:]}") from e
    try:
        with open(png, "rb") as f:
            magic = f.read(8)
    except OSError as e:
        raise RuntimeError(f"no chart: gnuplot wrote no {png} ({e.strerror})") from e
    if magic != b"\x89PNG\r\n\x1a\n":
        raise RuntimeError(f"no chart: {png} is not a PNG")
    return png


def sweep_chart(sweep, rates, payloads, out, key, ylabel, fname, title):
    """One panel per direction and payload, one line per driver, against
    offered load (saturation last); a wedged point is a gap."""
    names = list(sweep)
    panels = []
    for dirn in DIRECTIONS:
        for payload in payloads:
            dat = os.path.join(out, f"{fname}-{dirn}-{payload}.dat")
            with open(dat, "w") as f:
                f.write("offered " + " ".join(names) + "\n")
                for i, rate in enumerate(rates):
                    vals = []
                    for n in names:
                        p = point(sweep, n, dirn, payload, rate)
                        v = p.get(key) if p and p["repeats"] else None
                        vals.append("NaN" if v is None else f"{v:.4f}")
                    label = "sat" if rate is None else str(rate)
                    f.write(f"\"{label}\" " + " ".join(vals) + "\n")
            plots = ", ".join(
                f"'{dat}' using 0:{i + 2}:xtic(1) with linespoints title '{n}'"
                for i, n in enumerate(names))
            panels.append(f"set title '{dirn.upper()}, {payload}-byte payloads'\nplot {plots}")
    png = os.path.join(out, f"{fname}.png")
    script = f"""set terminal pngcairo size 1200,900
set output '{png}'
set datafile missing 'NaN'
set multiplot layout 2,2 title '{title}'
set key top left
set xlabel 'offered load, Mbit/s'
set ylabel '{ylabel}'
set yrange [0:*]
set offsets graph 0.05, graph 0.05, graph 0.1, 0
{chr(10).join(panels)}
unset multiplot
"""
    return gnuplot(script, png)
