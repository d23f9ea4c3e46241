#!/usr/bin/env python3
"""Hostile peers on the sync port (python sockets on loopback): nothing they send crashes the
receiver, grows it without bound, floods its log, stops a test they are not in or replaces the
real sender's result; a fake receiver cannot crash a sender either. After each attack a real
sender still gets an honest result. Cases: `hostile_peer_test.py XTTCP [CASE...]`."""
import os
import random
import resource
import select
import signal
import socket
import struct
import time

from xttcp_e2e import (Failure, Process, ScriptedReceiver, check, cpu_seconds, free_port_block,
                       last_test, load_json, native_sender_hello, parse_totals, rss_kb, run_cases,
                       scratch_dir, small_quarantine_env, socket_backends, wait_listening,
                       wait_udp_bound)

HELLO_INT = 0xC0DE7801 - (1 << 32)      # xttcp's native hello, an int32
HELLO = struct.pack("!i", HELLO_INT)
HELLO_ACK = 0xC0DE7802 - (1 << 32)
QUERY, START, EARLY_EXIT = 88, 82, 69
DEEP = 1_000_000


def ints(*values):
    return b"".join(struct.pack("!i", v) for v in values)


def frame(payload):
    return struct.pack("!I", len(payload)) + payload


def deep_result():
    """A result frame nested a million deep (2 MB): once grew a receiver to 7.9 GB and killed it."""
    return frame(b'{"schema":"xttcp-result","peer":' + b"[" * DEEP + b"]" * DEEP + b"}")


class Peer:
    """One sync connection speaking the protocol by hand."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.base = port + 1  # the data ports start above the sync port

    def send(self, data):
        self.sock.sendall(data)

    def read_exact(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise Failure(f"the peer closed after {len(data)} of {count} bytes")
            data += chunk
        return data

    def read_int(self):
        return struct.unpack("!i", self.read_exact(4))[0]

    def exchange(self, value):
        self.send(ints(value))
        return self.read_int()

    def hello(self):
        check(self.exchange(HELLO_INT) == HELLO_ACK, "no HELLO_ACK")
        self.send(frame(native_sender_hello(self.base)))
        length = struct.unpack("!I", self.read_exact(4))[0]
        self.read_exact(length)

    def closed_by_server(self, timeout=10):
        """True once the server has closed this connection (replies are drained)."""
        deadline = time.monotonic() + timeout
        self.sock.setblocking(False)
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.sock], [], [], 0.2)
            if not ready:
                continue
            try:
                if not self.sock.recv(65536):
                    return True
            except ConnectionResetError:
                return True
        return False

    def close(self):
        self.sock.close()


def start_receiver(xttcp, started, base, extra=(), limit_files=None, env=None):
    preexec = None
    if limit_files:
        preexec = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit_files, limit_files))
    receiver = Process([xttcp, "-r", "127.0.0.1", "-P", "1", "-p", str(base), "-Q", *extra],
                       "receiver", preexec_fn=preexec, env=env)
    started.append(receiver)
    wait_listening(base - 1)
    return receiver


def honest_test(xttcp, started, base, receiver=None, seconds="1"):
    """A real sender's test against the receiver: both ends agree on the bytes."""
    sender = Process([xttcp, "-s", "127.0.0.1", "-P", "1", "-n", "1", "-p", str(base), "-t",
                      seconds, "-Q"], "real sender")
    started.append(sender)
    check(sender.wait(60) == 0, "the real sender failed after the attack")
    sent = parse_totals(sender.stdout())["bytes"]
    check(sent > 0, "the real sender sent nothing")
    check("#####  Peer (receiver) totals:  #####" in sender.stdout(),
          "the real sender got no result from the receiver")
    return sent


