#!/usr/bin/env python3
"""Hostile peers on the data path and at the iperf2 dialect's server (python sockets on
loopback; docs/hostile-peers.md): datagrams too short for the test's header are not its data;
a UDP --rr responder is no amplifier; the iperf2 server goes on serving after a reset stream,
ends a UDP stream whose FIN never comes or that newer sources pushed out of its table, stays
bounded under a spray of sources and answers FINs with no more bytes than came; with -N a
spray of invented flow ids neither evicts a real flow nor makes its loss absurd.
Cases: `hostile_udp_test.py XTTCP [CASE...]`."""
import os
import random
import re
import signal
import socket
import struct
import time

from xttcp_e2e import (Failure, Process, check, free_port_block, load_json, rss_kb, run_cases,
                       scratch_dir, small_quarantine_env, socket_backends, wait_listening,
                       wait_udp_bound)

IPERF = "/usr/bin/iperf"
UDP_MAGIC = 0x58545544  # engine/udp/datagram_header.hh


def receiver_udp_test(xttcp, started, base, backend, out, during):
    """A real UDP sender's test (sync) against a receiver on `backend`; `during(sender)` runs
    while it sends. Returns the receiver's result as the sender got it, and the sender's."""
    receiver = Process([xttcp, "-r", "127.0.0.1", "-u", "-P", "1", "-p", str(base), "-t", "2",
                        "--backend", backend, "--json", f"{out}/r.json"], f"{backend} receiver")
    started.append(receiver)
    wait_listening(base - 1)
    wait_udp_bound(base)
    sender = Process([xttcp, "-s", "127.0.0.1", "-u", "-P", "1", "-n", "1", "-p", str(base),
                      "-t", "2", "-b", "1k", "-B", "50M", "--backend", backend,
                      "--json", f"{out}/s.json"], f"{backend} sender")
    started.append(sender)
    during(sender)
    check(sender.wait(60) == 0, f"{backend}: the sender failed")
    check(receiver.wait(60) == 0, f"{backend}: the receiver failed")
    return load_json(f"{out}/r.json"), load_json(f"{out}/s.json"), receiver


def spray_short(base, sender, limit=300_000):
    """Datagrams of 0 to 23 bytes (shorter than xttcp's header) and 100-byte ones without it,
    until `sender` ends; returns how many were sent."""
    spray = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sent = 0
    while sent < limit and sender.proc.poll() is None:
        length = sent % 25
        try:
            spray.sendto(b"\x00" * (100 if length == 24 else length), ("127.0.0.1", base))
            sent += 1
        except OSError:
            pass
        if sent % 500 == 0:
            time.sleep(0.001)  # spread over the test
    spray.close()
    return sent


def udp_short_datagrams(xttcp, started):
    """Item 6: during a test whose sender declared its flows, datagrams too short for xttcp's
    header (or without it) are not its data: counted apart (udp.run.headerless, a console line,
    a note), the test's figures are its sender's. Before: counted as received data (500,382
    received of 382 sent; 61.55 Mbit/s for a 50 Mbit/s sender), foreign 0."""
    for backend in socket_backends(xttcp):
        base = free_port_block(1)
        out = scratch_dir()
        sprayed = []
        r, s, receiver = receiver_udp_test(
            xttcp, started, base, backend, out,
            lambda sender: sprayed.append(spray_short(base, sender)))
        run = r["udp"]["run"]
        headerless = run.get("headerless", {})
        print(f"{backend}: {sprayed[0]} short or headerless datagrams; receiver: received "
              f"{run['received']} of {s['udp']['run']['sent']} sent, headerless {headerless}")
        check(0 < run["received"] <= s["udp"]["run"]["sent"],
              f"{backend}: the spray counted as data: {run}")
        check(r["summary"]["total_bytes"] % 1024 == 0,
              f"{backend}: the window holds other bytes: {r['summary']['total_bytes']}")
        check(0 < headerless.get("datagrams", 0) <= sprayed[0],
              f"{backend}: the spray of {sprayed[0]} is not counted apart: {run}")
        check(any("without the header" in n for n in r.get("notes", [])),
              f"{backend}: no note about the headerless datagrams: {r.get('notes')}")
        check("headerless\t:" in receiver.stdout(), f"{backend}: no console line")


