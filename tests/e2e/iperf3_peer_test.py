#!/usr/bin/env python3
"""The iperf3 dialect against Debian's iperf3 3.12 (/usr/bin/iperf3) on loopback: xttcp invoked
as `iperf3 -s` (a link) serves a real `iperf3 -c`, over iperf3's own protocol on one port.
TCP with -P 4, and reverse (-R, the server sends) with -P 2 and -O 1: the client's -J document
says the test ran (no "error"), its sent and received totals agree within 2 % (the received
side is xttcp's count, handed over in iperf3's results message), and a consumer's fields are
there (intervals[].sum, end.cpu_utilization_percent with xttcp's CPU as the remote); xttcp's
own summary [SUM] is the figure it handed over. A second client while a test runs is told the
server is busy; what xttcp does not serve (SCTP) is refused in iperf3's words, and the
server goes on to the next test; Ctrl+C mid-test tells the client the server terminated. --bidir
-P 4: each direction's two totals agree, under 3.12's names for each (sum_sent,
sum_sent_bidir_reverse, ...), and xttcp's rows carry their roles. Cases: tcp-p4, reverse,
reverse-rate (-R -b: never faster than asked), busy, bidir, mss (-M), refused-sctp, interrupted,
hostile-client (a stranger's stream refused; a control connection closed mid-setup ends the test
at once; connections that bring no cookie leave no line), server-json (-J: 3.12's server keys),
server-output (--get-server-output: the server's lines, or its -J document).
Exits 77 when /usr/bin/iperf3 is missing (scripts/install-deps.sh installs the iperf3 package)."""
import json
import os
import re
import socket
import subprocess

from xttcp_e2e import (Process, SkipTest, check, counts_agree, free_port_block, key_paths,
                       run_cases, scratch_dir, wait_listening, within)

IPERF3 = "/usr/bin/iperf3"


def need_iperf3():
    if not os.access(IPERF3, os.X_OK):
        raise SkipTest(f"{IPERF3} is missing (apt-get install iperf3; scripts/install-deps.sh "
                       "does)")


def as_iperf3(xttcp):
    """xttcp under the name iperf3: the name chooses the iperf3 dialect."""
    link = os.path.join(scratch_dir("xttcp-iperf3-"), "iperf3")
    os.symlink(xttcp, link)
    return link


def server(xttcp, started, *extra):
    port = free_port_block(1)
    s = Process([as_iperf3(xttcp), "-s", "-p", str(port), *extra], "xttcp as iperf3 -s")
    started.append(s)
    wait_listening(port)
    return s, port


def client(port, *args, timeout=60):
    """A real iperf3 client's -J run: its exit code and document."""
    done = subprocess.run([IPERF3, "-c", "127.0.0.1", "-p", str(port), "-J", *args],
                          capture_output=True, text=True, timeout=timeout)
    try:
        doc = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise AssertionError(f"iperf3 -J printed no JSON:\n{done.stdout}\n{done.stderr}")
    return done.returncode, doc


def summary_sum_bytes(text, tail, role=""):
    """The bytes of xttcp's summary row for its direction: [SUM] with several streams, else the
    stream's; in iperf3's units (GBytes...), so approximate. `role`: --bidir's rows of that role
    only ("[TX-C]", ...)."""
    units = {"Bytes": 1, "KBytes": 2**10, "MBytes": 2**20, "GBytes": 2**30, "TBytes": 2**40}
    rows = [l for l in text.splitlines() if l.rstrip().endswith(tail) and role in l]
    check(rows, f"no summary row ending '{tail}':\n{text}")
    m = re.search(r"sec\s+([\d.]+) (\w+)", rows[-1])
    check(m is not None, f"unreadable summary row {rows[-1]!r}")
    return float(m.group(1)) * units[m.group(2)]


def totals_agree(received, sent, streams, udp=False):
    """One test's two totals agree: within 2 %, or for TCP within what the kernel can hold
    between the ends when the test stops (counts_agree: an iperf3 server stops reading at
    TEST_END, and each stream's send and receive buffers may still hold data; tcp_rmem's limit
    is 32 MiB since Linux 6.15). UDP datagrams still in flight are lost to the count."""
    return within(received, sent, 0.02) if udp else counts_agree(received, sent, 0.02, streams)


def is_udp(doc):
    return doc.get("start", {}).get("test_start", {}).get("protocol") == "UDP"


