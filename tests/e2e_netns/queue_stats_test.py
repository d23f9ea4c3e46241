"""Per-queue truth over the measured window (docs/topology.md, issue 14) on a veth pair whose
ends have 4 queues each (numrxqueues 4). A veth counts per RX queue only on its NAPI path, so
the receiving end has GRO on and the sending end TSO off (veth hands TSO packets to NAPI only
with GRO forwarding on). The receiver's native result must carry queue_window with 4 queues
whose RX bytes add up to the test's bytes in order of magnitude, an imbalance figure, NET_RX
softirqs per CPU, the reason there are no queue IRQs (a veth has none) and each online CPU's
busy shares (/proc/stat: shares in [0, 1] that add up, at least one CPU busy while the test ran,
the busiest named); -V prints them.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from netns import Interrupted, VethPair  # noqa: E402
from xttcp_e2e import Failure, SkipTest, check, load_json, scratch_dir  # noqa: E402


def online_cpus():
    """The ids of /proc/stat's cpuN lines: the CPUs online now."""
    with open("/proc/stat") as f:
        return {int(line.split()[0][3:]) for line in f
                if line.startswith("cpu") and line.split()[0][3:].isdigit()}


def check_cpus(w):
    cpus = w.get("cpus")
    check(cpus and w["cpus_unavailable"] == "",
          f"no CPUs in queue_window: {w.get('cpus_unavailable')!r}")
    ids = [c["cpu"] for c in cpus]
    # By the kernel's ids, in order, each once; nothing here takes a CPU offline.
    check(ids == sorted(set(ids)) and set(ids) <= online_cpus(),
          f"CPU ids {ids}, online now {sorted(online_cpus())}")
    shares = ("busy", "user", "system", "irq", "softirq", "steal")
    for c in cpus:
        for key in shares:
            check(0.0 <= c[key] <= 1.0, f"cpu{c['cpu']} {key} {c[key]} outside [0, 1]")
        parts = c["user"] + c["system"] + c["irq"] + c["softirq"] + c["steal"]
        check(abs(c["busy"] - parts) < 1e-9, f"cpu{c['cpu']}: busy {c['busy']} is not {parts}")
        check(isinstance(c["ticks"], int) and c["ticks"] >= 0, f"cpu{c['cpu']} ticks {c['ticks']}")
    # Two xttcp moved data for 2 s: some CPU was busy, and the busiest is named.
    check(any(c["busy"] > 0 for c in cpus), f"no CPU busy over the window: {cpus}")
    busiest = w["busiest_cpu"]
    check(busiest in ids, f"busiest_cpu {busiest} is not among {ids}")
    most = max(c["busy"] for c in cpus)
    check(next(c for c in cpus if c["cpu"] == busiest)["busy"] == most,
          f"busiest_cpu {busiest} is not the busiest: {cpus}")


def body(xttcp):
    out = scratch_dir()
    with VethPair(queues=4) as net:
        net.set_feature("a", "gro", True)
        net.set_feature("b", "tso", False)
        base = 5001
        native = os.path.join(out, "r.json")
        receiver = net.start("a", [xttcp, "-r", net.ipv4("a"), "-P", "2", "-p", str(base), "-t",
                                   "2", "-V", "--json", native], "receiver")
        net.wait_listening(receiver, base - 1)
        sender = net.start("b", [xttcp, "-s", net.ipv4("a"), "-P", "2", "-n", "4", "-p",
                                 str(base), "-t", "2", "-Q"], "sender")
        try:
            check(sender.wait(60) == 0, "the sender failed")
            check(receiver.wait(60) == 0, "the receiver failed")
        except Failure:
            print(receiver.describe())
            print(sender.describe())
            raise
        doc = load_json(native)
        w = doc.get("queue_window")
        check(w is not None, "no queue_window in the receiver's result")
        check(w["nic"] == net.links["a"] and w["driver"] == "veth", f"nic {w['nic']} {w['driver']}")
        check([q["queue"] for q in w["queues"]] == [0, 1, 2, 3],
              f"queues {w['queues']} ({w['queues_unavailable']})")
        # veth gives no netlink qstats (EOPNOTSUPP): its ETHTOOL_GSTATS names are read.
        check(w["queues_source"] in ("ethtool", "netlink qstats"),
              f"queues_source {w['queues_source']!r}")
        rx_bytes = sum(q["rx_bytes"] for q in w["queues"])
        rx_packets = sum(q["rx_packets"] for q in w["queues"])
        total = doc["summary"]["total_bytes"]
        check(total > 0, "no bytes received")
        # Headers add a few percent; the queue counters and the byte count are read at the same
        # window edges, so they agree in order of magnitude.
        check(total / 2 <= rx_bytes <= total * 2,
              f"queues received {rx_bytes} bytes, the test {total}")
        check(rx_packets > 0 and rx_bytes / rx_packets <= 70000, "bytes per packet out of range")
        check(all(q["tx_packets"] is None for q in w["queues"]), "a veth counts no TX per queue")
        check(w["rx_imbalance"] is not None and 1.0 <= w["rx_imbalance"] <= 4.0,
              f"rx imbalance {w['rx_imbalance']}")
        check(w["irqs"] == [] and "virtual interface" in w["irqs_unavailable"],
              f"irqs {w['irqs']} {w['irqs_unavailable']}")
        cpus = os.cpu_count()
        check(len(w["net_rx_softirqs"]) == cpus and sum(w["net_rx_softirqs"]) > 0,
              f"NET_RX softirqs {w['net_rx_softirqs']} for {cpus} CPUs")
        check_cpus(w)
        console = receiver.stdout()
        check(f"queues of {net.links['a']} (veth)" in console, "-V prints no queue lines")
        print("\n".join(line for line in console.splitlines()
                        if "queues of" in line or "\t 0\t" in line or "\t 1\t" in line
                        or "\t 2\t" in line or "\t 3\t" in line or "softirqs" in line
                        or "queue IRQ" in line or "CPU busy" in line or "\t cpu\t" in line))
        busiest = w["busiest_cpu"]
        check(f"CPU busy\t: busiest cpu{busiest} " in console, "-V prints no CPU busy line")


def main():
    if len(sys.argv) < 2:
        print("usage: queue_stats_test.py XTTCP", file=sys.stderr)
        return 2
    try:
        body(os.path.abspath(sys.argv[1]))
    except SkipTest as skip:
        print(f"SKIP: {skip}")
        return 77
    except Failure as failure:
        print(f"FAIL: {failure}")
        return 1
    except Interrupted as stop:
        print(f"FAIL: {stop}")
        return 128 + stop.signal_number
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
