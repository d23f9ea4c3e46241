#!/usr/bin/env python3
"""A test belongs to its sender (docs/hostile-peers.md, "Who may do what"): a stranger on the
sync port can neither join a running test, hold the receiver, flood its log, wipe a finished
result nor fill its seats; with --auth-key it is not served at all. Each case attacks a real
receiver on loopback by hand, then checks that a real sender still gets an honest result.
Cases: `hostile_session_test.py XTTCP [CASE...]`."""
import json
import os
import select
import signal
import socket
import struct
import time

from hostile_peer_test import EARLY_EXIT, HELLO_INT, START, Peer, frame, start_receiver
from xttcp_e2e import (Failure, Process, check, free_port_block, last_test, load_json,
                       parse_totals,
                       run_cases, scratch_dir, wait_listening)

THREE_YEARS = 94_608_000
AUTH_HELLO = 0xC0DE7803 - (1 << 32)


def real_sender(xttcp, started, base, seconds="2", extra=(), name="real sender"):
    sender = Process([xttcp, "-s", "127.0.0.1", "-P", "1", "-n", "1", "-p", str(base), "-t",
                      seconds, *extra], name)
    started.append(sender)
    return sender


def honest(sender, code=0):
    """The sender ended as expected with its receiver's figures (native peers)."""
    got = sender.wait(90)
    check(got == code, f"{sender.name} exited {got}, expected {code}:\n{sender.describe()}")
    if code == 0:
        check(parse_totals(sender.stdout())["bytes"] > 0, f"{sender.name} sent nothing")
        check("#####  Peer (receiver) totals:  #####" in sender.stdout(),
              f"{sender.name} got no result from the receiver")


def join_running_test(xttcp, started):
    """Item 1: during a real sender's test a stranger says 'R' (before: it joined the test, and
    its 'E' ended it: "the receiver closed every connection 1.50 s into a 4 s test"), then 'E'
    and a result frame: refused, and the test is the real sender's alone."""
    base = free_port_block(1)
    native = os.path.join(scratch_dir(), "r.json")
    receiver = start_receiver(xttcp, started, base, ["-t", "3", "--json", native])
    sender = real_sender(xttcp, started, base, "3")
    receiver.wait_output("Network activity progressing")
    stranger = Peer(base - 1)
    stranger.hello()
    reply = stranger.exchange(START)
    check(reply == EARLY_EXIT, f"a stranger's start during a test was answered {reply}, not 'E'")
    check(stranger.exchange(EARLY_EXIT) == 12, "a stranger's 'E' did not see a running test")
    result = {"schema": "xttcp-result", "schema_version": 1, "role": "sender",
              "host": {"hostname": "ATTACKER"}}
    stranger.send(frame(json.dumps(result).encode()))
    honest(sender)
    check(receiver.wait(30) == 0, "the receiver failed")
    stranger.close()
    check("cut short" not in receiver.stdout(), "the stranger stopped the test")
    check("ATTACKER" not in receiver.stdout() + receiver.stderr(), "the stranger's result shows")
    check("start refused: a test is running" in receiver.stderr(), "no line names the refusal")
    peer = load_json(native)["peer"]
    check(peer["summary"]["total_bytes"] == parse_totals(sender.stdout())["bytes"],
          "the --json peer is not the real sender's result")


def hold_three_years(xttcp, started):
    """Item 2: a connection proposes a cycle of three years (before: answered 94,608,000 s),
    says 'R' and holds on (before: real senders got "receiver is busy" for ever). Now the cycle
    is capped at --max-cycle (3600 s by default), a test with no data is ended after 30 s and
    its holder let go 5 s later."""
    base = free_port_block(1)
    receiver = start_receiver(xttcp, started, base, ["-H", "-t", "1"])
    holder = Peer(base - 1)
    cycle = holder.exchange(THREE_YEARS)
    check(cycle == 3600, f"a three-year proposal was answered {cycle} s, not capped at 3600")
    check(holder.exchange(START) == START, "the holder's start was refused")
    receiver.wait_output("no data came in the first 30 s", timeout=75, stderr_too=True)
    receiver.wait_output("no result recorded", timeout=15, stderr_too=True)
    check(holder.closed_by_server(timeout=30), "the holder of an empty test was not let go")
    holder.close()
    wait_not_busy(base - 1)
    honest(real_sender(xttcp, started, base, "1"))
    receiver.signal(signal.SIGINT)
    check(receiver.wait(15) == 0, "the -H receiver did not end cleanly")