def deep_nesting(xttcp, started):
    """Item 1: as the test's own sender, the attacker hands in a result nested 10^6 deep."""
    base = free_port_block(1)
    out = scratch_dir()
    native = os.path.join(out, "r.json")
    receiver = start_receiver(xttcp, started, base, ["-H", "-t", "1", "--json", native])
    # What the attack adds, not the process's size: a sanitizer build's binary alone maps
    # about 200 MB, and grew past an absolute bound of 200 MB as the program grew (CI).
    rss_before = rss_kb(receiver.pid)
    attacker = Peer(base - 1)
    attacker.hello()
    check(attacker.exchange(START) == START, "the attacker's start was refused")
    attacker.exchange(EARLY_EXIT)
    attacker.send(deep_result())
    attacker.close()
    receiver.wait_output("the sender's result is ignored", stderr_too=True)
    check("nested more than 16 deep" in receiver.stderr(), "the refusal does not say why")
    grown = rss_kb(receiver.pid) - rss_before
    check(grown < 50_000, f"the receiver grew by {grown} kB under the attack")
    print(f"deep nesting (10^6 levels, 2 MB): receiver RSS grew by {grown} kB")
    if os.path.exists(native):
        check(os.path.getsize(native) < 1_000_000, "the --json file grew with the attack")
    honest_test(xttcp, started, base)
    receiver.signal(signal.SIGINT)
    check(receiver.wait(15) == 0, "the receiver did not end cleanly")
    peer = last_test(load_json(native)).get("peer")
    check(peer is not None and peer["role"] == "sender" and peer["summary"]["total_bytes"] > 0,
          "the real sender's result is not in --json")


def fake_receiver_kills_sender(xttcp, started):
    """Item 1, the other way: a fake receiver answers a sender's result with a deep frame."""
    base = free_port_block(1)
    with ScriptedReceiver(base) as fake:
        sender = Process([xttcp, "-s", "127.0.0.1", "-P", "1", "-n", "1", "-p", str(base), "-t",
                          "1", "-Q"], "sender")
        started.append(sender)
        fake.run_test()
        fake.conn.sendall(deep_result())
        code = sender.wait(30)
        check(code == 1, f"the sender exited {code}, expected 1 (an unreadable result)")
        check("the receiver's result is unreadable: peer result: nested more than 16 deep"
              in sender.stderr(), "the sender does not say why")


def injection(xttcp, started):
    """Item 2: an outsider's 'E' and result during a real test change nothing; an outsider's
    cycle proposal is capped by the receiver (--max-cycle)."""
    base = free_port_block(1)
    out = scratch_dir()
    native = os.path.join(out, "r.json")
    receiver = start_receiver(xttcp, started, base, ["-t", "3", "--json", native])
    sender = Process([xttcp, "-s", "127.0.0.1", "-P", "1", "-n", "1", "-p", str(base), "-t", "3"],
                     "real sender")
    started.append(sender)
    receiver.wait_output("Network activity progressing")
    intruder = Peer(base - 1)
    intruder.hello()
    check(intruder.exchange(EARLY_EXIT) == 12, "an outsider's 'E' did not see a running test")
    intruder.send(frame(b'{"schema":"xttcp-result","role":"sender","total_bytes":999999999999}'))
    check(sender.wait(30) == 0, "the real sender failed")
    check(receiver.wait(30) == 0, "the receiver failed")
    intruder.close()
    check("cut short" not in receiver.stdout(), "the outsider's 'E' stopped the test")
    check("999999999999" not in receiver.stdout(), "the outsider's result was printed")
    peer = load_json(native)["peer"]
    check(peer["summary"]["total_bytes"] == parse_totals(sender.stdout())["bytes"],
          "the --json peer is not the real sender's result")

    base2 = free_port_block(1)
    receiver = start_receiver(xttcp, started, base2, ["-t", "1"])
    greedy = Peer(base2 - 1)
    check(greedy.exchange(2_000_000_000) == 3600,
          "a cycle of 2e9 s was not capped at the receiver's --max-cycle (3600 s by default)")
    greedy.close()
    receiver.signal(signal.SIGINT)
    receiver.wait(15)


def cooldown_ends(xttcp, started):
    """Item 2: a sender that asked for a long cycle and left after the window does not keep the
    receiver in its cool-down: with no sender left, the cool-down ends."""
    base = free_port_block(1)
    receiver = start_receiver(xttcp, started, base, ["-t", "1"])
    peer = Peer(base - 1)
    check(peer.exchange(3600) == 3600, "the receiver did not take the longer cycle")
    check(peer.exchange(START) == START, "no start")
    receiver.wait_output("Test cooldown is in progress")
    peer.close()
    # It sent no data: no result, and a lone test that measured nothing fails the run.
    check(receiver.wait(15) == 1, "the receiver stayed in its cool-down after its sender left")
    check("every sender has left: cool-down ended" in receiver.stdout(), "no line says why")
    check("no result recorded" in receiver.stderr(), "an empty test was reported as a result")


