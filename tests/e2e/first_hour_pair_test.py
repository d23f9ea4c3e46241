#!/usr/bin/env python3
"""Two peers agree on the workload before it runs (issue 29 items 1, 3; docs/usage.md, "First
hour"): the test the sender asked for is the test that runs, or the hello refuses it on both
ends in one line naming both settings; with a legacy sender (no hello) a test the receiver
could not count whole exits non-zero with one line.
Cases: `first_hour_pair_test.py XTTCP [CASE...]`."""
import resource
import signal
import socket
import struct
import threading
import time

from xttcp_e2e import (Process, check, free_port_block, load_json, parse_totals, run_cases,
                       scratch_dir, wait_listening)

QUERY, START, EARLY_EXIT = 88, 82, 69  # 'X', 'R', 'E' of NTTTCP-for-Linux's sync protocol


def receiver(xttcp, started, base, extra=(), name="receiver", preexec_fn=None):
    process = Process([xttcp, "-r", "127.0.0.1", "-p", str(base), *extra], name,
                      preexec_fn=preexec_fn)
    started.append(process)
    wait_listening(base - 1)
    return process


def sender(xttcp, started, base, extra=(), name="sender"):
    process = Process([xttcp, "-s", "127.0.0.1", "-p", str(base), *extra], name)
    started.append(process)
    return process


def sender_follows(xttcp, started):
    """Items 1 and 10, the regression recipe: a -H receiver without -t, with --json, a sender
    -t 2 --repeat 2. Each test runs the sender's 2 s (before: the receiver's default 60 s won;
    the sender measured 3 s, then "Test cooldown is in progress..." for 57 s, and nothing
    warned), and the receiver's --json keeps both tests (before: only the last)."""
    base = free_port_block(1)
    out = scratch_dir()
    rx = receiver(xttcp, started, base, ["-H", "-P", "1", "--json", f"{out}/r.json"])
    tx = sender(xttcp, started, base, ["-P", "1", "-n", "1", "-t", "2", "--repeat", "2",
                                       "--json", f"{out}/s.json"])
    deadline = time.monotonic() + 90
    while tx.proc.poll() is None:
        check("Test cycle time negotiated is: 60" not in tx.stdout(),
              "the receiver's -t 60 won over the sender's -t 2:\n" + tx.stdout())
        check(time.monotonic() < deadline, "the sender did not finish")
        time.sleep(0.1)
    check(tx.wait(5) == 0, f"the sender failed:\n{tx.describe()}")
    check("Test cycle time negotiated" not in tx.stdout(), "the cycle was not the sender's")
    said = rx.stdout().count("this test runs its sender's -t 2")
    check(said == 2, f"the receiver said whose phases it runs {said} times, not once per test:\n"
          + rx.stdout())
    runs = load_json(f"{out}/s.json")["runs"]
    check(len(runs) == 2, f"{len(runs)} runs in the sender's JSON")
    for run in runs:
        peer = run.get("peer", {})
        took = peer.get("summary", {}).get("duration_s", 0)
        check(0 < took < 10, f"the receiver measured {took} s of a 2 s test")
    rx.signal(signal.SIGINT)
    check(rx.wait(15) == 0, f"the receiver ended badly:\n{rx.describe()}")
    # Item 10: the -H receiver's --json keeps every test (before: only the last), none of them
    # marked cut short, each with its sender's result; `compare` reads it as a set of runs.
    held = load_json(f"{out}/r.json")
    check(held.get("schema") == "xttcp-runs", f"the -H receiver's --json is {held.get('schema')}, "
          "not the set of its tests")
    check(len(held["runs"]) == 2, f"{len(held['runs'])} tests in the -H receiver's --json, not 2")
    for i, run in enumerate(held["runs"]):
        check(not run["end"]["cut_short"], f"the receiver marked test {i + 1} cut short: "
              f"{run['end']}")
        check(run.get("peer", {}).get("summary", {}).get("total_bytes", 0) > 0,
              f"test {i + 1} in the receiver's --json has no sender result")
    compare = Process([xttcp, "compare", f"{out}/r.json", f"{out}/r.json"], "compare")
    started.append(compare)
    check(compare.wait(60) == 0, f"compare could not read the -H file:\n{compare.describe()}")


