#!/usr/bin/env python3
"""The dpdk backend on DPDK virtual devices (no NIC, no hugepages): --no-huge EAL with a small
mbuf pool and a unique --file-prefix per process (xttcp adds xttcp-PID).

  dpdk_test.py XTTCP CASE     cases:
    null-tx      sender alone (-N) on net_null: datagrams sent > 0, bytes = datagrams x size,
                 the port's opackets agree
    ring-local   --local on one net_ring (a loopback: TX queue i comes back on RX queue i), with
                 sync: receiver gets every datagram sent, lost 0, no duplicates, no reordering
    ring-queues  the same with 2 workers a side on 2 queues and 4 flows
    ring-v6-jumbo  --local over IPv6 (::1) on net_ring with 8000-byte datagrams (jumbo frames):
                 exact counts
    bad-args     EAL and port failures, and a -b above one mbuf's room, end quickly with one
                 line naming the option
    no-neighbour the sender resolves the peer's MAC by ARP and nobody answers (net_null): one
                 line naming --peer-mac, within --connect-timeout
    af-packet    dpdk sender (net_af_packet on a veth end in namespace b), resolving the
                 receiver's MAC by ARP (no --peer-mac) -> kernel xttcp UDP receiver (epoll) in
                 namespace a: loss accounted by the receiver, no UDP checksum errors in its kernel
    af-packet-v6 the same over IPv6 (neighbour discovery)
    kernel-to-dpdk     kernel xttcp UDP sender (epoll) in namespace b -> dpdk receiver on
                 net_af_packet in namespace a; the kernel resolves the receiver's address by ARP,
                 answered by the dpdk receiver only (see below); sync on kernel TCP
    kernel-to-dpdk-v6  the same over IPv6 (neighbour solicitation answered by the receiver)
    kernel-to-dpdk-xdp the same on net_af_xdp (skipped with the reason where it does not load)
    rr-dpdk-to-kernel  --rr: a dpdk requester (net_af_packet in namespace b) times 64-byte UDP
                 transactions against a kernel responder (epoll) in namespace a
    rr-dpdk-to-kernel-v6  the same over IPv6 (the kernel resolves the requester by ND)
    rr-kernel-to-dpdk  --rr: a kernel requester (epoll) in namespace b against a dpdk responder
                 (net_af_packet in namespace a, the kernel-to-dpdk layout) holding every answer
                 --rr-delay-us: the requester's p50 is at least that delay
    count-dpdk-to-kernel  count mode (NTttcp for Windows' -n, token handshake): a dpdk sender on
                 net_af_packet sends exactly N datagrams per thread and its end markers; the
                 kernel receiver ends on them, long before -t, with received + lost = N per flow
    count-kernel-to-dpdk  the same from a kernel sender to a dpdk receiver (kernel-to-dpdk layout)
    describe-null  a sender with 2 workers on net_null: the native JSON's device.description has
                 the port's NUMA node, 2 configured queue pairs, its 128-entry indirection table
                 (each entry a configured queue) and why its key is unavailable (hash_key_size
                 0); -V prints the same
Every case that runs a dpdk port also checks its device.description: each RSS part is either
read or says "unavailable: <reason>"; the ring and af_packet cases check what those PMDs give
(no RETA, no key), and kernel-to-dpdk that the receiver's hello carried its port's reason.

kernel-to-dpdk layout: the receiver's address (10.215.0.1, fd00:215::1) lives on namespace a's
lo, so the kernel there accepts the sync TCP connection but never answers ARP/ND for it on the
data veth (arp_ignore=1; IPv6 answers only for addresses on the asking link). A second veth pair
carries the TCP sync (10.214.0.0/30); in namespace b a policy rule sends UDP to the receiver's
address over the data veth (ip rule ipproto udp), so the kernel must resolve it there.

Exit 0 pass, 1 fail, 77 skipped (dpdk not compiled in, not root, no netns/veth), with the reason.
"""
import glob
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (Failure, Process, SkipTest, check, free_port_block,  # noqa: E402
                       load_json, run_test, scratch_dir)

EAL = "--no-huge --no-pci -m 256"
TIMEOUT = 60


def require_dpdk(xttcp):
    out = subprocess.run([xttcp, "backends"], capture_output=True, text=True, timeout=30).stdout
    for line in out.splitlines():
        if line.split()[:1] == ["dpdk"]:
            if line.split()[1:2] != ["available"]:
                raise SkipTest("dpdk backend: " + out.split("dpdk", 1)[1].strip())
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