def log_flood(xttcp, started):
    """Item 3: 300 times connect, 'R', close (before: 300 empty tests in 3.3 s, 5,703 lines,
    and the -H receiver exited 1). Now each start is refused while a test runs or settles, an
    empty test is one line, every line shares the budget, and the receiver exits 0."""
    base = free_port_block(1)
    receiver = start_receiver(xttcp, started, base, ["-H", "-t", "1"])
    for _ in range(300):
        peer = Peer(base - 1)
        try:
            peer.exchange(START)
        except (Failure, OSError):
            pass  # closed by the receiver: refused
        peer.close()
    wait_not_busy(base - 1)
    honest(real_sender(xttcp, started, base, "1"))
    receiver.signal(signal.SIGINT)
    code = receiver.wait(15)
    check(code == 0, f"the -H receiver exited {code} after the flood:\n{receiver.stderr()}")
    lines = len((receiver.stdout() + receiver.stderr()).splitlines())
    # The honest test's own block is about 40 lines; the flood's are capped at 20 per 10 s and
    # at 30 tests a minute.
    check(lines < 200, f"the flood made the receiver log {lines} lines")
    print(f"log flood: 300 connect-start-close cycles; the receiver logged {lines} lines")


def empty_test_keeps_result(xttcp, started):
    """Item 4: after a real test of a -H receiver with --json, a stranger starts a test and
    leaves (before: its empty test replaced the 14 GB result with 0 bytes). An empty test is no
    result: the file keeps the real one."""
    base = free_port_block(1)
    native = os.path.join(scratch_dir(), "r.json")
    receiver = start_receiver(xttcp, started, base, ["-H", "-t", "1", "--json", native])
    sender = real_sender(xttcp, started, base, "1")
    honest(sender)
    receiver.wait_output("#####  Totals:  #####")
    deadline = time.monotonic() + 20
    while not os.path.exists(native):
        check(time.monotonic() < deadline, "the receiver wrote no --json")
        time.sleep(0.05)
    real = last_test(load_json(native))["summary"]["total_bytes"]
    stranger = None
    deadline = time.monotonic() + 20
    while True:  # the real sender's sync connection may still be settling
        stranger = Peer(base - 1)
        if stranger.exchange(START) == START:
            break
        stranger.close()
        check(time.monotonic() < deadline, "no new test could start after the real one")
        time.sleep(0.1)
    stranger.close()
    receiver.wait_output("no result recorded", stderr_too=True)
    check(last_test(load_json(native))["summary"]["total_bytes"] == real,
          "the empty test replaced the real result in --json")
    receiver.signal(signal.SIGINT)
    check(receiver.wait(15) == 0, "the -H receiver did not end cleanly")


def slow_connections(xttcp, started):
    """Item 5: 64 sync connections from one address, each sending a byte now and then (before:
    they held every seat past the idle limit and a real sender got "receiver closed the
    connection"). Connections still opening a test are bounded per network, so a sender from
    elsewhere (127.0.0.2) is served; each has 120 s to start a test (unit-control checks it)."""
    base = free_port_block(1)
    receiver = start_receiver(xttcp, started, base, ["-H", "-t", "1"])
    slow = []
    for _ in range(64):
        try:
            slow.append(socket.create_connection(("127.0.0.1", base - 1), timeout=5))
        except OSError:
            pass
    for s in slow:
        try:
            s.sendall(b"\0")
        except OSError:
            pass
    honest(real_sender(xttcp, started, base, "1", ["-a", "127.0.0.2"], "sender from 127.0.0.2"))
    closed = closed_by_receiver(slow, 64 - 16, timeout=20)
    check(closed >= 64 - 16, f"only {closed} of 64 slow connections were closed at once")
    for s in slow:
        s.close()
    receiver.signal(signal.SIGINT)
    check(receiver.wait(15) == 0, "the -H receiver did not end cleanly")


def closed_by_receiver(sockets, enough, timeout):
    """How many of `sockets` the receiver has closed, waiting until `enough` are or `timeout`."""
    closed = set()
    deadline = time.monotonic() + timeout
    while len(closed) < enough and time.monotonic() < deadline:
        ready, _, _ = select.select([s for s in sockets if s not in closed], [], [], 0.2)
        for s in ready:
            try:
                if s.recv(1) == b"":
                    closed.add(s)
            except OSError:
                closed.add(s)
    return len(closed)


