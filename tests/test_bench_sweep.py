"""The sweep's bookkeeping, without a board: a wedge is recorded where it
happens, the higher rates of its series are recorded as not run, the next
series gets a new board; verdicts follow the spreads; the report and the
charts come out.  (The real runs are test_bench's.)"""
import contextlib
import os
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "scripts"))

import bench_sweep as sw  # noqa: E402

# No board boots here: these run beside the exclusive tests (run.py)
GUESTLESS = True


class FakeBoard:
    """Answers as a guest would; stops answering once `wedge_at` (a
    (dirn, payload, rate)) has been run."""
    iperf_port = 0

    def __init__(self, wedge_at):
        self.wedge_at = wedge_at
        self.dead = False
        self.n = 0
        self.args = None

    def run(self, cmd, timeout=30, check=True):
        if self.dead:
            raise RuntimeError("the guest stopped answering")
        return 0, ""

    def out(self, cmd, timeout=30):
        if self.dead:
            raise RuntimeError("the guest stopped answering")
        self.n += 1
        # user nice system idle iowait irq softirq steal: 20 busy of 100
        return f"cpu {10 * self.n} 0 {10 * self.n} {80 * self.n} 0 0 0 0 0 0"

    def stats(self):
        self.n += 1
        return {"transactions": 30 * self.n, "bytes": 1000 * self.n,
                "rx-frames": 10 * self.n, "tx-frames": 10 * self.n,
                "classes": {"command": {"transactions": 30 * self.n, "commands": 30 * self.n}}}


def model_delta(a, b):
    out = {k: b[k] - a[k] for k in b if isinstance(b[k], int)}
    out["classes"] = {c: {k: v[k] - a["classes"][c][k] for k in v}
                      for c, v in b["classes"].items()}
    return out


# how long the fake iperf3 takes to return a result
IPERF3_TAKES_S = 0.1


def make_iperf3(boards):
    def iperf3(port, *args, seconds, timeout_extra):
        assert timeout_extra == sw.RUN_GRACE_S, timeout_extra
        b = boards[-1]
        rate = args[args.index("-b") + 1]
        dirn = "tx" if "-R" in args else "rx"
        payload = int(args[args.index("-l") + 1])
        key = (dirn, payload, None if rate == f"{sw.SATURATION_MBPS}M" else int(rate[:-1]))
        if key == b.wedge_at:
            b.dead = True
            raise RuntimeError("iperf3: control socket has closed unexpectedly")
        time.sleep(IPERF3_TAKES_S)
        return {"end": {"sum_received": {"bytes": 1_000_000, "seconds": 1.0, "packets": 700,
                                         "lost_packets": 10},
                        "sum_sent": {"bits_per_second": 8e6}}}
    return iperf3


