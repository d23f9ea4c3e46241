#!/usr/bin/env python3
"""Linux xttcp against xttcp.exe under Wine over 127.0.0.1, in both directions: the native sync
protocol (Linux dialect, results exchanged) and NTttcp-for-Windows' -ns and token handshake
(Windows dialect), count mode (-n with -a, -rb, -sb: both ends count exactly N x -l x threads;
UDP: the sender sends exactly N datagrams per thread and the receiver ends on its end markers,
native payload with -ns towards Wine, NTttcp's payload after the token handshake from Wine),
the sender started before its receiver (-ns and TCP count mode: refused connects are retried),
-m mappings towards two hosts (127.0.0.1 and 127.0.0.2, token handshake: each thread's bytes on
its own host's ports), -sam with -na (each end's samples add up to its window), and the iperf2
dialect's TCP against Debian's iperf 2.1.8 (/usr/bin/iperf) both ways, and --rr
request/response, TCP and UDP, between the Linux epoll requester or responder and xttcp.exe's iocp
one (both directions: transactions on both ends, the requester's round-trip percentiles, the two
ends' transaction counts in agreement, UDP's lost count). Each case
checks that both ends succeed, that the bytes one sent and the other received agree within what
socket buffers hold at the window edges, that each end's native JSON parses and, with native
sync, that both ends carry the other's result. Performance counters under Wine may be zero or
absent: only their structure is checked, never their values.

  cross_os_test.py XTTCP_EXE [CASE...]
Environment: XTTCP_LINUX_BIN (the Linux build's xttcp; the case skips, exit 77, without it),
WINEPREFIX and WINEDEBUG (set by scripts/test.sh), XTTCP_WINDOWS_BACKEND (default: the
build's default, auto = iocp; 'null' while developing the control plane).
"""
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (Failure, Process, SkipTest, check, free_port_block,  # noqa: E402
                       load_json, run_cases, scratch_dir, wait_listening, wait_udp_bound)

THREADS = 2
# The sender counts what its kernel accepted, the receiver what it read: they differ by what
# sits in socket buffers at the window edges (Linux's largest send plus receive buffer, per
# connection), and by a little at each edge of two clocks a few milliseconds apart.
IN_FLIGHT = 16 * 1024 * 1024


def linux_xttcp():
    path = os.environ.get("XTTCP_LINUX_BIN", "")
    if not path:
        raise SkipTest("XTTCP_LINUX_BIN is not set (scripts/test.sh sets it to the Linux build's "
                       "xttcp)")
    if not os.access(path, os.X_OK):
        raise SkipTest(f"XTTCP_LINUX_BIN={path} is not an executable")
    return path


def wine_command(exe):
    wine = shutil.which("wine")
    if wine is None:
        raise SkipTest("wine is not installed")
    backend = os.environ.get("XTTCP_WINDOWS_BACKEND")
    return [wine, exe] + (["--backend", backend] if backend else [])


def agree(sent, received):
    return abs(sent - received) <= 0.05 * max(sent, received) + IN_FLIGHT * THREADS


def summary(path, who):
    doc = load_json(path)
    check(doc.get("schema_version") is not None, f"{who}: native JSON without schema_version")
    for key in ("summary", "spec", "host", "cpu"):
        check(isinstance(doc.get(key), dict), f"{who}: native JSON lacks '{key}'")
    check(isinstance(doc["summary"].get("total_bytes"), int), f"{who}: no summary.total_bytes")
    return doc


def dpc_rate(console):
    """The first field under NTttcp's "DPCs(count/s)" header of the Windows console tables."""
    lines = console.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("DPCs(count/s)") and i + 2 < len(lines):
            return lines[i + 2].split()[0]
    raise Failure(f"no DPC table in the Windows console output:\n{console}")