def floods(xttcp, started):
    """Item 3: proposals never read, zeros, half-sent frames: memory and log lines stay bounded."""
    base = free_port_block(1)
    receiver = start_receiver(xttcp, started, base, ["-H", "-t", "1"])
    rss_before = rss_kb(receiver.pid)
    flooders = []
    for pattern in (b"\xff", b"\x00"):  # -1 proposals; 0 = "continuous mode" lines
        peer = Peer(base - 1)
        peer.sock.settimeout(2)
        try:
            peer.send(pattern * (4 << 20))
        except OSError:
            pass  # closed by the receiver: the point
        flooders.append(peer)
    for _ in range(20):  # hello frames announced at 16 MiB, half sent
        peer = Peer(base - 1)
        peer.send(HELLO + struct.pack("!I", 16 << 20) + b"{" * 65536)
        flooders.append(peer)
    for peer in flooders:
        check(peer.closed_by_server(), "a flooding connection was not closed")
        peer.close()
    grown = rss_kb(receiver.pid) - rss_before
    check(grown < 50_000, f"the receiver grew by {grown} kB under the floods")
    print(f"floods (8 MiB of -1 proposals and zeros, 20 half-sent 16 MiB frames): receiver RSS "
          f"grew by {grown} kB")
    lines = receiver.stdout().count("continuous mode")
    check(lines <= 25, f"{lines} 'continuous mode' lines: the log was flooded")
    honest_test(xttcp, started, base)
    receiver.signal(signal.SIGINT)
    check(receiver.wait(15) == 0, "the receiver did not end cleanly")


def idle_connections(xttcp, started):
    """Item 4: 300 idle sync connections against a receiver limited to 128 descriptors: the
    sync thread neither spins nor floods the log, and a real sender runs once they go."""
    base = free_port_block(1)
    receiver = start_receiver(xttcp, started, base, ["-H", "-t", "1"], limit_files=128)
    cpu_before = cpu_seconds(receiver.pid)
    idle = []
    for _ in range(300):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", base - 1))
        except BlockingIOError:
            pass
        idle.append(s)
    time.sleep(3)  # the attack lasts a while: what the receiver spends on it is the measure
    spent = cpu_seconds(receiver.pid) - cpu_before
    check(spent < 1.0, f"the receiver used {spent:.2f} s of CPU in 3 s with idle connections")
    print(f"300 idle sync connections at a 128-descriptor limit: {spent:.2f} s of CPU in 3 s")
    out = receiver.stdout() + receiver.stderr()
    check(out.count("\n") < 100, f"{out.count(chr(10))} log lines under 300 idle connections")
    for s in idle:
        s.close()
    honest_test(xttcp, started, base)
    receiver.signal(signal.SIGINT)
    check(receiver.wait(15) == 0, "the receiver did not end cleanly")


UDP_MAGIC = 0x58545544  # engine/udp/datagram_header.hh
SPRAYED = 40_000


def udp_test(xttcp, started, base, backend, out, during=None):
    """A real UDP sender's test; returns its native result (the receiver's inside, as peer).
    `during(sender)`, if given, runs while the sender runs."""
    sender = Process([xttcp, "-s", "127.0.0.1", "-u", "-P", "1", "-n", "1", "-p", str(base),
                      "-t", "1", "-b", "1k", "-B", "50M", "--backend", backend, "-Q",
                      "--json", out], f"{backend} real sender")
    started.append(sender)
    if during:
        during(sender)
    check(sender.wait(60) == 0, f"{backend}: the real UDP sender failed")
    doc = load_json(out)
    check(doc.get("peer") is not None, f"{backend}: the sender got no result from the receiver")
    return doc


def spray_invented_flows(base, sender):
    """Datagrams with xttcp's header and invented flow ids at the data port until `sender` ends
    (so some land in its test's window), at most SPRAYED; returns how many were sent."""
    spray = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rng = random.Random(17)
    sent = 0
    while sent < SPRAYED and sender.proc.poll() is None:
        flow = (1 << 30) | rng.getrandbits(30)  # no real sender's: their ids are base | slot
        header = struct.pack("!IBBHIIQ", UDP_MAGIC, 1, 0, 0, flow, rng.getrandbits(32), sent)
        try:
            spray.sendto(header + b"x" * 41, ("127.0.0.1", base))  # 65 B: no 1 KiB multiple
            sent += 1
        except BlockingIOError:
            pass
        if sent % 200 == 0:
            time.sleep(0.005)  # spread over the test, not all before its window
    spray.close()
    return sent


