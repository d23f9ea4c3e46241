#!/usr/bin/env python3
"""Each side's CPU cost per GB, separated as two hosts would separate it: sender and receiver in
two network namespaces joined by a veth pair, each pinned to its own CPU, for xttcp (each data
path, with and without the receive copy), iperf2, iperf3 and optionally NTTTCP-for-Linux, at
fixed paced rates and unpaced, in one run.

  bench/compare/sides_netns.py --xttcp build/xttcp [--seconds 4] [--rounds 2]
      [--rates unpaced,5G,10G] [--backends epoll,io_uring,epoll:copy,io_uring:copy]
      [--ntttcp PATH] [--json FILE]
  bench/compare/sides_netns.py --xttcp build/xttcp --quick     # smoke run, a few seconds a tool

Why not loopback: there the sender's CPU time includes the receive path (the kernel runs the
receiver's TCP input in the sender's system call), so every sender looks alike. Here:
- the receiver (namespace a, 10.213.0.1) runs on CPU 0 and the sender (namespace b) on CPU 1;
- RPS on each veth end's receive queue steers that side's receive processing to its own CPU:
  data to CPU 0, ACKs to CPU 1;
- a side's cost is its CPU's busy time (user, system, irq and softirq from /proc/stat) over a
  window that starts once data flows plus a warm-up second, divided by the bytes the receiver's
  veth counted in the same window. Every tool is measured from outside, the same way. The
  process's own CPU time is printed beside it.

One TCP connection per test. Each tool paces with its own option (xttcp and NTTTCP -B, iperf2
and iperf3 -b). One connection per round per tool, rounds alternate the order. Needs root
(namespaces, RPS, taskset); exits 77 with the reason when the machine cannot. Nothing leaves the
two namespaces; every process is stopped by PID; every wait is bounded.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import math
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e_netns"))
sys.path.insert(0, HERE)
from netns import VethPair  # noqa: E402
from xttcp_e2e import Failure, SkipTest  # noqa: E402
from loopback_peers import cpu_model, median_or_none, read_sysctl, variant_options  # noqa: E402

RECEIVER_CPU, SENDER_CPU = 0, 1
WARM_S = 1.0        # after data first flows: slow start and the pacer's first second
TAIL_S = 5          # each tool runs this much longer than warm-up + window (a late harness)
FLOWING_BYTES = 1 << 20
START_BOUND_S = 20  # readiness bounds: a listener, then the first MB on the veth


def parse_rate(word):
    """'unpaced' -> 0; '5G', '500M', '2500000000' -> bits/s (1000-based)."""
    word = word.strip()
    if word == "unpaced":
        return 0
    scale = {"K": 1e3, "M": 1e6, "G": 1e9}.get(word[-1:].upper(), 1)
    number = word[:-1] if scale != 1 else word
    try:
        bps = int(float(number) * scale)
    except ValueError:
        bps = 0
    if bps <= 0:
        raise SystemExit(f"--rates: '{word}' is neither 'unpaced' nor a rate like 5G or 500M")
    return bps


def rate_label(bps):
    return "unpaced" if bps == 0 else f"{bps / 1e9:g} Gbit/s"


class Tool:
    """A tool's two command lines for one connection from namespace b to a's address."""

    def __init__(self, name, receiver, sender, listen_port, stop_receiver=False, cwd=None):
        self.name, self.receiver, self.sender = name, receiver, sender
        self.listen_port = listen_port      # port -> the TCP port that says "ready"
        self.stop_receiver = stop_receiver  # True: the receiver runs until stopped (iperf2)
        self.cwd = cwd


def xttcp_tool(binary, variant):
    backend, both, receiver_only = variant_options(variant)

    def common(address, port, seconds):
        return ["-m", f"1,*,{address}", "-p", port, "-t", seconds, "-Q", "--backend", backend,
                *both]

    return Tool(f"xttcp/{variant}",
                lambda address, port, seconds: [binary, "-r", *common(address, port, seconds),
                                                *receiver_only, "--wait-timeout", 30],
                lambda address, port, seconds, bps: [binary, "-s", address,
                                                     *common(address, port, seconds),
                                                     *(["-B", bps] if bps else [])],
                lambda port: port - 1)


def ntttcp_tool(binary, cwd):
    def common(address, port, seconds):
        return ["-m", f"1,*,{address}", "-p", port, "-t", seconds]

    return Tool("ntttcp",
                lambda address, port, seconds: [binary, "-r", *common(address, port, seconds)],
                lambda address, port, seconds, bps: [binary, "-s", *common(address, port, seconds),
                                                     *(["-B", bps] if bps else [])],
                lambda port: port - 1, cwd=cwd)


IPERF2 = Tool("iperf2",
              lambda address, port, seconds: ["iperf", "-s", "-p", port, "-B", address],
              lambda address, port, seconds, bps: ["iperf", "-c", address, "-p", port, "-t",
                                                   seconds, *(["-b", bps] if bps else [])],
              lambda port: port, stop_receiver=True)
IPERF3 = Tool("iperf3",
              lambda address, port, seconds: ["iperf3", "-s", "-p", port, "-1", "-B", address],
              lambda address, port, seconds, bps: ["iperf3", "-c", address, "-p", port, "-t",
                                                   seconds, *(["-b", bps] if bps else [])],
              lambda port: port)


def cpu_idle_ticks():
    """CPU number -> idle + iowait + steal clock ticks since boot. With a tickless kernel the
    idle time is measured exactly at each idle entry and exit, while the busy fields are
    sampled at the tick: a side that wakes briefly and often (a paced sender, softirq work)
    is undercounted by the samples, so a side's busy time is the window minus this."""
    idle = {}
    with open("/proc/stat") as f:
        for line in f:
            fields = line.split()
            if fields[0].startswith("cpu") and fields[0] != "cpu":
                idle[int(fields[0][3:])] = int(fields[4]) + int(fields[5]) + int(fields[8])
    return idle