def run_pair(xttcp_exe, started, windows_role, dialect_args, wait_port, native_sync,
             inspect=None, wait=wait_listening):
    """wait_port(base): the receiver's port to wait for before starting the sender, with
    wait(port, timeout) (a TCP listener by default); SENDER_FIRST starts the sender first instead
    (its refused connects are retried until the receiver listens, as NTttcp's are).
    inspect(docs, consoles): more checks on each side's native JSON and stdout, by side."""
    linux = linux_xttcp()
    wine = wine_command(xttcp_exe)
    base = free_port_block(THREADS)
    scratch = scratch_dir()
    files = {"linux": os.path.join(scratch, "linux.json"),
             "windows": os.path.join(scratch, "windows.json")}
    role = {"sender": "-s", "receiver": "-r"}
    linux_role = "receiver" if windows_role == "sender" else "sender"

    def command(prefix, side, side_role):
        return prefix + dialect_args(role[side_role], base) + ["--json", files[side]]

    receiver_side, sender_side = ("windows", "linux") if windows_role == "receiver" else \
        ("linux", "windows")
    commands = {"windows": command(wine, "windows", windows_role),
                "linux": command([linux], "linux", linux_role)}
    commands[receiver_side] += ["--wait-timeout", "60"]
    if wait_port is SENDER_FIRST:
        commands[sender_side] += ["--connect-timeout", "60"]  # Wine's first start can take seconds
        sender = Process(commands[sender_side], f"{sender_side} sender (started first)")
        started.append(sender)
        time.sleep(1)
        check(sender.proc.poll() is None,
              f"{sender_side} sender started first gave up at once:\n{sender.stderr()}")
        receiver = Process(commands[receiver_side], f"{receiver_side} receiver")
        started.append(receiver)
    else:
        receiver = Process(commands[receiver_side], f"{receiver_side} receiver")
        started.append(receiver)
        wait(wait_port(base), timeout=60)  # Wine's first start can take seconds
        sender = Process(commands[sender_side], f"{sender_side} sender")
        started.append(sender)
    check(sender.wait(90) == 0, f"{sender_side} sender failed")
    check(receiver.wait(90) == 0, f"{receiver_side} receiver failed")
    sent = summary(files[sender_side], f"{sender_side} sender")
    received = summary(files[receiver_side], f"{receiver_side} receiver")
    s, r = sent["summary"]["total_bytes"], received["summary"]["total_bytes"]
    check(r > 0, f"the {receiver_side} receiver counted nothing")
    check(agree(s, r), f"{sender_side} sent {s} bytes, {receiver_side} received {r}")
    if "windows" in dialect_args("-s", base):
        # Wine fills the DPC counters with random bytes: absent, never a number.
        windows_process = receiver if receiver_side == "windows" else sender
        rate = dpc_rate(windows_process.stdout())
        check(rate == "NA", f"xttcp.exe under Wine printed a DPC rate ({rate}), not NA")
    if native_sync:  # each end holds the other's result, and they are the same figures
        for side, doc, other in ((sender_side, sent, r), (receiver_side, received, s)):
            peer = doc.get("peer")
            check(isinstance(peer, dict), f"{side}: no peer result in its native JSON")
            check(peer["summary"]["total_bytes"] == other,
                  f"{side}: the peer result says {peer['summary']['total_bytes']} bytes, the peer "
                  f"itself {other}")
    if inspect is not None:
        consoles = {sender_side: sender.stdout(), receiver_side: receiver.stdout()}
        inspect({sender_side: sent, receiver_side: received}, consoles)
    return s, r


def linux_dialect(role, base):
    args = ["--dialect", "linux", role]
    if role == "-s":
        args += ["127.0.0.1", "-P", str(THREADS), "-n", "1"]
    else:
        args += ["127.0.0.1", "-P", str(THREADS)]
    return args + ["-p", str(base), "-t", "2"]


def windows_dialect(extra):
    return lambda role, base: (["--dialect", "windows", role, "-m", f"{THREADS},*,127.0.0.1",
                                "-p", str(base), "-t", "2"] + extra)