def rr_answers(base, datagrams, timeout=10):
    """Sends `datagrams` in order to the responder from one socket; returns the stamps (first
    8 bytes) and sizes of what came back, up to the answer to the last one (whose stamp is
    unique): an answer to an earlier one comes before it."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(timeout)
    for d in datagrams:
        s.sendto(d, ("127.0.0.1", base))
    last = datagrams[-1][:8]
    answers = []
    while True:
        try:
            data = s.recv(70000)
        except socket.timeout:
            raise Failure(f"no answer to the last datagram within {timeout} s: {answers}")
        answers.append((data[:8], len(data)))
        if data[:8] == last:
            break
    s.close()
    return answers


def start_responder(xttcp, started, base, backend, extra):
    responder = Process([xttcp, "-r", "127.0.0.1", "--rr", "-u", "-P", "1", "-p", str(base),
                         "-t", "3", "--backend", backend, *extra], f"{backend} rr responder")
    started.append(responder)
    wait_udp_bound(base)
    return responder


def rr_udp_reflection(xttcp, started):
    """Item 10: a UDP --rr responder never sends more bytes than a request brought to a source
    that is not the test's requester: a datagram shorter than -b gets no answer, and an answer
    larger than the request goes only to a request naming a flow of the test with its token.
    Before: a 1-byte datagram got a 64-byte answer (60,000 bytes with -b 60000). A real
    requester's test still works, with --response-size above -b too."""
    for backend in socket_backends(xttcp):
        for size in (64, 60000):
            base = free_port_block(1)
            responder = start_responder(xttcp, started, base, backend, ["-N", "-b", str(size)])
            probe = struct.pack("!Q", 7) + b"\x00" * (size - 8)
            answers = rr_answers(base, [b"\x01", b"\x02" * 7, probe])
            print(f"{backend} -b {size}: a 1-byte and a 7-byte datagram, then a request: "
                  f"answers {[n for _, n in answers]}")
            check(answers == [(probe[:8], size)],
                  f"{backend} -b {size}: datagrams shorter than a request were answered: "
                  f"{answers}")
            responder.kill()
        # An answer larger than the request: only the test's requester, which proves itself.
        base = free_port_block(1)
        out = scratch_dir()
        responder = start_responder(xttcp, started, base, backend,
                                    ["-b", "64", "--response-size", "1000",
                                     "--json", f"{out}/r.json"])
        wait_listening(base - 1)
        requester = Process([xttcp, "-s", "127.0.0.1", "--rr", "-u", "-P", "1", "-n", "1",
                             "-p", str(base), "-t", "3", "-b", "64", "--response-size", "1000",
                             "--backend", backend, "--json", f"{out}/s.json"],
                            f"{backend} rr requester")
        started.append(requester)
        responder.wait_output("Network activity progressing", timeout=30)
        forged = struct.pack("!Q", 9) + b"\x00" * 56
        small = struct.pack("!Q", 11) + b"\x00" * 992  # as large as the answer: answered
        answers = rr_answers(base, [forged, small])
        check(answers == [(small[:8], 1000)],
              f"{backend}: a 64-byte request from a stranger got a 1000-byte answer: {answers}")
        check(requester.wait(60) == 0, f"{backend}: the real requester failed")
        check(responder.wait(60) == 0, f"{backend}: the responder failed")
        s = load_json(f"{out}/s.json")
        check(s["rr"]["transactions"] > 0 and s["rr"]["response_bytes"] == 1000,
              f"{backend}: the real requester got no answers: {s['rr']}")
        r = load_json(f"{out}/r.json")
        check(any("not answered" in n for n in r.get("notes", [])),
              f"{backend}: no note about the datagrams not answered: {r.get('notes')}")
        print(f"{backend}: --response-size 1000: the stranger's request unanswered, the real "
              f"requester made {s['rr']['transactions']} transactions")


