"""End-to-end tests of the first slice: our driver on the emulated board.

Each test boots its own board, loads the driver and checks one thing on the
guest console or over QMP.
"""
import json
import re
import subprocess

from lib.board import IN_TREE, OURS, Board, GuestError


def boot_with_driver(logdir, name="board", **kw):
    b = Board(logdir, name=name, **kw).start()
    try:
        b.load_driver(OURS)
    except BaseException:  # a time bound too: no QEMU left behind
        b.stop()
        raise
    return b


def check_no_splats(b):
    assert b.sync_kernel_log(), "the kernel log stream stopped: a mark did not come through"
    s = b.splats()
    if s:
        raise AssertionError("kernel reported problems:\n" + "\n".join(s[:10]))


def test_probe_binds_and_mac(logdir):
    mac = "52:54:00:a1:b2:c3"
    with boot_with_driver(logdir, mac=mac) as b:
        drv = b.out("basename $(readlink /sys/class/net/eth0/device/driver)")
        assert drv.endswith(OURS), f"eth0 is bound to {drv!r}, not {OURS}"
        got = b.out("cat /sys/class/net/eth0/address")
        assert got == mac, f"eth0 has MAC {got}, the chip's factory MAC is {mac}"
        check_no_splats(b)
        return f"bound to {drv}, MAC {got}"


def test_guest_random_pool_is_ready_at_boot(logdir):
    """The board passes the kernel a random seed, as its boot loader
    would: without one the pool is ready only 10-40 s after boot, and
    every /dev/urandom read before that spins in the kernel (iperf3 stalled
    a test's traffic for seconds)."""
    with Board(logdir).start() as b:
        log = [t for _, t in b.kernel_log()]

        def first(what):
            return next((i for i, t in enumerate(log) if what in t), None)
        ready, init = first("crng init done"), first("Run /init as init process")
        assert init is not None, "no 'Run /init' in the kernel log"
        assert ready is not None and ready < init, (
            "the random pool was not ready when the kernel started init "
            f"(crng init done {'never' if ready is None else 'after it'})")
        early = [t for t in log if "uninitialized urandom read" in t]
        assert not early, f"a /dev/urandom read came before the pool was ready: {early}"
        check_no_splats(b)
        return f"pool ready at kernel log record {ready}, init at {init}"


def test_kernel_messages_stay_out_of_command_output(logdir):
    """A critical kernel message written while a guest command runs (the TX
    watchdog's NETDEV WATCHDOG is one) reaches the kernel log stream, not
    the console the harness reads command output from, where it would
    land in the middle of the command's lines."""
    with Board(logdir).start() as b:
        marker = "board-test: a critical message"
        out = b.out(f"echo 'ab'; echo '<2>{marker}' > /dev/kmsg; echo 'cd'")
        assert out == "ab\ncd", f"the command's output is {out!r}, not 'ab', 'cd'"
        assert b.sync_kernel_log(), "the kernel log stream stopped"
        logged = [(lvl, t) for lvl, t in b.kernel_log() if marker in t]
        assert logged and logged[0][0] == 2, (
            f"the kernel log stream has {logged}, not the message at level 2")
        check_no_splats(b)
        return "the output is the command's own; the message is in the log stream at level 2"


def test_link_comes_up(logdir):
    with boot_with_driver(logdir) as b:
        out = b.net_up()
        assert "carrier=1" in out, out
        state = b.out("cat /sys/class/net/eth0/operstate")
        assert state == "up", f"operstate is {state}"
        check_no_splats(b)
        return out


