#!/usr/bin/env python3
"""NTttcp-for-Windows mappings towards several hosts: one sender, -m 2,*,127.0.0.1 2,*,127.0.0.2
(both loopback on Linux). Global thread i uses port base+i and connects to its own mapping's
host; each receiver must get bytes on exactly its own ports and address. Runs with -ns and with
the token handshake (each thread's token to its own host on data port + 1000), TCP and UDP; one
receiver holding both mappings (each listener bound to its mapping's address); -sp, where each
receiver hands out its own data ports from base + 1; and the refusals (a host that does not
resolve, a -sp receiver with mappings on different hosts)."""
import os
import random
import socket
import subprocess
import time

from xttcp_e2e import (Failure, Process, check, load_json, run_test, scratch_dir, wait_listening,
                       wait_udp_bound, xttcp_binary)

HOST_A, HOST_B = "127.0.0.1", "127.0.0.2"
TOKEN_OFFSET = 1000


def free_base(count):
    """A base port with base-1 .. base+count and their token ports (+1000) free on every local
    address, for TCP and UDP."""
    for _ in range(200):
        base = random.randint(20000, 60000 - TOKEN_OFFSET - count - 2)
        ports = list(range(base - 1, base + count + 1))
        ports += [p + TOKEN_OFFSET for p in ports]
        try:
            for port in ports:
                for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                    with socket.socket(socket.AF_INET, kind) as s:
                        s.bind(("0.0.0.0", port))
            return base
        except OSError:
            continue
    raise Failure("no free block of ports found")


def windows(xttcp, role, mappings, base, extra, json_path):
    return [xttcp, "--dialect", "windows", role, "-m", *mappings, "-t", "2", "-p", str(base),
            *extra, "--json", json_path]


def wait_ready(ports, udp, tokens):
    for port in ports:
        # With tokens, a receiver's token listeners come after its data sockets.
        if tokens:
            wait_listening(port + TOKEN_OFFSET)
        elif udp:
            wait_udp_bound(port)
        else:
            wait_listening(port)


def check_receiver(name, result, host, ports, udp):
    """Every thread of this receiver got bytes, on its host; TCP: on exactly its ports."""
    threads = result["threads"]
    check(len(threads) == len(ports), f"{name}: {len(threads)} thread rows, expected {len(ports)}")
    for t in threads:
        check(t.get("host") == host, f"{name}: thread {t['index']} host {t.get('host')!r}, "
                                     f"expected {host}")
        check(t["bytes"] > 0, f"{name}: thread {t['index']} received nothing")
    if not udp:
        local = sorted(c["local"] for c in result["connections"])
        expected = sorted(f"{host}:{p}" for p in ports)
        check(local == expected, f"{name}: connections on {local}, expected {expected}")


def check_sender(result, hosts):
    threads = result["threads"]
    check([t.get("host") for t in threads] == hosts,
          f"sender: thread hosts {[t.get('host') for t in threads]}, expected {hosts}")
    for t in threads:
        check(t["bytes"] > 0, f"sender: thread {t['index']} sent nothing")


