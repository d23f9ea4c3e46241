#!/usr/bin/env python3
"""The iperf3 dialect's UDP (-u) on loopback, against Debian's iperf3 3.12 both ways and between
xttcp's own ends: the streams' hellos on the test's port, iperf3's datagram head (32- and 64-bit
sequence numbers), -P 4, -R, the rate per stream (-b). Each test's totals agree within 2 %
(paced well below what loopback carries, so a loaded machine loses none to speak of), the
UDP figures a consumer reads are there (jitter_ms, lost_packets), and xttcp's -J has the keys of
3.12's for the same test, read by one reader. A stranger's datagram on the server's UDP port
makes no stream. --bidir -P 4 both ways: each direction's totals agree, under 3.12's names for
each. Cases: from-iperf3 (a real client, xttcp's server), to-iperf3 (xttcp's client, a real
server), bidir, xttcp-both, json-as-iperf3s, strangers.
Exits 77 when /usr/bin/iperf3 is missing (scripts/install-deps.sh installs the iperf3 package)."""
import json
import socket

from iperf3_client_test import both_documents, check_against_iperf3, iperf3_server, xttcp_client
from iperf3_peer_test import (bidir_totals, check_test, client, need_iperf3, read_exactly,
                              server, summary_sum_bytes)
from xttcp_e2e import check, run_cases, within

RATE = ["-b", "20M", "-w", "1M"]  # per stream; socket buffers that ride out a busy host


def udp_figures(doc, streams):
    """The UDP fields a consumer reads, there and sane: each stream's and the sums'."""
    end = doc["end"]
    check(len(end["streams"]) == streams and all("udp" in s for s in end["streams"]),
          f"not {streams} UDP streams in end: {end['streams']}")
    for name in ("sum", "sum_received"):
        s = end[name]
        check(s["jitter_ms"] >= 0 and 0 <= s["lost_packets"] <= s["packets"],
              f"{name}: jitter {s['jitter_ms']}, lost {s['lost_packets']} of {s['packets']}")
    check(end["sum_received"]["lost_percent"] < 2,
          f"{end['sum_received']['lost_percent']} % lost at a paced rate")
    check(all("packets" in i["sum"] for i in doc["intervals"]), "intervals without packets")


def from_iperf3(xttcp, started):
    """A real `iperf3 -c -u` against xttcp's server: -P 4, then -R -P 2 with 64-bit counters."""
    need_iperf3()
    s, port = server(xttcp, started)
    for args, streams, tail in ((["-P", "4"], 4, "receiver"),
                                (["-R", "-P", "2", "--udp-counters-64bit"], 2, "sender")):
        code, doc = client(port, "-u", "-t", "2", *RATE, *args)
        check(code == 0, f"iperf3 -c -u {args} exited {code}: {doc.get('error')}")
        check(doc["start"]["test_start"]["protocol"] == "UDP", "not a UDP test")
        check_test(doc, streams, tail, s.stdout())
        udp_figures(doc, streams)
        print(f"iperf3 -u {args}: sent {doc['end']['sum_sent']['bytes']}, received "
              f"{doc['end']['sum_received']['bytes']}, jitter "
              f"{doc['end']['sum_received']['jitter_ms']:.3f} ms")
    check("Jitter    Lost/Total Datagrams" in s.stdout(), f"no UDP summary:\n{s.stdout()}")
    s.signal(2)
    check(s.wait(20) == 0, "the server did not exit 0 on Ctrl+C")


def to_iperf3(xttcp, started):
    """xttcp's `iperf3 -c -u` against a real server: -P 4, then -R -P 2 with 64-bit counters."""
    need_iperf3()
    for args, streams, client_sends in ((["-P", "4"], 4, True),
                                        (["-R", "-P", "2", "--udp-counters-64bit"], 2, False)):
        s, port = iperf3_server(started)
        c = xttcp_client(xttcp, started, port, "-u", "-t", "2", *RATE, *args)
        doc = json.loads(s.stdout()) if s.wait(60) == 0 else {"error": s.describe()}
        check_against_iperf3(c, doc, streams, client_sends)
        check(doc["start"]["test_start"]["protocol"] == "UDP", "the server ran no UDP test")
        check("Lost/Total Datagrams" in c.stdout(), f"no UDP summary:\n{c.stdout()}")


