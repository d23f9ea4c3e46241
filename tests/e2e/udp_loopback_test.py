#!/usr/bin/env python3
"""UDP on loopback (docs/udp.md).

1. Injected disorder: a sender written here puts xttcp's native header on datagrams and drops,
   reorders and duplicates known ones on purpose; the xttcp receiver (-N) must report exactly
   that: lost from the sequence gaps, reordered, duplicates. (netem, which would inject them in
   the kernel, is tested across a veth pair in tests/e2e_netns when the machine has it.)
2. xttcp to xttcp with sync, IPv4 and IPv6: the receiver's loss comes from the sender's count and
   adds up: sent = received + lost; both ends agree on the sent count."""
import os
import socket
import struct
import time

from xttcp_e2e import (scratch_dir, Process, check, free_port_block, load_json, run_test,
                       wait_listening, wait_udp_bound, xttcp_binary)

MAGIC = 0x58545544


def native(flow, seq, payload=200):
    header = struct.pack("!IBBHIIQ", MAGIC, 1, 0, 0, flow, seq, time.monotonic_ns())
    return header + b"x" * (payload - len(header))


def injected_disorder(xttcp, started):
    base = free_port_block(1)
    out = os.path.join(scratch_dir(), "r.json")
    # -t 10: the window (from the first datagram) must outlast this Python sender on a busy
    # machine (3 s did not, under CI's parallel builds: 3,521 of 3,921 in; it needs ~0.1 s idle).
    receiver = Process([xttcp, "-r", "127.0.0.1", "-u", "-N", "-P", "1", "-p", str(base), "-t", "10",
                        "-Q", "--json", out, "--wait-timeout", "20"], "udp receiver")
    started.append(receiver)
    wait_udp_bound(base)

    count, flow = 4000, 0x00700005
    order = list(range(count))
    dropped = set(range(49, count - 1, 50))  # 2 %, never the last one (tail loss is invisible)
    swaps = list(range(10, count - 10, 400))  # seq k+1 goes out before k
    for k in swaps:
        order[k], order[k + 1] = order[k + 1], order[k]
    duplicated = set(range(7, count, 1000))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect(("127.0.0.1", base))
    sent = 0
    for seq in order:
        if seq in dropped:
            continue
        sock.send(native(flow, seq))
        if seq in duplicated:
            sock.send(native(flow, seq))
        sent += 1
        if sent % 200 == 0:
            time.sleep(0.002)  # gentle: loopback must not drop any by itself
    sock.close()
    check(receiver.wait(30) == 0, "the UDP receiver failed")
    udp = load_json(out)["udp"]
    run = udp["run"]
    check(udp["payload"] == "native", f"payload {udp['payload']}")
    check(run["loss_source"] == "sequence gaps", f"loss_source {run['loss_source']}")
    check(run["received"] == count - len(dropped), f"received {run['received']} != {count - len(dropped)}")
    check(run["lost"] == len(dropped), f"lost {run['lost']} != injected {len(dropped)}")
    check(run["reordered"] == len(swaps), f"reordered {run['reordered']} != injected {len(swaps)}")
    check(run["duplicates"] == len(duplicated), f"duplicates {run['duplicates']} != {len(duplicated)}")
    check(abs(run["loss_percent"] - 100.0 * len(dropped) / count) < 1e-6, "loss_percent")
    flows = [f for f in udp["flows"] if f["flow"] == flow]
    check(len(flows) == 1 and flows[0]["lost"] == len(dropped), f"per-flow figures: {udp['flows']}")


