#!/usr/bin/env python3
"""How often `xttcp compare` calls a regression between two identical configurations.

Against one `-H` receiver on loopback, each pair runs the same sender twice with `--repeat R`
(a base set, then a new set, as a user makes them before and after a change) and compares the
two with `xttcp compare`: exit 3 is a false alarm. Each pair is compared as the default judges
(throughput, packets, loss, latency) and again with `--judge-all` (also cycles/byte, CPU-s/GB and
retransmits/GB), so the table shows what the host-sensitive figures would add.

  bench/compare/false_alarms.py --xttcp build/xttcp [--pairs 10] [--repeat 5] [--seconds 3]
      [--streams 4] [--threshold 5] [--json FILE]

Traffic goes to 127.0.0.1 only; the receiver is started and stopped by PID; every wait is
bounded.
"""
import argparse
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loopback_peers import cpu_model, free_port  # noqa: E402


def wait_listening(port, process, timeout_s=30):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the receiver exited ({process.returncode}) before listening")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"the receiver did not listen on {port} within {timeout_s} s")


def compare(xttcp, base, new, *extra):
    done = subprocess.run([xttcp, "compare", base, new, "--json", "-", *extra],
                          capture_output=True, text=True, timeout=60)
    if done.returncode not in (0, 3):
        raise SystemExit(f"compare failed ({done.returncode}): {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    flagged = [m["metric"] for m in doc["metrics"] if m["verdict"] == "regression" and m["judged"]]
    return done.returncode, flagged


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--threshold", default="5")
    parser.add_argument("--json")
    args = parser.parse_args()

    port = free_port(2)
    work = tempfile.mkdtemp(prefix="xttcp-false-alarms-")
    # The receiver's -t takes part in the negotiated cycle: it must match the sender's.
    receiver = subprocess.Popen([args.xttcp, "-r", "127.0.0.1", "-p", str(port), "-P", "1",
                                 "-t", str(args.seconds), "-H", "-Q"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    pairs = []
    try:
        wait_listening(port - 1, receiver)  # the sync port
        per_set_s = args.repeat * (args.seconds + 5) + 30
        for pair in range(1, args.pairs + 1):
            paths = []
            for side in ("base", "new"):
                path = os.path.join(work, f"{pair}-{side}.json")
                subprocess.run([args.xttcp, "-s", "127.0.0.1", "-p", str(port), "-P", "1",
                                "-n", str(args.streams), "-t", str(args.seconds), "-Q",
                                "--repeat", str(args.repeat), "--json", path],
                               check=True, timeout=per_set_s, stdout=subprocess.DEVNULL)
                paths.append(path)
            code, flagged = compare(args.xttcp, *paths, "--threshold", args.threshold)
            code_all, flagged_all = compare(args.xttcp, *paths, "--threshold", args.threshold,
                                            "--judge-all")
            with open(paths[0]) as f:
                base_gbps = [run["summary"]["throughput_gbps"] for run in json.load(f)["runs"]]
            with open(paths[1]) as f:
                new_gbps = [run["summary"]["throughput_gbps"] for run in json.load(f)["runs"]]
            row = {"pair": pair, "alarm": code == 3, "flagged": flagged,
                   "alarm_judge_all": code_all == 3, "flagged_judge_all": flagged_all,
                   "base_gbps": base_gbps, "new_gbps": new_gbps,
                   "loadavg": os.getloadavg()[0]}
            pairs.append(row)
            print(f"pair {pair:2}: {'ALARM ' + ','.join(flagged) if row['alarm'] else 'no alarm':24}"
                  f" judge-all: {'ALARM ' + ','.join(flagged_all) if row['alarm_judge_all'] else 'no alarm':40}"
                  f" base {sum(base_gbps) / len(base_gbps):6.2f} new {sum(new_gbps) / len(new_gbps):6.2f}"
                  f" Gbit/s  load {row['loadavg']:.1f}", flush=True)
    finally:
        receiver.send_signal(signal.SIGINT)
        try:
            receiver.wait(15)
        except subprocess.TimeoutExpired:
            receiver.kill()
            receiver.wait(5)
    alarms = sum(row["alarm"] for row in pairs)
    alarms_all = sum(row["alarm_judge_all"] for row in pairs)
    summary = {"cpu": cpu_model(), "cores": os.cpu_count(), "kernel": platform.release(),
               "pairs": len(pairs), "repeat": args.repeat, "seconds": args.seconds,
               "streams": args.streams, "threshold_pct": float(args.threshold),
               "false_alarms": alarms, "false_alarms_judge_all": alarms_all, "rows": pairs}
    print(f"\n{cpu_model()}, {os.cpu_count()} CPUs; {len(pairs)} pairs of --repeat {args.repeat}"
          f" x {args.seconds} s, {args.streams} streams, threshold {args.threshold} %:"
          f" {alarms} false alarm(s) by default, {alarms_all} with --judge-all")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