def both_directions_agree(client_doc, server_doc, what):
    """--bidir: each direction's totals within 2 % (bidir_totals), with no loss to speak of."""
    for sent, received in bidir_totals(client_doc, server_doc, 4, what):
        check(received["lost_percent"] < 2, f"{what}: {received['lost_percent']} % lost of "
              f"{received['packets']} at a paced rate")


def bidir(xttcp, started):
    """--bidir -P 4 -u both ways: a real client against xttcp's server, xttcp's client against
    a real server; each end's -J read for its own sends and receipts."""
    need_iperf3()
    s, port = server(xttcp, started, "-1", "-J")
    code, client_doc = client(port, "-u", "--bidir", "-P", "4", "-t", "2", *RATE)
    check(code == 0 and "error" not in client_doc, f"iperf3 -u --bidir: {client_doc.get('error')}")
    check(s.wait(30) == 0, "xttcp's server did not exit 0 after its one test (-1)")
    both_directions_agree(client_doc, json.loads(s.stdout()), "iperf3 to xttcp")
    s, port = iperf3_server(started)
    c = xttcp_client(xttcp, started, port, "-u", "--bidir", "-P", "4", "-t", "2", *RATE, "-J")
    check(c.wait(60) == 0, f"xttcp's client failed:\n{c.describe()}")
    server_doc = json.loads(s.stdout()) if s.wait(60) == 0 else {"error": s.describe()}
    check("error" not in server_doc, f"iperf3's server says: {server_doc.get('error')}")
    both_directions_agree(json.loads(c.stdout()), server_doc, "xttcp to iperf3")


def xttcp_both(xttcp, started):
    """Both ends xttcp, forward, -R and --bidir, -P 4."""
    s, port = server(xttcp, started)
    for direction in ([], ["-R"], ["--bidir"]):
        c = xttcp_client(xttcp, started, port, "-u", "-P", "4", "-t", "2", *RATE, *direction)
        check(c.wait(60) == 0, f"xttcp's client {direction} failed:\n{c.describe()}")
        for role in (("[TX-C]", "[RX-C]") if direction == ["--bidir"] else ("",)):
            sent = summary_sum_bytes(c.stdout(), "sender", role)
            received = summary_sum_bytes(c.stdout(), "receiver", role)
            print(f"xttcp to xttcp -u {direction} {role}: sent {sent:.0f}, received "
                  f"{received:.0f}")
            check(sent > 0 and within(received, sent, 0.02),
                  f"received {received:.0f} is not within 2 % of sent {sent:.0f}:\n{c.stdout()}")
    s.signal(2)
    check(s.wait(20) == 0, "xttcp's server did not exit 0 on Ctrl+C")


def consumer_reads(doc):
    """What a consumer of iperf3's UDP -J takes: the totals each way, each interval's sum, the
    CPU of both ends, jitter and loss."""
    end = doc["end"]
    return {
        "sent_bytes": int(end["sum_sent"]["bytes"]),
        "received_bytes": int(end["sum_received"]["bytes"]),
        "intervals_bps": [float(i["sum"]["bits_per_second"]) for i in doc["intervals"]],
        "host_cpu": float(end["cpu_utilization_percent"]["host_total"]),
        "remote_cpu": float(end["cpu_utilization_percent"]["remote_total"]),
        "jitter_ms": float(end["sum"]["jitter_ms"]),
        "lost": int(end["sum"]["lost_packets"]),
        "packets": int(end["sum"]["packets"]),
    }