# Count mode with iocp's options: -n buffers of -l bytes per thread, -a outstanding operations,
# -rb/-sb. -t 60 only bounds it: the run ends when every thread has sent its buffers.
COUNT_BUFFERS, COUNT_LENGTH = 200, 16 * 1024


def count_dialect(role, base):
    return ["--dialect", "windows", role, "-m", f"{THREADS},*,127.0.0.1", "-p", str(base), "-ns",
            "-n", str(COUNT_BUFFERS), "-l", "16k", "-t", "60", "-a", "4", "-rb", "256k", "-sb",
            "64k"]


def count_pair(xttcp_exe, started, windows_role):
    s, r = run_pair(xttcp_exe, started, windows_role, count_dialect, SENDER_FIRST, False)
    expected = COUNT_BUFFERS * COUNT_LENGTH * THREADS
    check(s == expected and r == expected,
          f"count mode: sent {s}, received {r}, not N x -l x threads = {expected}")


# UDP count mode: N datagrams of -l bytes per thread, then end markers; -t 60 only bounds it.
UDP_BUFFERS, UDP_LENGTH = 1000, 1024


def udp_count_dialect(extra):
    return lambda role, base: (["--dialect", "windows", role, "-m", f"{THREADS},*,127.0.0.1",
                                "-p", str(base), "-u", "-n", str(UDP_BUFFERS), "-l",
                                str(UDP_LENGTH), "-t", "60"] + extra)


def check_udp_count(docs, consoles):
    """The sender sent exactly N x threads datagrams of -l bytes; the receiver counted only data
    (its bytes are its datagrams x -l, no end marker among them), no more than was sent."""
    del consoles
    sender = next(doc for doc in docs.values() if doc["role"] == "sender")
    receiver = next(doc for doc in docs.values() if doc["role"] == "receiver")
    sent = UDP_BUFFERS * THREADS
    check(sender["summary"]["total_bytes"] == sent * UDP_LENGTH,
          f"sender: {sender['summary']['total_bytes']} bytes, not N x -l x threads")
    check(sender["udp"]["run"]["sent"] == sent, f"sender: {sender['udp']['run']['sent']} sent")
    received = receiver["udp"]["run"]["received"]
    check(0 < received <= sent, f"receiver: {received} datagrams of {sent} sent")
    check(receiver["summary"]["total_bytes"] == received * UDP_LENGTH,
          f"receiver: {receiver['summary']['total_bytes']} bytes for {received} datagrams")


def udp_count_pair(xttcp_exe, started, windows_role, extra, wait_port, wait):
    began = time.monotonic()
    run_pair(xttcp_exe, started, windows_role, udp_count_dialect(extra), wait_port, False,
             check_udp_count, wait)
    check(time.monotonic() - began < 50, "UDP count mode waited for -t 60 instead of ending")


# NTttcp-for-Windows -m towards two hosts, 127.0.0.1 and 127.0.0.2 (all of 127.0.0.0/8 is
# loopback on Linux, and Wine binds there too), with the token handshake: each thread connects
# to, and sends its token to, its own mapping's host.
HOSTS = ("127.0.0.1", "127.0.0.2")


def windows_multihost(role, mappings, base):
    return ["--dialect", "windows", role, "-m", *[f"1,*,{host}" for host in mappings], "-p",
            str(base), "-t", "2"]


def check_threads(doc, who, hosts):
    threads = doc["threads"]
    check([t.get("host") for t in threads] == list(hosts),
          f"{who}: thread hosts {[t.get('host') for t in threads]}, expected {list(hosts)}")
    check(all(t["bytes"] > 0 for t in threads), f"{who}: a thread moved no bytes")


