#!/usr/bin/env python3
"""Strangers on the Windows dialect's control ports (issue 28, item 9; docs/hostile-peers.md):
the token ports (data port + 1000) and the -sp port hand-out (base port). Python sockets play the
stranger, from 127.0.0.2 unless said, against a real xttcp receiver and sender in the Windows
dialect on 127.0.0.1: every wait on those ports has a deadline, a stranger never decides the
test, a reset ends its own connection only, and a test that got no data is not a success. Each
case but rr-tokens (a guard) failed on the binary before these rules.
Cases: `hostile_windows_test.py XTTCP [CASE...]`."""
import os
import socket
import struct
import sys

from xttcp_e2e import (Failure, Process, check, free_port_block, load_json, run_cases, scratch_dir,
                       socket_backends, wait_listening)

STRANGER = "127.0.0.2"


def windows(xttcp, started, role, base, extra=(), name=None):
    """A Windows-dialect receiver or sender on 127.0.0.1, one thread, 1 s, with --json."""
    out = os.path.join(scratch_dir(), f"{role}.json")
    p = Process([xttcp, "--dialect", "windows", f"-{role}", "-m", "1,*,127.0.0.1", "-p",
                 str(base), "-t", "1", *extra, "--json", out],
                name or f"Windows-dialect {'receiver' if role == 'r' else 'sender'}")
    started.append(p)
    return p, out


def stranger(port, receiver, source=STRANGER, reset=False):
    """A connection to 127.0.0.1:port from `source`; `reset`: closed at once with a reset.
    Fails saying what became of `receiver` when the port no longer takes connections."""
    s = socket.socket()
    s.settimeout(60)
    s.bind((source, 0))
    try:
        s.connect(("127.0.0.1", port))
    except OSError as error:
        s.close()
        code = receiver.proc.poll()
        state = "still running" if code is None else f"exited {code}"
        last = (receiver.stderr().strip().splitlines() or ["nothing"])[-1]
        raise Failure(f"cannot connect to port {port} from {source}: {error}; the receiver is "
                      f"{state}, its last error line: {last}")
    if reset:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    return s


def closed_by_receiver(sock):
    """Whether the receiver closed `sock` without a byte (waits up to the socket's timeout)."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def last_error(process):
    lines = [line for line in process.stderr().splitlines() if "ERR" in line]
    return lines[-1].strip() if lines else "none"


def real_test_passes(sender, receiver, r_json, what):
    """The real sender's test ran: both ends exit 0 and the receiver counted its bytes."""
    sent = sender.wait(90)
    received = receiver.wait(60)
    check(received == 0, f"{what}: the receiver exited {received} ({last_error(receiver)})")
    check(sent == 0, f"{what}: the real sender exited {sent} ({last_error(sender)})")
    total = load_json(r_json)["summary"]["total_bytes"]
    check(total > 0, f"{what}: the receiver's test holds {total} bytes, not the sender's")


def token_idle(xttcp, started):
    """Idle connections to a token port, more than it holds at once (before: the first one took
    the one-shot port, the real sender's token was refused and the receiver waited for ever).
    The real sender is served; the oldest idle ones are closed as the port fills, the others once
    the thread's token came."""
    base = free_port_block(1)
    receiver, r_json = windows(xttcp, started, "r", base)
    wait_listening(base + 1000)
    idle = [stranger(base + 1000, receiver) for _ in range(6)]
    sender, _ = windows(xttcp, started, "s", base)
    real_test_passes(sender, receiver, r_json, "idle token connections")
    for sock in idle:
        check(closed_by_receiver(sock), "an idle token connection was left open")
        sock.close()
    said = receiver.stderr()
    check("more than 4 connections at once on that port" in said and
          "that thread's token came on another connection" in said,
          f"the receiver did not say why it closed them: {said!r}")


def token_silent_deadline(xttcp, started):
    """A silent token connection is closed after 10 s (the token wait), the port listening on;
    before, it held the receiver for good. A real sender is served afterwards."""
    base = free_port_block(1)
    receiver, r_json = windows(xttcp, started, "r", base)
    wait_listening(base + 1000)
    silent = stranger(base + 1000, receiver)
    check(closed_by_receiver(silent), "a silent token connection was not closed, or got a token")
    silent.close()
    check(receiver.proc.poll() is None, "the receiver ended after closing a silent connection")
    check("no token within 10 s" in receiver.stderr(), f"no line said why: {receiver.stderr()!r}")
    sender, _ = windows(xttcp, started, "s", base)
    real_test_passes(sender, receiver, r_json, "after a silent token connection")


