#!/usr/bin/env python3
"""xttcp as an iperf3 client (`iperf3 -c`, a link named iperf3) on loopback, against Debian's
iperf3 3.12 server (/usr/bin/iperf3 -s -1 -J) and against xttcp's own iperf3 server: TCP with
-P 4, reverse (-R) with -P 2 and -O 1 (its omitted rows as 3.12 prints them), -n. The server's -J document says the test ran, what it
counted and what xttcp handed over in iperf3's results message agree within 2 %, and xttcp's
printed summary is the figure it handed over. The ends of a test that is not the client's: a
busy server, a server stopped mid-test (SERVER_TERMINATE), a client stopped by Ctrl+C
(CLIENT_TERMINATE: the server says so), nothing listening, and servers written here that go
silent or send what the protocol does not hold: each ends within its bounded wait, exit 1 and
3.12's line. --bidir -P 4 against 3.12's server: each direction's two counts agree, under 3.12's
names; -M 1000 (tcp_mss at both ends). Cases: to-iperf3-p4, to-iperf3-reverse, to-iperf3-bytes,
to-iperf3-bidir, to-iperf3-mss, to-xttcp, busy-server,
server-terminated, client-interrupted, nothing-listening, hostile-servers, json-as-iperf3s (-J:
the same keys as 3.12's client writes, read by one consumer reader), server-output
(--get-server-output: the server's lines or document, printed and in -J).
Exits 77 when /usr/bin/iperf3 is missing (scripts/install-deps.sh installs the iperf3 package)."""
import json
import re
import signal
import socket
import subprocess
import threading
import time

from iperf3_peer_test import (IPERF3, as_iperf3, bidir_totals, is_udp, need_iperf3,
                              read_exactly, summary_sum_bytes, totals_agree)
from xttcp_e2e import (Failure, Process, check, free_port_block, key_paths, run_cases,
                       wait_listening, within)


def iperf3_server(started, options=("-1", "-J"), port=None):
    """Debian's iperf3 3.12 as a server on 127.0.0.1 with `options` (by default -1 -J: one
    test, its document at the end; none: test after test), listening when this returns."""
    port = port or free_port_block(1)
    s = Process([IPERF3, "-s", *options, "-B", "127.0.0.1", "-p", str(port)],
                " ".join(["iperf3 -s", *options]))
    started.append(s)
    wait_listening(port)
    return s, port


def xttcp_client(xttcp, started, port, *args):
    c = Process([as_iperf3(xttcp), "-c", "127.0.0.1", "-p", str(port), *args],
                "xttcp as iperf3 -c")
    started.append(c)
    return c


def server_document(s):
    check(s.wait(60) == 0, f"iperf3 -s -1 did not exit 0:\n{s.describe()}")
    try:
        return json.loads(s.stdout())
    except json.JSONDecodeError:
        raise Failure(f"iperf3 -s -J printed no JSON:\n{s.describe()}")


def check_against_iperf3(c, doc, streams, client_sends):
    """The iperf3 server's count of its direction and xttcp's of its own agree within 2 %;
    xttcp printed the server's as it came in iperf3's results message. (3.12's server writes
    no figure of the client's: its other direction is 0 in its -J.)"""
    check(c.wait(60) == 0, f"xttcp's client failed:\n{c.describe()}")
    check("error" not in doc, f"iperf3's server says: {doc.get('error')}")
    end = doc["end"]
    theirs = end["sum_received" if client_sends else "sum_sent"]["bytes"]
    ours = summary_sum_bytes(c.stdout(), "sender" if client_sends else "receiver")
    handed = summary_sum_bytes(c.stdout(), "receiver" if client_sends else "sender")
    print(f"{streams} streams, the client {'sends' if client_sends else 'receives'}: iperf3's "
          f"server counted {theirs}; xttcp printed {ours:.0f} of its own, {handed:.0f} of the "
          "server's")
    check(theirs > 0 and ours > 0, f"the server counted {theirs}, xttcp {ours:.0f}")
    check(totals_agree(theirs, ours, streams, is_udp(doc)),
          f"xttcp's {ours:.0f} is not within 2 % (or what is in flight) of the server's {theirs}")
    check(within(handed, theirs, 0.01), f"xttcp printed {handed:.0f} as the server's count, "
          f"which was {theirs}")
    check(len(end["streams"]) == streams, f"{len(end['streams'])} streams, not {streams}")
    check(doc["start"]["test_start"]["num_streams"] == streams, "the parameters' stream count")
    check(bool(doc["start"]["test_start"]["reverse"]) == (not client_sends),
          "the parameters' direction")
    check(c.stdout().rstrip().endswith("iperf Done."), f"no 'iperf Done.':\n{c.stdout()}")