def multihost_wine_sender(xttcp_exe, started):
    """xttcp.exe sends to two Linux receivers, one per host (the second serves base + 1)."""
    linux = linux_xttcp()
    wine = wine_command(xttcp_exe)
    base = free_port_block(2)
    scratch = scratch_dir()
    receivers = []
    for i, host in enumerate(HOSTS):
        path = os.path.join(scratch, f"r{i}.json")
        receiver = Process([linux, *windows_multihost("-r", [host], base + i), "--json", path,
                            "--wait-timeout", "60"], f"linux receiver {host}")
        started.append(receiver)
        receivers.append((receiver, path, host))
    for i in range(len(HOSTS)):
        wait_listening(base + i + 1000, timeout=60)
    sjson = os.path.join(scratch, "s.json")
    sender = Process(wine + windows_multihost("-s", HOSTS, base) + ["--json", sjson],
                     "windows sender")
    started.append(sender)
    check(sender.wait(90) == 0, "windows sender failed")
    for receiver, path, host in receivers:
        check(receiver.wait(90) == 0, f"linux receiver {host} failed")
        check_threads(summary(path, f"linux receiver {host}"), f"linux receiver {host}", [host])
    check_threads(summary(sjson, "windows sender"), "windows sender", HOSTS)


def multihost_wine_receiver(xttcp_exe, started):
    """xttcp.exe receives with two mappings, each listener bound to its own address."""
    linux = linux_xttcp()
    wine = wine_command(xttcp_exe)
    base = free_port_block(2)
    scratch = scratch_dir()
    rjson, sjson = os.path.join(scratch, "r.json"), os.path.join(scratch, "s.json")
    receiver = Process(wine + windows_multihost("-r", HOSTS, base) +
                       ["--json", rjson, "--wait-timeout", "60"], "windows receiver")
    started.append(receiver)
    for i in range(len(HOSTS)):
        wait_listening(base + i + 1000, timeout=60)
    sender = Process([linux, *windows_multihost("-s", HOSTS, base), "--json", sjson],
                     "linux sender")
    started.append(sender)
    check(sender.wait(90) == 0, "linux sender failed")
    check(receiver.wait(90) == 0, "windows receiver failed")
    received = summary(rjson, "windows receiver")
    check_threads(received, "windows receiver", HOSTS)
    local = sorted(c["local"] for c in received["connections"])
    expected = sorted(f"{host}:{base + i}" for i, host in enumerate(HOSTS))
    check(local == expected, f"windows receiver: connections on {local}, expected {expected}")
    check_threads(summary(sjson, "linux sender"), "linux sender", HOSTS)


def check_samples(docs, consoles):
    """-t 2 -sam 1 -na 0: two samples on each side whose bytes add up to the window's exactly,
    and two Windows console blocks from each side (no -xml)."""
    for side, doc in docs.items():
        samples = doc.get("samples")
        check(isinstance(samples, list) and len(samples) == 2, f"{side}: not 2 samples")
        total = sum(sample["summary"]["total_bytes"] for sample in samples)
        check(total == doc["summary"]["total_bytes"],
              f"{side}: the samples hold {total} bytes, the window {doc['summary']['total_bytes']}")
        check(doc["spec"]["windows"]["numa_node"] == 0, f"{side}: spec.windows.numa_node not 0")
        blocks = consoles[side].count("#####  Totals:  #####")
        check(blocks == 2, f"{side}: {blocks} console blocks, not 2")


def samples_pair(xttcp_exe, started, windows_role):
    run_pair(xttcp_exe, started, windows_role, windows_dialect(["-ns", "-sam", "1", "-na", "0"]),
             FIRST_DATA_PORT, False, check_samples)