def test_sweep_wedge_recorded_series_go_on_with_a_new_board(logdir):
    boards = []

    @contextlib.contextmanager
    def boot(name):
        boards.append(FakeBoard(("rx", 64, 5)))
        yield boards[-1]

    rates, payloads = [1, 5, 10, None], [1472, 64]
    samples, extra = sw.run_repeat("in-tree", boot, rates, payloads, 0.01,
                                   [("ping", lambda b: {"ping_rtt_avg_ms": 1.0})],
                                   lambda m: None, make_iperf3(boards), model_delta)
    assert extra == {"ping": {"ping_rtt_avg_ms": 1.0}}, extra
    assert len(samples) == 2 * len(payloads) * len(rates), sorted(samples)
    assert "wedged" in samples[("rx", 64, 5)], samples[("rx", 64, 5)]
    for r in (10, None):
        assert samples[("rx", 64, r)]["not_run"].startswith("not run"), samples[("rx", 64, r)]
    assert "transactions_per_frame" in samples[("rx", 64, 1)]
    # the TX series ran, on a second board
    assert len(boards) == 2, len(boards)
    for r in rates:
        s = samples[("tx", 1472, r)]
        assert s["transactions_per_frame"] == 3.0 and s["frames"] > 0, s
        assert s["cpu_busy_pct"] == 20.0, s
        # the run took IPERF3_TAKES_S where 0.01 s were asked
        assert IPERF3_TAKES_S - 0.01 <= s["overrun_s"] < IPERF3_TAKES_S + 0.5, s
    sweep = sw.aggregate({"in-tree": [samples, samples]}, rates, payloads)
    pts = sweep["in-tree"]["rx"]["64"]
    assert [p["wedged"] for p in pts] == [False, True, True, True], pts
    assert pts[1]["repeats"] == 0 and pts[0]["repeats"] == 2
    # runs not made are not counted as runs lost at that rate
    assert (pts[1]["wedged_runs"], pts[1]["not_run_runs"]) == (2, 0), pts[1]
    assert (pts[2]["wedged_runs"], pts[2]["not_run_runs"]) == (0, 2), pts[2]
    assert pts[0]["lost"] == 10 and pts[0]["pps"] == 690.0, pts[0]
    md = sw.sweep_report(sweep, {}, {}, rates, payloads, 2, 1)
    row = next(l for l in md.splitlines()[md.splitlines().index("### RX, 64-byte payloads"):]
               if l.startswith("| transactions/frame, 5 Mbit/s"))
    assert "wedged at 5 Mbit/s offered" in row, row
    row = next(l for l in md.splitlines()[md.splitlines().index("### RX, 64-byte payloads"):]
               if l.startswith("| transactions/frame, 10 Mbit/s"))
    assert "not run: wedged at a lower rate" in row, row


def test_sweep_overrun_is_the_iperf3_runs_own(logdir):
    """A point's overrun_s is how long its iperf3 run took past its time,
    taken when the run returns: not when the sweep, busy reading the
    guest meanwhile, gets round to it (taken at the join it read 1.02 s
    for a run of 0.1 s)."""
    boards = []

    class SlowReadings(FakeBoard):
        # the sweep reads the model some five times while the run goes
        # on: it is done with them long after the fake run has returned
        def stats(self):
            time.sleep(SLOW_READING_S)
            return super().stats()

    @contextlib.contextmanager
    def boot(name):
        boards.append(SlowReadings(None))
        yield boards[-1]

    samples, _ = sw.run_repeat("ours", boot, [1], [1472], 0.01, [], lambda m: None,
                               make_iperf3(boards), model_delta)
    for dirn in ("rx", "tx"):
        s = samples[(dirn, 1472, 1)]
        # the sweep's five slow readings end about 1 s after the start
        assert IPERF3_TAKES_S - 0.01 <= s["overrun_s"] < IPERF3_TAKES_S + 2 * SLOW_READING_S, (
            f"{dirn}: an iperf3 run of {IPERF3_TAKES_S} s for 0.01 s overran by "
            f"{s['overrun_s']:.3f} s")


SLOW_READING_S = 0.2


def test_sweep_point_after_a_dying_board_gets_a_new_one(logdir):
    """A point whose iperf3 run failed while the guest still answered,
    but which left it dying: the next point finds no guest before it
    starts and runs on a new board, instead of being charged a wedge."""
    boards = []

    class Dying(FakeBoard):
        def run(self, cmd, timeout=30, check=True):
            if self.dead and cmd == "true":
                return 0, ""        # answers once, then is gone
            return super().run(cmd, timeout, check)

    @contextlib.contextmanager
    def boot(name):
        boards.append(Dying(("rx", 64, None)))
        yield boards[-1]

    rates, payloads = [2, None], [1472, 64]
    iperf = make_iperf3(boards)
    samples, _ = sw.run_repeat("in-tree", boot, rates, payloads, 0.01, [], lambda m: None,
                               iperf, model_delta)
    assert "wedged" in samples[("rx", 64, None)] or "error" in samples[("rx", 64, None)]
    s = samples[("tx", 1472, 2)]
    assert s.get("transactions_per_frame") == 3.0, s
    assert len(boards) == 2, len(boards)


