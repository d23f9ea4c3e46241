#!/usr/bin/env python3
"""The dpdk backend on DPDK virtual devices (no NIC, no hugepages): --no-huge EAL with a small
mbuf pool and a unique --file-prefix per process (xttcp adds xttcp-PID).

  dpdk_test.py XTTCP CASE     cases:
    null-tx      sender alone (-N) on net_null: datagrams sent > 0, bytes = datagrams x size,
                 the port's opackets agree
    ring-local   --local on one net_ring (a loopback: TX queue i comes back on RX queue i), with
                 sync: receiver gets every datagram sent, lost 0, no duplicates, no reordering
    ring-queues  the same with 2 workers a side on 2 queues and 4 flows
    bad-args     EAL and port failures end quickly with one line naming the option
    af-packet    dpdk sender (net_af_packet on a veth end in namespace b) -> kernel xttcp UDP
                 receiver (epoll) in namespace a, loss accounted by the receiver

Exit 0 pass, 1 fail, 77 skipped (dpdk not compiled in, not root, no netns/veth), with the reason.
"""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (Failure, Process, SkipTest, check, free_port_block,  # noqa: E402
                       load_json, run_test, scratch_dir)

EAL = "--no-huge --no-pci -m 256"
TIMEOUT = 60


def require_dpdk(xttcp):
    out = subprocess.run([xttcp, "backends"], capture_output=True, text=True, timeout=30).stdout
    for line in out.splitlines():
        if line.startswith("dpdk "):
            if " available " not in line:
                raise SkipTest("dpdk backend: " + line.split(None, 2)[2])
            return
    raise SkipTest("dpdk backend not listed by 'xttcp backends'")


def remove_runtime_dir(pid):
    """The EAL's runtime files (/var/run/dpdk/xttcp-PID or ~/.dpdk) outlive the process."""
    for path in glob.glob(f"/var/run/dpdk/xttcp-{pid}") + glob.glob(
            os.path.expanduser(f"~/.dpdk/xttcp-{pid}")):
        shutil.rmtree(path, ignore_errors=True)


def run(started, args, name, timeout=TIMEOUT, expect=0):
    p = Process(args, name)
    started.append(p)
    try:
        code = p.wait(timeout)
    finally:
        remove_runtime_dir(p.pid)
    if expect is not None:
        check(code == expect, f"{name} exited {code}, expected {expect}:\n{p.describe()}")
    return p


def dpdk_notes(result):
    return [n for n in result.get("notes", []) if n.startswith("dpdk: port")]


def stat(note, name):
    return int(note.split(name + " ", 1)[1].split(",")[0].split(" ")[0])


def null_tx(xttcp, started):
    out = os.path.join(scratch_dir(), "s.json")
    size = 64
    run(started, [xttcp, "-s", "10.9.9.9", "-a", "10.9.9.8", "-u", "-N", "-P", "1", "-n", "2",
                  "--threads", "1", "-b", str(size), "-t", "2", "-Q", "--json", out,
                  "--backend", "dpdk", "--dpdk-args", EAL + " --vdev net_null0",
                  "--peer-mac", "02:00:00:00:00:02"], "dpdk sender on net_null")
    result = load_json(out)
    udp = result["udp"]
    sent = udp["run"]["sent"]
    check(sent > 0, f"no datagram sent: {udp}")
    check(sum(f["sent"] for f in udp["flows"]) == sent and len(udp["flows"]) == 2,
          f"flows do not add up: {udp['flows']}")
    check(result["backend"] == "dpdk", f"backend is {result['backend']}")
    notes = dpdk_notes(result)
    check(len(notes) == 1, f"no rte_eth_stats note: {result.get('notes')}")
    # The port counts every frame of the worker's run: warm-up and the tail after the window too.
    check(stat(notes[0], "opackets") >= udp["window"]["datagrams"] > 0, f"{notes[0]} vs {udp}")
    check(stat(notes[0], "opackets") == sent, f"opackets vs sent {sent}: {notes[0]}")
    print(f"net_null: {sent} datagrams of {size} bytes sent; {notes[0]}")


def ring_local(xttcp, started, workers=1, ports=1, threads_per_port=1):
    out = os.path.join(scratch_dir(), "l.json")
    base = free_port_block(ports + 1) + 1  # the sync port (base - 1) is real loopback TCP
    run(started, [xttcp, "--local", "-u", "-P", str(ports), "-n", str(threads_per_port),
                  "-p", str(base), "--threads", str(workers), "-b", "512", "-t", "2", "-Q",
                  "--json", out, "--backend", "dpdk",
                  "--dpdk-args", EAL + " --vdev net_ring0", "--dpdk-port", "net_ring0"],
        "dpdk --local on net_ring0")
    result = load_json(out)
    sender = result["udp"]["run"]
    peer = result.get("peer") or {}
    check("udp" in peer, f"no receiver result in the sender's JSON: {list(result)}")
    received = peer["udp"]["run"]
    flows = threads_per_port * ports
    check(sender["sent"] > 0, f"nothing sent: {sender}")
    check(received["loss_source"] == "sender count", f"loss not from the sender count: {received}")
    check(received["sent"] == sender["sent"], f"sent counts differ: {sender} vs {received}")
    check(received["received"] == sender["sent"] and received["lost"] == 0,
          f"loss on a ring: sent {sender['sent']}, receiver {received}")
    check(received["duplicates"] == 0 and received["reordered"] == 0,
          f"duplicates or reordering on a ring: {received}")
    check(len(peer["udp"]["flows"]) == flows, f"{flows} flows expected: {peer['udp']['flows']}")
    for flow in peer["udp"]["flows"]:
        check(flow["payload"] == "native" and flow["lost"] == 0 and flow["sent"] == flow["received"],
              f"flow not exact: {flow}")
    print(f"net_ring --local, {workers} worker(s) a side: {sender['sent']} sent, "
          f"{received['received']} received, lost {received['lost']}")