def bidir_totals(client_doc, server_doc, streams, what):
    """--bidir, from both ends' -J: the client's sends (sum_sent at the client, sum_received at
    the server) and the server's (sum_sent_bidir_reverse at the server,
    sum_received_bidir_reverse at the client) each agree with their receiver's count (TCP: or
    within what the streams' buffers hold). Returns the two directions' (sent, received) sums."""
    for doc in (client_doc, server_doc):
        check("error" not in doc, f"{what}: {doc.get('error')}")
    udp = is_udp(client_doc)
    pairs = ((client_doc["end"]["sum_sent"], server_doc["end"]["sum_received"]),
             (server_doc["end"]["sum_sent_bidir_reverse"],
              client_doc["end"]["sum_received_bidir_reverse"]))
    for direction, (sent, received) in zip(("the client's sends", "the server's sends"), pairs):
        print(f"{what} --bidir, {direction}: sent {sent['bytes']}, received {received['bytes']}")
        check(sent["bytes"] > 0 and totals_agree(received["bytes"], sent["bytes"], streams, udp),
              f"{what}, {direction}: received {received['bytes']}, sent {sent['bytes']}")
    check(len(client_doc["end"]["streams"]) == 2 * streams,
          f"{what}: {len(client_doc['end']['streams'])} streams, not {streams} each way")
    return pairs


def check_test(doc, streams, sender_tail, server_out):
    check("error" not in doc, f"the client says: {doc.get('error')}")
    end = doc["end"]
    sent, received = end["sum_sent"]["bytes"], end["sum_received"]["bytes"]
    check(sent > 0 and received > 0, f"sent {sent}, received {received}")
    check(totals_agree(received, sent, streams, is_udp(doc)),
          f"received {received} is not within 2 % (or what is in flight) of sent {sent}")
    check(len(end["streams"]) == streams, f"{len(end['streams'])} streams, not {streams}")
    check(doc["intervals"] and all("sum" in i for i in doc["intervals"]),
          "intervals without their sum")
    cpu = end["cpu_utilization_percent"]
    check(cpu["remote_total"] > 0, f"no remote CPU from xttcp: {cpu}")
    # xttcp's own summary is its side's total, the one it handed to the client.
    ours = received if sender_tail == "receiver" else sent
    shown = summary_sum_bytes(server_out, sender_tail)
    check(within(shown, ours, 0.01), f"xttcp's summary shows {shown:.0f} bytes, it sent {ours}")


def tcp_p4(xttcp, started):
    need_iperf3()
    s, port = server(xttcp, started, "-1")
    code, doc = client(port, "-P", "4", "-t", "2")
    check(code == 0, f"iperf3 -c exited {code}")
    check(s.wait(30) == 0, "xttcp's server did not exit 0 after its one test (-1)")
    check_test(doc, 4, "receiver", s.stdout())
    check("Server listening on" in s.stdout() and "Accepted connection from 127.0.0.1" in s.stdout(),
          f"no banner or accepted line:\n{s.stdout()}")


def reverse(xttcp, started):
    need_iperf3()
    s, port = server(xttcp, started, "-1")
    code, doc = client(port, "-R", "-P", "2", "-t", "2", "-O", "1")
    check(code == 0, f"iperf3 -c -R exited {code}")
    check(s.wait(30) == 0, "xttcp's server did not exit 0 after its one test (-1)")
    check(doc["start"]["test_start"]["reverse"] == 1, "the client did not run in reverse")
    check_test(doc, 2, "sender", s.stdout())
    check("Retr" in s.stdout(), "a sending server's rows have no Retr column")


def reverse_rate(xttcp, started):
    """-R -b: the server paces its sends at the client's rate per stream (iperf3's -b is per
    stream): never faster than asked (a loaded machine may be slower)."""
    need_iperf3()
    s, port = server(xttcp, started, "-1")
    code, doc = client(port, "-R", "-b", "40M", "-P", "2", "-t", "2")
    check(code == 0 and "error" not in doc, f"iperf3 -c -R -b failed: {doc.get('error')}")
    check(s.wait(30) == 0, "xttcp's server did not exit 0 after its one test (-1)")
    sent = doc["end"]["sum_sent"]
    asked = 2 * 40e6
    check(sent["bits_per_second"] <= 1.2 * asked,
          f"the server sent at {sent['bits_per_second'] / 1e6:.1f} Mbit/s, over the "
          f"{asked / 1e6:.0f} asked")


def busy(xttcp, started):
    """While one client's test runs, another is told what 3.12 tells it."""
    need_iperf3()
    s, port = server(xttcp, started, "-1")
    first = Process([IPERF3, "-c", "127.0.0.1", "-p", str(port), "-t", "4", "--forceflush"],
                    "first client")
    started.append(first)
    first.wait_output("Gbits/sec")  # its test runs: an interval row came
    code, doc = client(port, "-t", "1")
    check(doc.get("error") == "the server is busy running a test. try again later",
          f"the second client was told {doc.get('error')!r}")
    check(first.wait(30) == 0, f"the first client failed:\n{first.stdout()}{first.stderr()}")
    check(s.wait(30) == 0, "xttcp's server did not exit 0 after its one test (-1)")


