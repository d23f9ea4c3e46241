#!/usr/bin/env python3
"""--one-port between xttcp peers on loopback: the sync connection and every data connection on
port PORT alone (nothing listens on PORT - 1 or PORT + 1), both ends' counts agree, and the
result files say the one port; strangers on that port are closed at once and counted (a stream
naming a cookie nobody was handed, one naming the cookie of a sync connection that is not the
running test's sender, a silent connection that never says what it is) while the real test is
unharmed, and a connection one of them opened between tests is closed as the test starts;
--auth-key's session ties the streams on one port too; UDP flows share the one port, told
apart by their flow ids, a stranger's datagrams in no figure; mismatched ends and options
that cannot run on one port stop with one line; --reverse runs the other way over the
connections the sender made (each end measures its own direction and has the other's result),
and --bidir both ways at once (each end reports both directions, each with the other end's
result); a connection going the way its session's test does not is closed at once, and sends
the receiver will not make are refused at the hello.
Cases: `one_port_test.py XTTCP [CASE...]`."""
import json
import os
import socket
import struct
import sys

from xttcp_e2e import (Process, SkipTest, check, counts_agree, free_port_block, load_json,
                       load_xml, parse_totals, recv_exact, run_cases, scratch_dir, socket_backends,
                       wait_listening)

HELLO, HELLO_ACK = 0xC0DE7801, 0xC0DE7802


def receiver(xttcp, started, base, *args, name="receiver"):
    out = scratch_dir("xttcp-e2e-")
    p = Process([xttcp, "-r", "127.0.0.1", "--one-port", "-p", str(base), "-P", "2", "-Q",
                 "--json", os.path.join(out, "r.json"), "-x", os.path.join(out, "r.xml"),
                 "--wait-timeout", "60", *args], name)
    started.append(p)
    wait_listening(base)
    return p, out


def sender(xttcp, started, base, *args, name="sender"):
    out = scratch_dir("xttcp-e2e-")
    p = Process([xttcp, "-s", "127.0.0.1", "--one-port", "-p", str(base), "-P", "2", "-n", "2",
                 "--json", os.path.join(out, "s.json"), *args], name)
    started.append(p)
    return p, out


def refused(port):
    """True when nothing listens on `port` of 127.0.0.1."""
    with socket.socket() as sock:
        sock.settimeout(5)
        try:
            sock.connect(("127.0.0.1", port))
        except ConnectionRefusedError:
            return True
    return False