def exit_zero(*processes):
    """Each process ends (within TIMEOUT) with exit code 0, else the test fails showing it."""
    for p in processes:
        code = p.wait(TIMEOUT)
        check(code == 0, f"{p.name} exited {code}:\n{p.describe()}")


def dpdk_notes(result):
    return [n for n in result.get("notes", []) if n.startswith("dpdk: port")]


def stat(note, name):
    return int(note.split(name + " ", 1)[1].split(",")[0].split(" ")[0])


def check_description(device, queues, name):
    """device.description (what the port said at setup): the NUMA node or why not, the queues
    configured, and every RSS part read or 'unavailable: <reason>'. Returns it."""
    d = device.get("description")
    check(d is not None, f"{name}: no device.description: {device}")
    check((d["numa_node"] is None) == d["numa_unavailable"].startswith("unavailable: "),
          f"{name}: numa_node {d['numa_node']!r} / {d['numa_unavailable']!r}")
    check(d["rx_queues"] == d["tx_queues"] == queues, f"{name}: {queues} queue pairs expected: {d}")
    check(d["max_rx_queues"] >= queues and d["max_tx_queues"] >= queues, f"{name}: maxima: {d}")
    rss = d["rss"]
    check(rss["nic"] == device["device"] and rss["queues"] == queues, f"{name}: rss: {rss}")
    check(bool(rss["key"]) != rss["key_unavailable"].startswith("unavailable: "),
          f"{name}: key {rss['key']!r} / {rss['key_unavailable']!r}")
    if rss["key"]:
        check(len(rss["key"]) == 2 * d["hash_key_size"], f"{name}: key size: {d}")
    check(bool(rss["indirection"]) != rss["indirection_unavailable"].startswith("unavailable: "),
          f"{name}: indirection / {rss['indirection_unavailable']!r}")
    if rss["indirection"]:
        check(len(rss["indirection"]) == d["reta_size"] and
              all(0 <= q < queues for q in rss["indirection"]), f"{name}: indirection: {rss}")
    check(bool(rss["hash_fields"]) != rss["hash_fields_unavailable"].startswith("unavailable: "),
          f"{name}: hash fields: {rss}")
    return d


def describe_null(xttcp, started):
    out = os.path.join(scratch_dir(), "s.json")
    p = run(started, [xttcp, "-s", "10.9.9.9", "-a", "10.9.9.8", "-u", "-N", "-P", "1", "-n", "2",
                      "--threads", "2", "-b", "64", "-t", "1", "-V", "--json", out,
                      "--backend", "dpdk", "--dpdk-args", EAL + " --vdev net_null0",
                      "--peer-mac", "02:00:00:00:00:02"], "dpdk sender on net_null, 2 workers")
    device = load_json(out)["device"]
    d = check_description(device, 2, "net_null")
    # net_null (DPDK 22.11) keeps a 128-entry table and answers rte_eth_dev_rss_reta_query, but
    # reports no key size, so its key is not read.
    check(d["reta_size"] == 128 and len(d["rss"]["indirection"]) == 128,
          f"net_null's table: {d}")
    check(d["hash_key_size"] == 0 and "hash_key_size 0" in d["rss"]["key_unavailable"],
          f"net_null's key: {d['rss']}")
    check(d["rss_offloads"], f"net_null hashes some flow types: {d}")
    lines = [l for l in p.stdout().splitlines() if "device net_null0 (net_null)\t:" in l]
    check(lines and "queues rx 2 tx 2" in lines[0], f"-V prints no device line:\n{p.describe()}")
    check("indirection table (128 entries):" in p.stdout(), f"-V: no table:\n{p.describe()}")
    print(f"net_null: {lines[0]}; key {d['rss']['key_unavailable']}")


