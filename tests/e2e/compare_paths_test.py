#!/usr/bin/env python3
"""xttcp compare-paths on loopback (docs/compare-paths.md) with the kernel-socket backends this
machine has (epoll, and io_uring where the kernel has it): a TCP and a UDP stream, TCP and UDP
request/response. Every backend runs the asked number of rounds; the table and the JSON
(schema xttcp-paths) hold a row per backend with its figures, epoll's ratios are 1, the --rr
percentiles are ordered, and the --runs-dir files are what 'xttcp compare' reads. A backend
that cannot run the workload is refused with one line before anything starts (exit 2). Between
two network namespaces (--netns, root only: skipped otherwise) with dpdk where it is built."""
import glob
import os
import subprocess
import sys

from xttcp_e2e import (Process, check, load_json, run_cases, scratch_dir, socket_backends)

ROUNDS = 2


def softirq_threads_visible():
    """Whether /proc lists the kernel's ksoftirqd threads (not in a container's own pid
    namespace): then every run measures them."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm", "rb") as f:
                if f.read().startswith(b"ksoftirqd/"):
                    return True
        except OSError:
            continue
    return False


def compare_paths(xttcp, started, *workload, unit):
    available = socket_backends(xttcp)
    check("epoll" in available, f"no epoll among {available}")
    backends = ["epoll"] + [b for b in available if b != "epoll"]  # the baseline first
    d = scratch_dir()
    table = os.path.join(d, "paths.json")
    run = Process([xttcp, "compare-paths", "--backends", ",".join(backends), "-t", "1",
                   "--repeat", str(ROUNDS), "--json", table, "--runs-dir", d, *workload],
                  "compare-paths")
    started.append(run)
    # Each pair is bounded by its -t and its children's own timeouts; 4 pairs of 1 s each.
    check(run.wait(40 * len(backends) * ROUNDS) == 0, f"compare-paths failed:\n{run.describe()}")
    out = run.stdout()
    for backend in backends:
        check(any(line.startswith(backend + " ") for line in out.splitlines()),
              f"no {backend} row:\n{out}")
    kso = softirq_threads_visible()
    whose = "both processes and ksoftirqd x" if kso else "both processes x"
    check("ratio to epoll" in out and f"cycles: CPU time of {whose}" in out,
          f"table lacks its ratio block or its clock line ({whose}):\n{out}")
    j = load_json(table)
    check(j["schema"] == "xttcp-paths" and j["schema_version"] == 1, f"schema: {j['schema']}")
    check(j["tool"]["name"] == "xttcp" and j["tool"]["version"], f"tool: {j['tool']}")
    check(j["cycle_unit"] == unit, f"cycle unit {j['cycle_unit']}, expected {unit}")
    check([row["backend"] for row in j["rows"]] == backends, f"rows: {j['rows']}")
    rr = "--rr" in workload
    for row in j["rows"]:
        check(len(row["runs"]) == ROUNDS, f"{row['backend']}: {len(row['runs'])} runs")
        for r in row["runs"]:
            check(r["throughput_gbps"] > 0 and r["cpu_s"] > 0, f"{row['backend']}: {r}")
            check(r["receiver_cpu_included"], f"{row['backend']}: the receiver's CPU is missing")
            # The host's ksoftirqd time, where /proc shows the threads, is part of cpu_s.
            check((0 <= r["softirq_threads_s"] <= r["cpu_s"]) if kso
                  else r["softirq_threads_s"] is None,
                  f"{row['backend']}: softirq_threads_s (ksoftirqd visible: {kso}): {r}")
            check(r["cycles_per_unit"] > 0 and r["cpu_s_per_gb"] > 0, f"{row['backend']}: {r}")
            if rr or "-u" in workload:
                check(r["packets_per_s"] > 0, f"{row['backend']}: no rate: {r}")
            if rr:
                check(0 < r["p50_us"] <= r["p99_us"] <= r["p99_9_us"],
                      f"{row['backend']}: percentiles not ordered: {r}")
    epoll = j["rows"][0]["vs_baseline"]
    check(epoll["throughput_gbps"] == 1 and epoll["cycles_per_unit"] == 1,
          f"epoll against itself: {epoll}")
    # The runs of each backend are a set of repeated runs that compare reads.
    for backend in backends:
        runs = load_json(os.path.join(d, backend + ".json"))
        check(runs["schema"] == "xttcp-runs" and len(runs["runs"]) == ROUNDS,
              f"{backend}.json: {runs['schema']}, {len(runs.get('runs', []))} runs")
    if len(backends) > 1:
        done = subprocess.run([xttcp, "compare", os.path.join(d, "epoll.json"),
                               os.path.join(d, backends[1] + ".json"),
                               "--allow-different-workload"],
                              capture_output=True, text=True, timeout=30)
        check(done.returncode in (0, 3) and "throughput" in done.stdout,
              f"compare of the runs-dir files: exit {done.returncode}\n{done.stdout}{done.stderr}")


def refused(xttcp, started):
    for args, words in ((["--backends", "null", "--rr"], "--backends"),
                        (["--backends", "nonesuch"], "--backends"),
                        (["--repeat", "0"], "--repeat")):
        done = subprocess.run([xttcp, "compare-paths", *args], capture_output=True, text=True,
                              timeout=30, stdin=subprocess.DEVNULL)
        check(done.returncode == 2, f"{args}: exit {done.returncode}, expected 2")
        check(len(done.stderr.splitlines()) == 1 and words in done.stderr,
              f"{args}: expected one line naming {words}:\n{done.stderr}")
        check(done.stdout == "", f"{args}: printed a table anyway:\n{done.stdout}")


def between_namespaces(xttcp, started):
    """--netns/--to/--from: the pairs run between two namespaces joined by a veth pair, with
    dpdk on net_af_packet at both ends where this build has it; its EAL leaves no runtime
    directory behind."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "e2e_netns"))
    from netns import VethPair  # noqa: E402
    out = subprocess.run([xttcp, "backends"], capture_output=True, text=True, timeout=30).stdout
    dpdk = any(line.split()[:2] == ["dpdk", "available"] for line in out.splitlines())
    backends = ["epoll", "dpdk"] if dpdk else ["epoll"]
    eal = "--no-huge --no-pci -m 256 --log-level=lib.eal:error --vdev net_af_packet0,iface="
    runtime_dirs = set(glob.glob("/var/run/dpdk/xttcp-*"))
    with VethPair() as net:
        d = scratch_dir()
        table = os.path.join(d, "paths.json")
        run = Process([xttcp, "compare-paths", "--netns",
                       f"{net.namespaces['a']},{net.namespaces['b']}", "--to", net.ipv4("a"),
                       "--from", net.ipv4("b"), "--backends", ",".join(backends), "-u", "--rr",
                       "-t", "1", "--repeat", "1", "--json", table,
                       "--receiver-dpdk-args", eal + net.links["a"],
                       "--sender-dpdk-args", eal + net.links["b"]], "compare-paths --netns")
        started.append(run)
        check(run.wait(60 * len(backends)) == 0, f"compare-paths failed:\n{run.describe()}")
        j = load_json(table)
        check([row["backend"] for row in j["rows"]] == backends, f"rows: {j['rows']}")
        for row in j["rows"]:
            r = row["runs"][0]
            check(r["packets_per_s"] > 0 and r["p50_us"] > 0 and r["receiver_cpu_included"],
                  f"{row['backend']}: {r}")
        left = [p for p in set(glob.glob("/var/run/dpdk/xttcp-*")) - runtime_dirs
                if not os.path.exists(f"/proc/{p.rsplit('-', 1)[1]}")]
        check(not left, f"EAL runtime directories of dead processes left behind: {left}")
        print(f"between namespaces: {', '.join(backends)}: "
              + "; ".join(f"{row['backend']} p50 {row['runs'][0]['p50_us']:.1f} us"
                          for row in j["rows"]))


CASES = {
    "tcp-stream": lambda x, s: compare_paths(x, s, "-b", "64K", unit="byte"),
    "udp-stream": lambda x, s: compare_paths(x, s, "-u", "-b", "1400", unit="packet"),
    "tcp-rr": lambda x, s: compare_paths(x, s, "--rr", unit="transaction"),
    "udp-rr": lambda x, s: compare_paths(x, s, "--rr", "-u", unit="transaction"),
    "refused": refused,
    "netns": between_namespaces,
}

sys.exit(run_cases(CASES))