def closed_at_once(sock):
    """True when the receiver closes `sock` unasked (within 10 s)."""
    sock.settimeout(10)
    try:
        return sock.recv(16) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def stream(port, cookie):
    """A data connection naming `cookie`, with some data after its preamble."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        sock.sendall(b"XTA1" + cookie + b"A" * 65536)
    except (ConnectionResetError, BrokenPipeError):
        pass
    return sock


class HelloOnly:
    """A peer that speaks xttcp's sync protocol as far as its hello, is handed a cookie for its
    data connections, and starts no test."""

    def __init__(self, port, **asked):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(struct.pack("!I", HELLO))
        check(struct.unpack("!I", self._exact(4))[0] == HELLO_ACK, "no HELLO_ACK on one port")
        spec = {"role": "sender", "protocol": "tcp", "base_port": port, "ports": 1,
                "threads_per_port": 1, "conns_per_thread": 1, "one_port": True, **asked}
        frame = json.dumps({"type": "hello", "spec": spec}).encode()
        self.sock.sendall(struct.pack("!I", len(frame)) + frame)
        length = struct.unpack("!I", self._exact(4))[0]
        hello = json.loads(self._exact(length))
        check("refused" not in hello, f"the receiver refused the hello: {hello}")
        check(len(hello.get("stream_cookie", "")) == 32,
              f"the receiver's hello hands out no 32-digit stream_cookie: {hello}")
        self.cookie = bytes.fromhex(hello["stream_cookie"])

    def _exact(self, count):
        return recv_exact(self.sock, count, "the receiver closed the sync connection")

    def close(self):
        self.sock.close()


def check_agree(r, s):
    rt, st = parse_totals(r.stdout()), parse_totals(s.stdout())
    check(rt["bytes"] > 0, "the receiver counted nothing")
    check(counts_agree(rt["bytes"], st["bytes"], 0.02, 4, (rt["duration"], st["duration"])),
          f"receiver {rt['bytes']} and sender {st['bytes']} bytes disagree")
    return rt


def case_forward(xttcp, started):
    base = free_port_block(3)
    r, rout = receiver(xttcp, started, base, "-t", "2")
    check(refused(base - 1) and refused(base + 1),
          "a --one-port receiver listens on PORT - 1 or PORT + 1 too")
    s, sout = sender(xttcp, started, base, "-t", "2")
    check(s.wait(60) == 0, "the sender failed")
    check(r.wait(60) == 0, "the receiver failed")
    check_agree(r, s)
    check(f"one port {base} (TCP: the sync and every data connection)" in r.stdout(),
          "the receiver did not say the one port it listens on")
    check(load_xml(os.path.join(rout, "r.xml"), "ntttcpr").find("parameters/sync_port").text ==
          str(base), "the XML's sync_port is not the one port")
    rdoc, sdoc = load_json(os.path.join(rout, "r.json")), load_json(os.path.join(sout, "s.json"))
    check(rdoc["spec"].get("one_port") is True and sdoc["spec"].get("one_port") is True,
          "the result files do not say --one-port")
    check(sdoc.get("peer", {}).get("role") == "receiver", "the sender lacks the receiver's result")
    check(len(rdoc.get("connections", [])) == 4,
          f"the receiver served {len(rdoc.get('connections', []))} connections, not the "
          "sender's 4")


def udp_bound(port):
    """True when a UDP socket of this host is bound to `port` (/proc/net/udp, udp6)."""
    for path in ("/proc/net/udp", "/proc/net/udp6"):
        with open(path) as f:
            for line in f.readlines()[1:]:
                if int(line.split()[1].rsplit(":", 1)[1], 16) == port:
                    return True
    return False


def case_udp(xttcp, started):
    """UDP on one port: the sync on TCP PORT and every flow's datagrams to UDP PORT (the
    receiver's threads share it), told apart by their flow ids: every flow the sender declared
    is counted, from the sender's counts, and a stranger's datagrams to the port are in no
    figure."""
    base = free_port_block(3)
    r, rout = receiver(xttcp, started, base, "-t", "2", "-u")
    check(refused(base - 1) and refused(base + 1) and not udp_bound(base - 1) and
          not udp_bound(base + 1) and udp_bound(base),
          "a UDP --one-port receiver is not on PORT alone (TCP and UDP)")
    check(f"one port {base} (TCP: the sync; UDP: every data flow)" in r.stdout(),
          "the receiver did not say the one port it listens on")
    s, sout = sender(xttcp, started, base, "-t", "2", "-u", "-B", "400M")
    r.wait_output("Network activity progressing")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as stranger:
        for _ in range(50):
            stranger.sendto(b"z" * 100, ("127.0.0.1", base))
    check(s.wait(60) == 0, "the UDP one-port sender failed")
    check(r.wait(60) == 0, "the UDP one-port receiver failed")
    rdoc, sdoc = load_json(os.path.join(rout, "r.json")), load_json(os.path.join(sout, "s.json"))
    run = rdoc["udp"]["run"]
    check(rdoc["spec"].get("one_port") is True and sdoc["spec"].get("one_port") is True,
          "the result files do not say --one-port")
    check(len(rdoc["udp"]["flows"]) == 4, f"the receiver counted {len(rdoc['udp']['flows'])} "
          "flows, not the sender's 4")
    check(run["loss_source"] == "sender count" and 0 < run["received"] <= run["sent"],
          f"UDP on one port: received {run['received']} of {run['sent']} sent "
          f"({run['loss_source']})")
    strangers = run["headerless"]["datagrams"] + run["foreign"]["datagrams"]
    check(strangers >= 1, "the stranger's datagrams on the one port were not set apart")


def case_many(xttcp, started):
    """300 connections, more than the listener holds undecided at once: none is turned away."""
    base = free_port_block(1)
    r, rout = receiver(xttcp, started, base, "-t", "1")
    s, _ = sender(xttcp, started, base, "-t", "1", "-P", "4", "-n", "75")
    check(s.wait(90) == 0, "the sender of 300 connections on one port failed")
    check(r.wait(90) == 0, "the receiver of 300 connections on one port failed")
    served = len(load_json(os.path.join(rout, "r.json")).get("connections", []))
    check(served == 300, f"the receiver served {served} of the 300 connections")


def case_strangers(xttcp, started):
    base = free_port_block(1)
    r, rout = receiver(xttcp, started, base, "-t", "4")
    silent = socket.create_connection(("127.0.0.1", base), timeout=5)  # never says a word
    guessed = stream(base, os.urandom(16))
    check(closed_at_once(guessed), "a data connection with a guessed cookie was served")
    guessed.close()
    other = HelloOnly(base)  # handed a cookie, but it will not be the test's sender
    early = stream(base, other.cookie)  # taken between tests: its session may start one
    s, _ = sender(xttcp, started, base, "-t", "4")
    s.wait_output("Network activity progressing")
    # The test started without its session: the connection is closed, not left to send into it.
    check(closed_at_once(early) and "Test run completed" not in s.stdout(),
          "a data connection of a session that is not the test's sender stayed into the test")
    early.close()
    joiner = stream(base, other.cookie)
    # Closed while the test runs, not when it ends (then every connection closes).
    check(closed_at_once(joiner) and "Test run completed" not in s.stdout(),
          "a data connection of a sync connection that is not the test's sender joined the test")
    joiner.close()
    check(s.wait(60) == 0, "the sender failed beside the strangers")
    check(r.wait(60) == 0, "the receiver failed beside the strangers")
    other.close()
    silent.close()
    check_agree(r, s)
    doc = load_json(os.path.join(rout, "r.json"))
    access = doc.get("access", {})
    check(access.get("refused_data", 0) >= 2 and access.get("unauthenticated", 0) >= 2,
          f"the two strangers' data connections are not counted: {access}")
    check("--one-port: " in r.stdout() and "without the cookie of this test's sender" in r.stdout(),
          "the receiver's note does not name the strangers")


def case_auth(xttcp, started):
    base = free_port_block(1)
    key = os.path.join(scratch_dir("xttcp-e2e-"), "key")
    with open(key, "wb") as f:
        f.write(os.urandom(32))
    os.chmod(key, 0o600)
    r, _ = receiver(xttcp, started, base, "-t", "2", "--auth-key", key)
    guessed = stream(base, os.urandom(16))
    check(closed_at_once(guessed), "with --auth-key, a guessed cookie was served")
    guessed.close()
    s, _ = sender(xttcp, started, base, "-t", "2", "--auth-key", key)
    check(s.wait(60) == 0, "the sender with the key failed")
    check(r.wait(60) == 0, "the receiver with the key failed")
    check_agree(r, s)


def case_mismatch(xttcp, started):
    base = free_port_block(3)
    plain = Process([xttcp, "-r", "127.0.0.1", "-p", str(base), "-P", "1", "-t", "1", "-Q",
                     "--wait-timeout", "60"], "receiver without --one-port")
    started.append(plain)
    wait_listening(base - 1)
    s, _ = sender(xttcp, started, base, "-t", "1", "--connect-timeout", "2",
                  name="one-port sender")
    check(s.wait(60) != 0, "a one-port sender passed against a receiver without --one-port")
    check("is the receiver running with --one-port" in s.stdout() + s.stderr(),
          "the one-port sender did not say why it failed")
    plain.kill()
    base = free_port_block(3)
    r, _ = receiver(xttcp, started, base, "-t", "1")
    s = Process([xttcp, "-s", "127.0.0.1", "-p", str(base), "-P", "1", "-t", "1",
                 "--connect-timeout", "2"], "sender without --one-port")
    started.append(s)
    check(s.wait(60) != 0, "a sender without --one-port passed against a one-port receiver")
    # The receiver is still there for the right sender.
    good, _ = sender(xttcp, started, base, "-t", "1")
    check(good.wait(60) == 0, "the one-port sender after the wrong one failed")
    check(r.wait(60) == 0, "the receiver failed after a wrong sender")


def case_reverse(xttcp, started):
    """--reverse: the receiver sends on the connections the sender made on the one port."""
    base = free_port_block(1)
    r, rout = receiver(xttcp, started, base, "-t", "2")
    s, sout = sender(xttcp, started, base, "-t", "2", "--reverse")
    check(s.wait(60) == 0, "the --reverse sender failed")
    check(r.wait(60) == 0, "the receiver of a --reverse test failed")
    check_agree(s, r)  # the sender's end received what the receiver's end sent
    rdoc, sdoc = load_json(os.path.join(rout, "r.json")), load_json(os.path.join(sout, "s.json"))
    check(sdoc["role"] == "receiver" and rdoc["role"] == "sender",
          f"--reverse: the sender's end measured as {sdoc['role']}, the receiver's as "
          f"{rdoc['role']}; the data goes the other way")
    check(sdoc["spec"].get("reverse") is True and rdoc["spec"].get("reverse") is True,
          "the result files do not say --reverse")
    check(sdoc.get("peer", {}).get("role") == "sender" and
          rdoc.get("peer", {}).get("role") == "receiver",
          "--reverse: each end lacks the other's result")
    check(len(sdoc.get("connections", [])) == 4,
          f"--reverse: the sender's end received on {len(sdoc.get('connections', []))} "
          "connections, not its 4")
    check(rdoc["summary"]["total_bytes"] > 0, "--reverse: the receiver's end sent nothing")


def case_bidir(xttcp, started):
    """--bidir: both directions at once, each on its own connections made by the sender; each
    end reports both, with the other end's result for each, and the counts agree each way."""
    base = free_port_block(1)
    r, rout = receiver(xttcp, started, base, "-t", "2")
    s, sout = sender(xttcp, started, base, "-t", "2", "--bidir")
    check(s.wait(60) == 0, "the --bidir sender failed")
    check(r.wait(60) == 0, "the receiver of a --bidir test failed")
    check_agree(r, s)  # the console's first block: sender to receiver
    rdoc, sdoc = load_json(os.path.join(rout, "r.json")), load_json(os.path.join(sout, "s.json"))
    for name, doc, role, back_role in (("sender", sdoc, "sender", "receiver"),
                                       ("receiver", rdoc, "receiver", "sender")):
        back = doc.get("other_direction")
        check(doc["role"] == role and isinstance(back, dict) and back.get("role") == back_role,
              f"--bidir: the {name}'s file lacks its {back_role}'s half as other_direction")
        check(doc["spec"].get("bidir") is True and back["spec"].get("bidir") is True,
              f"--bidir: the {name}'s file does not say --bidir")
        check(doc.get("peer", {}).get("role") != role and
              back.get("peer", {}).get("role") == role,
              f"--bidir: the {name}'s file lacks the other end's result for a direction")
        check("other_direction" not in doc["peer"], "--bidir: a peer result holds a direction")
        check(len(back.get("connections", [])) == 4 and len(doc.get("connections", [])) == 4,
              f"--bidir: the {name} moved data on {len(doc.get('connections', []))} and "
              f"{len(back.get('connections', []))} connections, not 4 each way")
        for d in (doc, back):
            mine, theirs = d["summary"]["total_bytes"], d["peer"]["summary"]["total_bytes"]
            check(mine > 0, f"--bidir: the {name}'s {d['role']} half moved nothing")
            check(counts_agree(mine, theirs, 0.02, 4,
                               (d["summary"]["duration_s"], d["peer"]["summary"]["duration_s"])),
                  f"--bidir: the {name}'s {d['role']} half counted {mine}, the other end "
                  f"{theirs}")
    check("--bidir, the other direction" in s.stdout() + r.stdout(),
          "--bidir: the console does not show the other direction")