def to_iperf3_p4(xttcp, started):
    need_iperf3()
    s, port = iperf3_server(started)
    c = xttcp_client(xttcp, started, port, "-P", "4", "-t", "2")
    check_against_iperf3(c, server_document(s), 4, True)
    check(len(re.findall(r"connected to 127\.0\.0\.1 port", c.stdout())) == 4,
          f"not 4 connected lines:\n{c.stdout()}")


def to_iperf3_reverse(xttcp, started):
    need_iperf3()
    s, port = iperf3_server(started)
    c = xttcp_client(xttcp, started, port, "-R", "-P", "2", "-t", "2", "-O", "1")
    check_against_iperf3(c, server_document(s), 2, False)
    check("Reverse mode, remote host 127.0.0.1 is sending" in c.stdout(),
          f"no reverse-mode line:\n{c.stdout()}")
    # -O 1: the omit period's intervals first, each stream's row and the [SUM]'s, marked as 3.12
    # marks them and timed from the test's start (how long each is, a loaded host decides).
    rows = [line for line in c.stdout().splitlines() if re.match(r"\[(SUM|\s*\d+)\]\s+\d", line)]
    omitted = [line.endswith("(omitted)") for line in rows]
    first = omitted.count(True)
    check(first >= 3 and first % 3 == 0 and omitted[:first] == [True] * first and
          " 0.00-" in rows[0] and rows[first - 1].startswith("[SUM]"),
          f"no omit period's rows first, from 0.00, 3 by 3:\n{c.stdout()}")


def to_iperf3_bytes(xttcp, started):
    """-n: the client ends the test once its streams sent that much (time 0 on the wire)."""
    need_iperf3()
    s, port = iperf3_server(started)
    c = xttcp_client(xttcp, started, port, "-n", "300M", "-P", "2")
    doc = server_document(s)
    check(c.wait(60) == 0, f"xttcp's client failed:\n{c.describe()}")
    check(doc["start"]["test_start"]["bytes"] == 300 * 2**20, "-n did not go as 'num'")
    sent = summary_sum_bytes(c.stdout(), "sender")
    check(sent >= 0.995 * 300 * 2**20, f"the client stopped at {sent:.0f} bytes, before its -n")


def to_iperf3_bidir(xttcp, started):
    """--bidir -P 4: four streams each way at once. The client's sends (its sum_sent) agree with
    the server's count of them (its sum_received), the server's sends (its
    sum_sent_bidir_reverse) with the client's count (its sum_received_bidir_reverse)."""
    need_iperf3()
    s, port = iperf3_server(started)
    c = xttcp_client(xttcp, started, port, "--bidir", "-P", "4", "-t", "2", "-J")
    check(c.wait(60) == 0, f"xttcp's client failed:\n{c.describe()}")
    ours, theirs = json.loads(c.stdout()), server_document(s)
    bidir_totals(ours, theirs, 4, "xttcp to iperf3")
    check(theirs["start"]["test_start"]["num_streams"] == 4, "the parameters' stream count")
    roles = [line for line in c.stdout().splitlines() if "[TX-C]" in line or "[RX-C]" in line]
    check(not roles, "-J printed console rows")


def to_iperf3_mss(xttcp, started):
    """-M 1000: the parameters carry it (3.12's server says tcp_mss), xttcp's streams keep to it
    (its -J says tcp_mss), and the test runs."""
    need_iperf3()
    s, port = iperf3_server(started)
    c = xttcp_client(xttcp, started, port, "-M", "1000", "-t", "1", "-J")
    check(c.wait(60) == 0, f"xttcp's client failed:\n{c.describe()}")
    ours, theirs = json.loads(c.stdout()), server_document(s)
    for name, doc in (("xttcp's", ours), ("iperf3's server's", theirs)):
        check(doc["start"].get("tcp_mss") == 1000 and "tcp_mss_default" not in doc["start"],
              f"{name} start: {doc['start']}")
    check(totals_agree(theirs["end"]["sum_received"]["bytes"], ours["end"]["sum_sent"]["bytes"], 1),
          f"sent {ours['end']['sum_sent']['bytes']}, received "
          f"{theirs['end']['sum_received']['bytes']}")


