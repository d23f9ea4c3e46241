#!/usr/bin/env python3
"""How often `xttcp compare` is wrong, measured: false alarms between identical sets, and how
often a real 10 % and 30 % slowdown is caught (its power).

Two network namespaces joined by a veth pair (tests/e2e_netns/netns.py); the sender's egress is
a token bucket (tc tbf) at RATE, like a cloud NIC's cap. One -H receiver in namespace a; each
pair is two `--repeat R` sets from namespace b, compared with `xttcp compare`:

  same      both sets at RATE                     exit 3 = a false alarm
  slower10  the new set at 0.90 x RATE            exit 3 = caught
  slower30  the new set at 0.70 x RATE            exit 3 = caught

The kinds alternate pair by pair, so the machine's drift falls on each alike. Also, with
--loopback-pairs N, N pairs of identical sets on 127.0.0.1 with no cap (what the machine's own
noise does to an uncapped run); and with --sweep-pairs N, N pairs of identical `xttcp sweep`s
on 127.0.0.1 (6 cells: 1, 4, 16 connections x 64K, 1M): a pair is a false alarm when any cell is
called a regression (its rate is the family's: compare takes the cells' tests together, Holm);
and with --sweep-netns N, N pairs of each kind above as 4-cell sweeps (1, 4 connections x 64K,
1M) across the capped veth: how often a sweep catches a 10 % and a 30 % slowdown.

  bench/compare/verdict_rates.py --xttcp build/xttcp [--same 20] [--slower 10] [--repeat 3]
      [--seconds 2] [--rate 400mbit] [--loopback-pairs 20] [--sweep-pairs 10]
      [--sweep-netns 5] [--json FILE]

Root only (namespaces); every process is started and stopped by PID and every wait is bounded.
"""
import argparse
import contextlib
import datetime
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e_netns"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e"))
from netns import VethPair  # noqa: E402
from regression_test import Tbf  # noqa: E402  (tc tbf, as the e2e test caps its veth)
from xttcp_e2e import SkipTest  # noqa: E402
from loopback_peers import cpu_model  # noqa: E402

PORT = 5001  # the namespaces are new: nothing else listens in them


def rate_bits(text):
    units = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
    for suffix, factor in units.items():
        if text.endswith(suffix):
            return float(text[:-len(suffix)]) * factor
    return float(text)


def compare(xttcp, base, new):
    done = subprocess.run([xttcp, "compare", base, new], capture_output=True, text=True,
                          timeout=60)
    if done.returncode not in (0, 3):
        raise SystemExit(f"compare failed ({done.returncode}): {done.stderr.strip()}")
    change = None
    for line in done.stdout.splitlines():
        if line.startswith("throughput "):
            for word in line.split():
                if word.endswith("%") and word[0] in "+-":
                    change = float(word[:-1])
                    break
    return done.returncode == 3, change


def bounded_wait(process, timeout_s, path):
    """Waits for a sender or sweep; past the bound it is killed by its PID, then reaped."""
    try:
        code = process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)
        raise SystemExit(f"{path}: not written within {timeout_s} s: killed")
    if code != 0:
        raise SystemExit(f"{path}: the sender or sweep exited {code}")


def one_set(run, xttcp, target, port, path, args):
    sender = run([xttcp, "-s", target, "-P", "1", "-n", "1", "-p", str(port), "-t",
                  str(args.seconds), "-Q", "--repeat", str(args.repeat), "--json", path])
    bounded_wait(sender, args.seconds * args.repeat * 3 + 60, path)


def sweep_file(run, xttcp, target, port, path, args, axes, ports):
    sweep = run([xttcp, "sweep", "-s", target, "-P", str(ports), "-p", str(port), "-t",
                 str(args.seconds), "--repeat", str(args.repeat), *axes, "--json", path])
    bounded_wait(sweep, args.seconds * args.repeat * 6 * 4 + 300, path)


def compare_sweeps(xttcp, base, new):
    done = subprocess.run([xttcp, "compare", base, new], capture_output=True, text=True,
                          timeout=60)
    if done.returncode not in (0, 3):
        raise SystemExit(f"compare failed ({done.returncode}): {done.stderr.strip()}")
    cells = sum(1 for line in done.stdout.splitlines() if "REGRESSION (" in line)
    return done.returncode == 3, cells