def iperf2_client_port(client):
    """The local port iperf 2's client printed for its stream."""
    m = re.search(r"local \S+ port (\d+) connected with", client.stdout())
    check(m is not None, f"iperf -c printed no connection line:\n{client.stdout()}")
    return m.group(1)


def wait_next_test(server, tests, timeout=30):
    """Waits until the iperf2 server listens for its test after `tests` ended (each test opens
    its listener, then says "threads created"): a client between two tests is refused."""
    deadline = time.monotonic() + timeout
    while server.stderr().count("threads created") <= tests:
        check(server.proc.poll() is None, f"{server.name} exited:\n{server.stderr()}")
        check(time.monotonic() < deadline, f"{server.name} did not listen again:\n"
                                           f"{server.stderr()}")
        time.sleep(0.02)


def need_iperf():
    if not os.access(IPERF, os.X_OK):
        from xttcp_e2e import SkipTest
        raise SkipTest(f"{IPERF} is missing (apt-get install iperf)")


def iperf2_tcp_reset(xttcp, started):
    """Item 7: a stream that ends with a reset (what xttcp's -C client does: it closes without
    reading the server's 28-byte acknowledgement) ends that stream: reported, with its peer, and
    the next client is served whole. Before: no later client was ever reported, Ctrl+C exited 0
    with nothing; and a server's second test ended at once, its client's writes failing."""
    need_iperf()
    port = free_port_block(1)
    server = Process([xttcp, "--dialect", "iperf2", "-s", "-p", str(port)], "iperf2 server")
    started.append(server)
    wait_listening(port)
    c = socket.create_connection(("127.0.0.1", port), timeout=10)
    c.recv(28)  # the acknowledgement: the server has accepted the stream
    c.sendall(b"\x00" * 65536)  # no header (as -C)
    reset_port = c.getsockname()[1]
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()  # a reset
    server.wait_output(f"connected with 127.0.0.1 port {reset_port}", timeout=30)
    for tests in (1, 2):  # the next clients, one test each
        wait_next_test(server, tests)
        client = Process([IPERF, "-c", "127.0.0.1", "-p", str(port), "-t", "1"], "iperf -c")
        started.append(client)
        check(client.wait(60) == 0, f"iperf -c failed:\n{client.stdout()}{client.stderr()}")
        check("failed" not in client.stdout() + client.stderr(),
              f"iperf -c was cut off:\n{client.stdout()}{client.stderr()}")
        mine = iperf2_client_port(client)
        server.wait_output(f"connected with 127.0.0.1 port {mine}", timeout=30)
    server.wait_stderr(r"reset")  # a line says a stream ended with a reset
    server.signal(signal.SIGINT)
    check(server.wait(20) == 0, "the server did not end cleanly")
    print(f"a reset stream, then iperf -c from port {mine}: both reported")


def iperf2_datagram(sequence, size=100):
    """iperf 2's head: sequence (low, then high 32 bits after the time), time; then zeros."""
    u = sequence & 0xFFFFFFFFFFFFFFFF
    return struct.pack("!IIII", u & 0xFFFFFFFF, int(time.time()), 0, u >> 32) + \
        b"\x00" * (size - 16)


def start_iperf2_udp_server(xttcp, started, port):
    # Its streams are freed memory: the RSS bound of the spray case measures them, not ASan.
    server = Process([xttcp, "--dialect", "iperf2", "-s", "-u", "-p", str(port)],
                     "iperf2 UDP server", env=small_quarantine_env())
    started.append(server)
    wait_udp_bound(port)
    return server