def null_tx(xttcp, started):
    out = os.path.join(scratch_dir(), "s.json")
    size = 64
    run(started, [xttcp, "-s", "10.9.9.9", "-a", "10.9.9.8", "-u", "-N", "-P", "1", "-n", "2",
                  "--threads", "1", "-b", str(size), "-W", "1", "-t", "2", "-Q", "--json", out,
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
    # The port over the measured window (read at the phase edges, not the workers' run).
    device = result.get("device")
    check(device and device["device"] == "net_null0" and device["direction"] == "tx",
          f"no device object: {device}")
    window = udp["window"]["datagrams"]
    check(0 < device["frames"] < sent, f"window frames {device['frames']} vs run {sent}")
    # Snapshots a few microseconds apart from the engine's flow counters: within 1 %.
    check(abs(device["frames"] - window) <= window / 100, f"device {device} vs window {window}")
    check(device["frame_bytes"] == device["frames"] * (42 + size), f"frame bytes: {device}")
    check(device["queues"][0]["tx_frames"] == device["frames"], f"queues: {device['queues']}")
    check(device["counters"]["opackets"] > 0 and "imissed" in device["counters"],
          f"counters: {device['counters']}")
    check(device["mpps"] > 0 and device["l1_gbps"] > device["l2_gbps"] > device["l4_gbps"] > 0
          and device["cycles_per_frame"] > 0, f"rates: {device}")
    check(any(n.startswith("dpdk: net_null0 (net_null) tx over the window") for n in
              result["notes"]), f"no window note: {result['notes']}")
    print(f"net_null: {sent} datagrams of {size} bytes sent; window {device['mpps']:.2f} Mpps, "
          f"{device['cycles_per_frame']:.0f} cycles/frame")


def ring_local(xttcp, started, workers=1, ports=1, threads_per_port=1, size=512, ipv6=False):
    out = os.path.join(scratch_dir(), "l.json")
    base = free_port_block(ports + 1) + 1  # the sync port (base - 1) is real loopback TCP
    run(started, [xttcp, "--local", "-u", "-P", str(ports), "-n", str(threads_per_port)]
        + (["-6"] if ipv6 else []) +
                 ["-p", str(base), "--threads", str(workers), "-b", str(size), "-t", "2", "-Q",
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
    device, peer_device = result.get("device"), peer.get("device")
    check(device and peer_device and peer_device["direction"] == "rx",
          f"no device objects: {device} / {peer_device}")
    check(len(device["queues"]) == workers, f"one queue pair per worker: {device['queues']}")
    for side in (device, peer_device):
        d = check_description(side, workers, f"net_ring0 ({side['direction']})")
        # net_ring (DPDK 22.11) has no RSS: no table, no key, no flow types.
        check(d["reta_size"] == 0 and d["rss_offloads"] == [] and
              "reta_size 0" in d["rss"]["indirection_unavailable"], f"net_ring's RSS: {d}")
    frame = (62 if ipv6 else 42) + size
    check(device["frame_bytes"] == device["frames"] * max(frame, 60), f"frame size: {device}")
    print(f"net_ring --local{' IPv6' if ipv6 else ''}, {workers} worker(s) a side, {size} B: "
          f"{sender['sent']} sent, {received['received']} received, lost {received['lost']}")


def bad_args(xttcp, started):
    cases = [
        ([ "--dpdk-args", EAL + " --vdev net_nosuchpmd0"], "--dpdk-args"),
        (["--dpdk-args", EAL + " --vdev net_null0", "--dpdk-port", "net_ring7"], "--dpdk-port"),
        (["--dpdk-args", EAL + " --vdev net_null0", "--peer-mac", "02:00"], "--peer-mac"),
        (["--dpdk-args", EAL + " --vdev net_null0", "--peer-mac", "02:00:00:00:00:01",
          "-b", "20000"], "-b 20000"),
    ]
    for extra, option in cases:
        b = [] if "-b" in extra else ["-b", "100"]
        p = run(started, [xttcp, "-s", "10.9.9.9", "-u", "-N", "-P", "1", "-n", "1"] + b +
                ["-t", "1", "--backend", "dpdk"] + extra, f"dpdk with {extra}",
                timeout=30, expect=None)
        check(p.proc.returncode != 0, f"{extra} was accepted:\n{p.describe()}")
        errors = [l for l in (p.stdout() + p.stderr()).splitlines() if option in l]
        check(errors, f"no error line naming {option}:\n{p.describe()}")
        print(f"{option}: {errors[0].strip()}")
    p = run(started, [xttcp, "-s", "10.9.9.9", "--backend", "dpdk", "-t", "1"], "dpdk TCP",
            timeout=30, expect=None)
    check(p.proc.returncode != 0 and "UDP only" in p.stdout() + p.stderr(),
          f"TCP on dpdk not refused:\n{p.describe()}")


def veth_pair():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e_netns"))
    from netns import VethPair  # noqa: E402
    return VethPair()


def sh(net, side, args, check_rc=True):
    done = subprocess.run(net.exec_args(side, args), capture_output=True, text=True, timeout=20)
    if check_rc and done.returncode != 0:
        raise Failure(f"{' '.join(args)} in namespace {side}: {done.stderr.strip()}")
    return done.stdout


def udp_checksum_errors(net, side):
    lines = [l.split() for l in sh(net, side, ["cat", "/proc/net/snmp"]).splitlines()
             if l.startswith("Udp:")]
    return int(lines[1][lines[0].index("InCsumErrors")])


def af_packet(xttcp, started, ipv6=False):
    with veth_pair() as net:
        work = scratch_dir()
        r_json, s_json = os.path.join(work, "r.json"), os.path.join(work, "s.json")
        target = net.ipv6("a") if ipv6 else net.ipv4("a")
        source = net.ipv6("b") if ipv6 else net.ipv4("b")
        v6 = ["-6"] if ipv6 else []
        receiver = net.start("a", [xttcp, "-r", target, "-u", "-P", "1", "-t", "2", "-Q"] + v6 +
                             ["--backend", "epoll", "--json", r_json, "--wait-timeout", "30"],
                             "kernel receiver")
        net.wait_listening(receiver, 5000, ipv6=ipv6)
        # No --peer-mac: the sender resolves the receiver's MAC (ARP / neighbour discovery).
        sender = net.start("b", [xttcp, "-s", target, "-a", source, "-u", "-P", "1", "-n", "1"] +
                           v6 + ["--threads", "1", "-b", "1000", "-B", "200m", "-t", "2",
                                 "-Q", "--json", s_json, "--backend", "dpdk", "--dpdk-args",
                                 f"{EAL} --vdev net_af_packet0,iface={net.links['b']}"],
                           "dpdk sender on af_packet")
        try:
            exit_zero(sender, receiver)
        finally:
            remove_runtime_dir(sender.pid)
        mac_a = sh(net, "a", ["cat", f"/sys/class/net/{net.links['a']}/address"]).strip()
        s_result = load_json(s_json)
        resolved = [n for n in s_result["notes"] if n.startswith(f"dpdk: {target} is at")]
        check(resolved and mac_a in resolved[0], f"not resolved to {mac_a}: {s_result['notes']}")
        received = load_json(r_json)["udp"]["run"]
        sent = s_result["udp"]["run"]["sent"]
        check(sent > 0 and received["received"] > 0, f"no traffic: sent {sent}, {received}")
        check(received["sent"] == sent, f"the receiver did not get the sender's count: {received}")
        check(received["received"] + received["lost"] == sent,
              f"sent {sent} != received + lost: {received}")
        # The kernel checks every UDP checksum (IPv6: mandatory); a bad one is counted here.
        errors = udp_checksum_errors(net, "a") if not ipv6 else None
        check(not errors, f"UDP checksum errors at the kernel receiver: {errors}")
        print(f"af_packet -> kernel{' IPv6' if ipv6 else ''}: {resolved[0]}; sent {sent}, "
              f"received {received['received']}, lost {received['lost']}")


def no_neighbour(xttcp, started):
    p = run(started, [xttcp, "-s", "10.9.9.9", "-a", "10.9.9.8", "-u", "-N", "-P", "1", "-n", "1",
                      "-b", "100", "-t", "1", "--connect-timeout", "1", "--backend", "dpdk",
                      "--dpdk-args", EAL + " --vdev net_null0"], "dpdk sender, nobody answers ARP",
            timeout=30, expect=None)
    errors = [l for l in (p.stdout() + p.stderr()).splitlines() if "--peer-mac" in l]
    check(p.proc.returncode != 0 and errors, f"no error naming --peer-mac:\n{p.describe()}")
    check("ARP" in errors[0] and "1000 ms" in errors[0], f"unclear: {errors[0]}")
    print(errors[0].strip())


RECEIVER4, RECEIVER6 = "10.215.0.1", "fd00:215::1"


def sanitizer_env():
    """Under ASan: LeakSanitizer ignores a leak inside DPDK's net_af_xdp PMD (lsan.supp)."""
    env = dict(os.environ)
    supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan.supp")
    env["LSAN_OPTIONS"] = ":".join(filter(None, [env.get("LSAN_OPTIONS"),
                                                 f"suppressions={supp}"]))
    return env


def control_link(net):
    """A second veth pair for the TCP sync; the receiver's address on namespace a's lo; policy
    routing in b: TCP to the receiver over the control link, UDP over the data veth."""
    pid_part = net.links["a"][2:-2]
    ctl = {s: f"xc{pid_part}{s}{net.number}"[:15] for s in "ab"}
    subprocess.run(["ip", "link", "add", "name", ctl["a"], "netns", net.namespaces["a"], "type",
                    "veth", "peer", "name", ctl["b"], "netns", net.namespaces["b"]],
                   check=True, timeout=20, capture_output=True)
    for side, n in (("a", 1), ("b", 2)):
        sh(net, side, ["ip", "addr", "add", f"10.214.0.{n}/30", "dev", ctl[side]])
        sh(net, side, ["ip", "-6", "addr", "add", f"fd00:214::{n}/64", "dev", ctl[side], "nodad"])
        sh(net, side, ["ip", "link", "set", ctl[side], "up"])
    sh(net, "a", ["ip", "addr", "add", f"{RECEIVER4}/32", "dev", "lo"])
    sh(net, "a", ["ip", "-6", "addr", "add", f"{RECEIVER6}/128", "dev", "lo", "nodad"])
    # The kernel in a must not answer ARP for the receiver's address on the data veth.
    sh(net, "a", ["sysctl", "-qw", f"net.ipv4.conf.{net.links['a']}.arp_ignore=1"])
    sh(net, "a", ["sysctl", "-qw", "net.ipv4.conf.all.arp_ignore=1"])
    sh(net, "b", ["ip", "route", "add", f"{RECEIVER4}/32", "via", "10.214.0.1"])
    sh(net, "b", ["ip", "-6", "route", "add", f"{RECEIVER6}/128", "via", "fd00:214::1"])
    for family, address in (("-4", RECEIVER4), ("-6", RECEIVER6)):
        code, err = subprocess.run(net.exec_args("b", ["ip", family, "rule", "add", "ipproto",
                                                       "udp", "to", address, "lookup", "100",
                                                       "pref", "100"]),
                                   capture_output=True, text=True, timeout=20).returncode, ""
        if code != 0:
            raise SkipTest("ip rule ipproto (policy routing by protocol) is not supported here")
        sh(net, "b", ["ip", family, "route", "add", address, "dev", net.links["b"], "table",
                      "100"])


def kernel_to_dpdk(xttcp, started, ipv6=False, pmd="af_packet"):
    with veth_pair() as net:
        control_link(net)
        work = scratch_dir()
        r_json, s_json = os.path.join(work, "r.json"), os.path.join(work, "s.json")
        target = RECEIVER6 if ipv6 else RECEIVER4
        v6 = ["-6"] if ipv6 else []
        link = net.links["a"]
        vdev = (f"net_af_packet0,iface={link}" if pmd == "af_packet"
                else f"net_af_xdp0,iface={link},start_queue=0,queue_count=1")
        receiver = net.start("a", [xttcp, "-r", target, "-u", "-P", "1", "-t", "2", "-Q"] + v6 +
                             ["--backend", "dpdk", "--json", r_json, "--wait-timeout", "30",
                              "--dpdk-args", f"{EAL} --vdev {vdev}"], f"dpdk receiver on {pmd}",
                             env=sanitizer_env())
        try:
            try:
                net.wait_listening(receiver, 5000, ipv6=ipv6, timeout=20)
            except Failure:
                if pmd == "af_xdp" and receiver.proc.poll() is not None:
                    out = (receiver.stdout() + receiver.stderr()).strip().splitlines()
                    raise SkipTest("net_af_xdp does not start on this veth: " +
                                   (out[-1] if out else f"exit {receiver.proc.returncode}"))
                raise
            # --udp-gso off: a veth hands a GSO packet to the other end whole, and a raw-frame
            # receiver sees one oversized frame, not the datagrams a NIC would put on the wire.
            sender = net.start("b", [xttcp, "-s", target, "-u", "-P", "1", "-n", "2"] + v6 +
                               ["-b", "1000", "-B", "100m", "-t", "2", "-Q", "--backend",
                                "epoll", "--udp-gso", "off", "--json", s_json], "kernel sender")
            exit_zero(sender, receiver)
        finally:
            remove_runtime_dir(receiver.pid)
        r_result = load_json(r_json)
        received = r_result["udp"]["run"]
        sent = load_json(s_json)["udp"]["run"]["sent"]
        check(sent > 0 and received["received"] > 0,
              f"no traffic: sent {sent}, {received}; receiver notes: {r_result['notes']}")
        check(received["loss_source"] == "sender count" and received["sent"] == sent,
              f"the receiver did not get the sender's count {sent}: {received}")
        check(received["received"] + received["lost"] == sent,
              f"sent {sent} != received + lost: {received}")
        check(received["duplicates"] == 0, f"duplicates: {received}")
        check(len(r_result["udp"]["flows"]) == 2, f"2 flows expected: {r_result['udp']['flows']}")
        # The kernel resolved the receiver through the receiver's own answer.
        word = "neighbour solicitation" if ipv6 else "ARP request"
        answered = [n for n in r_result["notes"] if n.startswith(f"dpdk: answered")]
        check(answered and word in answered[0], f"the receiver answered no {word}: "
              f"{r_result['notes']}")
        mac_a = sh(net, "a", ["cat", f"/sys/class/net/{link}/address"]).strip()
        neighbour = sh(net, "b", ["ip"] + v6 + ["neigh", "show", target, "dev", net.links["b"]])
        check(mac_a in neighbour, f"namespace b's neighbour entry for {target}: {neighbour!r}, "
              f"expected {mac_a}")
        device = r_result.get("device")
        check(device and device["direction"] == "rx" and device["frames"] > 0,
              f"device: {device}")
        d = check_description(device, 1, f"net_{pmd}0")
        # Its hello carried the port's RSS, or why the port has none (net_af_packet and
        # net_af_xdp report no indirection table): not the kernel's lo, where the address lives.
        why = load_json(s_json).get("source_ports", {}).get("why", "")
        if d["rss"]["key"] and d["rss"]["indirection"]:
            check(load_json(s_json)["source_ports"]["nic"] == device["device"],
                  f"the sender did not use the port's RSS: {why}")
        else:
            check(f"{device['device']}: " in why and "unavailable" in why,
                  f"the receiver's hello did not say why its port has no RSS: {why!r}")
        print(f"{device['device']}: NUMA node {d['numa_node']}; RSS types {d['rss_offloads']}; "
              f"the sender's source ports: {why}")
        print(f"kernel -> dpdk on {pmd}{' IPv6' if ipv6 else ''}: sent {sent}, received "
              f"{received['received']}, lost {received['lost']}; {answered[0]}; {neighbour.strip()}")


RR_DELAY_US = 5000


def check_rr_pair(requester, responder, delay_us=0):
    """The requester timed transactions (ordered percentiles, a histogram of exactly them) and
    the responder answered about as many (two windows with their own edges)."""
    rr, answered = requester["rr"], responder["rr"]
    latency = rr["latency"]
    check(rr["transactions"] > 0 and answered["transactions"] > 0,
          f"no transactions: requester {rr}, responder {answered}; notes: "
          f"{requester['notes']} / {responder['notes']}")
    keys = ["p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "max_ns"]
    check(latency["p50_ns"] > 0 and [latency[k] for k in keys] == sorted(latency[k] for k in keys),
          f"percentiles not ordered: {latency}")
    check(sum(c for _, c in rr["histogram"]["buckets"]) == latency["count"],
          "histogram != latency count")
    check(abs(answered["transactions"] - rr["transactions"]) <= 0.25 * rr["transactions"],
          f"responder {answered['transactions']} vs requester {rr['transactions']}")
    if delay_us:
        check(latency["p50_ns"] >= delay_us * 1000,
              f"p50 {latency['p50_ns']} ns with answers held {delay_us} us")
    return rr


def rr_dpdk_to_kernel(xttcp, started, ipv6=False):
    with veth_pair() as net:
        work = scratch_dir()
        r_json, s_json = os.path.join(work, "r.json"), os.path.join(work, "s.json")
        target = net.ipv6("a") if ipv6 else net.ipv4("a")
        source = net.ipv6("b") if ipv6 else net.ipv4("b")
        v6 = ["-6"] if ipv6 else []
        receiver = net.start("a", [xttcp, "-r", target, "-u", "--rr", "-P", "1", "-t", "2", "-Q",
                                   "--backend", "epoll", "--json", r_json, "--wait-timeout",
                                   "30"] + v6, "kernel responder")
        net.wait_listening(receiver, 5000, ipv6=ipv6)
        sender = net.start("b", [xttcp, "-s", target, "-a", source, "-u", "--rr", "-P", "1"] + v6 +
                           ["-n", "1", "--threads", "1", "-b", "64", "-t", "2", "-Q",
                                 "--json", s_json, "--backend", "dpdk", "--dpdk-args",
                                 f"{EAL} --vdev net_af_packet0,iface={net.links['b']}"],
                           "dpdk requester on af_packet")
        try:
            exit_zero(sender, receiver)
        finally:
            remove_runtime_dir(sender.pid)
        requester = load_json(s_json)
        check(requester["backend"] == "dpdk", f"backend {requester['backend']}")
        rr = check_rr_pair(requester, load_json(r_json))
        print(f"dpdk requester -> kernel responder{' IPv6' if ipv6 else ''}: "
              f"{rr['transactions']} transactions, "
              f"p50 {rr['latency']['p50_ns'] / 1e3:.1f} us, p99 {rr['latency']['p99_ns'] / 1e3:.1f} us")


def rr_kernel_to_dpdk(xttcp, started):
    with veth_pair() as net:
        control_link(net)
        work = scratch_dir()
        r_json, s_json = os.path.join(work, "r.json"), os.path.join(work, "s.json")
        receiver = net.start("a", [xttcp, "-r", RECEIVER4, "-u", "--rr", "-P", "1", "-t", "2",
                                   "-Q", "--rr-delay-us", str(RR_DELAY_US), "--backend", "dpdk",
                                   "--json", r_json, "--wait-timeout", "30", "--dpdk-args",
                                   f"{EAL} --vdev net_af_packet0,iface={net.links['a']}"],
                             "dpdk responder on af_packet", env=sanitizer_env())
        try:
            net.wait_listening(receiver, 5000, timeout=20)
            sender = net.start("b", [xttcp, "-s", RECEIVER4, "-u", "--rr", "-P", "1", "-n", "1",
                                     "-b", "64", "-t", "2", "-Q", "--backend", "epoll",
                                     "--json", s_json], "kernel requester")
            exit_zero(sender, receiver)
        finally:
            remove_runtime_dir(receiver.pid)
        responder = load_json(r_json)
        check(responder["backend"] == "dpdk", f"backend {responder['backend']}")
        rr = check_rr_pair(load_json(s_json), responder, delay_us=RR_DELAY_US)
        answered = [n for n in responder["notes"] if n.startswith("dpdk: answered")]
        check(answered and "ARP request" in answered[0],
              f"the responder answered no ARP request: {responder['notes']}")
        print(f"kernel requester -> dpdk responder (answers held {RR_DELAY_US} us): "
              f"{rr['transactions']} transactions, p50 {rr['latency']['p50_ns'] / 1e3:.1f} us")


COUNT_BUFFERS, COUNT_LENGTH, COUNT_THREADS = 3000, 1000, 2


def windows_count(xttcp, role, target, base, *extra):
    """NTttcp for Windows' line for a UDP count-mode run: -n N buffers of -l bytes per thread,
    bounded by -t 60 (a run that waited for it fails the test's 60-second wait). A sender sends
    xttcp's header (after the token handshake it would assume an NTttcp receiver and send 'B's,
    which tell no loss): its end markers then carry each flow's count."""
    sender = ["--udp-payload", "native"] if role == "-s" else []
    return [xttcp, "--dialect", "windows", role, "-u", "-m", f"{COUNT_THREADS},*,{target}",
            "-p", str(base), "-n", str(COUNT_BUFFERS), "-l", str(COUNT_LENGTH), "-t", "60",
            *sender, *extra]


def check_count_pair(r_result, s_result, began):
    """Both ends of a count-mode run: exactly N x -l per thread sent, every flow's received +
    lost = N (the end marker's count), the receiver's bytes only data, both ended by themselves."""
    elapsed = time.monotonic() - began
    check(elapsed < 30, f"count mode took {elapsed:.1f} s: it waited for -t instead of ending")
    sent = s_result["udp"]["run"]["sent"]
    check(sent == COUNT_BUFFERS * COUNT_THREADS, f"sender: {sent} datagrams, not N x threads")
    check(s_result["summary"]["total_bytes"] == sent * COUNT_LENGTH,
          f"sender: {s_result['summary']['total_bytes']} bytes for {sent} datagrams")
    received = r_result["udp"]["run"]
    check(0 < received["received"] <= sent, f"receiver: {received}")
    check(r_result["summary"]["total_bytes"] == received["received"] * COUNT_LENGTH,
          f"receiver: {r_result['summary']['total_bytes']} bytes for {received['received']} "
          "datagrams (end markers counted as data?)")
    flows = r_result["udp"]["flows"]
    check(len(flows) == COUNT_THREADS, f"{COUNT_THREADS} flows expected: {flows}")
    for flow in flows:
        check(flow["payload"] == "native", f"flow {flow}: not xttcp's header")
        check(flow["received"] + flow["lost"] == COUNT_BUFFERS,
              f"flow {flow['flow']}: received {flow['received']} + lost {flow['lost']} != N; "
              f"flows {flows}; receiver notes {r_result['notes']}")
    return received


def count_dpdk_to_kernel(xttcp, started):
    with veth_pair() as net:
        work = scratch_dir()
        r_json, s_json = os.path.join(work, "r.json"), os.path.join(work, "s.json")
        target, source = net.ipv4("a"), net.ipv4("b")
        base = 5000
        receiver = net.start("a", windows_count(xttcp, "-r", target, base, "--backend", "epoll",
                                                "--json", r_json), "kernel receiver")
        net.wait_listening(receiver, base + 1000)  # the token port: the receiver is up
        began = time.monotonic()
        sender = net.start("b", windows_count(xttcp, "-s", target, base, "-nic", source,
                                              "--threads", "1", "--json", s_json, "--backend",
                                              "dpdk", "--dpdk-args",
                                              f"{EAL} --vdev net_af_packet0,iface={net.links['b']}"),
                           "dpdk sender on af_packet")
        try:
            exit_zero(sender, receiver)
        finally:
            remove_runtime_dir(sender.pid)
        s_result = load_json(s_json)
        check(s_result["backend"] == "dpdk", f"backend {s_result['backend']}")
        received = check_count_pair(load_json(r_json), s_result, began)
        print(f"count mode, dpdk sender -> kernel receiver: {s_result['udp']['run']['sent']} "
              f"sent, {received['received']} received, lost {received['lost']}, "
              f"{time.monotonic() - began:.1f} s")


def count_kernel_to_dpdk(xttcp, started):
    with veth_pair() as net:
        control_link(net)
        work = scratch_dir()
        r_json, s_json = os.path.join(work, "r.json"), os.path.join(work, "s.json")
        base = 5000
        receiver = net.start("a", windows_count(xttcp, "-r", RECEIVER4, base, "--threads", "1",
                                                "--backend", "dpdk", "--json", r_json,
                                                "--dpdk-args", f"{EAL} --vdev "
                                                f"net_af_packet0,iface={net.links['a']}"),
                             "dpdk receiver on af_packet", env=sanitizer_env())
        try:
            net.wait_listening(receiver, base + 1000, timeout=20)
            began = time.monotonic()
            # --udp-gso off: a raw-frame receiver would see a GSO packet as one oversized frame.
            # -thr 4000 (KB/s a thread, ~8,000 datagrams/s in all): the af_packet ring the
            # receiver polls holds a few hundred ms of it while a loaded machine holds its poller
            # back, so the flows' datagrams and end markers are not all dropped there.
            sender = net.start("b", windows_count(xttcp, "-s", RECEIVER4, base, "--backend",
                                                  "epoll", "--udp-gso", "off", "-thr", "4000",
                                                  "--json", s_json), "kernel sender")
            exit_zero(sender, receiver)
        finally:
            remove_runtime_dir(receiver.pid)
        r_result = load_json(r_json)
        check(r_result["backend"] == "dpdk", f"backend {r_result['backend']}")
        received = check_count_pair(r_result, load_json(s_json), began)
        print(f"count mode, kernel sender -> dpdk receiver: {received['received']} received, "
              f"lost {received['lost']}, {time.monotonic() - began:.1f} s")


CASES = {
    "null-tx": null_tx,
    "ring-local": ring_local,
    "ring-queues": lambda x, s: ring_local(x, s, workers=2, ports=2, threads_per_port=2),
    "ring-v6-jumbo": lambda x, s: ring_local(x, s, size=8000, ipv6=True),
    "bad-args": bad_args,
    "no-neighbour": no_neighbour,
    "af-packet": af_packet,
    "af-packet-v6": lambda x, s: af_packet(x, s, ipv6=True),
    "kernel-to-dpdk": kernel_to_dpdk,
    "kernel-to-dpdk-v6": lambda x, s: kernel_to_dpdk(x, s, ipv6=True),
    "kernel-to-dpdk-xdp": lambda x, s: kernel_to_dpdk(x, s, pmd="af_xdp"),
    "rr-dpdk-to-kernel": rr_dpdk_to_kernel,
    "rr-dpdk-to-kernel-v6": lambda x, s: rr_dpdk_to_kernel(x, s, ipv6=True),
    "rr-kernel-to-dpdk": rr_kernel_to_dpdk,
    "count-dpdk-to-kernel": count_dpdk_to_kernel,
    "count-kernel-to-dpdk": count_kernel_to_dpdk,
    "describe-null": describe_null,
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