def token_stranger_exchange(xttcp, started):
    """A stranger completes the token exchange itself: it sends 'X' and reads one byte. Before,
    it got the receiver's 'X', the receiver ran a 0-byte test and exited 0, and the real sender
    failed. Its token does not count (no data connection from its host), it gets no 'X', and the
    real sender's test runs."""
    base = free_port_block(1)
    receiver, r_json = windows(xttcp, started, "r", base)
    wait_listening(base + 1000)
    sock = stranger(base + 1000, receiver)
    sock.sendall(b"X")
    sender, _ = windows(xttcp, started, "s", base)
    real_test_passes(sender, receiver, r_json, "a stranger's token")
    check(closed_by_receiver(sock), "the stranger got the receiver's token")
    sock.close()


def token_reset(xttcp, started):
    """A reset on a token port ends that connection only (before: the receiver exited 1, "token
    sync: cannot read the token on port P: connection reset by peer")."""
    base = free_port_block(1)
    receiver, r_json = windows(xttcp, started, "r", base)
    wait_listening(base + 1000)
    stranger(base + 1000, receiver, reset=True)
    sender, _ = windows(xttcp, started, "s", base)
    real_test_passes(sender, receiver, r_json, "a reset on a token port")


def sp_reset(xttcp, started):
    """A reset on the -sp port ends that connection only (before: the receiver exited 1, "-sp:
    cannot send a data port: connection reset by peer"; or, when the port went out before the
    reset, the real sender was refused). A port a reset connection took frees after 10 s."""
    base = free_port_block(2)
    receiver, r_json = windows(xttcp, started, "r", base, ["-sp"])
    wait_listening(base)
    stranger(base, receiver, reset=True)
    sender, _ = windows(xttcp, started, "s", base, ["-sp"])
    real_test_passes(sender, receiver, r_json, "a reset on the -sp port")


def sp_hold(xttcp, started):
    """A stranger takes the only -sp hand-out and holds its connection (never reads, never
    closes). Before, the port was spent: the real sender was refused ("-sp: no data port ...")
    and the receiver waited for ever. The port, never used, goes to the real sender after 10 s."""
    base = free_port_block(2)
    receiver, r_json = windows(xttcp, started, "r", base, ["-sp"])
    wait_listening(base)
    held = stranger(base, receiver)
    sender, _ = windows(xttcp, started, "s", base, ["-sp"])
    real_test_passes(sender, receiver, r_json, "a held -sp hand-out")
    held.close()


def no_data(xttcp, started):
    """A stranger that opens the data connection too, completes the exchange and sends nothing:
    the receiver cannot tell it from a sender (docs/hostile-peers.md), but its test carried no
    data and is no success: one line, no result file, exit 1 (before: a 0-byte result, exit 0).
    TCP, and UDP, where no data connection comes first at all."""
    for udp in (False, True):
        base = free_port_block(1)
        what = "UDP" if udp else "TCP"
        receiver, r_json = windows(xttcp, started, "r", base, ["-u"] if udp else [])
        wait_listening(base + 1000)
        data = None if udp else stranger(base, receiver)
        token = stranger(base + 1000, receiver)
        token.sendall(b"X")
        check(token.recv(1) == b"X", f"{what}: the stranger's exchange was not taken")
        token.close()
        code = receiver.wait(60)
        errors = [line for line in receiver.stderr().splitlines() if "ERR" in line]
        check(code == 1, f"{what}: a test without data ended with exit {code}")
        check(len(errors) == 1 and "the test carried no data" in errors[0],
              f"{what}: expected one line saying the test carried no data: {errors}")
        check(not os.path.exists(r_json), f"{what}: a result was written for a test without data")
        if data is not None:
            data.close()


def rr_tokens(xttcp, started):
    """A guard, passing before too: --rr in the Windows dialect with the token handshake, on each
    socket backend. The token ports count a thread's token only from the host of its data
    connection, which the --rr responders report as the receivers do."""
    for backend in socket_backends(xttcp):
        base = free_port_block(1)
        extra = ["--rr", "--backend", backend]
        receiver, r_json = windows(xttcp, started, "r", base, extra, f"{backend} responder")
        wait_listening(base + 1000)
        sender, s_json = windows(xttcp, started, "s", base, extra, f"{backend} requester")
        check(sender.wait(60) == 0, f"{backend}: the requester exited {sender.proc.returncode} "
              f"({last_error(sender)})")
        check(receiver.wait(60) == 0, f"{backend}: the responder exited "
              f"{receiver.proc.returncode} ({last_error(receiver)})")
        transactions = load_json(s_json)["rr"]["transactions"]
        check(transactions > 0, f"{backend}: {transactions} transactions")


CASES = {
    "token-idle": token_idle,
    "token-silent-deadline": token_silent_deadline,
    "token-stranger-exchange": token_stranger_exchange,
    "token-reset": token_reset,
    "sp-reset": sp_reset,
    "sp-hold": sp_hold,
    "no-data": no_data,
    "rr-tokens": rr_tokens,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
