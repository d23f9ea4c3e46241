"""Per-queue counters through netlink qstats (docs/topology.md), read by `xttcp topology`:

- real-nic: this machine's virtio_net NIC, read only (no packet is sent to it). Its per-queue
  packets and bytes come from netlink qstats, one row per kernel RX queue, and their sum lies
  between the device's sysfs totals read before and after.
- veth: a veth with 4 RX and 4 TX queues in a namespace made here. Where the kernel gives qstats
  for it, 4 queues from "netlink qstats"; where it refuses them (EOPNOTSUPP), the counters fall
  back to the driver's ETHTOOL_GSTATS names ("ethtool", 4 queues), and the case says so.

    qstats_test.py XTTCP [real-nic|veth]
"""
import json
import os
import shutil
import subprocess
import sys

from xttcp_e2e import SkipTest, check, run_cases, scratch_dir


def topology(argv, netns=None):
    prefix = ["ip", "netns", "exec", netns] if netns else []
    return subprocess.run(prefix + argv, capture_output=True, text=True, timeout=60)


def virtio_nic():
    for name in sorted(os.listdir("/sys/class/net")):
        driver = os.path.realpath(f"/sys/class/net/{name}/device/driver")
        if os.path.exists(f"/sys/class/net/{name}/device") and \
                os.path.basename(driver) == "virtio_net":
            return name
    return None


def rx_packets(name):
    with open(f"/sys/class/net/{name}/statistics/rx_packets") as f:
        return int(f.read())


def real_nic(xttcp, started):
    name = virtio_nic()
    if name is None:
        raise SkipTest("no virtio_net NIC on this machine")
    path = os.path.join(scratch_dir(), "qstats.json")
    before = rx_packets(name)
    done = topology([xttcp, "topology", "--nic", name, "--json", path])
    after = rx_packets(name)
    check(done.returncode == 0, f"exit {done.returncode}: {done.stderr}")
    counters = json.load(open(path))["nics"][0]["queue_counters"]
    why = counters.get("not_available", "") if isinstance(counters, dict) else ""
    if "EOPNOTSUPP" in why or "no netlink netdev family" in why:
        raise SkipTest(f"{name}: {why}")
    check(counters.get("source") == "netlink qstats", f"{name} queue counters: {counters}")
    rx_queues = len([q for q in os.listdir(f"/sys/class/net/{name}/queues")
                     if q.startswith("rx-")])
    queues = counters["queues"]
    check([q["queue"] for q in queues] == list(range(rx_queues)),
          f"queues {[q['queue'] for q in queues]}, the kernel has {rx_queues} RX queues")
    for q in queues:
        for key in ("rx_packets", "rx_bytes", "tx_packets", "tx_bytes"):
            check(isinstance(q[key], int), f"queue {q['queue']} {key}: {q[key]}")
        check(q["rx_bytes"] >= q["rx_packets"], f"queue {q['queue']}: fewer bytes than packets")
    total = sum(q["rx_packets"] for q in queues)
    check(before <= total <= after,
          f"qstats RX packets {total}, sysfs {before} before and {after} after")
    check("queue counters since boot (netlink qstats):" in done.stdout,
          f"the console does not show the qstats counters:\n{done.stdout}")
    lines = done.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if "queue counters since boot" in line)
    print("\n".join(lines[first:first + 2 + len(queues)]))


def veth(xttcp, started):
    if os.geteuid() != 0:
        raise SkipTest("not root: cannot create a network namespace")
    if shutil.which("ip") is None:
        raise SkipTest("no 'ip' program")
    netns = f"xttcp-qstats-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", netns], capture_output=True, text=True,
                          timeout=20)
    if made.returncode != 0:
        raise SkipTest(f"ip netns add refused: {made.stderr.strip()}")
    try:
        link = subprocess.run(
            ["ip", "-n", netns, "link", "add", "xq0", "numrxqueues", "4", "numtxqueues", "4",
             "type", "veth", "peer", "name", "xq1", "numrxqueues", "4", "numtxqueues", "4"],
            capture_output=True, text=True, timeout=20)
        if link.returncode != 0:
            raise SkipTest(f"no veth with 4 queues: {link.stderr.strip()}")
        path = os.path.join(scratch_dir(), "veth-qstats.json")
        done = topology([xttcp, "topology", "--nic", "xq0", "--json", path], netns=netns)
        check(done.returncode == 0, f"exit {done.returncode}: {done.stderr}")
        counters = json.load(open(path))["nics"][0]["queue_counters"]
        check("source" in counters, f"xq0 queue counters: {counters}")
        check([q["queue"] for q in counters["queues"]] == [0, 1, 2, 3],
              f"queues {counters['queues']}")
        check(f"queue counters since boot ({counters['source']}):" in done.stdout,
              f"console:\n{done.stdout}")
        if counters["source"] == "ethtool":
            print("xq0: the kernel gives no netlink qstats for veth; its ETHTOOL_GSTATS names "
                  "were read instead")
        else:
            check(counters["source"] == "netlink qstats", f"source {counters['source']}")
    finally:
        subprocess.run(["ip", "netns", "del", netns], capture_output=True, timeout=20)


if __name__ == "__main__":
    sys.exit(run_cases({"real-nic": real_nic, "veth": veth}))