def udp_flow_spray(xttcp, started):
    """Datagrams with xttcp's UDP header and invented flow ids, sprayed during a real sender's
    test: they speak for nobody. The receiver stays bounded (RSS), keeps them out of the test's
    bytes and datagrams (before: counted in them, as unattributed), reports them apart (result
    and note), and the real sender's figures are exact, in that test and the next."""
    backends = socket_backends(xttcp)
    for backend in backends:
        base = free_port_block(1)
        out = scratch_dir()
        env = small_quarantine_env()  # every flow the table drops is freed memory
        receiver = start_receiver(xttcp, started, base,
                                  ["-u", "-H", "-t", "1", "--backend", backend], env=env)
        wait_udp_bound(base)
        rss_before = rss_kb(receiver.pid)
        cpu_before = cpu_seconds(receiver.pid)
        sprayed = []
        first = udp_test(xttcp, started, base, backend, os.path.join(out, "1.json"),
                         during=lambda sender: sprayed.append(spray_invented_flows(base, sender)))
        grown = rss_kb(receiver.pid) - rss_before
        spent = cpu_seconds(receiver.pid) - cpu_before
        print(f"{backend}: {sprayed[0]} invented datagrams during a test: receiver RSS grew by "
              f"{grown} kB, {spent:.2f} s of CPU for the test and the spray")
        check(grown < 60_000, f"{backend}: the receiver grew by {grown} kB under the spray")
        theirs = first["peer"]
        run = theirs["udp"]["run"]
        foreign = run.get("foreign", {})
        check(0 < foreign.get("datagrams", 0) <= sprayed[0] and
              foreign.get("bytes") == 65 * foreign.get("datagrams"),
              f"{backend}: the spray of {sprayed[0]} is not reported apart: {run}")
        check(run["unattributed"] == 0, f"{backend}: datagrams left unattributed: {run}")
        check(any("no sender of this test set up" in n for n in theirs.get("notes", [])),
              f"{backend}: no note about the foreign datagrams: {theirs.get('notes')}")
        exact_figures(backend, first)
        # The spray's tail, read after the first test's report, is the next test's to report.
        second = udp_test(xttcp, started, base, backend, os.path.join(out, "2.json"))
        late = second["peer"]["udp"]["run"]["foreign"]["datagrams"]
        check(foreign["datagrams"] + late <= sprayed[0],
              f"{backend}: {foreign['datagrams']} + {late} foreign datagrams of {sprayed[0]}")
        exact_figures(backend, second)
        receiver.signal(signal.SIGINT)
        check(receiver.wait(15) == 0, f"{backend}: the receiver did not end cleanly")


def spray_every_base(base, sender):
    """Datagrams with xttcp's header under every flow base (slot 0, the real sender's only
    slot here) and no token (0, which no sender draws), until `sender` ends, at most SPRAYED;
    returns how many were sent. The base alone is 12 bits: about one in 4095 of these names the
    real sender's flow id."""
    spray = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sent = 0
    while sent < SPRAYED and sender.proc.poll() is None:
        flow = (1 + sent % 4095) << 20
        header = struct.pack("!IBBHIIQ", UDP_MAGIC, 1, 0, 0, flow, sent, sent)
        try:
            spray.sendto(header + b"x" * 41, ("127.0.0.1", base))  # 65 B: no 1 KiB multiple
            sent += 1
        except BlockingIOError:
            pass
        if sent % 200 == 0:
            time.sleep(0.005)  # spread over the test, not all before its window
    spray.close()
    return sent


def udp_base_spray(xttcp, started):
    """Datagrams under every flow base, so some name the real sender's declared flow id, but
    without its token (docs/hostile-peers.md): before, those counted as the real sender's
    (its received, its window's bytes); now all are foreign, reported apart, and the real
    sender's figures are exact."""
    for backend in socket_backends(xttcp):
        base = free_port_block(1)
        out = scratch_dir()
        receiver = start_receiver(xttcp, started, base,
                                  ["-u", "-H", "-t", "1", "--backend", backend])
        wait_udp_bound(base)
        sprayed = []
        doc = udp_test(xttcp, started, base, backend, os.path.join(out, "1.json"),
                       during=lambda sender: sprayed.append(spray_every_base(base, sender)))
        run = doc["peer"]["udp"]["run"]
        foreign = run.get("foreign", {})
        print(f"{backend}: {sprayed[0]} datagrams over every base, {foreign.get('datagrams')} "
              f"reported foreign")
        check(sprayed[0] >= 4095, f"{backend}: only {sprayed[0]} sprayed, not every base once")
        check(0 < foreign.get("datagrams", 0) <= sprayed[0],
              f"{backend}: the spray of {sprayed[0]} is not reported apart: {run}")
        exact_figures(backend, doc)
        receiver.signal(signal.SIGINT)
        check(receiver.wait(15) == 0, f"{backend}: the receiver did not end cleanly")


