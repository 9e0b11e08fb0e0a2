"""The benchmark's short run: figures come out for all four drivers, the
offered-load sweep has a figure or a recorded wedge at every point of
every driver, and the single runs' figures agree with counts taken independently of the figures themselves:
our driver's own bus transaction count against the model's, and every
driver's interface counters and iperf3's datagram count against the
frames the model moved, workload by workload.  (Goals are the
benchmark's business, not the suite's.)"""
import json
import os
import sys

from lib.board import KVER
from lib.proc import run_script

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "scripts"))

import bench_sweep as sw  # noqa: E402

KEYS = ["rx_frames", "tx_frames", "rx_transactions_per_frame", "tx_transactions_per_frame",
        "rx_spi_bytes_per_frame", "tx_spi_bytes_per_frame", "update_bits_ops",
        "update_bits_transactions", "eir_flags_lost", "spi_sync_calls", "iperf_rx_mbps",
        "iperf_tx_mbps",
        "ping_rtt_avg_ms", "ping_loss_pct"]

# iperf3's control connection and ARP move a few frames of their own in
# a UDP run, besides the datagrams
CONTROL_FRAMES_MAX = 100
# frames the chip may have sent that the driver has not seen complete:
# one TX buffer, so at most one
TX_IN_FLIGHT = 1
# bench.py's UDP payload (-l): a queued datagram takes at least this
UDP_PAYLOAD = 1472


def frame_problems(name, d):
    """The guest's interface counters against the model's frames: every
    frame the chip stored was taken by the driver and delivered or counted
    as dropped or bad, every frame the guest sent went out."""
    bad = []
    for c in d["frame_check"]:
        w = c["workload"]
        rx_seen = c["rx_packets"] + c["rx_errors"] + c["rx_dropped"]
        if not c["rx_packets"] <= c["model_rx"] <= rx_seen:
            bad.append(f"{name}/{w}: model stored {c['model_rx']} frames, the guest counted "
                       f"{c['rx_packets']} received + {c['rx_errors']} errors + "
                       f"{c['rx_dropped']} dropped")
        # our driver accounts a sent frame at its next status read (the
        # next frame, or any interrupt): at a quiet instant the last frame
        # may still be unaccounted, never more than that one
        # (and so one sent before the workload may be accounted in it)
        tx_seen = c["tx_packets"] + c["tx_errors"]
        if not c["tx_packets"] - TX_IN_FLIGHT <= c["model_tx"] <= tx_seen + TX_IN_FLIGHT:
            bad.append(f"{name}/{w}: the model sent {c['model_tx']} frames, the guest "
                       f"counted {c['tx_packets']} sent + {c['tx_errors']} errors")
    udp = d["workloads"].get("udp_rx")
    c = next((c for c in d["frame_check"] if c["workload"] == "udp_rx"), None)
    if udp and c:
        # every datagram frame the chip stored reached UDP: read by the
        # server (InDatagrams), dropped (bad checksum, full buffer:
        # InErrors), sent to a closed port (NoPorts: after the server
        # ended), or still queued in the server's socket when it closed
        # (no counter: at most its buffer, a datagram a frame of at least
        # its payload); iperf3 got what was read
        got, stored = udp["datagrams_received"], udp["rx_frames"]
        udp_in = c["udp_InDatagrams"] + c["udp_InErrors"] + c["udp_NoPorts"]
        unread_max = udp["rcvbuf_bytes"] // UDP_PAYLOAD
        if not (got <= c["udp_InDatagrams"]
                and udp_in <= stored <= udp_in + unread_max + CONTROL_FRAMES_MAX):
            bad.append(f"{name}/udp_rx: the model stored {stored} frames; the guest's UDP "
                       f"read {c['udp_InDatagrams']} datagrams, dropped {c['udp_InErrors']}, "
                       f"{c['udp_NoPorts']} to no port (at most {unread_max} unread); "
                       f"iperf3 received {got}")
    return bad