def bidir(xttcp, started):
    """--bidir -P 4: four streams each way at once. The client's sends (sum_sent, counted by
    xttcp) and xttcp's sends (sum_sent_bidir_reverse) each agree with their receiver's count."""
    need_iperf3()
    s, port = server(xttcp, started, "-1")
    code, doc = client(port, "--bidir", "-P", "4", "-t", "2")
    check(code == 0 and "error" not in doc, f"iperf3 --bidir failed: {doc.get('error')}")
    check(s.wait(30) == 0, "xttcp's server did not exit 0 after its one test (-1)")
    end = doc["end"]
    # The client's document holds both ends' counts of both directions (the results exchange).
    bidir_totals(doc, doc, 4, "iperf3 to xttcp")
    check(all("sum_bidir_reverse" in i for i in doc["intervals"]),
          "intervals without the reverse channel's sum")
    check(end["cpu_utilization_percent"]["remote_total"] > 0, "no remote CPU from xttcp")
    out = s.stdout()
    check("[ ID][Role]" in out and "[RX-S]" in out and "[TX-S]" in out,
          f"xttcp's rows do not say their roles:\n{out}")
    shown = summary_sum_bytes(out, "sender", "[TX-S]")  # what xttcp sent
    check(within(shown, end["sum_sent_bidir_reverse"]["bytes"], 0.01),
          f"xttcp's summary shows {shown:.0f} bytes sent, it handed over "
          f"{end['sum_sent_bidir_reverse']['bytes']}")


def mss(xttcp, started):
    """-M: a real client's streams keep to the segment size it set (their SYNs offered it), the
    test runs, and both documents say tcp_mss where 3.12 says it."""
    need_iperf3()
    s, port = server(xttcp, started, "-1", "-J")
    code, doc = client(port, "-M", "1000", "-t", "1")
    check(code == 0 and "error" not in doc, f"iperf3 -M 1000 failed: {doc.get('error')}")
    check(doc["start"].get("tcp_mss") == 1000, f"the client's start: {doc['start']}")
    check(s.wait(30) == 0, "xttcp's server did not exit 0 after its one test (-1)")
    served = json.loads(s.stdout())
    check(served["start"].get("tcp_mss") == 1000 and "tcp_mss_default" not in served["start"],
          f"xttcp's start: {served['start']}")
    check(served["end"]["sum_received"]["bytes"] > 0, "nothing was received")


def refused_sctp(xttcp, started):
    """SCTP is not served: the client is told in iperf3's words, and the server serves the next
    client."""
    need_iperf3()
    s, port = server(xttcp, started)
    refused = subprocess.run([IPERF3, "-c", "127.0.0.1", "-p", str(port), "--sctp", "-t", "1"],
                             capture_output=True, text=True, timeout=30)
    check(refused.returncode == 1, f"iperf3 --sctp exited {refused.returncode}")
    check("no SCTP support available" in refused.stderr,
          f"the --sctp client was told:\n{refused.stderr}")
    check("SCTP is not served" in s.stderr(), f"the server does not say why:\n{s.stderr()}")
    code, doc = client(port, "-t", "1")
    check(code == 0 and "error" not in doc, f"the next client failed: {doc.get('error')}")
    s.signal(2)
    check(s.wait(20) == 0, "the server did not exit 0 on Ctrl+C")


def interrupted(xttcp, started):
    """Ctrl+C on the server mid-test: its client is told the server has terminated (SERVER_
    TERMINATE, as 3.12's server tells it) and the server leaves at once."""
    need_iperf3()
    s, port = server(xttcp, started)
    c = Process([IPERF3, "-c", "127.0.0.1", "-p", str(port), "-t", "30", "--forceflush"],
                "client")
    started.append(c)
    c.wait_output("bits/sec")
    s.signal(2)
    check(s.wait(10) == 0, "the interrupted server did not exit 0 within 10 s")
    check("iperf3: interrupt - the server has terminated" in s.stderr(),
          f"the server does not say it terminated:\n{s.stderr()}")
    check(c.wait(20) == 1, "the client of an interrupted server did not exit 1")
    check("the server has terminated" in c.stderr(), f"the client was told:\n{c.stderr()}")