def consumer_reads(doc):
    """What a consumer of iperf3's -J takes from a document (PKB's iperf3 benchmark and the
    like): the totals each way, each interval's sum, the CPU of both ends, the test's shape."""
    end = doc["end"]
    return {
        "sent_bytes": int(end["sum_sent"]["bytes"]),
        "sent_bps": float(end["sum_sent"]["bits_per_second"]),
        "received_bytes": int(end["sum_received"]["bytes"]),
        "received_bps": float(end["sum_received"]["bits_per_second"]),
        "retransmits": int(end["sum_sent"]["retransmits"]),
        "intervals_bps": [float(i["sum"]["bits_per_second"]) for i in doc["intervals"]],
        "host_cpu": float(end["cpu_utilization_percent"]["host_total"]),
        "remote_cpu": float(end["cpu_utilization_percent"]["remote_total"]),
        "streams": int(doc["start"]["test_start"]["num_streams"]),
        "reverse": bool(doc["start"]["test_start"]["reverse"]),
    }


def both_documents(xttcp, started, port, *args):
    """The -J documents of iperf3 3.12's client and xttcp's for the same test (`args`) against
    the server on `port`, checked to have the same keys in the same nesting: (name, document)
    of each."""
    common = ["-c", "127.0.0.1", "-p", str(port), "-J", *args]
    real = subprocess.run([IPERF3, *common], capture_output=True, text=True, timeout=60)
    check(real.returncode == 0, f"iperf3 {' '.join(common)} failed:\n{real.stderr}")
    ours = xttcp_client(xttcp, started, port, *common[4:])
    check(ours.wait(60) == 0, f"xttcp {' '.join(common)} failed:\n{ours.describe()}")
    theirs_doc, ours_doc = json.loads(real.stdout), json.loads(ours.stdout())
    missing = key_paths(theirs_doc) - key_paths(ours_doc)
    extra = key_paths(ours_doc) - key_paths(theirs_doc)
    check(not missing and not extra, f"{args}: keys only in iperf3's -J: {sorted(missing)}; "
          f"only in xttcp's: {sorted(extra)}")
    return (("iperf3", theirs_doc), ("xttcp", ours_doc))


def json_as_iperf3s(xttcp, started):
    """-J: iperf3 3.12's client and xttcp's, each against the same iperf3 3.12 server, forward
    and -R: the two documents have the same keys in the same nesting, one reader reads both, and
    what it reads agrees (each document's totals within 2 % of its own other end)."""
    need_iperf3()
    s, port = iperf3_server(started, ())  # test after test
    for direction in ([], ["-R"], ["--bidir"], ["-O", "1"]):
        for name, doc in both_documents(xttcp, started, port, "-t", "2", "-P", "2", *direction):
            # -O: the omit period's interval first, marked omitted (its streams' too), and no
            # other.
            omitted = [i["sum"]["omitted"] for i in doc["intervals"]]
            first = omitted.count(True)
            check(omitted == [True] * first + [False] * (len(omitted) - first) and
                  (first >= 1) == ("-O" in direction) and
                  all(s["omitted"] == i["sum"]["omitted"]
                      for i in doc["intervals"] for s in i["streams"]),
                  f"{direction} {name}: intervals' omitted {omitted}")
            read = consumer_reads(doc)
            print(f"{direction} {name}: sent {read['sent_bytes']}, received "
                  f"{read['received_bytes']}, {len(read['intervals_bps'])} intervals, CPU "
                  f"{read['host_cpu']:.0f} % here, {read['remote_cpu']:.0f} % there")
            check(read["streams"] == 2 and read["reverse"] == (direction == ["-R"]),
                  f"{name}: the test's shape {read}")
            check(totals_agree(read["received_bytes"], read["sent_bytes"], 2),
                  f"{name}: received {read['received_bytes']} not within 2 % of sent "
                  f"{read['sent_bytes']}")
            # Every interval a number, and data in some: a host not run for a second under
            # load (CI) leaves an honest empty one, in iperf3's document as in ours.
            check(read["intervals_bps"] and all(b >= 0 for b in read["intervals_bps"]) and
                  any(b > 0 for b in read["intervals_bps"]),
                  f"{name}: intervals {read['intervals_bps']}")
            check(read["host_cpu"] > 0 and read["remote_cpu"] > 0, f"{name}: CPU {read}")
    s.kill()