def test_link_up_and_ping_with_silicon_length_autoneg(logdir):
    """The model's own autonegotiation time (2 s, as silicon's 1-3 s)
    rather than the test board's 200 ms: the link comes up after the
    probe's chip reset, and again after a renegotiation that takes that
    long, and pings go through both times."""
    with boot_with_driver(logdir, autoneg_ms=None) as b:
        out = b.net_up(timeout=10)
        assert "carrier=1" in out, out
        ping = b.out("ping -c 3 -i 0.2 -W 2 10.0.2.2", timeout=30)
        assert " 0% packet loss" in ping, f"ping failed:\n{ping}"
        # timed in the guest from before the restart (the guest's clock
        # and the model's timers are both QEMU's virtual clock): ethtool
        # itself takes a few hundred ms on the test kernel
        out = b.out(r"""t0=$(cut -d' ' -f1 /proc/uptime); ethtool -r eth0 && """
                    r"""wait-carrier eth0 0 5 && wait-carrier eth0 1 10 && """
                    r"""t1=$(cut -d' ' -f1 /proc/uptime) && echo "$t0 $t1" | """
                    r"""awk '{printf "restart to carrier %d ms\n", ($2 - $1) * 1000}'""",
                    timeout=30)
        m = re.search(r"restart to carrier (\d+) ms", out)
        assert "carrier=0 after" in out and m, f"no carrier within 10 s of a renegotiation: {out}"
        ms = int(m.group(1))
        # the carrier waits for the negotiation, 2 s from the restart (the
        # uptime clock ticks in 10 ms), not for the test board's 200 ms
        assert ms >= 1980, f"the link was back {ms} ms after the restart: not the model's 2 s"
        ping = b.out("ping -c 3 -i 0.2 -W 2 10.0.2.2", timeout=30)
        assert " 0% packet loss" in ping, f"ping failed after the renegotiation:\n{ping}"
        check_no_splats(b)
        return f"carrier {ms} ms after a renegotiation; pings answered"


def test_ping_gateway(logdir):
    with boot_with_driver(logdir) as b:
        b.net_up()
        out = b.out("ping -c 10 -i 0.2 -W 2 10.0.2.2", timeout=30)
        m = re.search(r"(\d+) packets transmitted, (\d+) packets received, (\d+)% packet loss", out)
        assert m, f"no ping summary in:\n{out}"
        assert m.group(1) == "10" and m.group(3) == "0", f"ping lost packets:\n{out}"
        check_no_splats(b)
        return m.group(0)


def host_iperf(port, reverse, seconds=5):
    cmd = ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds), "-J",
           "--connect-timeout", "5000"]
    if reverse:
        cmd.append("-R")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 40)
    try:
        res = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"iperf3 printed no JSON: {p.stdout[-500:]} {p.stderr[-500:]}") from e
    if "error" in res:
        raise AssertionError(f"iperf3: {res['error']}")
    return res


def iperf_check(res, direction):
    sent = res["end"]["sum_sent"]["bytes"]
    rcvd = res["end"]["sum_received"]["bytes"]
    mbps = res["end"]["sum_received"]["bits_per_second"] / 1e6
    assert sent > 0 and rcvd > 0, f"{direction}: no data moved (sent {sent}, received {rcvd})"
    # User networking proxies TCP: the host end's writes complete into
    # slirp's buffers, so the sender may count bytes still queued when the
    # test ends.  The receiver can never count more than was sent.
    assert rcvd <= sent, f"{direction}: receiver counted {rcvd} bytes, sender only {sent}"
    return mbps, rcvd


def nic_bytes_agree(nic_delta, payload, direction):
    """The NIC's byte counter covers the payload plus TCP/IP/Ethernet headers
    (54 bytes on at most 1448 of payload per frame) and the control
    connection: at least the payload, at most about 4% more plus slack."""
    assert payload <= nic_delta <= payload * 1.06 + 200_000, \
        f"{direction}: NIC counted {nic_delta} bytes for {payload} bytes of iperf3 payload"


def test_iperf3_tcp_both_directions(logdir):
    with boot_with_driver(logdir) as b:
        b.net_up()
        b.run("iperf-server")
        rx_before = int(b.out("cat /sys/class/net/eth0/statistics/rx_bytes"))
        res = host_iperf(b.iperf_port, reverse=False)
        h2g, h2g_bytes = iperf_check(res, "host-to-guest")
        rx_after = int(b.out("cat /sys/class/net/eth0/statistics/rx_bytes"))
        # The NIC must have received at least the payload iperf3 counted.
        nic_bytes_agree(rx_after - rx_before, h2g_bytes, "host-to-guest")
        b.run("iperf-server")
        tx_before = int(b.out("cat /sys/class/net/eth0/statistics/tx_bytes"))
        res = host_iperf(b.iperf_port, reverse=True)
        g2h, g2h_bytes = iperf_check(res, "guest-to-host")
        tx_after = int(b.out("cat /sys/class/net/eth0/statistics/tx_bytes"))
        nic_bytes_agree(tx_after - tx_before, g2h_bytes, "guest-to-host")
        check_no_splats(b)
        return f"host-to-guest {h2g:.2f} Mbit/s, guest-to-host {g2h:.2f} Mbit/s"