def bad_args(xttcp, started):
    cases = [
        ([ "--dpdk-args", EAL + " --vdev net_nosuchpmd0"], "--dpdk-args"),
        (["--dpdk-args", EAL + " --vdev net_null0", "--dpdk-port", "net_ring7"], "--dpdk-port"),
        (["--dpdk-args", EAL + " --vdev net_null0", "--peer-mac", "02:00"], "--peer-mac"),
    ]
    for extra, option in cases:
        p = run(started, [xttcp, "-s", "10.9.9.9", "-u", "-N", "-P", "1", "-n", "1", "-b", "100",
                          "-t", "1", "--backend", "dpdk"] + extra, f"dpdk with {extra}",
                timeout=30, expect=None)
        check(p.proc.returncode != 0, f"{extra} was accepted:\n{p.describe()}")
        errors = [l for l in (p.stdout() + p.stderr()).splitlines() if option in l]
        check(errors, f"no error line naming {option}:\n{p.describe()}")
        print(f"{option}: {errors[0].strip()}")
    p = run(started, [xttcp, "-s", "10.9.9.9", "--backend", "dpdk", "-t", "1"], "dpdk TCP",
            timeout=30, expect=None)
    check(p.proc.returncode != 0 and "UDP only" in p.stdout() + p.stderr(),
          f"TCP on dpdk not refused:\n{p.describe()}")


def af_packet(xttcp, started):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e_netns"))
    from netns import VethPair  # noqa: E402
    with VethPair() as net:
        work = scratch_dir()
        r_json, s_json = os.path.join(work, "r.json"), os.path.join(work, "s.json")
        mac_a = open(f"/sys/class/net/{net.links['a']}/address").read().strip() \
            if os.path.exists(f"/sys/class/net/{net.links['a']}/address") else None
        if mac_a is None:
            mac_a = subprocess.run(net.exec_args("a", ["cat", f"/sys/class/net/{net.links['a']}/address"]),
                                   capture_output=True, text=True, timeout=10).stdout.strip()
        receiver = net.start("a", [xttcp, "-r", net.ipv4("a"), "-u", "-P", "1", "-t", "2", "-Q",
                                   "--backend", "epoll", "--json", r_json,
                                   "--wait-timeout", "30"], "kernel receiver")
        net.wait_listening(receiver, 5000)
        sender = net.start("b", [xttcp, "-s", net.ipv4("a"), "-a", net.ipv4("b"), "-u", "-P", "1",
                                 "-n", "1", "--threads", "1", "-b", "1000", "-B", "200m", "-t", "2",
                                 "-Q", "--json", s_json, "--backend", "dpdk", "--peer-mac", mac_a,
                                 "--dpdk-args",
                                 f"--no-huge --no-pci -m 256 --vdev net_af_packet0,iface={net.links['b']}"],
                           "dpdk sender on af_packet")
        try:
            for p in (sender, receiver):
                code = p.wait(TIMEOUT)
                check(code == 0, f"{p.name} exited {code}:\n{p.describe()}")
        finally:
            remove_runtime_dir(sender.pid)
        received = load_json(r_json)["udp"]["run"]
        sent = load_json(s_json)["udp"]["run"]["sent"]
        check(sent > 0 and received["received"] > 0, f"no traffic: sent {sent}, {received}")
        check(received["sent"] == sent, f"the receiver did not get the sender's count: {received}")
        check(received["received"] + received["lost"] == sent,
              f"sent {sent} != received + lost: {received}")
        print(f"af_packet -> kernel: sent {sent}, received {received['received']}, "
              f"lost {received['lost']}")


CASES = {
    "null-tx": null_tx,
    "ring-local": ring_local,
    "ring-queues": lambda x, s: ring_local(x, s, workers=2, ports=2, threads_per_port=2),
    "bad-args": bad_args,
    "af-packet": af_packet,
}


def main():
    xttcp = os.path.abspath(sys.argv[1])
    case = sys.argv[2]

    def body(started):
        if os.geteuid() != 0:
            raise SkipTest("DPDK's EAL needs root here (/var/run/dpdk, mlock)")
        require_dpdk(xttcp)
        CASES[case](xttcp, started)

    run_test(body)


if __name__ == "__main__":
    main()
