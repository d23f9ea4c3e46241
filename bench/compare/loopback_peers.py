#!/usr/bin/env python3
"""Loopback TCP throughput of xttcp next to iperf2 and iperf3 (Debian's), measured in one run.

For each stream count, every tool runs once per round, in alternating order, so drift on a
shared machine hits all tools alike. Reported per tool: the receiver's throughput (median over
rounds) and CPU seconds per GB received (receiver + sender processes, from rusage), plus the
ratio to the best peer.

  bench/compare/loopback_peers.py --xttcp build/xttcp [--seconds 5] [--rounds 3] [--streams 1,2]
  bench/compare/loopback_peers.py --xttcp build/xttcp --quick     # 1-second smoke run

Traffic goes to 127.0.0.1 only. Every process is started and stopped by PID here.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port(count):
    for base in range(47001, 60000, 50):
        try:
            sockets = []
            for p in range(base - 1, base + count):
                s = socket.socket()
                s.bind(("127.0.0.1", p))
                sockets.append(s)
            for s in sockets:
                s.close()
            return base
        except OSError:
            for s in sockets:
                s.close()
    raise SystemExit("no free ports")


def wait_listen(port, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open("/proc/net/tcp") as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port:
                    return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


class Child:
    def __init__(self, args):
        self.out = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(args, stdout=self.out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        self.cpu = 0.0

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid == self.proc.pid:
                self.cpu = usage.ru_utime + usage.ru_stime
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                return self.proc.returncode
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"timeout: {self.proc.args}")

    def stop(self, sig=signal.SIGINT):
        if self.proc.returncode is None and self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
        try:
            return self.wait(5) if self.proc.returncode is None else self.proc.returncode
        except RuntimeError:
            os.kill(self.proc.pid, signal.SIGKILL)
            return None

    def text(self):
        self.out.seek(0)
        return self.out.read()


def run_xttcp(binary, streams, seconds, port, tmp):
    rjson = os.path.join(tmp, "r.json")
    common = ["-m", f"{streams},*,127.0.0.1", "-p", str(port), "-t", str(seconds), "-Q"]
    server = Child([binary, "-r", *common, "--json", rjson, "--wait-timeout", "30"])
    wait_listen(port - 1)
    client = Child([binary, "-s", "127.0.0.1", *common])
    client.wait(seconds + 30)
    server.wait(seconds + 30)
    with open(rjson) as f:
        doc = json.load(f)
    return doc["summary"]["total_bytes"], doc["summary"]["duration_s"], server.cpu + client.cpu


def run_iperf2(streams, seconds, port, tmp):
    server = Child(["iperf", "-s", "-p", str(port), "-f", "k", "-B", "127.0.0.1"])
    wait_listen(port)
    client = Child(["iperf", "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds),
                    "-P", str(streams), "-f", "k"])
    client.wait(seconds + 30)
    time.sleep(0.3)  # let the server print its report
    server.stop()
    text = server.text()
    # The server's per-connection lines: "[  1] 0.0000-5.0012 sec  22.4 GBytes  38470000 Kbits/sec"
    rates = [float(m.group(2)) for m in re.finditer(
        r"\]\s+([\d.]+-[\d.]+) sec\s+[\d.]+ \w+\s+([\d.]+) Kbits/sec", text)]
    total = re.search(r"\[SUM\].*?([\d.]+) Kbits/sec", text)
    bps = float(total.group(1)) * 1e3 if total and streams > 1 else sum(rates[:streams]) * 1e3
    return bps / 8 * seconds, seconds, server.cpu + client.cpu


def run_iperf3(streams, seconds, port, tmp):
    server = Child(["iperf3", "-s", "-p", str(port), "-1", "-B", "127.0.0.1"])
    wait_listen(port)
    client = Child(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds),
                    "-P", str(streams), "-J"])
    client.wait(seconds + 30)
    server.wait(15)
    doc = json.loads(client.text())
    received = doc["end"]["sum_received"]
    return received["bytes"], received["seconds"], server.cpu + client.cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--streams", default="1,2")
    parser.add_argument("--quick", action="store_true", help="1 s, 1 round, 1 stream (smoke)")
    parser.add_argument("--json", help="also write the table as JSON here")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.rounds, args.streams = 1, 1, "1"

    tools = {"xttcp": lambda s, t, p, d: run_xttcp(os.path.abspath(args.xttcp), s, t, p, d)}
    for name, exe, fn in (("iperf2", "iperf", run_iperf2), ("iperf3", "iperf3", run_iperf3)):
        if shutil.which(exe):
            tools[name] = fn
        else:
            print(f"note: {exe} not installed; {name} left out (scripts/install-deps.sh installs it)")

    results = []
    tmp = tempfile.mkdtemp(prefix="xttcp-bench-")
    for streams in [int(s) for s in args.streams.split(",")]:
        samples = {name: [] for name in tools}
        for r in range(args.rounds):
            order = list(tools) if r % 2 == 0 else list(reversed(tools))
            for name in order:
                port = free_port(streams + 1)
                nbytes, secs, cpu = tools[name](streams, args.seconds, port, tmp)
                samples[name].append((nbytes * 8 / secs, cpu / (nbytes / 1e9) if nbytes else 0))
        best_peer = max((statistics.median(x[0] for x in v) for k, v in samples.items()
                         if k != "xttcp"), default=0)
        for name, values in samples.items():
            gbps = statistics.median(x[0] for x in values) / 1e9
            cpu_per_gb = statistics.median(x[1] for x in values)
            results.append({"streams": streams, "tool": name, "gbps": round(gbps, 2),
                            "cpu_s_per_gb": round(cpu_per_gb, 3),
                            "vs_best_peer": round(gbps * 1e9 / best_peer, 2) if best_peer else None})

    print(f"{'streams':>7} {'tool':<8} {'Gbit/s':>8} {'CPU-s/GB':>9} {'vs best peer':>12}")
    for row in results:
        ratio = f"{row['vs_best_peer']:.2f}x" if row["vs_best_peer"] else "-"
        print(f"{row['streams']:>7} {row['tool']:<8} {row['gbps']:>8.2f} "
              f"{row['cpu_s_per_gb']:>9.3f} {ratio:>12}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"seconds": args.seconds, "rounds": args.rounds, "results": results}, f,
                      indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