def typographic_dash(xttcp_exe, started):
    """xttcp.exe reads its command line as UTF-16: an en dash pasted from a web page (AWS's guide
    prints "ntttcp -s \u2013u ...") reaches the parser as U+2013, not as '?' or a code-page byte,
    and the refusal says what to type."""
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")  # Wine's Unix side: UTF-8 argv
    exe = Process(wine_command(xttcp_exe) + ["--dialect", "windows", "-s", "-m", "1,*,127.0.0.1",
                                             "-t", "1", "\u2013u"], "xttcp.exe", env=env)
    started.append(exe)
    check(exe.wait(60) == 2, "xttcp.exe did not refuse the en dash with exit code 2")
    check("(U+2013 EN DASH), not the ASCII '-': type '-u'" in exe.stderr(),
          "xttcp.exe did not name the en dash (its command line was not read as UTF-16?)")


IPERF = "/usr/bin/iperf"


def need_iperf():
    if not os.access(IPERF, os.X_OK):
        raise SkipTest(f"{IPERF} is missing (apt-get install iperf; scripts/install-deps.sh does)")


def iperf_csv_bytes(text):
    """The bytes of iperf 2's -y C stream rows (field 8), one per stream."""
    rows = [line.split(",") for line in text.splitlines() if len(line.split(",")) >= 9]
    return [int(r[7]) for r in rows]


def iperf2_wine_to_iperf(xttcp_exe, started):
    """xttcp.exe (iocp) in the iperf2 dialect sends to Debian's iperf -s: its header and the
    acknowledgement go both ways (iperf 2 sees two streams; no reset at the close)."""
    need_iperf()
    port = free_port_block(1)
    server = Process([IPERF, "-s", "-p", str(port), "-y", "C"], "iperf -s -y C")
    started.append(server)
    wait_listening(port)
    json_file = os.path.join(scratch_dir(), "wine-client.json")
    client = Process(wine_command(xttcp_exe) + ["--dialect", "iperf2", "-c", "127.0.0.1", "-p",
                                                str(port), "-t", "2", "-P", "2", "--json",
                                                json_file], "xttcp.exe -c")
    started.append(client)
    check(client.wait(120) == 0, f"xttcp.exe -c failed: {client.stderr()}")
    check("no acknowledgement" not in client.stderr(), "iperf -s acknowledged no header")
    deadline = time.monotonic() + 30
    while len(iperf_csv_bytes(server.stdout())) < 2:
        check(time.monotonic() < deadline, f"iperf -s printed no two streams:\n{server.stdout()}")
        time.sleep(0.05)
    server.signal(2)
    server.wait(20)
    check("reset" not in server.stdout() + server.stderr(), f"iperf -s saw a reset:\n{server.stderr()}")
    received = sum(iperf_csv_bytes(server.stdout()))
    sent = summary(json_file, "xttcp.exe")["summary"]["total_bytes"]
    check(agree(sent, received), f"xttcp.exe sent {sent} bytes, iperf -s received {received}")


def iperf2_iperf_to_wine(xttcp_exe, started):
    """Debian's iperf -c sends to xttcp.exe -s (iocp): it reads the acknowledgement xttcp.exe
    writes on each stream, and the test ends when both streams closed."""
    need_iperf()
    port = free_port_block(1)
    json_file = os.path.join(scratch_dir(), "wine-server.json")
    server = Process(wine_command(xttcp_exe) + ["--dialect", "iperf2", "-s", "-p", str(port),
                                                "--json", json_file], "xttcp.exe -s")
    started.append(server)
    wait_listening(port, timeout=60)
    client = Process([IPERF, "-c", "127.0.0.1", "-p", str(port), "-t", "2", "-P", "2", "-y", "C"],
                     "iperf -c -y C")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c failed: {client.stdout()}")
    check("reset" not in client.stdout(), f"iperf -c saw a reset:\n{client.stdout()}")
    server.wait_output("[SUM] 0.0000-", timeout=60)
    server.signal(2)
    server.wait(60)
    sent = sum(iperf_csv_bytes(client.stdout())[:2])
    received = summary(json_file, "xttcp.exe")["summary"]["total_bytes"]
    check(agree(sent, received), f"iperf -c sent {sent} bytes, xttcp.exe received {received}")