def case_bidir_source_ports(xttcp, started):
    """--bidir with -f (fixed source ports): the return connections take ephemeral ones, so no
    four-tuple is made twice and the test runs."""
    base = free_port_block(1)
    source = free_port_block(4)
    r, _ = receiver(xttcp, started, base, "-t", "1")
    s, _ = sender(xttcp, started, base, "-t", "1", "--bidir", "-f", str(source))
    check(s.wait(60) == 0, f"--bidir -f {source} failed:\n{s.stdout()}{s.stderr()}")
    check(r.wait(60) == 0, "the receiver of --bidir -f failed")


def case_wrong_direction(xttcp, started):
    """A connection going the way its session's test does not is closed at once: a forward
    session's connection for the receiver to send on, or a --reverse session's to receive on."""
    base = free_port_block(1)
    r, _ = receiver(xttcp, started, base, "-t", "2")
    peer = HelloOnly(base)
    try:
        back = socket.create_connection(("127.0.0.1", base), timeout=5)
        back.sendall(b"XTR1" + peer.cookie)
        check(closed_at_once(back), "a forward session's connection to be sent on was kept")
        back.close()
        forth = stream(base, peer.cookie)
        forth.settimeout(2)
        try:
            kept = forth.recv(16) != b""
        except TimeoutError:
            kept = True
        check(kept, "a forward session's own data connection was closed")
        forth.close()
    finally:
        peer.close()
    reverse = HelloOnly(base, reverse=True)
    try:
        forth = stream(base, reverse.cookie)
        check(closed_at_once(forth), "a --reverse session's connection to receive on was kept")
        forth.close()
    finally:
        reverse.close()
    r.kill()


