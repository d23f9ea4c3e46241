#!/usr/bin/env python3
"""Many TCP connections on loopback: connect time, memory and both ends' totals, per backend.

  bench/compare/many_connections.py --xttcp build/xttcp [--connections 100000]
      [--backends epoll,io_uring] [--seconds 5] [--sources 4] [--json FILE]

Each connection is a descriptor on each side. When this process may not open that many (its
hard RLIMIT_NOFILE, which only CAP_SYS_RESOURCE raises), the connections are split over several
receiver/sender pairs of processes, each within the limit, started together: the figures are
their sums (connect time: the slowest sender). Each pair uses its own 100 receiver ports; with
--sources N the senders spread their connections over 127.0.0.2 .. 127.0.0.(N+1)
(--source-addresses).

Reported per backend: connections established, processes, connect time (each sender's
"N connections created in T microseconds"), the peak of the sum of every process's RSS (sampled
every 0.2 s) and the sum of their VmHWM, the kernel's TCP memory (sockstat, pages x page size)
and slab (peaks, over what they were before), and both ends' totals with the sender's surplus (what was in flight).

Not a CI test: it takes a minute per backend and most of the machine. Traffic goes to 127.0.0.0/8
only; every process is started and stopped by PID here, and every wait is bounded.
"""
import argparse
import atexit
import datetime
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time

PORTS = 100           # receiver ports per pair
MARGIN = 300          # descriptors a process needs besides its connections
started = []


def stop_all():
    for p in started:
        if p.poll() is None:
            p.kill()
            p.wait(10)


atexit.register(stop_all)