def exact_figures(backend, doc):
    """The receiver's figures in a sender's result are the real sender's alone: its flows, its
    datagrams, and window bytes that are whole 1 KiB datagrams (the spray's are 65 B)."""
    mine = {f["flow"]: f["sent"] for f in doc["udp"]["flows"]}
    theirs = doc["peer"]
    udp = theirs["udp"]
    check({f["flow"] for f in udp["flows"]} == set(mine),
          f"{backend}: the receiver's flows {[f['flow'] for f in udp['flows']]} are not "
          f"the sender's {list(mine)}")
    received = sum(f["received"] for f in udp["flows"])
    check(0 < received <= udp["run"]["sent"] == sum(mine.values()) and
          received == udp["run"]["received"],
          f"{backend}: the real sender's figures are off: sent {mine}, receiver {udp['run']}")
    total = theirs["summary"]["total_bytes"]
    check(total % 1024 == 0 and udp["datagram_size"] == 1024,
          f"{backend}: the receiver's window holds other bytes: {total} B, datagrams of "
          f"{udp['datagram_size']} B on average")


def udp_count_end_markers(xttcp, started):
    """Item 2: end markers under invented flow ids, sent to a Windows-dialect count-mode UDP
    receiver before its sender starts, end nothing (before: they ended the test at once); they
    are counted, and the real sender's flow ends the test with all its datagrams accounted."""
    base = free_port_block(2)
    out = scratch_dir()
    count = 20_000  # 20 MB: far from over when the test starts
    common = ["-m", "1,*,127.0.0.1", "-u", "-p", str(base), "-n", str(count), "-l", "1k",
              "-t", "60"]
    receiver = Process([xttcp, "--dialect", "windows", "-r", *common, "--json", f"{out}/r.json"],
                       "count-mode receiver")
    started.append(receiver)
    wait_listening(base + 1000)
    wait_udp_bound(base)
    spray = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(5):  # a marker: the header with the end flag, then the u64 count sent
        marker = struct.pack("!IBBHIIQQ", UDP_MAGIC, 1, 1, 0, (1 << 30) | i, 7, i, 7)
        spray.sendto(marker, ("127.0.0.1", base))
    spray.close()
    sender = Process([xttcp, "--dialect", "windows", "-s", *common, "--json", f"{out}/s.json"],
                     "count-mode sender")
    started.append(sender)
    check(sender.wait(60) == 0, "the count-mode sender failed")
    check(receiver.wait(60) == 0, "the count-mode receiver failed")
    r = load_json(f"{out}/r.json")
    run = r["udp"]["run"]
    check(run["received"] > 0 and run["received"] + run["lost"] == count and
          r["summary"]["total_bytes"] == 1024 * run["received"],
          f"the receiver did not wait for the real flow's {count} datagrams: {run}, "
          f"{r['summary']['total_bytes']} B in {r['summary']['duration_s']} s")
    check(run.get("foreign", {}).get("end_markers") == 5,
          f"the invented end markers were not counted apart: {run}")