def xttcp_pair(xttcp, started, ipv6, receiver_extra=(), sender_extra=(), size=1200):
    base = free_port_block(3, ipv6=ipv6)
    d = scratch_dir()
    host = "::1" if ipv6 else "127.0.0.1"
    family = ["-6"] if ipv6 else []
    common = ["-u", "-m", f"2,*,{host}", "-p", str(base), "-t", "2", "-Q", *family]
    receiver = Process([xttcp, "-r", *common, *receiver_extra, "--json", os.path.join(d, "r.json"),
                        "--wait-timeout", "20"], "udp receiver")
    started.append(receiver)
    wait_listening(base - 1, ipv6=ipv6)
    sender = Process([xttcp, "-s", host, *common, *sender_extra, "-b", str(size), "-B", "400M",
                      "--json", os.path.join(d, "s.json")], "udp sender")
    started.append(sender)
    check(sender.wait(30) == 0, f"sender failed:\n{sender.stdout()}\n{sender.stderr()}")
    check(receiver.wait(30) == 0, f"receiver failed:\n{receiver.stdout()}\n{receiver.stderr()}")
    r, s = load_json(os.path.join(d, "r.json")), load_json(os.path.join(d, "s.json"))
    ru, su = r["udp"], s["udp"]
    check(su["payload"] == "native", f"an xttcp receiver must get native datagrams: {su['payload']}")
    check(ru["run"]["loss_source"] == "sender count", f"loss_source {ru['run']['loss_source']}")
    check(ru["run"]["sent"] == su["run"]["sent"] > 0, "the two ends disagree on datagrams sent")
    check(ru["run"]["sent"] == ru["run"]["received"] + ru["run"]["lost"], "sent != received + lost")
    check(ru["run"]["received"] > 0 and ru["window"]["pps"] > 0, "nothing received")
    check(ru["datagram_size"] == size, f"mean datagram size {ru['datagram_size']}")
    check(len(r["intervals"]) >= 2 and "lost" in r["intervals"][0], "UDP interval figures missing")
    check("datagrams" in receiver.stdout() and "lost" in receiver.stdout(), "console lacks UDP lines")
    check(s["peer"]["udp"]["run"]["lost"] == ru["run"]["lost"], "the sender did not get the loss")
    return r


def hold_mode(xttcp, started):
    """-H: one receiver serves two senders in turn; each test's loss covers that test's flows
    only, and the offloads are still reported without per-test worker reports."""
    base = free_port_block(2)
    d = scratch_dir()
    common = ["-u", "-P", "1", "-p", str(base), "-t", "1", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", "-H", *common], "udp -H receiver")
    started.append(receiver)
    wait_listening(base - 1)
    for test in (1, 2):
        out = os.path.join(d, f"s{test}.json")
        sender = Process([xttcp, "-s", "127.0.0.1", *common, "-n", "2", "-b", "1200", "-B", "200M",
                          "--json", out], f"udp sender {test}")
        started.append(sender)
        check(sender.wait(30) == 0, f"sender {test} failed:\n{sender.stderr()}")
        s = load_json(out)
        peer = s["peer"]["udp"]
        check(peer["run"]["sent"] == s["udp"]["run"]["sent"] > 0, f"test {test}: sent counts differ")
        check(peer["run"]["received"] + peer["run"]["lost"] == peer["run"]["sent"],
              f"test {test}: received + lost != sent: {peer['run']}")
        check(len(peer["flows"]) == 2, f"test {test}: the receiver reports {len(peer['flows'])} "
              "flows, not this sender's 2")
        check(peer["gro"] == (s["peer"]["spec"]["udp_gro"]), f"test {test}: gro {peer['gro']}")


def body(started):
    xttcp = xttcp_binary()
    injected_disorder(xttcp, started)
    hold_mode(xttcp, started)
    xttcp_pair(xttcp, started, ipv6=False)
    xttcp_pair(xttcp, started, ipv6=True)
    # Large datagrams GRO cannot coalesce: the receiver (copying nothing by default) drops
    # GRO on that socket and reads headers only; the counts must not change.
    r = xttcp_pair(xttcp, started, ipv6=False, size=60000)
    if r["spec"]["skip_rx_copy"]:
        check(any("arrive uncoalesced" in n for n in r["notes"]),
              f"no switch to header-only reads for 60000-byte datagrams: {r['notes']}")
    # Without GSO and GRO: sendmmsg batches, one datagram per buffer, header-only reads.
    xttcp_pair(xttcp, started, ipv6=False, receiver_extra=["--udp-gro=off"],
               sender_extra=["--udp-gso=off"])


run_test(body)