def test_sweep_run_that_never_ends_fails_the_point_and_the_board_is_replaced(logdir):
    """A point whose iperf3 run does not end within its grace while the
    guest still answers a command (the in-tree driver's RX at saturation:
    a guest left some 5% of its CPU) is recorded as failed, not wedged; the
    next point runs on a new board at once, and the old one is asked for
    nothing more (an iperf server it would not start in time)."""
    boards = []

    class Starved(FakeBoard):
        asked_after = 0
        ended = False

        def quit(self):
            self.ended = True

        def run(self, cmd, timeout=30, check=True):
            if self.dead:
                if cmd == "true":
                    return 0, ""        # a short command gets through
                self.asked_after += 1
            return super().run(cmd, timeout, check)

    @contextlib.contextmanager
    def boot(name):
        boards.append(Starved(None))
        yield boards[-1]

    good = make_iperf3(boards)

    def iperf3(port, *args, seconds, timeout_extra):
        if "-R" not in args and args[args.index("-b") + 1] == f"{sw.SATURATION_MBPS}M":
            boards[-1].dead = True
            raise subprocess.TimeoutExpired(["iperf3", *args], seconds + timeout_extra)
        return good(port, *args, seconds=seconds, timeout_extra=timeout_extra)
    rates, payloads = [2, None], [1472, 64]
    samples, _ = sw.run_repeat("in-tree", boot, rates, payloads, 0.01, [], lambda m: None,
                               iperf3, model_delta)
    for payload in payloads:
        s = samples[("rx", payload, None)]
        assert "timed out" in s.get("error", "") and s["unfinished"], s
        assert "transactions_per_frame" in samples[("rx", payload, 2)], samples
    assert "transactions_per_frame" in samples[("tx", 1472, 2)], samples
    # one board per unfinished run, then one for the TX series
    assert len(boards) == 3, len(boards)
    assert [b.asked_after for b in boards] == [0, 0, 0], [b.asked_after for b in boards]
    # the boards left in doubt are ended at once (QEMU quit), not stopped
    # by asking their guests
    assert [b.ended for b in boards] == [True, True, False], [b.ended for b in boards]
    p = sw.aggregate({"in-tree": [samples]}, rates, payloads)["in-tree"]["rx"]["1472"][1]
    assert (p["failed_runs"], p["wedged_runs"]) == (1, 0), p


def test_sweep_harness_error_is_not_a_wedge(logdir):
    """A point that fails in the harness (here: iperf3's report lacks a
    field) while the guest still answers is recorded as failed, not as the
    driver wedging: the series goes on, on the same board."""
    boards = []

    @contextlib.contextmanager
    def boot(name):
        boards.append(FakeBoard(None))
        yield boards[-1]

    good = make_iperf3(boards)

    def iperf3(port, *args, seconds, timeout_extra):
        r = good(port, *args, seconds=seconds, timeout_extra=timeout_extra)
        if args[args.index("-b") + 1] == "2M" and "-R" not in args:
            del r["end"]["sum_received"]["packets"]
        return r
    rates, payloads = [2, None], [1472]
    samples, _ = sw.run_repeat("ours", boot, rates, payloads, 0.01, [], lambda m: None,
                               iperf3, model_delta)
    s = samples[("rx", 1472, 2)]
    assert s.get("error", "").startswith("harness: "), s
    assert "transactions_per_frame" in samples[("rx", 1472, None)], samples
    assert len(boards) == 1, len(boards)
    p = sw.aggregate({"ours": [samples]}, rates, payloads)["ours"]["rx"]["1472"][0]
    assert (p["failed_runs"], p["wedged_runs"]) == (1, 0), p