def process_ticks(pid):
    """A process's user + system clock ticks, all threads."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def veth_rx_bytes(pid, link):
    """The receive byte counter of `link`, read through the namespace of process `pid`."""
    with open(f"/proc/{pid}/net/dev") as f:
        for line in f:
            name, _, counters = line.partition(":")
            if name.strip() == link:
                return int(counters.split()[0])
    raise Failure(f"{link} not in /proc/{pid}/net/dev")


class Snapshot:
    def __init__(self, receiver, sender, link):
        self.time = time.monotonic()
        self.idle = cpu_idle_ticks()
        self.rx_bytes = veth_rx_bytes(receiver.pid, link)
        self.receiver_process = process_ticks(receiver.pid)
        self.sender_process = process_ticks(sender.pid)


def set_rps(net, side, cpu):
    """Steers side's veth receive processing to `cpu` (RPS on its one receive queue)."""
    path = f"/sys/class/net/{net.links[side]}/queues/rx-0/rps_cpus"
    done = subprocess.run(net.exec_args(side, ["sh", "-c", f"echo {1 << cpu:x} > {path}"]),
                          capture_output=True, text=True, timeout=20)
    if done.returncode != 0:
        raise SkipTest(f"cannot set RPS on the veth (kernel without CONFIG_RPS?): "
                       f"{done.stderr.strip()}")


def pinned(cpu, args):
    return ["taskset", "-c", str(cpu), *[str(a) for a in args]]