def server_json(xttcp, started):
    """-J on the server: for the same real client's test, xttcp's document has every key of
    iperf3 3.12's server document (and the client's figures where 3.12's server writes 0), and
    its count agrees with the client's within 2 %."""
    need_iperf3()
    docs = {}
    for name, command in (("iperf3", [IPERF3]), ("xttcp", [as_iperf3(xttcp)])):
        port = free_port_block(1)
        s = Process([*command, "-s", "-1", "-J", "-B", "127.0.0.1", "-p", str(port)],
                    f"{name} -s -1 -J")
        started.append(s)
        wait_listening(port)
        code, client_doc = client(port, "-t", "2", "-P", "2")
        check(code == 0 and "error" not in client_doc, f"the client of {name}: {client_doc}")
        check(s.wait(30) == 0, f"{name}'s server did not exit 0 after its one test")
        docs[name] = json.loads(s.stdout())
        received = docs[name]["end"]["sum_received"]["bytes"]
        sent = client_doc["end"]["sum_sent"]["bytes"]
        print(f"{name} -s -J: received {received}; the client sent {sent}")
        check(totals_agree(received, sent, 2), f"{name}: received {received}, the client sent {sent}")
    missing = key_paths(docs["iperf3"]) - key_paths(docs["xttcp"])
    check(not missing, f"keys of 3.12's server document missing from xttcp's: {sorted(missing)}")
    check(list(docs["xttcp"]["start"]) == list(docs["iperf3"]["start"]),
          "the start keys are not in 3.12's server order")
    check(docs["xttcp"]["end"]["sum_sent"]["bytes"] > 0, "the client's figures are not there")


def server_output(xttcp, started):
    """A real client's --get-server-output: xttcp's server hands over its lines of the test
    (its summary among them), or with -J its document."""
    need_iperf3()
    for extra, key in (((), "server_output_text"), (("-J",), "server_output_json")):
        s, port = server(xttcp, started, "-1", *extra)
        code, doc = client(port, "-t", "1", "--get-server-output")
        check(code == 0 and "error" not in doc, f"iperf3 --get-server-output: {doc.get('error')}")
        check(s.wait(30) == 0, "xttcp's server did not exit 0 after its one test (-1)")
        check(key in doc, f"no {key} in the client's document: {sorted(doc)}")
        if key == "server_output_text":
            text = doc[key]
            check(text.startswith("Accepted connection from 127.0.0.1") and
                  text.rstrip().endswith("receiver"), f"the server's lines:\n{text}")
        else:
            check(doc[key]["end"]["sum_received"]["bytes"] > 0,
                  f"the server's document has no end: {str(doc[key])[:300]}")


def read_exactly(sock, count, timeout=10):
    sock.settimeout(timeout)
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            break
        data += chunk
    return data


def hostile_client(xttcp, started):
    """A client written here, breaking the protocol where 3.12's server would hang or spin: a
    stranger's stream (another cookie) is refused with 0xFF while the test's own is taken; a
    control connection closed while its streams are awaited ends the test at once, and the
    server serves the next (real) client."""
    need_iperf3()
    s, port = server(xttcp, started)
    cookie = b"a" * 36 + b"\0"
    params = json.dumps({"tcp": True, "time": 1, "parallel": 1}).encode()
    control = socket.create_connection(("127.0.0.1", port), timeout=10)
    control.sendall(cookie)
    check(read_exactly(control, 1) == b"\x09", "no PARAM_EXCHANGE")
    control.sendall(len(params).to_bytes(4, "big") + params)
    check(read_exactly(control, 1) == b"\x0a", "no CREATE_STREAMS")
    stranger = socket.create_connection(("127.0.0.1", port), timeout=10)
    stranger.sendall(b"b" * 36 + b"\0")
    check(read_exactly(stranger, 1) == b"\xff", "a stranger's stream was not refused with 0xFF")
    stranger.close()
    control.close()  # mid-setup: the test ends now, not after its 10 s wait for streams
    s.wait_output("the client has unexpectedly closed the connection", timeout=5,
                  stderr_too=True)
    # Connections that bring no cookie are no test: they leave no line on the server's stderr.
    lines = len(s.stderr().splitlines())
    for _ in range(20):
        socket.create_connection(("127.0.0.1", port), timeout=10).close()
    code, doc = client(port, "-t", "1")
    check(code == 0 and "error" not in doc, f"the next client failed: {doc.get('error')}")
    s.signal(2)
    check(s.wait(20) == 0, "the server did not exit 0 on Ctrl+C")
    extra = s.stderr().splitlines()[lines:]
    check(extra == ["iperf3: interrupt - the server has terminated"],
          f"connections without a cookie left lines: {extra}")


CASES = {"tcp-p4": tcp_p4, "reverse": reverse, "reverse-rate": reverse_rate, "busy": busy,
         "bidir": bidir, "mss": mss, "refused-sctp": refused_sctp, "interrupted": interrupted, "hostile-client": hostile_client,
         "server-json": server_json, "server-output": server_output}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