def udp_windows_spray(xttcp, started):
    """The Windows dialect has no hello: an xttcp sender declares each thread's flow on its
    token connection after the tokens (docs/hostile-peers.md). Invented flow ids sprayed during
    the test are foreign there too (before: counted in the receiver's figures), and the
    receiver's flows are the sender's, its window whole 1 KiB datagrams."""
    base = free_port_block(2)
    out = scratch_dir()
    common = ["-m", "2,*,127.0.0.1", "-u", "-p", str(base), "-t", "2", "-l", "1k"]
    receiver = Process([xttcp, "--dialect", "windows", "-r", *common, "--json", f"{out}/r.json"],
                       "Windows-dialect UDP receiver")
    started.append(receiver)
    wait_listening(base + 1000)
    wait_udp_bound(base)
    sender = Process([xttcp, "--dialect", "windows", "-s", *common, "-thr", "6000",
                      "--udp-payload", "native",
                      "--json", f"{out}/s.json"], "Windows-dialect UDP sender")
    started.append(sender)
    receiver.wait_output("Network activity progressing", timeout=30)  # the tokens are done
    sprayed = spray_invented_flows(base, sender)
    check(sender.wait(60) == 0, "the Windows-dialect sender failed")
    check(receiver.wait(60) == 0, "the Windows-dialect receiver failed")
    r, s = load_json(f"{out}/r.json"), load_json(f"{out}/s.json")
    run = r["udp"]["run"]
    print(f"{sprayed} invented datagrams during the test; receiver: {run}")
    check(0 < run.get("foreign", {}).get("datagrams", 0) <= sprayed,
          f"the spray of {sprayed} is not reported apart: {run}")
    check(run["unattributed"] == 0, f"datagrams left unattributed: {run}")
    mine = {f["flow"] for f in s["udp"]["flows"]}
    check({f["flow"] for f in r["udp"]["flows"]} == mine,
          f"the receiver's flows {[f['flow'] for f in r['udp']['flows']]} are not the "
          f"sender's {sorted(mine)}")
    total = r["summary"]["total_bytes"]
    check(total > 0 and total % 1024 == 0, f"the receiver's window holds other bytes: {total} B")


def windows_control_descriptors(xttcp, started):
    """Item 4 in the Windows dialect: a receiver at 64 descriptors whose data port strangers
    fill (before: "-sp: cannot accept a sender: Too many open files", exit 1). The last 32
    descriptors are kept for the control ports (docs/hostile-peers.md, "The data ports"): the
    connections past them are closed at once, said at most once per 10 s; the receiver spends
    no CPU meanwhile, never runs short on its -sp or token port, and serves the real sender once
    the strangers are gone."""
    for sp in (True, False):
        base = free_port_block(2)
        data_port, control = (base + 1, base) if sp else (base, base + 1000)
        name = "-sp" if sp else "token sync"
        common = ["-m", "1,*,127.0.0.1", "-p", str(base), "-t", "1", *(["-sp"] if sp else [])]
        limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        out = scratch_dir()
        receiver = Process([xttcp, "--dialect", "windows", "-r", *common, "--wait-timeout", "60",
                            "--json", f"{out}/r.json"], f"{name} receiver", preexec_fn=limit)
        started.append(receiver)
        wait_listening(control)
        held = []
        try:
            for _ in range(100):  # more than its 64 descriptors can hold
                s = socket.socket()
                s.setblocking(False)
                try:
                    s.connect(("127.0.0.1", data_port))
                except BlockingIOError:
                    pass
                held.append(s)
            receiver.wait_output("kept for the sync port", 10, stderr_too=True)
            # The data port rests or closes; what the receiver spends meanwhile is the measure.
            before = cpu_seconds(receiver.pid)
            time.sleep(2)
            spent = cpu_seconds(receiver.pid) - before
            print(f"{name}: the receiver at its descriptor limit used {spent:.2f} s of CPU in 2 s")
            check(receiver.proc.poll() is None, f"{name}: the receiver ended at its limit")
            check(spent < 0.3, f"{name}: the receiver used {spent:.2f} s of CPU in 2 s")
            said = receiver.stderr().count("kept for the sync port")
            check(said <= 2, f"{name}: the closures were said {said} times in 2 s")
        finally:
            for s in held:
                s.close()
        sender = Process([xttcp, "--dialect", "windows", "-s", *common, "--json",
                          f"{out}/s.json"], f"{name} sender")
        started.append(sender)
        check(sender.wait(60) == 0, f"{name}: the sender failed after the strangers left")
        check(receiver.wait(60) == 0, f"{name}: the receiver failed:\n{receiver.describe()}")
        check("Too many open files" not in receiver.stderr(),
              f"{name}: a listener ran short all the same:\n{receiver.stderr()}")
        for role in ("r", "s"):
            total = load_json(f"{out}/{role}.json")["summary"]["total_bytes"]
            check(total > 0, f"{name}: the {role}.json total is {total} B")


CASES = {
    "deep-nesting": deep_nesting,
    "fake-receiver": fake_receiver_kills_sender,
    "injection": injection,
    "cooldown-ends": cooldown_ends,
    "floods": floods,
    "idle-connections": idle_connections,
    "udp-flow-spray": udp_flow_spray,
    "udp-base-spray": udp_base_spray,
    "windows-control-descriptors": windows_control_descriptors,
    "udp-count-end-markers": udp_count_end_markers,
    "udp-windows-spray": udp_windows_spray,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