def measure(net, tool, bps, seconds, port):
    """One test; returns the window's figures."""
    address, link = net.ipv4("a"), net.links["a"]
    tool_seconds = math.ceil(WARM_S + seconds + TAIL_S)
    receiver = net.start("a", pinned(RECEIVER_CPU, tool.receiver(address, port, tool_seconds)),
                         f"{tool.name} receiver", cwd=tool.cwd)
    sender = None
    try:
        net.wait_listening(receiver, tool.listen_port(port), timeout=START_BOUND_S)
        sender = net.start("b", pinned(SENDER_CPU, tool.sender(address, port, tool_seconds, bps)),
                           f"{tool.name} sender", cwd=tool.cwd)
        start = veth_rx_bytes(receiver.pid, link)
        deadline = time.monotonic() + START_BOUND_S
        while veth_rx_bytes(receiver.pid, link) - start < FLOWING_BYTES:
            if sender.proc.poll() is not None or time.monotonic() > deadline:
                raise Failure(f"{tool.name}: no data flowed\n{sender.describe()}")
            time.sleep(0.02)
        time.sleep(WARM_S)  # the measurement's design, not a wait for readiness
        before = Snapshot(receiver, sender, link)
        time.sleep(seconds)
        after = Snapshot(receiver, sender, link)
        if sender.proc.poll() is not None:
            raise Failure(f"{tool.name}: the sender ended inside the window\n{sender.describe()}")
        code = sender.wait(tool_seconds + 30)
        if tool.stop_receiver:
            receiver.signal(signal.SIGINT)
        receiver.wait(30)
        if code != 0:
            raise Failure(f"{tool.name}: the sender exited {code}\n{sender.describe()}")
    finally:
        for process in (receiver, sender):
            if process is not None:
                process.kill()
    ticks = os.sysconf("SC_CLK_TCK")
    gb = (after.rx_bytes - before.rx_bytes) / 1e9
    elapsed = after.time - before.time

    def busy_s(cpu):
        return max(0.0, elapsed - (after.idle[cpu] - before.idle[cpu]) / ticks)

    def per_gb(seconds):
        return seconds / gb if gb > 0 else None

    return {"gbps": gb * 8 / elapsed,
            "sender_cpu_s_per_gb": per_gb(busy_s(SENDER_CPU)),
            "receiver_cpu_s_per_gb": per_gb(busy_s(RECEIVER_CPU)),
            "sender_process_s_per_gb": per_gb((after.sender_process - before.sender_process) / ticks),
            "receiver_process_s_per_gb":
                per_gb((after.receiver_process - before.receiver_process) / ticks),
            "sender_cpu_busy": busy_s(SENDER_CPU) / elapsed,
            "receiver_cpu_busy": busy_s(RECEIVER_CPU) / elapsed}


def idle_busy(seconds=1.0):
    """Each CPU's busy fraction with nothing of ours running: the machine's background."""
    before, start = cpu_idle_ticks(), time.monotonic()
    time.sleep(seconds)
    after, elapsed = cpu_idle_ticks(), time.monotonic() - start
    ticks = os.sysconf("SC_CLK_TCK")
    return {cpu: max(0.0, 1 - (after[cpu] - before[cpu]) / ticks / elapsed) for cpu in after}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--seconds", type=float, default=4.0, help="the measured window")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rates", default="unpaced,5G,10G")
    parser.add_argument("--backends", default="epoll,io_uring,epoll:copy,io_uring:copy",
                        help="xttcp variants as in loopback_peers.py (':copy' = the peers' work)")
    parser.add_argument("--ntttcp", help="an NTTTCP-for-Linux binary to include as a peer")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="smoke: 1 s window, 1 round, epoll and iperf3, unpaced and 1G")
    parser.add_argument("--json", help="also write the table as JSON here")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.quick:
        args.seconds, args.rounds, args.rates, args.backends = 1.0, 1, "unpaced,1G", "epoll"
    if args.seconds <= 0 or args.rounds < 1:
        raise SystemExit("--seconds must be above 0 and --rounds at least 1")
    rates = [parse_rate(w) for w in args.rates.split(",") if w.strip()]
    if os.cpu_count() < 2 or not shutil.which("taskset"):
        print("skipped: needs 2 CPUs and taskset (util-linux), one CPU a side")
        return 77
    xttcp = os.path.abspath(args.xttcp)
    tmp = tempfile.mkdtemp(prefix="xttcp-sides-")
    tools = [xttcp_tool(xttcp, v.strip()) for v in args.backends.split(",") if v.strip()]
    if args.ntttcp:
        if not os.access(args.ntttcp, os.X_OK):
            raise SystemExit(f"--ntttcp: {args.ntttcp} is not an executable file")
        tools.append(ntttcp_tool(os.path.abspath(args.ntttcp), tmp))
    for tool, exe in ((IPERF2, "iperf"), (IPERF3, "iperf3")):
        if args.no_peers or (args.quick and tool is IPERF2):
            continue
        if shutil.which(exe):
            tools.append(tool)
        else:
            print(f"note: {exe} not installed; {tool.name} left out (scripts/install-deps.sh)")

    results, failures = [], 0
    try:
        with VethPair() as net:
            set_rps(net, "a", RECEIVER_CPU)
            set_rps(net, "b", SENDER_CPU)
            background = idle_busy()
            port = 20001
            for bps in rates:
                samples = {tool.name: [] for tool in tools}
                for r in range(args.rounds):
                    for tool in (tools if r % 2 == 0 else list(reversed(tools))):
                        port += 10  # a fresh port each test: no TIME_WAIT in the way
                        try:
                            samples[tool.name].append(measure(net, tool, bps, args.seconds, port))
                        except Failure as failure:
                            failures += 1
                            print(f"note: {tool.name} at {rate_label(bps)}, round {r + 1} "
                                  f"failed: {str(failure).splitlines()[0]}", file=sys.stderr)
                for name, runs in samples.items():
                    row = {"rate": rate_label(bps), "rate_bps": bps, "tool": name,
                           "rounds_ok": len(runs)}
                    for key in ("gbps", "sender_cpu_s_per_gb", "receiver_cpu_s_per_gb",
                                "sender_process_s_per_gb", "receiver_process_s_per_gb",
                                "sender_cpu_busy", "receiver_cpu_busy"):
                        value = median_or_none([run[key] for run in runs])
                        row[key] = round(value, 4) if value is not None else None
                    results.append(row)
    except SkipTest as skip:
        print(f"skipped: {skip}")
        return 77
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    add_peer_ratios(results)
    print_table(results, background)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"schema": 1,
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                       "host": {"kernel": platform.release(), "cpus": os.cpu_count(),
                                "cpu": cpu_model()},
                       "congestion": read_sysctl("net/ipv4/tcp_congestion_control"),
                       "command": sys.argv, "seconds": args.seconds, "rounds": args.rounds,
                       "background_busy": {str(k): round(v, 4) for k, v in background.items()},
                       "results": results}, f, indent=2)
    return 1 if failures else 0