def refused_pair(xttcp, started, receiver_args, sender_args, both_ends, preexec_fn=None):
    """The sender is refused at the hello, naming both settings on both ends; the receiver still
    serves a sender that matches it (it was never held)."""
    base = free_port_block(16)
    rx = receiver(xttcp, started, base, ["-t", "1", *receiver_args], preexec_fn=preexec_fn)
    tx = sender(xttcp, started, base, ["-t", "1", *sender_args])
    code = tx.wait(30)
    check(code == 1, f"the mismatched sender exited {code}, not 1:\n{tx.describe()}")
    for said in ("sync: the receiver refused this test: ", both_ends):
        check(said in tx.stderr(), f"the sender does not say '{said}':\n{tx.stderr()}")
    check(len(tx.stderr().strip().splitlines()) == 1,
          f"the sender said more than one line:\n{tx.stderr()}")
    check("Network activity progressing" not in tx.stdout(), "the mismatched test ran")
    rx.wait_output("sync: refused sender", stderr_too=True)
    check(both_ends in rx.stderr(), f"the receiver does not say why:\n{rx.stderr()}")
    good = sender(xttcp, started, base, ["-t", "1", "-n", "1", *receiver_args],
                  "matching sender")
    check(good.wait(60) == 0, f"a matching sender failed after the refusal:\n{good.describe()}")
    check(rx.wait(30) == 0, f"the receiver failed:\n{rx.describe()}")


def udp_to_tcp(xttcp, started):
    """Item 3: a UDP sender against a TCP receiver (before: 42.82 Gbit/s sent, the peer counted
    0 bytes, both exited 0)."""
    refused_pair(xttcp, started, ["-P", "1"], ["-P", "1", "-n", "1", "-u"],
                 "the sender sends UDP (-u) but the receiver listens for TCP (no -u)")


def rr_to_plain(xttcp, started):
    """Item 3: an --rr sender against a plain receiver (before: "rr transactions :0 completed",
    the peer's cycles/byte 215,630,992.58, exit 0)."""
    refused_pair(xttcp, started, ["-P", "1"], ["-P", "1", "-n", "1", "--rr"],
                 "the sender runs request/response (--rr) and the receiver does not")


def ports_beyond(xttcp, started):
    """Item 3: a sender with -P 8 against a receiver listening on 4 ports (before: "... not
    established ... (is the receiver running?)" although it was, and the receiver hung)."""
    refused_pair(xttcp, started, ["-P", "4"], ["-P", "8", "-n", "1"],
                 "give the receiver -P 8 or more")


def connections_beyond_descriptors(xttcp, started):
    """Item 3, the connection layout: 60 connections to a receiver whose open-files limit
    leaves room for fewer (before: it closed some at once, both ends exited 0 with a partial
    test)."""
    limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    refused_pair(xttcp, started, ["-P", "1"], ["-P", "1", "-n", "60"],
                 "the sender opens 60 data connections and this receiver has room for",
                 preexec_fn=limit)


class LegacySender:
    """NTTTCP-for-Linux's sender, by hand: no hello; query, propose the cycle, 'R', then data
    connections, and 'E' when its window ends."""

    def __init__(self, base):
        self.base = base
        self.sync = socket.create_connection(("127.0.0.1", base - 1), timeout=10)

    def exchange(self, value):
        self.sync.sendall(struct.pack("!i", value))
        data = b""
        while len(data) < 4:
            chunk = self.sync.recv(4 - len(data))
            check(chunk, "the receiver closed the sync connection")
            data += chunk
        return struct.unpack("!i", data)[0]

    def start(self, cycle_s):
        self.exchange(QUERY)
        self.exchange(cycle_s)
        check(self.exchange(START) == START, "the start was refused")


def send_until(connections, stop):
    chunk = b"A" * 65536
    while not stop.is_set():
        for c in list(connections):
            try:
                c.send(chunk, socket.MSG_DONTWAIT)
            except BlockingIOError:
                pass
            except OSError:
                connections.remove(c)
        time.sleep(0.001)