def json_as_iperf3s(xttcp, started):
    """-J -u: iperf3 3.12's client and xttcp's against the same iperf3 3.12 server, forward and
    -R: the same keys in the same nesting, and one reader reads both."""
    need_iperf3()
    s, port = iperf3_server(started, ())  # test after test
    for direction in ([], ["-R"], ["--bidir"]):
        for name, doc in both_documents(xttcp, started, port, "-u", "-t", "2", "-P", "2", *RATE,
                                        *direction):
            read = consumer_reads(doc)
            print(f"-u {direction} {name}: sent {read['sent_bytes']}, received "
                  f"{read['received_bytes']}, jitter {read['jitter_ms']:.3f} ms, lost "
                  f"{read['lost']}/{read['packets']}")
            check(within(read["received_bytes"], read["sent_bytes"], 0.02),
                  f"{name}: received {read['received_bytes']} not within 2 % of sent "
                  f"{read['sent_bytes']}")
            check(read["packets"] > 0 and 0 <= read["lost"] <= read["packets"] and
                  read["jitter_ms"] >= 0, f"{name}: UDP figures {read}")
            # Every interval a number, and data in some: a host not run for a second under
            # load (CI) leaves an honest empty one, in iperf3's document as in ours.
            check(read["intervals_bps"] and all(b >= 0 for b in read["intervals_bps"]) and
                  any(b > 0 for b in read["intervals_bps"]),
                  f"{name}: intervals {read['intervals_bps']}")
            check(read["host_cpu"] > 0 and read["remote_cpu"] > 0, f"{name}: CPU {read}")
    s.kill()


def strangers(xttcp, started):
    """A client written here stops at the UDP hellos: a stranger's hello (from 127.0.0.2, another
    host) and a datagram of its own host that is no hello get no reply and make no stream; its
    own hello, sent after them, gets the reply. Its control connection closed, the test ends at
    once and a real UDP client is served next."""
    need_iperf3()
    s, port = server(xttcp, started, "-V")
    control = socket.create_connection(("127.0.0.1", port), timeout=10)
    control.sendall(b"u" * 36 + b"\0")
    check(read_exactly(control, 1) == b"\x09", "no PARAM_EXCHANGE")
    params = json.dumps({"udp": True, "time": 1, "parallel": 1, "len": 1400,
                         "bandwidth": 1048576}).encode()
    control.sendall(len(params).to_bytes(4, "big") + params)
    check(read_exactly(control, 1) == b"\x0a", "no CREATE_STREAMS")
    hello = bytes([0x39, 0x38, 0x37, 0x36])
    stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stranger.bind(("127.0.0.2", 0))
    stranger.sendto(hello, ("127.0.0.1", port))
    ours = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ours.bind(("127.0.0.1", 0))
    ours.sendto(b"no hello", ("127.0.0.1", port))
    ours.connect(("127.0.0.1", port))
    ours.send(hello)
    ours.settimeout(10)
    check(ours.recv(16) == bytes([0x36, 0x37, 0x38, 0x39]), "no reply to the client's hello")
    # The server read the other two first, in order: any reply to them is here by now.
    stranger.setblocking(False)
    try:
        reply = stranger.recv(16)
    except BlockingIOError:
        reply = None
    check(reply is None, f"the stranger's hello was answered: {reply!r}")
    check(read_exactly(control, 2) == b"\x01\x02", "the one stream did not start the test")
    for sock in (stranger, ours, control):
        sock.close()
    s.wait_output("2 datagrams that were no hello of the client's, ignored")
    s.wait_output("(test #2)")  # the test ended (its client left): the server takes the next
    code, doc = client(port, "-u", "-t", "1")
    check(code == 0 and "error" not in doc, f"the next client failed: {doc.get('error')}")
    s.signal(2)
    check(s.wait(20) == 0, "the server did not exit 0 on Ctrl+C")


CASES = {"from-iperf3": from_iperf3, "to-iperf3": to_iperf3, "bidir": bidir, "xttcp-both": xttcp_both,
         "json-as-iperf3s": json_as_iperf3s, "strangers": strangers}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