def iperf2_udp_silent_stream(xttcp, started):
    """Item 8: one datagram without a FIN no longer holds the test: its stream ends after 10 s
    of silence, reported with what it had, and the real client's stream is reported. Before: no
    report for any client, ever."""
    need_iperf()
    port = free_port_block(1)
    server = start_iperf2_udp_server(xttcp, started, port)
    lone = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    lone.sendto(iperf2_datagram(1), ("127.0.0.1", port))
    client = Process([IPERF, "-c", "127.0.0.1", "-u", "-p", str(port), "-t", "1"], "iperf -c -u")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c -u failed:\n{client.stdout()}{client.stderr()}")
    mine = iperf2_client_port(client)
    server.wait_output(f"connected with 127.0.0.1 port {mine}", timeout=60)
    lone_port = lone.getsockname()[1]
    check(f"connected with 127.0.0.1 port {lone_port}" in server.stdout(),
          f"the silent stream is not reported:\n{server.stdout()}")
    server.wait_stderr(r"ended without a FIN.*1 silent")  # the note at the test's end
    lone.close()
    server.signal(signal.SIGINT)
    check(server.wait(20) == 0, "the server did not end cleanly")
    print(f"a lone datagram from port {lone_port}, then iperf -c -u from {mine}: both reported")


def iperf2_udp_evicted_streams(xttcp, started):
    """Item 8: streams pushed out of the 1,024-flow table end there, reported with what they
    had; the test ends once the rest send their FIN. Before: the test never ended."""
    port = free_port_block(1)
    server = start_iperf2_udp_server(xttcp, started, port)
    sources = []
    for i in range(1100):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for n in range(1, 5):  # four datagrams: each shows itself a stream
            s.sendto(iperf2_datagram(n), ("127.0.0.1", port))
        sources.append(s)
        if i % 50 == 0:
            time.sleep(0.005)  # the receive buffer keeps up
    for s in sources:
        s.sendto(iperf2_datagram(-5), ("127.0.0.1", port))
    server.wait_output("[ ID] Interval", timeout=60)
    # The note comes after the table, when the test ends.
    server.wait_stderr(r"ended without a FIN.* pushed out of the flow table")
    for s in sources:
        s.close()
    server.signal(signal.SIGINT)
    check(server.wait(20) == 0, "the server did not end cleanly")
    print(f"1100 streams at one port, each with a FIN: the test ended and was reported")


def iperf2_udp_source_spray(xttcp, started):
    """Item 8: while a stream holds the test, 200,000 FINs of 16 bytes, each from a new source:
    the server's memory stays bounded and no source gets back more bytes than it sent (a report
    is 128 bytes). Before: RSS grew by ~70 MB and every FIN got its 128-byte report (8x)."""
    port = free_port_block(1)
    server = start_iperf2_udp_server(xttcp, started, port)
    holder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    holder.sendto(iperf2_datagram(1), ("127.0.0.1", port))
    server_rss = rss_kb(server.pid)
    sent_bytes = answered_bytes = sprayed = 0
    fin = iperf2_datagram(-2, 16)
    batch, count = 250, 200_000
    held = 1
    while sprayed < count:
        held += 1  # the holding stream goes on (never silent for 10 s)
        holder.sendto(iperf2_datagram(held), ("127.0.0.1", port))
        sources = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(batch)]
        for s in sources:
            s.sendto(fin, ("127.0.0.1", port))
        sent_bytes += batch * len(fin)
        sprayed += batch
        # A real stream's FIN last: its report, once come, follows every FIN before it, so
        # whatever answered those is in their sockets by then. As iperf 2's client does, the FIN
        # is sent again until the report comes: a batch can fill the server's socket buffer
        # while a loaded host keeps the server from reading, and the kernel then drops the
        # datagrams at its tail (seen under load: the first FIN lost, no report in 10 s).
        real = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        real.settimeout(0.25)
        real.sendto(iperf2_datagram(1, 1470), ("127.0.0.1", port))
        deadline = time.monotonic() + 10
        while True:
            real.sendto(iperf2_datagram(-2, 1470), ("127.0.0.1", port))
            try:
                real.recv(2048)
                break
            except socket.timeout:
                if time.monotonic() > deadline:
                    raise Failure("a real stream's FIN, sent again every 250 ms, got no report "
                                  "within 10 s")
        real.close()
        for s in sources:
            s.setblocking(False)
            try:
                while True:
                    answered_bytes += len(s.recv(2048))
            except OSError:
                pass
            s.close()
    grown = rss_kb(server.pid) - server_rss
    print(f"{sprayed} FINs of 16 B from new sources: {answered_bytes} bytes came back for "
          f"{sent_bytes} sent; the server's RSS grew by {grown} kB")
    check(answered_bytes <= sent_bytes,
          f"{answered_bytes} bytes of reports for {sent_bytes} bytes of FINs: an amplifier")
    check(grown < 40_000, f"the server grew by {grown} kB under the spray")
    holder.close()
    server.signal(signal.SIGINT)
    check(server.wait(20) == 0, "the server did not end cleanly")