def namespace_sweep_pairs(args, xttcp, scratch):
    """Pairs of 4-cell sweeps across the capped veth: same rate, 10 % and 30 % slower."""
    rate = rate_bits(args.rate)
    axes = ["--connections", "1,4", "--sizes", "64K,1M"]
    kinds = []
    for _ in range(args.sweep_netns):
        kinds += [("same", 1.0), ("slower10", 0.90), ("slower30", 0.70)]
    results = {"same": [], "slower10": [], "slower30": []}
    with VethPair(netem=Tbf(args.rate), netem_side="b") as net:
        receiver = net.start("a", [xttcp, "-r", net.ipv4("a"), "-P", "4", "-p", str(PORT),
                                   "-H", "-Q"], "receiver (ns a)")
        try:
            net.wait_listening(receiver, PORT - 1)
            start = lambda argv: net.start("b", argv, "sweep (ns b)")  # noqa: E731
            for n, (kind, factor) in enumerate(kinds):
                base, new = (os.path.join(scratch, f"ns-sweep-{n}-{s}.json") for s in "bn")
                net.apply_netem(Tbf(args.rate), "b")
                sweep_file(start, xttcp, net.ipv4("a"), PORT, base, args, axes, 4)
                net.apply_netem(Tbf(f"{rate * factor / 1e3:.0f}kbit"), "b")
                sweep_file(start, xttcp, net.ipv4("a"), PORT, new, args, axes, 4)
                alarm, cells = compare_sweeps(xttcp, base, new)
                results[kind].append({"regression": alarm, "cells_regressed": cells, "cells": 4})
                print(f"sweep pair {n + 1} of {len(kinds)}: {kind}: {cells} of 4 cells called a "
                      "regression", file=sys.stderr, flush=True)
        finally:
            receiver.signal(signal.SIGINT)
            receiver.wait(10)
    return results


def namespace_pairs(args, xttcp, scratch):
    rate = rate_bits(args.rate)
    kinds = []
    for i in range(max(args.same, args.slower)):
        if i < args.same:
            kinds.append(("same", 1.0))
        if i < args.slower:
            kinds += [("slower10", 0.90), ("slower30", 0.70)]
    results = {"same": [], "slower10": [], "slower30": []}
    with VethPair(netem=Tbf(args.rate), netem_side="b") as net:
        receiver = net.start("a", [xttcp, "-r", net.ipv4("a"), "-P", "1", "-p", str(PORT),
                                   "-H", "-Q"], "receiver (ns a)")
        try:
            net.wait_listening(receiver, PORT - 1)
            start = lambda argv: net.start("b", argv, "sender (ns b)")  # noqa: E731
            for n, (kind, factor) in enumerate(kinds):
                base, new = (os.path.join(scratch, f"{n}-{side}.json") for side in ("b", "n"))
                net.apply_netem(Tbf(args.rate), "b")
                one_set(start, xttcp, net.ipv4("a"), PORT, base, args)
                net.apply_netem(Tbf(f"{rate * factor / 1e3:.0f}kbit"), "b")
                one_set(start, xttcp, net.ipv4("a"), PORT, new, args)
                alarm, change = compare(xttcp, base, new)
                results[kind].append({"regression": alarm, "change_pct": change})
                print(f"pair {n + 1} of {len(kinds)}: {kind}: change {change}%, "
                      f"{'REGRESSION' if alarm else 'no regression'}", file=sys.stderr, flush=True)
        finally:
            receiver.signal(signal.SIGINT)
            receiver.wait(10)
    return results