def wait_not_busy(port, timeout=60):
    """Readiness for a new test: the receiver's busy check answers "not running"."""
    deadline = time.monotonic() + timeout
    while True:
        probe = Peer(port)
        try:
            if probe.exchange(88) != 12:
                return
        finally:
            probe.close()
        check(time.monotonic() < deadline, "the receiver stayed busy")
        time.sleep(0.1)


def descriptors_for_sync(xttcp, started):
    """Item 14: idle data connections fill a receiver's open files (before: its sync port could
    not accept either, and a real sender got "sync: no reply from the receiver within 5 s").
    The last 32 descriptors are kept for the sync port: a sender still reaches it and is told,
    and once the idle connections go, a real sender is served."""
    base = free_port_block(1)
    receiver = start_receiver(xttcp, started, base, ["-H", "-t", "1"], limit_files=64)
    held = []
    try:
        for _ in range(100):
            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect(("127.0.0.1", base))
            except BlockingIOError:
                pass
            held.append(s)
        deadline = time.monotonic() + 20  # the data port is full: said either way
        while not any(line in receiver.stderr()
                      for line in ("kept for the sync port", "Too many open files")):
            check(time.monotonic() < deadline, "the receiver never said its data port is full")
            time.sleep(0.05)
        blocked = real_sender(xttcp, started, base, "1", ["--connect-timeout", "5"],
                              "sender while the data port is full")
        check(blocked.wait(60) == 1, "a sender into a full data port did not fail")
        check("no reply from the receiver" not in blocked.stderr(),
              f"the sync port was blocked too:\n{blocked.stderr()}")
    finally:
        for s in held:
            s.close()
    wait_not_busy(base - 1)
    honest(real_sender(xttcp, started, base, "1"))
    receiver.signal(signal.SIGINT)
    check(receiver.wait(15) == 0, f"the -H receiver did not end cleanly:\n{receiver.stderr()}")


def key_file(directory, name, secret):
    path = os.path.join(directory, name)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secret + "\n")
    return path


def auth_pair(xttcp, started):
    """--auth-key: both ends with the same key run an honest test; their results say so."""
    base = free_port_block(1)
    out = scratch_dir()
    key = key_file(out, "key", "correct horse battery staple 42")
    native = os.path.join(out, "s.json")
    receiver = start_receiver(xttcp, started, base, ["-t", "1", "--auth-key", key])
    sender = real_sender(xttcp, started, base, "1", ["--auth-key", key, "--json", native])
    honest(sender)
    check(receiver.wait(30) == 0, f"the receiver failed:\n{receiver.describe()}")
    doc = load_json(native)
    check(doc["spec"].get("auth_key_file") == key, "the sender's spec does not echo --auth-key")
    check(doc["peer"]["spec"].get("auth_key_file") == key, "the receiver's spec does not echo it")


def auth_refusals(xttcp, started):
    """--auth-key at the receiver: an xttcp sender without the key, one with another key, an
    NTTTCP-style sender and a bare data connection are refused, counted and named; a sender
    with the key is served. Each refusal is one line at each end."""
    base = free_port_block(1)
    out = scratch_dir()
    key = key_file(out, "key", "correct horse battery staple 42")
    other = key_file(out, "other", "incorrect donkey battery staple")
    native = os.path.join(out, "r.json")
    receiver = start_receiver(xttcp, started, base,
                              ["-H", "-t", "2", "--auth-key", key, "--json", native])
    without = real_sender(xttcp, started, base, "1", name="sender without a key")
    check(without.wait(30) == 1, "a sender without the key was not refused")
    check("receiver closed the connection" in without.stderr(), without.describe())
    wrong = real_sender(xttcp, started, base, "1", ["--auth-key", other], "sender, other key")
    check(wrong.wait(30) == 1, "a sender with another key was not refused")
    check("the receiver's proof is wrong: it holds another key" in wrong.stderr(),
          wrong.describe())
    legacy = Peer(base - 1)
    legacy.send(b"\0\0\0X")  # 'X', as NTTTCP-for-Linux opens
    check(legacy.closed_by_server(), "an NTTTCP-style sender was not closed at once")
    legacy.close()
    # A test by the sender with the key; meanwhile a bare data connection (no preamble).
    sender = real_sender(xttcp, started, base, "2", ["--auth-key", key])
    receiver.wait_output("Network activity progressing")
    bare = socket.create_connection(("127.0.0.1", base), timeout=5)
    bare.sendall(b"A" * 4096)
    honest(sender)
    bare.settimeout(5)
    try:
        check(bare.recv(1) == b"", "a data connection without the preamble was served")
    except ConnectionResetError:
        pass
    bare.close()
    receiver.wait_output("#####  Totals:  #####")
    deadline = time.monotonic() + 20
    while not os.path.exists(native):
        check(time.monotonic() < deadline, "the receiver wrote no --json")
        time.sleep(0.05)
    receiver.signal(signal.SIGINT)
    check(receiver.wait(15) == 0, f"the -H receiver did not end cleanly:\n{receiver.describe()}")
    err = receiver.stderr()
    check("an xttcp sender without --auth-key" in err, "the keyless sender's refusal is unnamed")
    check("an NTTTCP-compatible sender cannot authenticate" in err,
          "the NTTTCP-style sender's refusal does not say why")
    access = last_test(load_json(native)).get("access")
    check(access is not None, "the result has no access counts")
    check(access["unauthenticated"] >= 3 and access["refused_data"] >= 1,
          f"refusals not counted: {access}")