def case_reverse_bounds(xttcp, started):
    """A --reverse or --bidir sender asking sends the receiver will not make is refused at its
    hello, with the rule, and the receiver serves on."""
    base = free_port_block(1)
    r, _ = receiver(xttcp, started, base, "-t", "1", "-H")
    for option in ("--reverse", "--bidir"):
        s, _ = sender(xttcp, started, base, "-t", "1", option, "-b", "32M")
        check(s.wait(60) not in (0, None), f"{option} -b 32M ran")
        check(f"{option}: the sender asks for sends of 33554432 bytes" in s.stdout() + s.stderr()
              and "16 MiB per call" in s.stdout() + s.stderr(),
              f"{option} -b 32M: not refused with the rule: {s.stdout()}{s.stderr()}")
    s, _ = sender(xttcp, started, base, "-t", "1", "--bidir")
    check(s.wait(60) == 0, "the receiver did not serve on after refusing a hello")
    r.kill()


def case_io_uring(xttcp, started):
    """The io_uring backend at both ends: its receiver serves the connections the sync listener
    hands over (a poll on the inbox, in its ring) and those the control plane made (--reverse,
    --bidir: the sender's end receives on what it connected), and its UDP receiver shares the
    one port; each TCP way's counts agree (UDP: the receiver counted some and no more than the
    sender sent) and both files say io_uring."""
    if "io_uring" not in socket_backends(xttcp):
        raise SkipTest("io_uring is not available here ('xttcp backends')")
    uring = ("--backend", "io_uring")
    for name, extra, forward in (("forward", (), True), ("udp", ("-u", "-B", "400M"), True),
                                 ("--reverse", ("--reverse",), False),
                                 ("--bidir", ("--bidir",), True)):
        base = free_port_block(1)
        r, rout = receiver(xttcp, started, base, "-t", "2", *uring,
                           *(("-u",) if "-u" in extra else ()))
        s, sout = sender(xttcp, started, base, "-t", "2", *uring, *extra)
        check(s.wait(60) == 0, f"io_uring {name}: the sender failed")
        check(r.wait(60) == 0, f"io_uring {name}: the receiver failed")
        rdoc, sdoc = load_json(os.path.join(rout, "r.json")), load_json(os.path.join(sout, "s.json"))
        check(rdoc["backend"] == "io_uring" and sdoc["backend"] == "io_uring",
              f"io_uring {name}: the ends ran {rdoc['backend']} and {sdoc['backend']}")
        if "-u" in extra:
            # UDP: the receiver's run figures against the sender's counts of the same flows (two
            # windows may differ by a datagram at their edges: CI's sanitizer leg, 65,507 B).
            run = rdoc["udp"]["run"]
            check(run["loss_source"] == "sender count" and 0 < run["received"] <= run["sent"],
                  f"io_uring {name}: received {run['received']} of {run['sent']} sent "
                  f"({run['loss_source']})")
        ways = [] if "-u" in extra else [sdoc] + ([sdoc["other_direction"]]
                                                   if "--bidir" in extra else [])
        for doc in ways:
            mine, theirs = doc["summary"]["total_bytes"], doc["peer"]["summary"]["total_bytes"]
            check(mine > 0 and counts_agree(mine, theirs, 0.02, 4,
                                             (doc["summary"]["duration_s"],
                                              doc["peer"]["summary"]["duration_s"])),
                  f"io_uring {name}: the sender's end's {doc['role']} half counted {mine}, the "
                  f"receiver's end {theirs}")
        receiving = rdoc if forward else sdoc
        if "-u" not in extra:
            check(len(receiving.get("connections", [])) == 4,
                  f"io_uring {name}: {len(receiving.get('connections', []))} connections "
                  "received on, not 4")
        r.kill()
        s.kill()