def server_output(xttcp, started):
    """--get-server-output against a real server: its lines after the summary (without -J),
    its document (with -J); and in xttcp's -J, at the top, as 3.12's client puts them."""
    need_iperf3()
    for options, heading, key in ((("-1",), "Server output:", "server_output_text"),
                                  (("-1", "-J"), "Server JSON output:", "server_output_json")):
        for json_out in (False, True):
            s, port = iperf3_server(started, options)
            c = xttcp_client(xttcp, started, port, "-t", "1", "--get-server-output",
                             *(["-J"] if json_out else []))
            check(c.wait(60) == 0, f"xttcp's client failed:\n{c.describe()}")
            check(s.wait(60) == 0, f"iperf3 -s {options} did not exit 0:\n{s.describe()}")
            if json_out:
                doc = json.loads(c.stdout())
                check(key in doc, f"no {key} in xttcp's -J: {sorted(doc)}")
                got = doc[key]
                check("receiver" in got if key == "server_output_text" else "end" in got,
                      f"{key} holds no server summary: {str(got)[:300]}")
            else:
                out = c.stdout()
                check(heading in out and out.index(heading) < out.index("iperf Done."),
                      f"no '{heading}' before 'iperf Done.':\n{out}")
                check("Accepted connection from 127.0.0.1" in out or '"accepted_connection"' in out,
                      f"the server's output is not there:\n{out}")


def to_xttcp(xttcp, started):
    """Both ends xttcp, forward, reverse and both ways at once, through iperf3's protocol on one
    port."""
    port = free_port_block(1)
    s = Process([as_iperf3(xttcp), "-s", "-p", str(port)], "xttcp as iperf3 -s")
    started.append(s)
    wait_listening(port)
    for direction in ([], ["-R"], ["--bidir"]):
        c = xttcp_client(xttcp, started, port, "-P", "4", "-t", "2", *direction)
        check(c.wait(60) == 0, f"xttcp's client {direction} failed:\n{c.describe()}")
        for role in (("[TX-C]", "[RX-C]") if direction == ["--bidir"] else ("",)):
            sent = summary_sum_bytes(c.stdout(), "sender", role)
            received = summary_sum_bytes(c.stdout(), "receiver", role)
            print(f"xttcp to xttcp {direction} {role}: sent {sent:.0f}, received {received:.0f}")
            check(sent > 0 and totals_agree(received, sent, 4),
                  f"received {received:.0f} is not within 2 % of sent {sent:.0f}:\n{c.stdout()}")
    s.signal(signal.SIGINT)
    check(s.wait(20) == 0, "xttcp's server did not exit 0 on Ctrl+C")


def busy_server(xttcp, started):
    """A server running another client's test answers 0xFF: 3.12's line, exit 1."""
    need_iperf3()
    s, port = iperf3_server(started, ("-1",))
    first = Process([IPERF3, "-c", "127.0.0.1", "-p", str(port), "-t", "5", "--forceflush"],
                    "first client")
    started.append(first)
    first.wait_output("bits/sec")
    c = xttcp_client(xttcp, started, port, "-t", "1")
    check(c.wait(30) == 1, f"the client of a busy server did not exit 1:\n{c.describe()}")
    check(c.stderr().strip() == "iperf3: error - the server is busy running a test. try again "
          "later", f"the client said:\n{c.stderr()}")
    check("Connecting to host" not in c.stdout(), "a refused test printed 'Connecting'")


def server_terminated(xttcp, started):
    """The server stopped mid-test (SIGTERM: SERVER_TERMINATE): the client says so, exit 1."""
    need_iperf3()
    s, port = iperf3_server(started)
    c = xttcp_client(xttcp, started, port, "-t", "30")
    c.wait_output("bits/sec")
    s.signal(signal.SIGTERM)
    check(c.wait(20) == 1, f"the client of a stopped server did not exit 1:\n{c.describe()}")
    check("iperf3: error - the server has terminated" in c.stderr(),
          f"the client said:\n{c.stderr()}")