test_iperf3_tcp_both_directions.timeout = 200


def test_set_link_drops_and_restores_carrier(logdir):
    with boot_with_driver(logdir) as b:
        b.net_up()
        b.set_link(False)
        down = b.out("wait-carrier eth0 0 2")
        b.set_link(True)
        up = b.out("wait-carrier eth0 1 5", timeout=20)
        out = b.out("ping -c 3 -i 0.2 -W 2 10.0.2.2", timeout=20)
        assert " 0% packet loss" in out, f"no traffic after link up:\n{out}"
        check_no_splats(b)
        return f"down: {down}; up: {up}"


def test_module_unload_reload(logdir):
    with boot_with_driver(logdir) as b:
        b.net_up()
        b.run(f"rmmod {OURS}")
        rc, _ = b.run("[ -e /sys/class/net/eth0 ]", check=False)
        assert rc != 0, "eth0 still exists after rmmod"
        b.load_driver(OURS)
        b.net_up()
        out = b.out("ping -c 3 -i 0.2 -W 2 10.0.2.2", timeout=20)
        assert " 0% packet loss" in out, f"ping after reload:\n{out}"
        check_no_splats(b)


def test_model_counters_follow_traffic(logdir):
    with boot_with_driver(logdir) as b:
        b.net_up()
        b.wait_quiet()
        b.reset_stats()
        zero = b.stats()
        assert zero["transactions"] == 0 and zero["bytes"] == 0, f"reset left {zero}"
        n = 20
        b.out(f"ping -c {n} -i 0.1 -W 2 10.0.2.2", timeout=30)
        s = b.stats()
        assert s["tx-frames"] >= n, f"model saw {s['tx-frames']} TX frames for {n} pings"
        assert s["rx-frames"] >= n, f"model saw {s['rx-frames']} RX frames for {n} replies"
        assert s["transactions"] > 0 and s["bytes"] > s["transactions"], s
        classes = s["classes"]
        assert classes["sram-write"]["bytes"] >= n * 98, "frames were not written to SRAM"
        assert classes["sram-read"]["bytes"] >= n * 98, "frames were not read from SRAM"
        per_class = sum(c["transactions"] for c in classes.values())
        assert per_class == s["transactions"], \
            f"classes add up to {per_class}, total says {s['transactions']}"
        # More traffic, more transactions: the counters move with it.
        b.out(f"ping -c {n} -i 0.1 -W 2 10.0.2.2", timeout=30)
        s2 = b.stats()
        assert s2["transactions"] > s["transactions"] and s2["tx-frames"] >= s["tx-frames"] + n
        per_frame = s["transactions"] / (s["tx-frames"] + s["rx-frames"])
        return f"{s['transactions']} transactions for {s['tx-frames']}+{s['rx-frames']} frames ({per_frame:.1f}/frame)"


def test_in_tree_driver_on_the_model(logdir):
    """The model answers a driver written against silicon as silicon
    does: the in-tree encx24j600 driver probes, gets the link and pings."""
    with Board(logdir).start() as b:
        b.load_driver(IN_TREE)
        b.net_up()
        out = b.out("ping -c 5 -i 0.2 -W 2 10.0.2.2", timeout=30)
        assert " 0% packet loss" in out, f"ping through the in-tree driver:\n{out}"
        drv = b.out("basename $(readlink /sys/class/net/eth0/device/driver)")
        assert drv == IN_TREE, f"eth0 is driven by {drv}"
        check_no_splats(b)
        return f"{IN_TREE} on {b.out('uname -r')}: 5 pings answered"


# On every kernel of config/versions.sh, not only the one the suite runs on
for _t in (test_probe_binds_and_mac, test_link_comes_up, test_ping_gateway,
           test_iperf3_tcp_both_directions, test_module_unload_reload,
           test_in_tree_driver_on_the_model):
    _t.every_kernel = True