def auth_legacy_and_options(xttcp, started):
    """--auth-key's rules on the command line, and a sender with a key against a receiver
    without one."""
    out = scratch_dir()
    key = key_file(out, "key", "correct horse battery staple 42")
    short = key_file(out, "short", "tiny")
    loose = key_file(out, "loose", "correct horse battery staple 42")
    os.chmod(loose, 0o644)
    for args, words in [
        (["-r", "--auth-key", os.path.join(out, "missing")], "--auth-key"),
        (["-r", "--auth-key", short], "it must be 16 to 4096"),
        (["-r", "--auth-key", loose], "chmod 600"),
        (["-r", "-N", "--auth-key", key], "-N"),
        (["-r", "--max-cycle", "5", "-t", "10"], "--max-cycle"),
    ]:
        run = Process([xttcp, *args], "bad line")
        started.append(run)
        check(run.wait(15) == 2, f"{args} did not exit 2:\n{run.describe()}")
        err = run.stderr().strip().splitlines()
        check(len(err) == 1 and words in err[0], f"{args}: {err}")
    base = free_port_block(1)
    receiver = start_receiver(xttcp, started, base, ["-t", "1"])
    sender = real_sender(xttcp, started, base, "1", ["--auth-key", key], "sender with a key")
    check(sender.wait(30) == 1, "a keyed sender ran against a receiver without a key")
    check("the receiver has no --auth-key" in sender.stderr(), sender.describe())
    receiver.signal(signal.SIGINT)
    receiver.wait(15)


def legacy_receiver_three_years(xttcp, started):
    """Item 13: a receiver that is not xttcp (no HELLO_ACK) answers a -t 2 sender's proposal
    with a cycle of three years. NTTTCP's rule lets the receiver's longer -t win, but only up to
    the sender's --max-cycle (default 3600 s): the sender refuses in one line (before: it kept
    sending at full rate for the three years)."""
    base = free_port_block(1)
    with socket.create_server(("127.0.0.1", base - 1)) as server:
        sender = real_sender(xttcp, started, base, "2")
        server.settimeout(10)
        conn, _ = server.accept()
        conn.settimeout(10)
        with conn:
            def read_int():
                data = b""
                while len(data) < 4:
                    chunk = conn.recv(4 - len(data))
                    check(chunk, "the sender closed the sync connection early")
                    data += chunk
                return struct.unpack("!i", data)[0]
            check(read_int() == HELLO_INT, "the sender did not say hello first")
            conn.sendall(struct.pack("!i", 60))  # NTTTCP takes it as a proposal: no HELLO_ACK
            check(read_int() == 88, "no busy check ('X')")
            conn.sendall(struct.pack("!i", 11))
            read_int()  # the sender's proposal
            conn.sendall(struct.pack("!i", THREE_YEARS))
            code = sender.wait(30)
    check(code == 1, f"the sender exited {code}, expected 1:\n{sender.describe()}")
    check(f"the receiver answered a test cycle of {THREE_YEARS} s and this sender runs at most "
          "3600 s (--max-cycle)" in sender.stderr(), f"the sender does not say why:\n"
          f"{sender.stderr()}")
    check("Network activity progressing" not in sender.stdout(), "the sender started sending")


CASES = {
    "join-running-test": join_running_test,
    "hold-three-years": hold_three_years,
    "log-flood": log_flood,
    "empty-test-keeps-result": empty_test_keeps_result,
    "slow-connections": slow_connections,
    "descriptors-for-sync": descriptors_for_sync,
    "auth-pair": auth_pair,
    "auth-refusals": auth_refusals,
    "auth-options": auth_legacy_and_options,
    "legacy-receiver-three-years": legacy_receiver_three_years,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