def client_interrupted(xttcp, started):
    """Ctrl+C on the client mid-test: the server is told (CLIENT_TERMINATE) and says so."""
    need_iperf3()
    s, port = iperf3_server(started, ("-1",))
    for direction in ([], ["-R"]):
        c = xttcp_client(xttcp, started, port, "-t", "30", *direction)
        c.wait_output("bits/sec")
        c.signal(signal.SIGINT)
        check(c.wait(20) == 1, f"the interrupted client {direction} did not exit 1")
        check("iperf3: interrupt - the client has terminated" in c.stderr(),
              f"the client said:\n{c.stderr()}")
        if not direction:
            check(s.wait(20) == 0, "iperf3 -s -1 did not end after its client terminated")
            check("the client has terminated" in s.stderr(), f"the server said:\n{s.stderr()}")
            s, _ = iperf3_server(started, ("-1",), port=port)


def nothing_listening(xttcp, started):
    port = free_port_block(1)
    c = xttcp_client(xttcp, started, port, "-t", "1")
    check(c.wait(30) == 1, f"a client with no server did not exit 1:\n{c.describe()}")
    check(re.fullmatch(r"iperf3: error - unable to connect to server: .*refused\s*", c.stderr()),
          f"the client said:\n{c.stderr()}")


class FakeServer:
    """A server written here: accepts one control connection and runs `script(conn)`."""

    def __init__(self, script):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.held = []
        self.thread = threading.Thread(target=self.serve, args=(script,), daemon=True)
        self.thread.start()

    def serve(self, script):
        conn, _ = self.listener.accept()
        self.held.append(conn)
        read_exactly(conn, 37)
        script(self, conn)

    def close(self):
        for c in self.held:
            c.close()
        self.listener.close()


def hostile_servers(xttcp, started):
    """Servers that break the protocol where a client must not hang or trust them: silent
    after the cookie, silent after CREATE_STREAMS (streams taken, never started), results
    announced as 4 GiB, and an unknown state byte. Each ends within the client's bounded
    waits (10 s a message), exit 1, one line naming what went wrong."""
    def silent(server, conn):
        pass

    def never_starts(server, conn):
        conn.sendall(b"\x09")
        length = int.from_bytes(read_exactly(conn, 4), "big")
        read_exactly(conn, length)
        conn.sendall(b"\x0a")
        stream, _ = server.listener.accept()
        server.held.append(stream)

    def huge_results(server, conn):
        never_starts(server, conn)
        conn.sendall(b"\x01\x02")  # TEST_START, TEST_RUNNING
        read_exactly(conn, 1, timeout=30)  # TEST_END
        conn.sendall(b"\x0d")  # EXCHANGE_RESULTS
        length = int.from_bytes(read_exactly(conn, 4), "big")
        read_exactly(conn, length)
        conn.sendall((2**32 - 1).to_bytes(4, "big"))

    def unknown_state(server, conn):
        conn.sendall(b"\x63")

    cases = [(silent, "-t 1", "the server sent no PARAM_EXCHANGE within 10 s"),
             (never_starts, "-t 1", "the server sent no TEST_START within 10 s"),
             (huge_results, "-t 1", "unable to receive results"),
             (unknown_state, "-t 1", "received an unknown control message")]
    for script, args, said in cases:
        fake = FakeServer(script)
        try:
            begin = time.monotonic()
            c = xttcp_client(xttcp, started, fake.port, *args.split())
            check(c.wait(40) == 1, f"{script.__name__}: the client did not exit 1:\n"
                  f"{c.describe()}")
            lines = c.stderr().strip().splitlines()
            check(len(lines) == 1 and lines[0].startswith("iperf3: error - ") and said in lines[0],
                  f"{script.__name__}: the client said:\n{c.stderr()}")
            print(f"{script.__name__}: '{lines[0]}' after {time.monotonic() - begin:.1f} s")
        finally:
            fake.close()


CASES = {"server-output": server_output, "to-iperf3-p4": to_iperf3_p4,
         "to-iperf3-reverse": to_iperf3_reverse, "to-iperf3-bytes": to_iperf3_bytes,
         "to-iperf3-bidir": to_iperf3_bidir, "to-iperf3-mss": to_iperf3_mss, "to-xttcp": to_xttcp,
         "busy-server": busy_server,
         "server-terminated": server_terminated, "client-interrupted": client_interrupted,
         "nothing-listening": nothing_listening, "hostile-servers": hostile_servers,
         "json-as-iperf3s": json_as_iperf3s}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