def test_sweep_verdicts_follow_the_spreads(logdir):
    def fig(v, lo, hi):
        return {"x": v, "x_min": lo, "x_max": hi}
    # clear of the goal on both sides
    assert sw.compare(fig(10, 9, 11), fig(2, 1.9, 2.1), "x", 3)["verdict"] == "met"
    assert sw.compare(fig(4, 3.9, 4.1), fig(2, 1.9, 2.1), "x", 3)["verdict"] == "missed"
    # a median ratio above the goal whose spread reaches below it
    c = sw.compare(fig(6.2, 5, 7), fig(2, 1.8, 2.2), "x", 3)
    assert c["value"] == 3.1 and c["verdict"] == "within noise", c
    # lower is better
    assert sw.compare(fig(1, 0.9, 1.1), fig(2, 1.9, 2.1), "x", 1,
                      higher_is_better=False)["verdict"] == "met"
    assert sw.compare(fig(2, 1.5, 2.5), fig(2, 1.9, 2.1), "x", 1,
                      higher_is_better=False)["verdict"] == "within noise"
    assert sw.compare(None, fig(2, 1.9, 2.1), "x", 1) is None


def test_sweep_report_and_charts(logdir):
    boards = []

    @contextlib.contextmanager
    def boot(name):
        boards.append(FakeBoard(("rx", 64, None) if name == "in-tree" else None))
        yield boards[-1]

    rates, payloads = [2, None], [1472, 64]
    runs = {}
    for name in ("ours", "in-tree"):
        runs[name] = [sw.run_repeat(name, boot, rates, payloads, 0.01, [], lambda m: None,
                                    make_iperf3(boards), model_delta)[0]]
    sweep = sw.aggregate(runs, rates, payloads)
    goals = sw.sweep_goals(sweep, {}, rates, payloads)
    k = "RX transactions/frame at saturation, 64 B, in-tree / ours"
    assert goals[k]["verdict"] == "in-tree did not survive here", goals[k]
    k = "RX small-frame packet rate at saturation, ours / in-tree"
    assert goals[k]["verdict"] == "met: in-tree did not survive here", goals[k]
    # ours losing a point misses its goals there, whatever the peer did
    lost = sw.aggregate({"ours": runs["in-tree"], "in-tree": runs["ours"]}, rates, payloads)
    g = sw.sweep_goals(lost, {}, rates, payloads)
    k = "RX transactions/frame at saturation, 64 B, in-tree / ours"
    assert g[k]["verdict"] == "missed: ours did not survive", g[k]
    md = sw.sweep_report(sweep, {}, goals, rates, payloads, 1, 7)
    assert "wedged at saturation offered" in md, md
    # TCP, ping and lone frames: a workload that failed is judged, not left out
    def x(v, **more):
        return {"repeats": 1, "errors": [], "mbps": v, "mbps_min": v, "mbps_max": v,
                "ping_rtt_avg_ms": v, "ping_rtt_avg_ms_min": v, "ping_rtt_avg_ms_max": v,
                **more}
    failed = {"repeats": 0, "errors": ["iperf3: timed out"]}
    lone = x(1, transactions_per_frame=3.02, transactions_per_frame_min=3.01,
             transactions_per_frame_max=3.03, transactions_per_frame_tail_apart=3.0)
    extras = {"ours": {"tcp_rx": failed, "tcp_tx": x(8), "ping": x(4), "rx_lone": lone},
              "in-tree": {"tcp_rx": x(4), "tcp_tx": failed, "ping": x(8)}}
    g = sw.sweep_goals(sweep, extras, rates, payloads)
    assert g["TCP host-to-guest throughput, ours / in-tree"]["verdict"] == \
        "missed: ours did not survive", g
    assert g["TCP guest-to-host throughput, ours / in-tree"]["verdict"] == \
        "in-tree did not survive here", g
    assert g["ping RTT avg, ours / in-tree"]["verdict"] == "met", g
    # every transaction of a lone frame counts, the ERXTAIL writes too
    k = "ping-sized frames arriving alone: RX transactions per frame, ours"
    assert g[k]["value"] == 3.02 and g[k]["verdict"] == "missed", g[k]
    extras["ours"]["rx_lone"] = failed
    g = sw.sweep_goals(sweep, extras, rates, payloads)
    assert g[k]["verdict"] == "missed: ours did not survive", g[k]
    for key, name in (("transactions_per_frame", "t"), ("delivered_mbps", "d")):
        png = sw.sweep_chart(sweep, rates, payloads, logdir, key, "y", name, "title")
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