def udp_nosync_bursty_flow(xttcp, started):
    """Item 14: with -N, a real flow sending in bursts (24 datagrams a second, so silent longer
    between them than the table holds the spray's ids) meets, once it has shown itself a flow, a
    spray of invented flow ids (about 60,000 a second): it keeps its place in the flow table
    (listed, with its own figures) and the loss stays sane. Before: it was pushed out, and the
    loss read 2.1e12 (the invented ids' random sequences counted from 0)."""
    base = free_port_block(1)
    out = scratch_dir()
    receiver = Process([xttcp, "-r", "127.0.0.1", "-u", "-N", "-P", "1", "-p", str(base), "-t",
                        "3", "--json", f"{out}/r.json"], "-N receiver")
    started.append(receiver)
    wait_udp_bound(base)
    sender = Process([xttcp, "-s", "127.0.0.1", "-u", "-N", "-P", "1", "-n", "1", "-p", str(base),
                      "-t", "3", "-b", "1k", "-B", "200k", "--json", f"{out}/s.json"],
                     "-N bursty sender")
    started.append(sender)
    # Half a second of the real flow (a dozen datagrams) before the spray: the receiver's first
    # throughput line.
    receiver.wait_output("Real-time throughput", timeout=30)
    spray = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rng = random.Random(5)
    sprayed = 0
    begin = time.monotonic()
    while sender.proc.poll() is None and sprayed < 400_000:
        flow = (1 << 30) | rng.getrandbits(30)
        header = struct.pack("!IBBHIIQ", UDP_MAGIC, 1, 0, 0, flow, rng.getrandbits(32), sprayed)
        try:
            spray.sendto(header + b"x" * 41, ("127.0.0.1", base))
            sprayed += 1
        except OSError:
            pass
        if sprayed % 600 == 0:  # about 60,000 a second, whatever the machine's speed
            ahead = sprayed / 60_000 - (time.monotonic() - begin)
            if ahead > 0:
                time.sleep(ahead)
    spray.close()
    check(sender.wait(60) == 0, "the sender failed")
    check(receiver.wait(60) == 0, "the receiver failed")
    r, s = load_json(f"{out}/r.json"), load_json(f"{out}/s.json")
    run = r["udp"]["run"]
    real = s["udp"]["flows"][0]
    mine = [f for f in r["udp"]["flows"] if f["flow"] == real["flow"]]
    print(f"{sprayed} invented datagrams; the real flow sent {real['sent']}; receiver: lost "
          f"{run['lost']} of {run['received'] + run['lost']}, real flow listed: {mine}")
    check(run["lost"] <= real["sent"] + sprayed,
          f"the loss is absurd: {run['lost']} lost of {real['sent'] + sprayed} sent in all")
    check(len(mine) == 1 and 0 < mine[0]["received"] <= real["sent"],
          f"the real flow was pushed out of the table: {r['udp']['flows'][:3]} ...")


CASES = {
    "udp-short-datagrams": udp_short_datagrams,
    "rr-udp-reflection": rr_udp_reflection,
    "iperf2-tcp-reset": iperf2_tcp_reset,
    "iperf2-udp-silent-stream": iperf2_udp_silent_stream,
    "iperf2-udp-evicted-streams": iperf2_udp_evicted_streams,
    "iperf2-udp-source-spray": iperf2_udp_source_spray,
    "udp-nosync-bursty-flow": udp_nosync_bursty_flow,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