def two_receivers(xttcp, started, udp, tokens, sync_port=False):
    """Receiver A (-m 2,*,127.0.0.1) and receiver B (-m 2,*,127.0.0.2), one sender to both.
    Without -sp thread i uses base+i, so B serves base+2..base+3 (its -p is base+2); with -sp
    each receiver hands out its own ports from base + 1 (both use -p base)."""
    work = scratch_dir()
    base = free_base(5)
    extra = (["-u"] if udp else []) + ([] if tokens else ["-ns"]) + (["-sp"] if sync_port else [])
    paths = {name: os.path.join(work, f"{name}.json") for name in ("a", "b", "s")}
    base_b = base if sync_port else base + 2
    ports_a = [base + 1, base + 2] if sync_port else [base, base + 1]
    ports_b = [base + 1, base + 2] if sync_port else [base + 2, base + 3]
    receiver_a = Process(windows(xttcp, "-r", [f"2,*,{HOST_A}"], base, extra, paths["a"]),
                         "receiver A")
    started.append(receiver_a)
    receiver_b = Process(windows(xttcp, "-r", [f"2,*,{HOST_B}"], base_b, extra, paths["b"]),
                         "receiver B")
    started.append(receiver_b)
    wait_ready(ports_a + ports_b, udp, tokens)
    if sync_port:
        wait_listening(base)  # both hand-out listeners (127.0.0.1 and 127.0.0.2) on the base port
    verbose = ["-v"] if sync_port else []
    sender = Process(windows(xttcp, "-s", [f"2,*,{HOST_A}", f"2,*,{HOST_B}"], base,
                             extra + verbose, paths["s"]), "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver_a.wait(40) == 0, "receiver A failed")
    check(receiver_b.wait(40) == 0, "receiver B failed")
    check_receiver("receiver A", load_json(paths["a"]), HOST_A, ports_a, udp)
    check_receiver("receiver B", load_json(paths["b"]), HOST_B, ports_b, udp)
    check_sender(load_json(paths["s"]), [HOST_A, HOST_A, HOST_B, HOST_B])
    if sync_port:
        check("-sp: 127.0.0.2 handed out data ports" in sender.stdout(),
              "sender -v: no per-host -sp hand-out line")
    started.clear()


def one_receiver_two_mappings(xttcp, started, udp):
    """One receiver with -m 2,*,127.0.0.1 2,*,127.0.0.2: each listener on its mapping's address."""
    work = scratch_dir()
    base = free_base(5)
    extra = ["-u"] if udp else []
    mappings = [f"2,*,{HOST_A}", f"2,*,{HOST_B}"]
    rjson, sjson = os.path.join(work, "r.json"), os.path.join(work, "s.json")
    receiver = Process(windows(xttcp, "-r", mappings, base, extra, rjson), "receiver")
    started.append(receiver)
    wait_ready(range(base, base + 4), udp, tokens=True)
    sender = Process(windows(xttcp, "-s", mappings, base, extra, sjson), "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    r = load_json(rjson)
    check([t.get("host") for t in r["threads"]] == [HOST_A, HOST_A, HOST_B, HOST_B],
          f"receiver: thread hosts {[t.get('host') for t in r['threads']]}")
    check(all(t["bytes"] > 0 for t in r["threads"]), "receiver: a thread received nothing")
    if not udp:
        local = sorted(c["local"] for c in r["connections"])
        expected = sorted([f"{HOST_A}:{base}", f"{HOST_A}:{base + 1}", f"{HOST_B}:{base + 2}",
                           f"{HOST_B}:{base + 3}"])
        check(local == expected, f"receiver: connections on {local}, expected {expected}")
    check_sender(load_json(sjson), [HOST_A, HOST_A, HOST_B, HOST_B])
    started.clear()


def refusals(xttcp):
    bad = subprocess.run([xttcp, "--dialect", "windows", "-s", "-m", f"1,*,{HOST_A}",
                          "1,*,no-such-host.invalid", "-ns", "-t", "1"],
                         capture_output=True, text=True, timeout=60)
    check(bad.returncode == 1, f"an unresolvable -m host exited {bad.returncode}, not 1")
    check(bad.stderr.count("\n") == 1
          and "-m: cannot resolve 'no-such-host.invalid'" in bad.stderr,
          f"unclear refusal of an unresolvable host: {bad.stderr!r}")
    sp = subprocess.run([xttcp, "--dialect", "windows", "-r", "-m", f"1,*,{HOST_A}",
                         f"1,*,{HOST_B}", "-sp", "-t", "1"], capture_output=True, text=True,
                        timeout=20)
    check(sp.returncode == 2, f"a -sp receiver with two hosts exited {sp.returncode}, not 2")
    check(sp.stderr.count("\n") == 1 and "-sp: the receiver hands out the data ports on one host"
          in sp.stderr, f"unclear -sp refusal: {sp.stderr!r}")


def body(started):
    xttcp = xttcp_binary()
    refusals(xttcp)
    for udp in (False, True):
        for tokens in (False, True):
            two_receivers(xttcp, started, udp, tokens)
        one_receiver_two_mappings(xttcp, started, udp)
    two_receivers(xttcp, started, udp=False, tokens=True, sync_port=True)


run_test(body)
