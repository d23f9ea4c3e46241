#!/usr/bin/env python3
"""Loopback UDP next to iperf2 and iperf3 (Debian's), measured in one run: datagrams and bits
per second received, loss, and CPU seconds of each end, at a given datagram size, every tool
sending as fast as it can (iperf2 -b 100G, iperf3 -b 0, xttcp unpaced).

  bench/compare/udp_peers.py --xttcp build/xttcp [--seconds 3] [--rounds 3] [--sizes 1470,max]
      [--streams 1] [--backends auto,io_uring] [--json FILE]
  bench/compare/udp_peers.py --xttcp build/xttcp --quick      # 1-second smoke run

Received figures are the receiver's: xttcp's native JSON (udp.window, udp.run), iperf2's server
report, iperf3's sum of the receiver side. Loss is what each tool reports (xttcp: exact, from the
sender's count; iperf2/iperf3: from their sequence numbers). Traffic goes to 127.0.0.1 only;
processes are started and stopped by PID; every wait is bounded.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loopback_peers import SETTLE_S, Children, free_port, wait_listen  # noqa: E402

MAX_DATAGRAM = 65507


class Sample:
    def __init__(self, datagrams, nbytes, seconds, loss_pct, sender_cpu, receiver_cpu):
        self.datagrams, self.nbytes, self.seconds = datagrams, nbytes, seconds
        self.loss_pct, self.sender_cpu, self.receiver_cpu = loss_pct, sender_cpu, receiver_cpu

    def pps(self):
        return self.datagrams / self.seconds if self.seconds else 0.0

    def gbps(self):
        return self.nbytes * 8 / self.seconds / 1e9 if self.seconds else 0.0


def run_xttcp(binary, backend, streams, size, seconds, port, tmp):
    rjson = os.path.join(tmp, "r.json")
    if os.path.exists(rjson):
        os.remove(rjson)
    common = ["-u", "-m", f"{streams},*,127.0.0.1", "-p", port, "-t", seconds, "-Q",
              "--backend", backend]
    with Children() as children:
        server = children.start([binary, "-r", *common, "--json", rjson, "--wait-timeout", 30])
        wait_listen(port - 1)
        client = children.start([binary, "-s", "127.0.0.1", *common, "-b", size])
        client.wait(seconds + SETTLE_S)
        server.wait(seconds + SETTLE_S)
    with open(rjson) as f:
        doc = json.load(f)
    udp = doc["udp"]
    return Sample(udp["window"]["datagrams"], doc["summary"]["total_bytes"],
                  doc["summary"]["duration_s"], udp["run"]["loss_percent"], client.cpu, server.cpu)


def run_iperf2(streams, size, seconds, port, tmp):
    with Children() as children:
        server = children.start(["iperf", "-s", "-u", "-p", port, "-B", "127.0.0.1", "-f", "k"])
        wait_listen_udp(port)
        client = children.start(["iperf", "-c", "127.0.0.1", "-u", "-p", port, "-t", seconds,
                                 "-P", streams, "-b", "100G", "-l", size, "-f", "k"])
        client.wait(seconds + SETTLE_S)
        import time
        time.sleep(0.5)  # the server prints its report when the last datagram's flow ends
        server.stop()
    text = server.text()
    # "[  1] 0.0000-3.0157 sec  223 MBytes  621000 Kbits/sec  0.963 ms 372995/532256 (70%)"
    rows = re.findall(r"\]\s+([\d.]+)-([\d.]+) sec\s+[\d.]+ \w+\s+([\d.]+) Kbits/sec\s+[\d.]+ ms\s+"
                      r"(\d+)/\s*(\d+)", text)
    if not rows:
        raise RuntimeError(f"iperf2 server printed no report:\n{text[-400:]}")
    rows = rows[:streams]
    secs = max(float(r[1]) - float(r[0]) for r in rows)
    lost = sum(int(r[3]) for r in rows)
    total = sum(int(r[4]) for r in rows)
    received = total - lost
    return Sample(received, received * size, secs, 100.0 * lost / total if total else 0.0,
                  client.cpu, server.cpu)


def run_iperf3(streams, size, seconds, port, tmp):
    with Children() as children:
        server = children.start(["iperf3", "-s", "-p", port, "-1", "-B", "127.0.0.1"])
        wait_listen(port)
        client = children.start(["iperf3", "-c", "127.0.0.1", "-u", "-p", port, "-t", seconds,
                                 "-P", streams, "-b", "0", "-l", size, "-J"])
        client.wait(seconds + SETTLE_S)
        server.wait(15)
    text = client.text()  # iperf3 may print a warning line before its JSON
    end = json.loads(text[text.find("{"):])["end"]["sum"]
    received = end["packets"] - end["lost_packets"]
    return Sample(received, received * size, end["seconds"], end["lost_percent"], client.cpu,
                  server.cpu)


def wait_listen_udp(port, timeout=10):
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open("/proc/net/udp") as f:
            if any(int(line.split()[1].split(":")[1], 16) == port for line in f.readlines()[1:]):
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing bound UDP port {port}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--streams", type=int, default=1)
    parser.add_argument("--sizes", default="1470,max", help="datagram sizes; 'max' = 65507")
    parser.add_argument("--backends", default="auto", help="xttcp backends, comma-separated")
    parser.add_argument("--quick", action="store_true", help="1 s, 1 round, 1470 B (smoke)")
    parser.add_argument("--json", help="also write the table as JSON here")
    args = parser.parse_args()
    # SIGTERM unwinds like Ctrl+C, so every child is stopped by PID on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.quick:
        args.seconds, args.rounds, args.sizes = 1, 1, "1470"
    sizes = []
    for word in args.sizes.split(","):
        word = word.strip()
        if word == "max":
            sizes.append(MAX_DATAGRAM)
        elif word.isdigit() and 24 <= int(word) <= MAX_DATAGRAM:
            sizes.append(int(word))
        else:
            raise SystemExit(f"--sizes: '{word}' is neither 'max' nor 24..{MAX_DATAGRAM}")
    xttcp = os.path.abspath(args.xttcp)
    tools = {}
    for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
        tools[f"xttcp/{backend}"] = (
            lambda s, b, t, p, d, backend=backend: run_xttcp(xttcp, backend, s, b, t, p, d))
    for name, exe, fn in (("iperf2", "iperf", run_iperf2), ("iperf3", "iperf3", run_iperf3)):
        if shutil.which(exe):
            tools[name] = fn
        else:
            print(f"note: {exe} not installed; {name} left out (scripts/install-deps.sh)")

    tmp = tempfile.mkdtemp(prefix="xttcp-udp-bench-")
    results = []
    for size in sizes:
        samples = {name: [] for name in tools}
        for r in range(args.rounds):
            order = list(tools) if r % 2 == 0 else list(reversed(tools))
            for name in order:
                port = free_port(args.streams + 1)
                try:
                    samples[name].append(tools[name](args.streams, size, args.seconds, port, tmp))
                except (RuntimeError, OSError, ValueError, KeyError) as error:
                    print(f"note: {name}, size {size}, round {r + 1} failed: {error}",
                          file=sys.stderr)
        best_pps = max((statistics.median([s.pps() for s in v]) for k, v in samples.items()
                        if not k.startswith("xttcp") and v), default=None)
        for name, values in samples.items():
            if not values:
                continue
            pps = statistics.median([s.pps() for s in values])
            gb = lambda s: s.nbytes / 1e9 if s.nbytes else None  # noqa: E731
            results.append({
                "size": size, "tool": name, "rounds_ok": len(values),
                "received_pps": round(pps),
                "received_gbps": round(statistics.median([s.gbps() for s in values]), 2),
                "loss_percent": round(statistics.median([s.loss_pct for s in values]), 2),
                "sender_cpu_s_per_gb": round(statistics.median(
                    [s.sender_cpu / gb(s) for s in values if gb(s)]), 3),
                "receiver_cpu_s_per_gb": round(statistics.median(
                    [s.receiver_cpu / gb(s) for s in values if gb(s)]), 3),
                "pps_vs_best_peer": round(pps / best_pps, 2) if best_pps else None})
    shutil.rmtree(tmp, ignore_errors=True)

    print(f"{'size':>6} {'tool':<15} {'rx pps':>10} {'rx Gbit/s':>9} {'loss %':>7} "
          f"{'tx CPU-s/GB':>11} {'rx CPU-s/GB':>11} {'pps vs best peer':>16}")
    for row in results:
        ratio = f"{row['pps_vs_best_peer']:.2f}x" if row["pps_vs_best_peer"] else "-"
        print(f"{row['size']:>6} {row['tool']:<15} {row['received_pps']:>10} "
              f"{row['received_gbps']:>9.2f} {row['loss_percent']:>7.2f} "
              f"{row['sender_cpu_s_per_gb']:>11.3f} {row['receiver_cpu_s_per_gb']:>11.3f} "
              f"{ratio:>16}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"schema": 1,
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                       "host": {"machine": platform.machine(), "kernel": platform.release(),
                                "cpus": os.cpu_count()},
                       "command": sys.argv, "seconds": args.seconds, "rounds": args.rounds,
                       "results": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