def legacy_counted_nothing(xttcp, started):
    """Item 3 with a legacy peer: an NTTTCP sender whose data never reaches this TCP receiver
    (its -u went elsewhere). The receiver exits 1 with one line, writing no result."""
    base = free_port_block(1)
    out = scratch_dir()
    rx = receiver(xttcp, started, base, ["-P", "1", "-t", "1", "--json", f"{out}/r.json"])
    peer = LegacySender(base)
    peer.start(1)
    rx.wait_output("Test run completed", timeout=30)
    code = rx.wait(30)
    peer.sync.close()
    check(code == 1, f"a test that counted nothing exited {code}:\n{rx.describe()}")
    check("the test carried no data" in rx.stderr(), f"no line says why:\n{rx.stderr()}")
    check(len(rx.stderr().strip().splitlines()) == 1, f"more than one line:\n{rx.stderr()}")


def legacy_connections_closed(xttcp, started):
    """A legacy sender (no hello to refuse) opens more connections than the receiver's
    descriptors hold: the ones closed at once are said as they go, and the test exits 1 with a
    line and a note saying its figures are not the whole test (before: both ends exited 0)."""
    base = free_port_block(1)
    out = scratch_dir()
    limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    rx = receiver(xttcp, started, base, ["-P", "1", "-t", "2", "--json", f"{out}/r.json"],
                  preexec_fn=limit)
    peer = LegacySender(base)
    peer.start(2)
    connections = [socket.create_connection(("127.0.0.1", base), timeout=10) for _ in range(60)]
    stop = threading.Event()
    pump = threading.Thread(target=send_until, args=(connections, stop), daemon=True)
    pump.start()
    try:
        code = rx.wait(60)
    finally:
        stop.set()
        pump.join(5)
        for c in connections:
            c.close()
        peer.sync.close()
    check(code == 1, f"the receiver exited {code}:\n{rx.describe()}")
    line = "data connection(s) were closed at once (no room below the descriptors kept for the"
    check(line in rx.stderr(), f"no line says so:\n{rx.stderr()}")
    notes = load_json(f"{out}/r.json").get("notes", [])
    check(any(line in n for n in notes), f"the result has no note: {notes}")
    check(parse_totals(rx.stdout())["bytes"] > 0, "the receiver counted nothing")


def receiver_says_ports(xttcp, started):
    """Item 5: the receiver says at once where it listens, the sync port (PORT - 1) included, as
    a cloud firewall rule needs it (before: only with -V, and never the sync port)."""
    base = free_port_block(4)
    rx = receiver(xttcp, started, base, ["-P", "4", "-t", "1"])
    rx.wait_output(f"listening on 127.0.0.1: sync port {base - 1} (TCP), data ports "
                   f"{base}-{base + 3} (TCP)", timeout=10)
    rx.signal(signal.SIGINT)
    rx.wait(15)


def sender_first_then_ctrl_c(xttcp, started):
    """Items 4 and 5: a sender started before its receiver (or at the wrong port) says so at
    once, naming the sync port, and Ctrl+C ends its wait at once with "interrupted" (before:
    10 silent seconds, then "refused the connection"; SIGINT ignored for the whole
    --connect-timeout). Also with -N, whose data connects wait the same way."""
    for extra in ([], ["-N"]):
        base = free_port_block(1)
        tx = sender(xttcp, started, base, ["-P", "1", "-n", "1", "-t", "1",
                                           "--connect-timeout", "120", *extra],
                    f"sender{' -N' if extra else ''} with no receiver")
        if not extra:
            tx.wait_output(f"sync: 127.0.0.1:{base - 1} refused the connection: nothing listens "
                           "there yet (the receiver's sync port is its -p minus 1)", timeout=10)
        else:
            tx.wait_output("Starting sender activity", timeout=10)
        tx.signal(signal.SIGINT)
        code = tx.wait(30)  # the wait it was in lasts 120 s: only Ctrl+C ends it sooner
        check(code != 0, f"an interrupted sender exited {code}")
        check("interrupted" in tx.stderr(), f"the sender does not say it was interrupted:\n"
              f"{tx.stderr()}")


CASES = {
    "sender-follows": sender_follows,
    "udp-to-tcp": udp_to_tcp,
    "rr-to-plain": rr_to_plain,
    "ports-beyond": ports_beyond,
    "connections-beyond-descriptors": connections_beyond_descriptors,
    "legacy-counted-nothing": legacy_counted_nothing,
    "legacy-connections-closed": legacy_connections_closed,
    "receiver-says-ports": receiver_says_ports,
    "sender-first-then-ctrl-c": sender_first_then_ctrl_c,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