def raise_limit(want):
    """The hard open-files limit this process and its children get (raised if allowed)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(want, hard)))
    except (ValueError, OSError):
        pass
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return hard if hard != resource.RLIM_INFINITY else want


def split(connections, per_process):
    """Threads per port (-n) of each pair, PORTS ports each, summing to connections."""
    threads = -(-connections // PORTS)
    per_pair = max(1, (per_process - MARGIN) // PORTS)
    pairs = -(-threads // per_pair)
    return [threads // pairs + (1 if i < threads % pairs else 0) for i in range(pairs)]


def ports_free(base):
    sockets = []
    try:
        for port in range(base - 1, base + PORTS):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", port))
            sockets.append(s)
        return True
    except OSError:
        return False
    finally:
        for s in sockets:
            s.close()


def listening(port):
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port:
                return True
    return False


def status_kb(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tcp_memory_bytes():
    with open("/proc/net/sockstat") as f:
        for line in f:
            if line.startswith("TCP:"):
                fields = line.split()
                return int(fields[fields.index("mem") + 1]) * os.sysconf("SC_PAGE_SIZE")
    return 0


def slab_kb():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Slab:"):
                return int(line.split()[1])
    return 0


def run_backend(xttcp, backend, connections, seconds, sources, per_process, work):
    threads = split(connections, per_process)
    bases, base = [], 20001
    for _ in threads:
        while not ports_free(base):
            base += PORTS + 10
        bases.append(base)
        base += PORTS + 10
    common = ["-P", str(PORTS), "-t", str(seconds), "-Q", "--backend", backend]
    receivers, senders = [], []
    for k, b in enumerate(bases):
        p = subprocess.Popen([xttcp, "-r", "127.0.0.1", "-p", str(b), *common,
                              "--wait-timeout", "120", "--json", f"{work}/{backend}-r{k}.json"],
                             stdout=open(f"{work}/{backend}-r{k}.out", "w"),
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        started.append(p)
        receivers.append(p)
    deadline = time.monotonic() + 60
    while not all(listening(b - 1) for b in bases):
        if time.monotonic() > deadline:
            raise SystemExit("the receivers did not listen within 60 s")
        time.sleep(0.05)
    source_option = []
    if sources > 0:
        source_option = ["--source-addresses",
                         ",".join(f"127.0.0.{i + 2}" for i in range(sources))]
    tcp_before, slab_before = tcp_memory_bytes(), slab_kb()
    for k, (b, n) in enumerate(zip(bases, threads)):
        p = subprocess.Popen([xttcp, "-s", "127.0.0.1", "-p", str(b), "-n", str(n), *common,
                              "--connect-timeout", "60", *source_option,
                              "--json", f"{work}/{backend}-s{k}.json"],
                             stdout=open(f"{work}/{backend}-s{k}.out", "w"),
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        started.append(p)
        senders.append(p)
    everyone = receivers + senders
    peak_rss = peak_tcp = peak_slab = 0
    hwm = {}
    deadline = time.monotonic() + seconds + 180
    while any(p.poll() is None for p in everyone):
        if time.monotonic() > deadline:
            raise SystemExit(f"{backend}: the run did not end within {seconds + 180} s")
        rss = sum(status_kb(p.pid, "VmRSS") for p in everyone if p.poll() is None)
        for p in everyone:
            if p.poll() is None:
                hwm[p.pid] = max(hwm.get(p.pid, 0), status_kb(p.pid, "VmHWM"))
        peak_rss = max(peak_rss, rss)
        peak_tcp = max(peak_tcp, tcp_memory_bytes() - tcp_before)
        peak_slab = max(peak_slab, slab_kb() - slab_before)
        time.sleep(0.2)
    codes = [p.wait() for p in everyone]
    connect_us, established, sent, received = [], 0, 0, 0
    for k in range(len(bases)):
        out = open(f"{work}/{backend}-s{k}.out").read()
        m = re.search(r"(\d+) connections created in (\d+) microseconds", out)
        if m:
            established += int(m.group(1))
            connect_us.append(int(m.group(2)))
        for side in "sr":
            path = f"{work}/{backend}-{side}{k}.json"
            if os.path.exists(path):
                total = json.load(open(path))["summary"]["total_bytes"]
                if side == "s":
                    sent += total
                else:
                    received += total
    return {
        "backend": backend,
        "connections": established,
        "pairs": len(bases),
        "exit_codes": codes,
        "connect_s_max": max(connect_us) / 1e6 if connect_us else None,
        "peak_rss_mib": peak_rss / 1024,
        "sum_hwm_mib": sum(hwm.values()) / 1024,
        "kernel_tcp_mem_mib": peak_tcp / 2**20,
        "kernel_slab_mib": peak_slab / 1024,
        "sent_bytes": sent,
        "received_bytes": received,
        "seconds": seconds,
        "sources": sources,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--connections", type=int, default=100_000)
    parser.add_argument("--backends", default="epoll,io_uring")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--sources", type=int, default=4)
    parser.add_argument("--json")
    args = parser.parse_args()
    xttcp = os.path.abspath(args.xttcp)
    per_process = raise_limit(args.connections + MARGIN)
    work = tempfile.mkdtemp(prefix="xttcp-many-")
    rows = []
    for backend in args.backends.split(","):
        rows.append(run_backend(xttcp, backend, args.connections, args.seconds, args.sources,
                                per_process, work))
        time.sleep(5)  # TIME_WAIT and memory settle between backends
    print(f"hard open-files limit per process: {per_process}; outputs in {work}")
    print("| backend | connections | process pairs | connect s (slowest sender) | peak RSS MiB "
          "(sum) | sum of VmHWM MiB | kernel TCP mem MiB | slab MiB | sent GB | received GB | "
          "in flight | exit codes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        flight = r["sent_bytes"] - r["received_bytes"]
        print(f"| {r['backend']} | {r['connections']} | {r['pairs']} | {r['connect_s_max']:.2f} | "
              f"{r['peak_rss_mib']:.0f} | {r['sum_hwm_mib']:.0f} | {r['kernel_tcp_mem_mib']:.0f} | "
              f"{r['kernel_slab_mib']:.0f} | {r['sent_bytes'] / 1e9:.2f} | "
              f"{r['received_bytes'] / 1e9:.2f} | {flight / 1e6:+.0f} MB | "
              f"{','.join(map(str, r['exit_codes']))} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                       "host": os.uname().nodename, "kernel": os.uname().release,
                       "argv": sys.argv, "per_process_files": per_process, "rows": rows}, f,
                      indent=2)
    return 0 if all(c == 0 for r in rows for c in r["exit_codes"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