def iperf2_iperf_to_wine_enhanced(xttcp_exe, started):
    """Debian's iperf -c -P 2 -i 1 to xttcp.exe -s -e -i 1 (iocp): the server counts each
    connection's reads (io.count_reads) and prints each stream's interval lines with
    Reads=Dist, iperf 2's form, and whole-test lines that add up to what it received."""
    need_iperf()
    port = free_port_block(1)
    json_file = os.path.join(scratch_dir(), "wine-server.json")
    server = Process(wine_command(xttcp_exe) + ["--dialect", "iperf2", "-s", "-e", "-i", "1",
                                                "-p", str(port), "--json", json_file],
                     "xttcp.exe -s -e -i 1")
    started.append(server)
    wait_listening(port, timeout=60)
    client = Process([IPERF, "-c", "127.0.0.1", "-p", str(port), "-t", "3", "-P", "2", "-i", "1"],
                     "iperf -c -P 2 -i 1")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c failed: {client.stdout()}")
    server.wait_output("[SUM] 0.0000-", timeout=60)
    server.signal(2)
    server.wait(60)
    reads = re.compile(r"^\[\s*(\d+|SUM)\] (\d+\.\d{4})-(\d+\.\d{4}) sec\s+[\d.]+ \w*Bytes\s+"
                       r"[\d.]+ \w*bits/sec\s+(\d+)=(\d+(?::\d+){7})$", re.M)
    lines = [m.groups() for m in reads.finditer(server.stdout())]
    for stream in ("1", "2", "SUM"):
        check(any(g[0] == stream and g[1] == "0.0000" and g[2] == "1.0000" for g in lines),
              f"xttcp.exe printed no first interval line of stream {stream} with Reads=Dist:\n"
              f"{server.stdout()}")
    # iperf -c's [SUM] over the whole test: "[SUM] 0.0000-3.0012 sec  2.15 GBytes  ..."
    units = {"Bytes": 1, "KBytes": 1 << 10, "MBytes": 1 << 20, "GBytes": 1 << 30}
    sums = re.findall(r"^\[SUM\] 0\.0000-(\d+\.\d{4}) sec\s+([\d.]+) (\w*Bytes)", client.stdout(),
                      re.M)
    whole = [(float(amount) * units[unit]) for end, amount, unit in sums if float(end) > 1.5]
    check(whole, f"iperf -c printed no [SUM] of the test:\n{client.stdout()}")
    received = summary(json_file, "xttcp.exe")["summary"]["total_bytes"]
    check(agree(whole[-1], received), f"iperf -c sent {whole[-1]:.0f} bytes, xttcp.exe received {received}")