def add_peer_ratios(results):
    """Each row's sender and receiver CPU-s/GB over the cheapest peer's at the same rate."""
    sides = ("sender_cpu_s_per_gb", "receiver_cpu_s_per_gb")
    for rate in {row["rate"] for row in results}:
        rows = [row for row in results if row["rate"] == rate]
        peers = [row for row in rows if not row["tool"].startswith("xttcp")]
        cheapest = {side: min((row[side] for row in peers if row[side] is not None), default=None)
                    for side in sides}
        for row in rows:
            for side in sides:
                ratio = row[side] / cheapest[side] if row[side] and cheapest[side] else None
                row[side.split("_")[0] + "_vs_cheapest_peer"] = (
                    round(ratio, 3) if ratio is not None else None)


def print_table(results, background):
    def number(value, digits=3):
        return "-" if value is None else f"{value:.{digits}f}"

    def ratio(value):
        return "-" if value is None else f"{value:.2f}x"

    print(f"{'rate':<13} {'tool':<19} {'Gbit/s':>7} {'tx CPU-s/GB':>11} {'rx CPU-s/GB':>11} "
          f"{'tx proc':>8} {'rx proc':>8} {'tx busy':>7} {'rx busy':>7} {'tx vs peer':>10} "
          f"{'rx vs peer':>10}")
    for row in results:
        print(f"{row['rate']:<13} {row['tool']:<19} {number(row['gbps'], 2):>7} "
              f"{number(row['sender_cpu_s_per_gb']):>11} "
              f"{number(row['receiver_cpu_s_per_gb']):>11} "
              f"{number(row['sender_process_s_per_gb']):>8} "
              f"{number(row['receiver_process_s_per_gb']):>8} "
              f"{number(row['sender_cpu_busy'], 2):>7} {number(row['receiver_cpu_busy'], 2):>7} "
              f"{ratio(row['sender_vs_cheapest_peer']):>10} "
              f"{ratio(row['receiver_vs_cheapest_peer']):>10}")
    print(f"CPU: {cpu_model()}; kernel {platform.release()}; congestion control "
          f"{read_sysctl('net/ipv4/tcp_congestion_control')}; receiver on CPU {RECEIVER_CPU}, "
          f"sender on CPU {SENDER_CPU}; background busy before the run: " +
          ", ".join(f"CPU {k} {v:.2f}" for k, v in sorted(background.items())))
    print("CPU-s/GB: the side's whole CPU (user, system, irq, softirq) per GB the receiver's veth "
          "counted; proc: the process's own share; busy: the side's CPU fraction in use; "
          "vs peer: against the cheapest peer at the same rate")


if __name__ == "__main__":
    sys.exit(main())
