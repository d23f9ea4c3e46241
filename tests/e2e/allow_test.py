#!/usr/bin/env python3
"""--allow and --max-clients on the receiver (python sockets and real senders on loopback, from
127.0.0.1/.2/.3): sync and data connections from outside the list are closed at once and counted,
datagrams from outside are dropped and counted, a real sender from inside still gets an honest
result; --max-clients serves the first N hosts of a test. The same in the Windows dialect, whose
control connections are the -sp port hand-out and the token ports. Bad values are refused up
front.
Cases: `allow_test.py XTTCP [CASE...]`."""
import os
import socket
import subprocess
import sys
import threading

from xttcp_e2e import (Process, check, free_port_block, load_json, parse_totals, run_cases,
                       scratch_dir, socket_backends, wait_listening, wait_udp_bound)

INSIDE, OUTSIDE, ELSEWHERE = "127.0.0.2", "127.0.0.1", "127.0.0.3"


def closed_at_once(port, source):
    """Connects from `source`; True when the receiver closes the connection unasked."""
    sock = socket.socket()
    sock.settimeout(5)
    try:
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        return sock.recv(16) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:  # served: the receiver waits for data that never comes
        return False
    finally:
        sock.close()


def receiver(xttcp, started, args, name="receiver"):
    out = os.path.join(scratch_dir("xttcp-e2e-"), "r.json")
    p = Process([xttcp, "-r", "127.0.0.1", *args, "-Q", "--json", out, "--wait-timeout", "60"],
                name)
    started.append(p)
    return p, out


def sync_refused_then_served(xttcp, started):
    base = free_port_block(1)
    common = ["-P", "1", "-p", str(base), "-t", "1"]
    r, out = receiver(xttcp, started, [*common, "--allow", INSIDE])
    wait_listening(base - 1)
    check(closed_at_once(base - 1, OUTSIDE), "a sync connection from outside --allow was served")
    outsider = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common, "-Q",
                        "--connect-timeout", "2"], "sender from outside")
    started.append(outsider)
    check(outsider.wait(60) != 0, "a sender from outside --allow was served")
    insider = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common, "-a", INSIDE, "-Q"],
                      "sender from inside")
    started.append(insider)
    check(insider.wait(60) == 0, "the sender from inside --allow failed")
    check(r.wait(60) == 0, "receiver failed")
    doc = load_json(out)
    check(doc["summary"]["total_bytes"] > 0, "the allowed sender moved nothing")
    check(doc["access"]["refused_control"] >= 2,
          f"refused sync connections not counted: {doc['access']}")
    check(doc["spec"]["access"]["allow"] == [INSIDE + "/32"], "spec echo lacks --allow")
    check(any("refused so far" in n for n in doc["notes"]), "no note about the refusals")
    check("refused so far" in r.stdout() + r.stderr(), "the console does not say who was refused")


def data_refused_no_sync(xttcp, started):
    for backend in socket_backends(xttcp):
        base = free_port_block(1)
        common = ["-N", "-P", "1", "-p", str(base), "-t", "1", "--backend", backend]
        r, out = receiver(xttcp, started, [*common, "--allow", INSIDE], f"{backend} receiver")
        wait_listening(base)
        check(closed_at_once(base, OUTSIDE), f"{backend}: a data connection from outside was served")
        check(closed_at_once(base, ELSEWHERE), f"{backend}: a second outsider was served")
        s = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common, "-a", INSIDE, "-Q"],
                    f"{backend} sender")
        started.append(s)
        check(s.wait(60) == 0, f"{backend}: the allowed sender failed")
        check(r.wait(60) == 0, f"{backend}: receiver failed")
        doc = load_json(out)
        check(doc["access"]["refused_data"] == 2, f"{backend}: refusals {doc['access']}")
        check(doc["summary"]["total_bytes"] == parse_totals(r.stdout())["bytes"] > 0,
              f"{backend}: the allowed sender's bytes were not counted")


def datagrams_dropped(xttcp, started):
    for backend in socket_backends(xttcp):
        base = free_port_block(1)
        common = ["-u", "-P", "1", "-p", str(base), "-t", "1", "--backend", backend]
        r, out = receiver(xttcp, started, [*common, "--allow", INSIDE], f"{backend} receiver")
        wait_listening(base - 1)
        wait_udp_bound(base)
        junk = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        junk.bind((OUTSIDE, 0))
        for _ in range(100):
            junk.sendto(b"x" * 64, ("127.0.0.1", base))
        junk.close()
        s = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common, "-a", INSIDE, "-b", "1k",
                     "-B", "50M", "-Q"], f"{backend} sender")
        started.append(s)
        check(s.wait(60) == 0, f"{backend}: the allowed UDP sender failed")
        check(r.wait(60) == 0, f"{backend}: receiver failed")
        doc = load_json(out)
        # The junk came before the sender: every one of it was dropped before the test began.
        check(doc["access"]["refused_datagrams"] == 100, f"{backend}: refusals {doc['access']}")
        check(doc["summary"]["total_bytes"] > 0, f"{backend}: the allowed sender's data was lost")