# --rr (docs/rr.md): two flows (-P 2, one thread each), two transactions in flight on each, responses
# of another size than the requests (the TCP ends cut the byte stream into both sizes). The Linux
# end runs epoll, xttcp.exe its default, iocp.
RR_FLOWS, RR_DEPTH, RR_REQUEST = 2, 2, 64
RR_RESPONSE = {"tcp": 200, "udp": 100}
RR_PERCENTILES = ["p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "max_ns"]


def rr_pair(xttcp_exe, started, protocol, windows_role):
    """An --rr run over the native sync protocol, the responder started first (its sync port is
    the readiness to wait for). Checks: both ends made transactions, the Windows end ran iocp,
    the requester's rr block has its clock and ordered round-trip percentiles on every flow, and
    the responder answered what the requester completed: exactly, over the whole run, within the
    requests still in flight at the end (TCP: from each end's connection byte counts); within
    those, the requests given up as lost and 5 % for the edges of two windows on two clocks
    (the measured windows, both protocols; the stream cases' agree() allows the same 5 %)."""
    linux = linux_xttcp()
    wine = wine_command(xttcp_exe)
    base = free_port_block(RR_FLOWS)
    scratch = scratch_dir()
    response = RR_RESPONSE[protocol]
    common = ["--dialect", "linux", "--rr", "-P", str(RR_FLOWS), "-p", str(base), "-t", "3",
              "-b", str(RR_REQUEST), "--response-size", str(response)]
    if protocol == "udp":
        common.append("-u")
    linux_side = ["--backend", "epoll"]
    responder_side, requester_side = ("windows", "linux") if windows_role == "responder" else \
        ("linux", "windows")
    prefix = {"windows": wine, "linux": [linux, *linux_side]}
    files = {side: os.path.join(scratch, f"{side}.json") for side in ("windows", "linux")}
    responder = Process(prefix[responder_side] + ["-r", "127.0.0.1", *common, "--json",
                                                  files[responder_side], "--wait-timeout", "60"],
                        f"{responder_side} rr responder")
    started.append(responder)
    wait_listening(SYNC_PORT(base), timeout=60)  # Wine's first start can take seconds
    requester = Process(prefix[requester_side] + ["-s", "127.0.0.1", *common, "-n", "1",
                                                  "--rr-depth", str(RR_DEPTH), "--json",
                                                  files[requester_side]],
                        f"{requester_side} rr requester")
    started.append(requester)
    check(requester.wait(90) == 0, f"{requester_side} requester failed:\n{requester.stderr()}")
    check(responder.wait(90) == 0, f"{responder_side} responder failed:\n{responder.stderr()}")
    s = summary(files[requester_side], f"{requester_side} requester")
    r = summary(files[responder_side], f"{responder_side} responder")
    windows_doc = s if requester_side == "windows" else r
    check(windows_doc["backend"] == "iocp", f"xttcp.exe ran {windows_doc['backend']}, not iocp")
    check(s["backend"] == "epoll" or r["backend"] == "epoll", "the Linux end did not run epoll")
    rr, peer = s.get("rr"), r.get("rr")
    check(isinstance(rr, dict) and isinstance(peer, dict), "a result has no rr block")
    check(rr["transactions"] > 0, f"the {requester_side} requester completed nothing: {rr}")
    check(peer["transactions"] > 0, f"the {responder_side} responder answered nothing: {peer}")
    check(rr["request_bytes"] == peer["request_bytes"] == RR_REQUEST and
          rr["response_bytes"] == peer["response_bytes"] == response and rr["depth"] == RR_DEPTH,
          f"sizes or depth: requester {rr}, responder {peer}")
    check(len(rr["flows"]) == RR_FLOWS and all(f["transactions"] > 0 for f in rr["flows"]),
          f"a flow made no transactions: {rr['flows']}")
    expected_clock = "QueryPerformanceCounter" if requester_side == "windows" else ("TSC", "CLOCK_")
    check(rr["clock"].startswith(expected_clock), f"round trips timed with {rr['clock']!r}")
    for who, latency in [("total", rr["latency"])] + [(f"flow {f['flow']}", f["latency"])
                                                      for f in rr["flows"]]:
        figures = [latency[k] for k in RR_PERCENTILES]
        check(latency["count"] > 0 and 0 < figures[0] and figures == sorted(figures),
              f"{who}: round-trip percentiles missing or not ordered: {latency}")
    buckets = rr["histogram"]["buckets"]
    check(sum(count for _, count in buckets) == rr["latency"]["count"],
          "the histogram does not hold the window's round trips")
    check(isinstance(rr.get("lost"), int) and rr["lost"] >= 0, f"no lost count: {rr}")
    in_flight = RR_FLOWS * RR_DEPTH
    slack = in_flight + rr["lost"] + 0.05 * max(rr["transactions"], peer["transactions"])
    check(abs(peer["transactions"] - rr["transactions"]) <= slack,
          f"{responder_side} answered {peer['transactions']} transactions in its window, "
          f"{requester_side} completed {rr['transactions']} (more apart than {slack:.0f})")
    check(s["peer"]["rr"]["transactions"] == peer["transactions"],
          "the requester does not hold the responder's result")
    if protocol == "tcp":  # whole run: every response answers a request the responder read
        completed = sum(c["bytes"] for c in s["connections"]) // (RR_REQUEST + response)
        requests = sum(c["bytes"] // RR_REQUEST for c in r["connections"])  # whole ones
        check(len(s["connections"]) == RR_FLOWS and len(r["connections"]) == RR_FLOWS,
              f"connections: requester {s['connections']}, responder {r['connections']}")
        check(0 <= requests - completed <= in_flight,
              f"over the run the {responder_side} responder read {requests} requests and the "
              f"{requester_side} requester completed {completed} (in flight at most {in_flight})")
    check("rr round trip" in requester.stdout() and "rr transactions" in responder.stdout(),
          f"a console lacks the rr block:\n{requester.stdout()}\n{responder.stdout()}")


SYNC_PORT = lambda base: base - 1  # noqa: E731
FIRST_DATA_PORT = lambda base: base  # noqa: E731
FIRST_TOKEN_PORT = lambda base: base + 1000  # noqa: E731
SENDER_FIRST = object()  # run_pair: start the sender first

CASES = {
    "native-linux-to-wine": lambda x, s: run_pair(x, s, "receiver", linux_dialect, SYNC_PORT, True),
    "native-wine-to-linux": lambda x, s: run_pair(x, s, "sender", linux_dialect, SYNC_PORT, True),
    "ns-linux-to-wine": lambda x, s: run_pair(x, s, "receiver", windows_dialect(["-ns"]),
                                              SENDER_FIRST, False),
    "ns-wine-to-linux": lambda x, s: run_pair(x, s, "sender", windows_dialect(["-ns"]),
                                              SENDER_FIRST, False),
    "token-linux-to-wine": lambda x, s: run_pair(x, s, "receiver", windows_dialect([]),
                                                 FIRST_TOKEN_PORT, False),
    "count-linux-to-wine": lambda x, s: count_pair(x, s, "receiver"),
    "count-wine-to-linux": lambda x, s: count_pair(x, s, "sender"),
    "token-wine-to-linux": lambda x, s: run_pair(x, s, "sender", windows_dialect([]),
                                                 FIRST_TOKEN_PORT, False),
    # -ns: native payload, the Wine receiver's loss accounting ends each flow on its marker.
    "udp-count-linux-to-wine": lambda x, s: udp_count_pair(x, s, "receiver", ["-ns"],
                                                           FIRST_DATA_PORT, wait_udp_bound),
    # Token handshake: the Wine sender cannot know its peer, sends NTttcp's payload and markers.
    "udp-count-wine-to-linux": lambda x, s: udp_count_pair(x, s, "sender", [], FIRST_TOKEN_PORT,
                                                           wait_listening),
    "multihost-linux-to-wine": multihost_wine_receiver,
    "multihost-wine-to-linux": multihost_wine_sender,
    "samples-linux-to-wine": lambda x, s: samples_pair(x, s, "receiver"),
    "samples-wine-to-linux": lambda x, s: samples_pair(x, s, "sender"),
    "typographic-dash": typographic_dash,
    "iperf2-wine-to-iperf": iperf2_wine_to_iperf,
    "iperf2-iperf-to-wine": iperf2_iperf_to_wine,
    "iperf2-iperf-to-wine-enhanced": iperf2_iperf_to_wine_enhanced,
    "rr-tcp-linux-to-wine": lambda x, s: rr_pair(x, s, "tcp", "responder"),
    "rr-tcp-wine-to-linux": lambda x, s: rr_pair(x, s, "tcp", "requester"),
    "rr-udp-linux-to-wine": lambda x, s: rr_pair(x, s, "udp", "responder"),
    "rr-udp-wine-to-linux": lambda x, s: rr_pair(x, s, "udp", "requester"),
}

sys.exit(run_cases(CASES))