def case_bad_options(xttcp, started):
    for args, words in (
            (["-s", "127.0.0.1", "--one-port", "-u", "--udp-payload", "compat"],
             "--one-port: UDP flows on one port are told apart by their flow ids"),
            (["-s", "127.0.0.1", "--one-port", "-N"], "--one-port: the data connections open "
                                                      "with a cookie"),
            (["-r", "--one-port", "--rr"], "--one-port: carries streams"),
            (["-r", "--one-port", "-M"], "--one-port: serves one sender at a time"),
            (["-s", "127.0.0.1", "--reverse", "-u"], "--reverse: TCP streams only"),
            (["-s", "127.0.0.1", "--reverse", "-N"], "--reverse: the receiver learns of it"),
            (["-r", "--reverse"], "--reverse"),
            (["-s", "127.0.0.1", "--bidir", "-u"], "--bidir: TCP streams only"),
            (["-s", "127.0.0.1", "--bidir", "-N"], "--bidir: the receiver learns of it"),
            (["-s", "127.0.0.1", "--bidir", "--reverse"], "--bidir already runs the reverse"),
            (["-s", "127.0.0.1", "--bidir", "--rr"], "--bidir: --rr already runs both ways"),
            (["-r", "--bidir"], "--bidir")):
        p = Process([xttcp, *args], "xttcp " + " ".join(args))
        started.append(p)
        code = p.wait(30)
        out = p.stdout() + p.stderr()
        check(code not in (0, None) and words in out,
              f"xttcp {' '.join(args)} exited {code} without {words!r}: {out}")


CASES = {
    "forward": case_forward,
    "udp": case_udp,
    "many": case_many,
    "strangers": case_strangers,
    "auth": case_auth,
    "reverse": case_reverse,
    "bidir": case_bidir,
    "bidir-source-ports": case_bidir_source_ports,
    "wrong-direction": case_wrong_direction,
    "reverse-bounds": case_reverse_bounds,
    "mismatch": case_mismatch,
    "io-uring": case_io_uring,
    "bad-options": case_bad_options,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