# what every point of the sweep carries (README, "results.json")
POINT_KEYS = ["offered_mbps", "delivered_mbps", "pps", "offered_frames", "delivered_frames",
              "frames", "lost",
              "transactions_per_frame", "transactions_per_frame_min",
              "transactions_per_frame_max", "spi_bytes_per_frame", "repeats", "wedged",
              "cpu_us_per_frame", "overrun_s_max"]


def sweep_cell(md, names, dirn, payload, rate, name):
    """The report's transactions-per-frame cell of one driver at one point."""
    lines = md.splitlines()
    table = lines[lines.index(f"### {dirn.upper()}, {payload}-byte payloads"):]
    label = "saturation" if rate is None else f"{rate} Mbit/s"
    def cells(line):
        return [c.strip() for c in line.strip().strip("|").split("|")]
    columns = cells(next(l for l in table if l.startswith("| offered |")))
    assert sorted(columns[1:]) == sorted(names), columns
    row = next(l for l in table if l.startswith(f"| transactions/frame, {label} |"))
    return cells(row)[columns.index(name)]


def sweep_problems(res, md):
    """Every driver has every point of the sweep, each measured or
    recorded as wedged (the in-tree driver only); the charts are PNGs."""
    sweep, rates, payloads = res["sweep"], res["sweep_rates"], res["sweep_payloads"]
    names = list(sweep)
    assert set(sweep) == set(res["drivers"]), sweep.keys()
    for name, dirs in sweep.items():
        for dirn in ("rx", "tx"):
            for payload in payloads:
                pts = dirs[dirn][str(payload)]
                assert len(pts) == len(rates), f"{name} {dirn} {payload}: {len(pts)} points"
                for p, rate in zip(pts, rates):
                    where = f"{name} {dirn} {payload} B at {rate or 'saturation'}"
                    missing = [k for k in POINT_KEYS if k not in p]
                    assert not missing, f"{where}: lacks {missing}"
                    if name != "in-tree":
                        assert p["repeats"] and not p["wedged"] and not p["errors"], \
                            f"{where}: {p['errors']}"
                    cell = sweep_cell(md, names, dirn, payload, rate, name)
                    if p["repeats"] and p["transactions_per_frame"] is None:
                        # survived but moved nothing in the window: only
                        # the in-tree driver, and the report says n/a
                        assert name == "in-tree", f"{where}: no figure: {p}"
                        assert cell.startswith("n/a"), f"{where}: no figure, but '{cell}'"
                    elif p["repeats"]:
                        assert p["frames"] > 0 and p["delivered_mbps"] > 0 and p["pps"] > 0, \
                            f"{where}: nothing moved: {p}"
                        assert p["transactions_per_frame_min"] <= p["transactions_per_frame"] \
                            <= p["transactions_per_frame_max"], where
                        assert p["transactions_per_frame"] > 0 and p["spi_bytes_per_frame"] > 0
                        assert 0 < p["delivered_frames"] <= p["offered_frames"], where
                        assert cell.startswith(f"{p['transactions_per_frame']:.3f}"), \
                            f"{where}: the report says '{cell}'"
                        # a run is cut RUN_GRACE_S past its time: one of
                        # ours that ends close to that would be lost to a
                        # slower host (the grace is too short then; the
                        # in-tree driver's runs may end late, the grace
                        # is there for them)
                        assert p["overrun_s_max"] >= 0, f"{where}: {p['overrun_s_max']}"
                        if name != "in-tree":
                            assert p["overrun_s_max"] < sw.RUN_GRACE_S / 2, (
                                f"{where}: a run ended {p['overrun_s_max']:.1f} s past "
                                f"its time, the grace is {sw.RUN_GRACE_S} s")
                    else:
                        assert p["wedged"], f"{where}: neither measured nor wedged"
                        label = "saturation" if rate is None else f"{rate} Mbit/s"
                        said = (f"wedged at {label} offered" if p["wedged_runs"] else
                                f"failed at {label} offered" if p["failed_runs"] else
                                "not run: wedged at a lower rate")
                        assert cell == said, \
                            f"{where}: the report says '{cell}', not '{said}'"
        # the in-tree column is not empty: it survives the lowest rate
        for dirn in ("rx", "tx"):
            p = dirs[dirn][str(payloads[0])][0]
            assert p["repeats"] and p["transactions_per_frame"], \
                f"{name}: no {dirn} figure at {rates[0]} Mbit/s"
        ex = res["sweep_extras"][name]
        for k, f in (("tcp_rx", "mbps"), ("tcp_tx", "mbps"), ("ping", "ping_rtt_avg_ms"),
                     ("rx_lone", "transactions_per_frame")):
            assert ex[k]["repeats"] and ex[k][f] > 0, f"{name}: no {k} figure: {ex[k]}"
    for png in ("transactions.png", "sweep-transactions.png", "sweep-delivered.png"):
        with open(os.path.join(os.path.dirname(res["_path"]), png), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", f"{png} is not a PNG"
    # the opcode-class chart has the in-tree driver's bars from a load it
    # survived, in both directions
    for dirn in ("rx", "tx"):
        assert "Mbit/s offered" in res["class_chart_load"][dirn], res["class_chart_load"]
    assert res["goals"], "no goals judged"
    for k, g in res["goals"].items():
        assert g["verdict"] in ("met", "missed", "within noise", "in-tree did not survive here",
                                "met: in-tree did not survive here", "no figure"), (k, g)
    assert "## Offered-load sweep (UDP)" in md and "## Projection for silicon at 14 MHz" in md
    # a projection for every series with a measured point; a series that
    # survived none (the in-tree driver's small-frame RX) is named as such
    proj = res["sweep_projection_14mhz"]
    for name, dirs in sweep.items():
        for dirn in ("rx", "tx"):
            for payload in payloads:
                pts = dirs[dirn][str(payload)]
                where = f"{name} {dirn} {payload} B"
                if any(p["repeats"] and not p["wedged"] and p["transactions_per_frame"]
                       for p in pts):
                    assert proj[name][dirn][str(payload)]["frames_per_s"] > 0, \
                        f"{where}: no projection"
                else:
                    assert f"| {name} | {dirn.upper()} | {payload} B | survived no point |" \
                        in md, f"{where}: survived no point, and the projection does not say so"


def test_bench_short_run_is_consistent(logdir):
    # the benchmark measures the production kernel, as `make bench` does;
    # its results go to this test's directory, not over `make bench`'s
    env = dict(os.environ, KFLAVOR="")
    out = os.path.join(logdir, "bench")
    p = run_script([sys.executable, os.path.join(TOP, "scripts", "bench.py"), "--short",
                        "--out", out], timeout=1080, env=env)
    with open(os.path.join(logdir, "bench.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    assert p.returncode == 0, f"bench.py --short failed:\n{p.stderr[-1500:]}"
    res = json.load(open(os.path.join(out, "results.json")))
    res["_path"] = os.path.join(out, "results.json")
    drivers = res["drivers"]
    assert set(drivers) == {"ours", "ours-no-offload", "ours-chain", "in-tree"}, drivers.keys()
    # the figures say which kernel made them: the one of KVER, every driver
    kernel = res["kernel"]
    assert kernel["version"] == KVER and set(kernel["releases"]) == set(drivers), kernel
    assert all(r.startswith(KVER + ".") for r in kernel["releases"].values()), kernel
    problems = []
    for name, d in drivers.items():
        missing = [k for k in KEYS if k not in d]
        assert not missing, f"{name}: results.json lacks {missing}"
        assert not d["failed_workloads"], f"{name}: workloads failed: {d['failed_workloads']}"
        assert d["rx_frames"] > 0 and d["rx_transactions_per_frame"] > 0, f"{name}: no RX figures"
        assert d["ping_loss_pct"] == 0, f"{name}: ping lost {d['ping_loss_pct']}%"
        assert d["iperf_rx_mbps"] > 0, f"{name}: no TCP throughput"
        assert not res["splats"][name], f"{name}: kernel problems: {res['splats'][name][:3]}"
        problems += frame_problems(name, d)
    assert not problems, "frame counts disagree:\n" + "\n".join(problems)
    for name in ("ours", "ours-no-offload"):
        d = drivers[name]
        # our driver counts every chip-select it asserts; the model counts
        # every command it decoded
        assert d["counter_check"] and d["counters_agree"] is True, \
            f"{name}: driver and model count different transactions: {d['counter_check']}"
    on, off = drivers["ours"], drivers["ours-no-offload"]
    assert on["update_bits_transactions"] > 0 and on["update_bits_ops"] > 0, "offload unused"
    assert off["update_bits_transactions"] == 0, "BFSU/BFCU seen with the offload left out"
    with open(os.path.join(out, "transactions.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n", "the chart is not a PNG"
    for name, d in drivers.items():
        assert isinstance(d["eir_flags_lost"], int) and d["eir_flags_lost"] >= 0, \
            f"{name}: eir_flags_lost {d['eir_flags_lost']!r}"
    md = open(os.path.join(out, "results.md")).read()
    assert "| RX transactions/frame |" in md
    assert f"Guest kernel: Linux {kernel['releases']['ours']} (KVER={KVER})." in md, md[:300]
    assert "| interrupt flags lost: cleared unread (model) |" in md
    sweep_problems(res, md)
    return (f"RX transactions/frame: ours {on['rx_transactions_per_frame']}, "
            f"no offload {off['rx_transactions_per_frame']}, "
            f"in-tree {drivers['in-tree']['rx_transactions_per_frame']}; EIR flags lost: "
            + ", ".join(f"{n} {d['eir_flags_lost']}" for n, d in drivers.items()))


test_bench_short_run_is_consistent.timeout = 1200


def test_bench_runs_on_this_kernel(logdir):
    """make KVER=<version> bench works on each kernel the suite boots: our
    driver's short single runs (no sweep: the whole short run above is the
    default kernel's), on that version's production kernel, and the
    results say which kernel made them."""
    env = dict(os.environ, KFLAVOR="")
    out = os.path.join(logdir, "bench")
    p = run_script([sys.executable, os.path.join(TOP, "scripts", "bench.py"), "--short",
                    "--no-sweep", "--drivers", "ours", "--out", out], timeout=540, env=env)
    with open(os.path.join(logdir, "bench.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    assert p.returncode == 0, f"bench.py --short --drivers ours failed:\n{p.stderr[-1500:]}"
    with open(os.path.join(out, "results.json")) as f:
        res = json.load(f)
    kernel, d = res["kernel"], res["drivers"]["ours"]
    assert kernel["version"] == KVER and list(kernel["releases"]) == ["ours"], kernel
    release = kernel["releases"]["ours"]
    assert release.startswith(KVER + "."), f"the benchmark of {KVER} ran on Linux {release}"
    assert not d["failed_workloads"], f"workloads failed: {d['failed_workloads']}"
    assert not res["splats"]["ours"], f"kernel problems: {res['splats']['ours'][:3]}"
    assert d["rx_frames"] > 0 and d["rx_transactions_per_frame"] > 0 and \
        d["iperf_rx_mbps"] > 0 and d["ping_loss_pct"] == 0, d
    # the driver's count of its transactions against the model's, on this
    # kernel too
    assert d["counter_check"] and d["counters_agree"] is True, \
        f"driver and model count different transactions: {d['counter_check']}"
    problems = frame_problems("ours", d)
    assert not problems, "frame counts disagree:\n" + "\n".join(problems)
    with open(os.path.join(out, "results.md")) as f:
        md = f.read()
    assert f"Guest kernel: Linux {release} (KVER={KVER})." in md, md[:300]
    return (f"Linux {release}: {d['rx_transactions_per_frame']:.2f} RX transactions/frame, "
            f"TCP {d['iperf_rx_mbps']:.2f} Mbit/s")


test_bench_runs_on_this_kernel.timeout = 600
test_bench_runs_on_this_kernel.every_kernel = True
# a benchmark's figures (ping loss among them): no other guest beside it
test_bench_runs_on_this_kernel.exclusive = True

# its figures are rates and times: no other guest beside it (run.py -j)
test_bench_short_run_is_consistent.exclusive = True
