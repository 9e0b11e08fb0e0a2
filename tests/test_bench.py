"""The benchmark's short run: figures come out for all three drivers and are
internally consistent (goals are the benchmark's business, not the suite's)."""
import json
import os
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "tests"))
from lib.board import BUILD  # noqa: E402

KEYS = ["rx_frames", "tx_frames", "rx_transactions_per_frame", "tx_transactions_per_frame",
        "rx_spi_bytes_per_frame", "tx_spi_bytes_per_frame", "update_bits_ops",
        "update_bits_transactions", "spi_sync_calls", "iperf_rx_mbps", "iperf_tx_mbps",
        "ping_rtt_avg_ms", "ping_loss_pct"]


def test_bench_short_run_is_consistent(logdir):
    # the benchmark measures the production kernel, as `make bench` does
    env = dict(os.environ, KFLAVOR="")
    p = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "bench.py"), "--short"],
                       capture_output=True, text=True, timeout=420, env=env)
    with open(os.path.join(logdir, "bench.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    assert p.returncode == 0, f"bench.py --short failed:\n{p.stderr[-1500:]}"
    out = os.path.join(BUILD, "bench")
    res = json.load(open(os.path.join(out, "results.json")))
    drivers = res["drivers"]
    assert set(drivers) == {"ours", "ours-no-offload", "in-tree"}, drivers.keys()
    for name, d in drivers.items():
        missing = [k for k in KEYS if k not in d]
        assert not missing, f"{name}: results.json lacks {missing}"
        assert d["rx_frames"] > 0 and d["rx_transactions_per_frame"] > 0, f"{name}: no RX figures"
        assert d["ping_loss_pct"] == 0, f"{name}: ping lost {d['ping_loss_pct']}%"
        assert d["iperf_rx_mbps"] > 0, f"{name}: no TCP throughput"
        # Per-frame figures are totals over the UDP run divided by its frames.
        w = d["workloads"]["udp_rx"]
        assert abs(d["rx_transactions_per_frame"] * d["rx_frames"] - w["model_transactions"]) \
            <= d["rx_frames"] * 0.001 + 1, f"{name}: per-frame figure does not match its totals"
        by_class = sum(c["transactions"] for c in w["model_classes"].values())
        assert by_class == w["model_transactions"], f"{name}: classes do not add up"
        assert not res["splats"][name], f"{name}: kernel problems: {res['splats'][name][:3]}"
    for name in ("ours", "ours-no-offload"):
        d = drivers[name]
        assert d["counters_agree"] is True, \
            f"{name}: driver and model count different transactions: {d['counter_check']}"
    on, off = drivers["ours"], drivers["ours-no-offload"]
    assert on["update_bits_transactions"] > 0 and on["update_bits_ops"] > 0, "offload unused"
    assert off["update_bits_transactions"] == 0, "BFSU/BFCU seen with the offload left out"
    with open(os.path.join(out, "transactions.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n", "the chart is not a PNG"
    md = open(os.path.join(out, "results.md")).read()
    assert "| RX transactions/frame |" in md
    return (f"RX transactions/frame: ours {on['rx_transactions_per_frame']}, "
            f"no offload {off['rx_transactions_per_frame']}, "
            f"in-tree {drivers['in-tree']['rx_transactions_per_frame']}")


test_bench_short_run_is_consistent.timeout = 480