def rr_refused(xttcp, started):
    """--rr responders, TCP and UDP, each backend: a connection from outside is closed at once
    and a request from outside gets no answer, both counted; a requester from inside is served."""
    for backend in socket_backends(xttcp):
        for udp in (False, True):
            what = f"{backend} {'UDP' if udp else 'TCP'}"
            base = free_port_block(1)
            common = ["--rr", "-N", "-P", "1", "-p", str(base), "-t", "1", "--backend", backend,
                      *(["-u"] if udp else [])]
            r, out = receiver(xttcp, started, [*common, "--allow", INSIDE], f"{what} responder")
            junk = None
            if udp:
                wait_udp_bound(base)
                junk = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                junk.bind((OUTSIDE, 0))
                for _ in range(100):
                    junk.sendto(b"x" * 64, ("127.0.0.1", base))
            else:
                wait_listening(base)
                check(closed_at_once(base, OUTSIDE), f"{what}: a connection from outside was served")
            s = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common, "-a", INSIDE, "-Q"],
                        f"{what} requester")
            started.append(s)
            check(s.wait(60) == 0, f"{what}: the allowed requester failed:\n{s.stderr()}")
            check(r.wait(60) == 0, f"{what}: responder failed:\n{r.stderr()}")
            doc = load_json(out)
            check(doc["rr"]["transactions"] > 0, f"{what}: the allowed requester was not answered")
            if udp:
                # Answers leave in the order requests came: the junk's would be here by now.
                junk.setblocking(False)
                try:
                    answered = junk.recv(2048)
                except BlockingIOError:
                    answered = None
                junk.close()
                check(answered is None, f"{what}: a request from outside --allow was answered")
                check(doc["access"]["refused_datagrams"] == 100, f"{what}: refusals {doc['access']}")
            else:
                check(doc["access"]["refused_data"] == 1, f"{what}: refusals {doc['access']}")


def max_clients(xttcp, started):
    base = free_port_block(1)
    common = ["-N", "-P", "1", "-p", str(base), "-t", "2"]
    r, out = receiver(xttcp, started, [*common, "--max-clients", "1"])
    wait_listening(base)
    stop = threading.Event()
    first = socket.socket()
    first.settimeout(20)
    first.bind((INSIDE, 0))
    first.connect(("127.0.0.1", base))

    def keep_sending():  # the served client keeps its data coming for the whole test
        try:
            while not stop.is_set():
                first.sendall(b"y" * 65536)
        except OSError:
            pass

    sender = threading.Thread(target=keep_sending, daemon=True)
    sender.start()
    try:
        check(closed_at_once(base, ELSEWHERE), "a second host was served with --max-clients 1")
        second = socket.socket()
        second.settimeout(20)
        second.bind((INSIDE, 0))
        second.connect(("127.0.0.1", base))  # the same host again: served
        check(r.wait(60) == 0, "receiver failed")
        second.close()
    finally:
        stop.set()
        first.close()
        sender.join(10)
    doc = load_json(out)
    check(doc["access"]["over_max_clients"] == 1 and doc["access"]["refused_data"] == 1,
          f"refusals {doc['access']}")
    check(doc["summary"]["total_bytes"] > 0, "the served client's bytes were not counted")


def windows_receiver(xttcp, started, args, name="Windows-dialect receiver"):
    out = os.path.join(scratch_dir("xttcp-e2e-"), "r.json")
    p = Process([xttcp, "--dialect", "windows", "-r", "-m", "1,*,127.0.0.1", *args, "--json", out,
                 "--wait-timeout", "60"], name)
    started.append(p)
    return p, out


OUTSIDERS = 30


def windows_control_ports(xttcp, started):
    """The Windows dialect's control connections, the -sp port hand-out (base port) and the
    token port (data port + 1000), close outsiders at once, log them (rate-limited), count them
    and still serve the real sender.
    The token ports are served once -sp has handed out every port: each is tried on its own."""
    for extra, what in ((["-sp"], "the -sp port"), ([], "the token port")):
        base = free_port_block(2)
        common = ["-p", str(base), "-t", "1", *extra]
        r, out = windows_receiver(xttcp, started, [*common, "--allow", INSIDE])
        control = base if extra else base + 1000
        wait_listening(control)
        for _ in range(OUTSIDERS):
            check(closed_at_once(control, OUTSIDE),
                  f"{what}: a connection from outside was served")
        sender = Process([xttcp, "--dialect", "windows", "-s", "-m", "1,*,127.0.0.1", *common,
                          "-nic", INSIDE], "Windows-dialect sender from inside")
        started.append(sender)
        check(sender.wait(60) == 0, f"{what}: the sender from inside --allow failed")
        check(r.wait(60) == 0, f"{what}: the receiver failed")
        doc = load_json(out)
        check(doc["access"]["refused_control"] == OUTSIDERS,
              f"{what}: the refused connections were not counted: {doc['access']}")
        # Each refusal is logged, at most 20 lines per 10 s (a peer triggers them).
        told = (r.stdout() + r.stderr()).count(f"closed a connection from {OUTSIDE}:")
        check(1 <= told <= 20, f"{what}: {told} lines for {OUTSIDERS} refused connections")
        check(doc["summary"]["total_bytes"] > 0, f"{what}: the allowed sender moved nothing")