def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def free_port_block(count):
    """A base port p with p-1 .. p+count-1 free on 127.0.0.1 (the sync port and the data ports)."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1] + 1
        if base + count < 65000 and all(bindable(p) for p in range(base - 1, base + count)):
            return base
    raise SystemExit("no free port block")


@contextlib.contextmanager
def held_loopback_receiver(xttcp, ports):
    """An -H receiver on 127.0.0.1 with `ports` data ports, listening; stopped by its PID."""
    port = free_port_block(ports + 1)
    receiver = subprocess.Popen([xttcp, "-r", "127.0.0.1", "-P", str(ports), "-p", str(port),
                                 "-H", "-Q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port - 1)) == 0:
                    break
            if time.monotonic() > deadline or receiver.poll() is not None:
                raise SystemExit("the loopback receiver did not listen")
            time.sleep(0.05)
        yield port
    finally:
        receiver.send_signal(signal.SIGINT)
        try:
            receiver.wait(10)
        except subprocess.TimeoutExpired:
            receiver.kill()
            receiver.wait(10)


def quiet_process(argv):
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def loopback_pairs(args, xttcp, scratch):
    results = []
    with held_loopback_receiver(xttcp, 1) as port:
        for n in range(args.loopback_pairs):
            base, new = (os.path.join(scratch, f"lo-{n}-{side}.json") for side in ("b", "n"))
            one_set(quiet_process, xttcp, "127.0.0.1", port, base, args)
            one_set(quiet_process, xttcp, "127.0.0.1", port, new, args)
            alarm, change = compare(xttcp, base, new)
            results.append({"regression": alarm, "change_pct": change})
            print(f"loopback pair {n + 1} of {args.loopback_pairs}: change {change}%, "
                  f"{'REGRESSION' if alarm else 'no regression'}", file=sys.stderr, flush=True)
    return results


SWEEP_AXES = ["--connections", "1,4,16", "--sizes", "64K,1M"]


def sweep_pairs(args, xttcp, scratch):
    """Pairs of identical sweeps against one -H receiver on loopback: per pair, the cells called
    a regression (each a false alarm)."""
    results = []
    with held_loopback_receiver(xttcp, 16) as port:
        for n in range(args.sweep_pairs):
            base, new = (os.path.join(scratch, f"sweep-{n}-{side}.json") for side in ("b", "n"))
            for path in (base, new):
                sweep_file(quiet_process, xttcp, "127.0.0.1", port, path, args, SWEEP_AXES, 16)
            alarm, cells = compare_sweeps(xttcp, base, new)
            results.append({"regression": alarm, "cells_regressed": cells, "cells": 6})
            print(f"sweep pair {n + 1} of {args.sweep_pairs}: {cells} of 6 cells called a "
                  "regression", file=sys.stderr, flush=True)
    return results


def rate_line(name, rows, what):
    hits = sum(r["regression"] for r in rows)
    changes = [r["change_pct"] for r in rows if r["change_pct"] is not None]
    spread = f", throughput change {min(changes):+.1f} to {max(changes):+.1f} %" if changes else ""
    return f"{name:<10} {hits:>3} of {len(rows):<3} {what} ({100 * hits / max(1, len(rows)):.0f} %){spread}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--same", type=int, default=20)
    parser.add_argument("--slower", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=2)
    parser.add_argument("--rate", default="400mbit")
    parser.add_argument("--loopback-pairs", type=int, default=0)
    parser.add_argument("--sweep-pairs", type=int, default=0)
    parser.add_argument("--sweep-netns", type=int, default=0)
    parser.add_argument("--no-namespaces", action="store_true",
                        help="skip the capped pairs (loopback and sweep pairs only)")
    parser.add_argument("--json")
    args = parser.parse_args()
    xttcp = os.path.abspath(args.xttcp)
    scratch = tempfile.mkdtemp(prefix="xttcp-verdicts-")
    started = datetime.datetime.now(datetime.timezone.utc)
    results = {"same": [], "slower10": [], "slower30": []}
    if not args.no_namespaces:
        try:
            results = namespace_pairs(args, xttcp, scratch)
        except SkipTest as skip:
            print(f"SKIP: {skip}")
            return 77
    try:
        netns_sweeps = namespace_sweep_pairs(args, xttcp, scratch) if args.sweep_netns else {}
    except SkipTest as skip:
        print(f"SKIP: {skip}")
        return 77
    loop = loopback_pairs(args, xttcp, scratch) if args.loopback_pairs else []
    sweeps = sweep_pairs(args, xttcp, scratch) if args.sweep_pairs else []
    shutil.rmtree(scratch, ignore_errors=True)
    lines = [f"xttcp compare's verdicts: {cpu_model()}, {os.cpu_count()} CPUs, kernel "
             f"{platform.release()}, {started:%Y-%m-%d}",
             f"each set --repeat {args.repeat} x -t {args.seconds}, 1 connection, threshold 5 %, "
             f"alpha 0.05" + ("" if args.no_namespaces
                                else f"; veth capped by tc tbf at {args.rate}"),
             ]
    if results["same"]:
        lines += [rate_line("same", results["same"], "false alarms"),
                  rate_line("slower10", results["slower10"], "caught"),
                  rate_line("slower30", results["slower30"], "caught")]
    if loop:
        lines.append(rate_line("loopback", loop, "false alarms (127.0.0.1, no cap)"))
    for kind, what in (("same", "with a false alarm"), ("slower10", "caught"),
                       ("slower30", "caught")):
        rows = netns_sweeps.get(kind) or []
        if rows:
            cells = sum(r["cells_regressed"] for r in rows)
            lines.append(f"{'sweep ' + kind:<16} {sum(r['regression'] for r in rows):>3} of "
                         f"{len(rows):<3} pairs of 4-cell sweeps {what}; {cells} of "
                         f"{4 * len(rows)} cells called a regression")
    if sweeps:
        cells = sum(r["cells_regressed"] for r in sweeps)
        lines.append(f"{'sweeps':<10} {sum(r['regression'] for r in sweeps):>3} of "
                     f"{len(sweeps):<3} pairs of identical 6-cell sweeps with a false alarm; "
                     f"{cells} of {6 * len(sweeps)} cells")
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_model(), "kernel": platform.release(),
                       "date": f"{started:%Y-%m-%d}", "repeat": args.repeat,
                       "seconds": args.seconds, "rate": args.rate, "pairs": results,
                       "loopback": loop, "sweeps": sweeps, "netns_sweeps": netns_sweeps},
                      f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
