#!/usr/bin/env python3
"""xttcp's DPDK sender against dpdk-testpmd --forward-mode=txonly on net_null, one core each,
64-byte frames, in the same run (alternating), without and with 2 MiB hugepages.

  bench/compare/dpdk_txonly.py --xttcp build/xttcp [--seconds 5] [--rounds 3]
      [--memory nohuge,huge] [--json FILE]
  bench/compare/dpdk_txonly.py --xttcp build/xttcp --quick     # 2-second smoke run, no hugepages

Both send 64-byte frames (without the FCS; testpmd --txpkts=64, xttcp -b 22: 14 Ethernet + 20
IPv4 + 8 UDP + 22) from one forwarding thread to net_null, which frees them. testpmd's rate: the median of its per-second Tx-pps lines after the
first two; xttcp's: the native JSON's device.mpps over its measured window (-W 1 -t SECONDS).
xttcp does more per frame than txonly: a per-flow sequence number and a TSC time stamp in each
frame, and the UDP checksum (incrementally, in software: net_null offers no offload).

Hugepages: when none are reserved, the script reserves 256 x 2 MiB (echo 256 >
/proc/sys/vm/nr_hugepages) and mounts hugetlbfs on /dev/hugepages if nothing is mounted there,
and puts both back afterwards; both tools then run with --huge-unlink. Needs root; without it
the huge rows are skipped with the reason. Processes are started and stopped by PID (SIGINT,
then SIGKILL); every wait is bounded.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loopback_peers import Children  # noqa: E402

FRAME = 64
XTTCP_PAYLOAD = FRAME - 42
NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages"
HUGE_MOUNT = "/dev/hugepages"
PAGES = 256


def eal_memory(huge):
    return ["--no-huge", "-m", "512"] if huge is False else ["-m", "256", "--huge-unlink"]


def cpus():
    allowed = sorted(os.sched_getaffinity(0))
    return allowed[0], allowed[1 % len(allowed)]


def run_testpmd(binary, huge, seconds):
    main, worker = cpus()
    args = [binary, "-l", f"{main},{worker}", "--no-pci", *eal_memory(huge),
            "--file-prefix", f"xb-tp-{os.getpid()}", "--vdev", "net_null0",
            "--log-level=lib.eal:error", "--", "--forward-mode=txonly", f"--txpkts={FRAME}",
            "--nb-cores=1", "--stats-period=1", "--total-num-mbufs=8192"]
    with Children() as children:
        child = children.start(args)
        time.sleep(seconds + 2)
        child.stop()
        text = child.text()
    rates = [int(m) for m in re.findall(r"Tx-pps:\s+(\d+)", text)]
    if len(rates) < 3:
        raise RuntimeError(f"testpmd printed {len(rates)} rate line(s):\n{text[-2000:]}")
    return statistics.median(rates[2:]) / 1e6


def run_xttcp(binary, huge, seconds, tmp):
    out = os.path.join(tmp, "x.json")
    if os.path.exists(out):
        os.remove(out)
    main, _ = cpus()
    eal = " ".join(["--no-pci", *eal_memory(huge), "--vdev", "net_null0",
                    "--file-prefix", f"xb-x-{os.getpid()}", "-l", str(main)])
    args = [binary, "-s", "10.9.9.9", "-a", "10.9.9.8", "-u", "-N", "-P", 1, "-n", 1,
            "--threads", 1, "--pin", "-b", XTTCP_PAYLOAD, "-W", 1,
            "-t", seconds, "-Q", "--json", out, "--backend", "dpdk",
            "--peer-mac", "02:00:00:00:00:02", "--dpdk-args", eal]
    with Children() as children:
        child = children.start(args)
        code = child.wait(seconds + 30)
        if code != 0:
            raise RuntimeError(f"xttcp exited {code}:\n{child.text()[-2000:]}")
    with open(out) as f:
        device = json.load(f)["device"]
    if device["frame_bytes"] != device["frames"] * FRAME:
        raise RuntimeError(f"xttcp sent frames of another size: {device}")
    return device["mpps"], device["cycles_per_frame"]


class Hugepages:
    """Reserves 2 MiB pages and mounts hugetlbfs for the block when none are there; restores."""

    def __init__(self):
        self.old_pages = None
        self.mounted = False
        self.reason = None

    def __enter__(self):
        if os.geteuid() != 0:
            self.reason = "not root: cannot reserve hugepages"
            return self
        with open(NR_HUGEPAGES) as f:
            current = int(f.read())
        if current < PAGES:
            self.old_pages = current
            with open(NR_HUGEPAGES, "w") as f:
                f.write(str(PAGES))
            with open(NR_HUGEPAGES) as f:
                got = int(f.read())
            if got < PAGES // 2:
                self.reason = f"the kernel reserved {got} of {PAGES} 2 MiB pages"
        with open("/proc/mounts") as f:
            if not any(line.split()[2] == "hugetlbfs" for line in f):
                os.makedirs(HUGE_MOUNT, exist_ok=True)
                done = subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M",
                                       "nodev", HUGE_MOUNT], capture_output=True, text=True,
                                      timeout=20)
                if done.returncode != 0:
                    self.reason = f"mount hugetlbfs: {done.stderr.strip()}"
                else:
                    self.mounted = True
        return self

    def __exit__(self, *exc):
        if self.mounted:
            subprocess.run(["umount", HUGE_MOUNT], capture_output=True, timeout=20)
        if self.old_pages is not None:
            with open(NR_HUGEPAGES, "w") as f:
                f.write(str(self.old_pages))
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--testpmd", default=shutil.which("dpdk-testpmd") or "dpdk-testpmd")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory", default="nohuge,huge")
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.rounds, args.memory = 2, 1, "nohuge"
    if not os.path.exists(args.testpmd) and not shutil.which(args.testpmd):
        print("dpdk-testpmd not found: Debian's dpdk-dev package has it "
              "(scripts/install-deps.sh)")
        return 77
    if os.geteuid() != 0:
        print("DPDK's EAL needs root here")
        return 77

    rows = []
    tmp = tempfile.mkdtemp(prefix="xttcp-dpdk-bench-")
    try:
        for memory in args.memory.split(","):
            huge = memory == "huge"
            with Hugepages() if huge else _nothing() as pages:
                if pages is not None and pages.reason:
                    print(f"{memory}: skipped: {pages.reason}")
                    continue
                samples = {"xttcp": [], "testpmd": []}
                cycles = []
                for _ in range(args.rounds):  # alternate, so drift hits both alike
                    mpps, per_frame = run_xttcp(args.xttcp, huge, args.seconds, tmp)
                    samples["xttcp"].append(mpps)
                    cycles.append(per_frame)
                    samples["testpmd"].append(run_testpmd(args.testpmd, huge, args.seconds))
                row = {"memory": "2 MiB hugepages" if huge else "--no-huge",
                       "xttcp_mpps": statistics.median(samples["xttcp"]),
                       "xttcp_range": [min(samples["xttcp"]), max(samples["xttcp"])],
                       "xttcp_cycles_per_frame": statistics.median(cycles),
                       "testpmd_mpps": statistics.median(samples["testpmd"]),
                       "testpmd_range": [min(samples["testpmd"]), max(samples["testpmd"])]}
                row["ratio"] = row["xttcp_mpps"] / row["testpmd_mpps"]
                rows.append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"| memory | xttcp Mpps (min–max) | xttcp TSC cycles/frame | testpmd txonly Mpps "
          f"(min–max) | xttcp ÷ testpmd |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['memory']} | {r['xttcp_mpps']:.2f} ({r['xttcp_range'][0]:.2f}–"
              f"{r['xttcp_range'][1]:.2f}) | {r['xttcp_cycles_per_frame']:.1f} | "
              f"{r['testpmd_mpps']:.2f} ({r['testpmd_range'][0]:.2f}–"
              f"{r['testpmd_range'][1]:.2f}) | {r['ratio']:.2f}× |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"schema": 1, "date": datetime.datetime.utcnow().isoformat() + "Z",
                       "host": platform.node(), "command": " ".join(sys.argv),
                       "seconds": args.seconds, "rounds": args.rounds, "frame_bytes": FRAME,
                       "rows": rows}, f, indent=2)
    return 0


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    sys.exit(main())
