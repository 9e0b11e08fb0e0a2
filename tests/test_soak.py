"""The soak's short version: 60 s of iperf3 in both directions with link
flaps and a module reload, then every fault twice, on the test kernel
(`make soak` runs 10 minutes and 100 rounds)."""
import json
import os
import sys

from lib.proc import run_script

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def test_soak_short(logdir):
    p = run_script([sys.executable, os.path.join(TOP, "scripts", "soak.py"),
                        "--seconds", "60", "--rounds", "2", "--out", logdir], timeout=900)
    with open(os.path.join(logdir, "soak.log"), "w") as f:
        f.write(p.stdout + p.stderr)
    res = json.load(open(os.path.join(logdir, "report.json")))
    load = res["load"]
    assert load["reloads"] >= 1 and load["flaps"] >= 1, load
    runs = [e for e in load["timeline"] if not e["error"]]
    assert runs, f"no iperf3 run completed: {load['timeline']}"
    # both directions move data in every completed run
    still = [e for e in runs if not (e["h2g_mbps"] and e["g2h_mbps"])]
    assert not still, f"a direction moved nothing: {still}"
    assert p.returncode == 0, (f"soak failed: {res['errors'][:3]} leaks {res['leaks']} "
                               f"splats {res['splats'][:3]} (see {logdir}/soak.log)")
    faults = res["faults"]
    return (f"{load['seconds']} s, {load['flaps']} flaps, {load['reloads']} reloads, "
            f"{sum(v['survived'] for v in faults.values())} faults survived, "
            f"worst recovery {max(v['recovery_ms_max'] or 0 for v in faults.values())} ms")


test_soak_short.timeout = 960

# its rates and times: no other guest beside it (run.py -j)
test_soak_short.exclusive = True