def windows_data_no_sync(xttcp, started):
    """-ns in the Windows dialect: data connections from outside --allow are closed at once."""
    base = free_port_block(1)
    common = ["-p", str(base), "-t", "1", "-ns"]
    r, out = windows_receiver(xttcp, started, [*common, "--allow", INSIDE])
    wait_listening(base)
    check(closed_at_once(base, OUTSIDE), "a data connection from outside --allow was served")
    sender = Process([xttcp, "--dialect", "windows", "-s", "-m", "1,*,127.0.0.1", *common,
                      "-nic", INSIDE], "Windows-dialect sender from inside")
    started.append(sender)
    check(sender.wait(60) == 0, "the Windows-dialect sender from inside --allow failed")
    check(r.wait(60) == 0, "Windows-dialect receiver failed")
    doc = load_json(out)
    check(doc["access"]["refused_data"] == 1, f"refusals {doc['access']}")
    check(doc["summary"]["total_bytes"] > 0, "the allowed sender's bytes were not counted")


def windows_max_clients(xttcp, started):
    """--max-clients 1 in the Windows dialect: once a first host has exchanged a token, a
    second host's token connection is closed at once (and the first host's next one served).
    The first host connects its data ports first, as a sender does: a token counts only from
    the host of its thread's data connection (hostile_windows_test.py)."""
    base = free_port_block(2)
    r = Process([xttcp, "--dialect", "windows", "-r", "-m", "2,*,127.0.0.1", "-p", str(base),
                 "-t", "1", "--max-clients", "1", "--wait-timeout", "60"],
                "Windows-dialect receiver")
    started.append(r)
    wait_listening(base + 1001)
    held = []
    try:
        for port in (base, base + 1):
            held.append(socket.create_connection(("127.0.0.1", port), timeout=10,
                                                 source_address=(INSIDE, 0)))
        first = socket.create_connection(("127.0.0.1", base + 1000), timeout=10,
                                         source_address=(INSIDE, 0))
        held.append(first)
        first.sendall(b"X")
        check(first.recv(1) == b"X", "the first host got no token")
        check(closed_at_once(base + 1001, ELSEWHERE),
              "a second host's token connection was served with --max-clients 1")
        again = socket.create_connection(("127.0.0.1", base + 1001), timeout=10,
                                         source_address=(INSIDE, 0))
        held.append(again)
        again.sendall(b"X")
        check(again.recv(1) == b"X", "the first host's second token connection was refused")
    finally:
        for sock in held:
            sock.close()
    r.signal(2)
    check(r.wait(30) is not None, "the receiver did not end on Ctrl+C")


def bad_values(xttcp, started):
    for args, words in ((["--allow", "10.1.2.3/8"], "did you mean 10.1.2.3/32"),
                        (["--allow", "10.0.0.0/33"], "prefix length"),
                        (["--allow", "example.com"], "not an address"),
                        (["--max-clients", "0"], "at least 1"),
                        (["--max-clients", "99999"], "--max-clients")):
        p = subprocess.run([xttcp, "-r", "127.0.0.1", *args], capture_output=True, text=True,
                           timeout=30)
        check(p.returncode == 2, f"{args}: exit {p.returncode}, not 2")
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and words in lines[0] and args[0] in lines[0],
              f"{args}: expected one line naming {args[0]} and saying '{words}': {p.stderr!r}")
    backends = subprocess.run([xttcp, "backends"], capture_output=True, text=True, timeout=30).stdout
    if any(line.split()[:2] == ["dpdk", "available"] for line in backends.splitlines()):
        p = subprocess.run([xttcp, "-r", "127.0.0.1", "-u", "--backend", "dpdk", "--allow",
                            INSIDE], capture_output=True, text=True, timeout=30)
        check(p.returncode == 2 and "--allow: the dpdk backend cannot turn peers away" in p.stderr,
              f"dpdk took --allow: {p.returncode} {p.stderr!r}")


CASES = {"sync-refused-then-served": sync_refused_then_served,
         "data-refused-no-sync": data_refused_no_sync,
         "datagrams-dropped": datagrams_dropped,
         "rr-refused": rr_refused,
         "max-clients": max_clients,
         "windows-control-ports": windows_control_ports,
         "windows-data-no-sync": windows_data_no_sync,
         "windows-max-clients": windows_max_clients,
         "bad-values": bad_values}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
