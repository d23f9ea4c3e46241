#!/usr/bin/env python3
"""NTttcp-for-Windows data-path options on Linux (xttcp vs xttcp on loopback, -ns): -rb/-sb reach
the sockets (the worker's note in --json reads them back), -d verifies the bytes (a peer that
sends 'B' gets errors reported, exit 1), -wa receives, -thr paces, -a is accepted with its note,
-u runs the UDP path; -uc (unconnected UDP) moves data on epoll and is refused in one line by the
io_uring sender; -n N (count mode) sends and receives exactly N x -l bytes per thread and ends
without waiting for -t, on epoll and io_uring; UDP count mode sends exactly N datagrams per thread,
the receiver ends by itself on the end markers and accounts for any loss, with or without -ns (the
token handshake, NTttcp's payload) and with no -t at all; -lm times every call (console, XML and
JSON latency figures present and sane) or is refused in one line; -uro runs with UDP_GRO and
-uso is refused in one line.
Cases: `windows_options_test.py XTTCP [CASE]`."""
import os
import re
import socket
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

from xttcp_e2e import (Failure, Process, SkipTest, check, free_port_block, load_json, run_cases,
                       scratch_dir, wait_listening, wait_udp_bound)


def windows(xttcp, role, base, *extra, threads=1, seconds=2):
    timed = ["-t", str(seconds)] if seconds else []  # 0: count mode (-n, or its default)
    return [xttcp, "--dialect", "windows", role, "-m", f"{threads},*,127.0.0.1", "-ns", *timed,
            "-p", str(base), *extra]


def pair(xttcp, started, receiver_extra=(), sender_extra=(), threads=1, seconds=2, outputs=None):
    base = free_port_block(threads + 1)
    work = scratch_dir()
    rjson, sjson = os.path.join(work, "r.json"), os.path.join(work, "s.json")
    receiver = Process(windows(xttcp, "-r", base, *receiver_extra, "--json", rjson,
                               threads=threads, seconds=seconds), "receiver")
    started.append(receiver)
    for port in range(base, base + threads):  # each worker listens (binds) on its own ports
        (wait_udp_bound if "-u" in receiver_extra else wait_listening)(port)
    sender = Process(windows(xttcp, "-s", base, *sender_extra, "--json", sjson, threads=threads,
                             seconds=seconds), "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    if outputs is not None:
        outputs.extend([receiver.stdout(), sender.stdout()])
    return load_json(rjson), load_json(sjson)


def socket_buffers(xttcp, started, backend=()):
    r, s = pair(xttcp, started, ("-rb", "256k", "-sb", "0", *backend),
                ("-sb", "128k", "-rb", "0", *backend))
    rnotes, snotes = " ".join(r.get("notes", [])), " ".join(s.get("notes", []))
    check("-rb 262144: SO_RCVBUF is 524288" in rnotes, f"receiver: no -rb note: {rnotes!r}")
    check("-sb 0: SO_SNDBUF is " in rnotes, f"receiver: no -sb note: {rnotes!r}")
    check("-sb 131072: SO_SNDBUF is 262144" in snotes, f"sender: no -sb note: {snotes!r}")
    check(r["summary"]["total_bytes"] > 0, "nothing received")


def verify_ok(xttcp, started):
    r, _ = pair(xttcp, started, ("-d", "-wa", "-l", "16k"), ("-l", "16k"))
    check(r["summary"]["total_bytes"] > 0, "nothing received")
    check(any("-wa: MSG_WAITALL" in n for n in r.get("notes", [])), "no -wa note")


def verify_catches_b(xttcp, started):
    base = free_port_block(2)
    receiver = Process(windows(xttcp, "-r", base, "-d", seconds=1), "receiver")
    started.append(receiver)
    wait_listening(base)
    peer = socket.create_connection(("127.0.0.1", base), timeout=10)
    try:
        peer.sendall(b"A" * 1000 + b"B" * 1000)
        time.sleep(2.5)
    finally:
        peer.close()
    code = receiver.wait(30)
    text = receiver.stdout() + receiver.stderr()
    check(code == 1, f"receiver exited {code}, not 1, after receiving 'B'")
    check("received data is not all 'A' (-d): byte 0x42 at offset 1000" in text,
          f"no -d error naming the byte and offset: {text!r}")


def throttle(xttcp, started):
    _, s = pair(xttcp, started, (), ("-thr", "500"), seconds=2)
    sent = s["summary"]["total_bytes"]
    limit = 500 * 1024 * 2
    check(0 < sent <= limit * 1.3, f"-thr 500 for 2 s sent {sent} bytes (limit {limit})")


def async_note(xttcp, started):
    _, s = pair(xttcp, started, ("-a", "4"), ("-a", "4"))
    notes = " ".join(s.get("notes", []))
    check("-a" in notes, f"sender: no note on what -a means here: {notes!r}")
    check("-sb 0" not in notes, f"the -sb 0 that -a implies must not shrink Linux's send buffer: {notes!r}")


def udp(xttcp, started):
    r, s = pair(xttcp, started, ("-u",), ("-u",))
    check(s["summary"]["total_bytes"] > 0, "UDP sender sent nothing")
    check(r["summary"]["total_bytes"] > 0, "UDP receiver received nothing")


def uring_available(xttcp):
    out = subprocess.run([xttcp, "backends"], capture_output=True, text=True, timeout=30).stdout
    return any(line.split()[:2] == ["io_uring", "available"] for line in out.splitlines())


def unconnected_epoll(xttcp, started):
    """-uc on epoll: unconnected sockets (sendto/sendmmsg with the address) move data, the sender
    says so; the io_uring sender refuses -uc in one line."""
    epoll = ("--backend", "epoll")
    r, s = pair(xttcp, started, ("-u", "-uc", *epoll), ("-u", "-uc", *epoll))
    check(s["summary"]["total_bytes"] > 0, "-uc sender sent nothing")
    check(r["summary"]["total_bytes"] > 0, "-uc receiver received nothing")
    check(s["spec"]["windows"]["udp_unconnected"] is True, "sender JSON: udp_unconnected not set")
    notes = " ".join(s.get("notes", []))
    check("-uc: unconnected UDP sockets" in notes, f"sender: no -uc note: {notes!r}")
    if not uring_available(xttcp):
        return
    refused = subprocess.run(windows(xttcp, "-s", 5001, "-u", "-uc", "--backend", "io_uring"),
                             capture_output=True, text=True, timeout=20)
    check(refused.returncode == 2, f"-uc on the io_uring sender exited {refused.returncode}, not 2")
    check(refused.stderr.count("\n") == 1 and
          "-uc: the io_uring backend sends on connected UDP sockets only" in refused.stderr,
          f"unclear -uc refusal: {refused.stderr!r}")


def udp_offloads(xttcp, started):
    """-uro (receive coalescing) is UDP_GRO on the Linux kernel-socket backends: the receiver
    runs with it on; -uso (one send split into datagrams of another size) is refused in one line
    by the sender's backend, before anything starts."""
    backends = ["epoll"] + (["io_uring"] if uring_available(xttcp) else [])
    for backend in backends:
        r, _ = pair(xttcp, started, ("-u", "-uro", "--backend", backend), ("-u",))
        check(r["summary"]["total_bytes"] > 0, f"{backend}: the -uro receiver received nothing")
        check(r["udp"]["gro"] is True, f"{backend}: -uro but UDP_GRO is off: {r['udp']!r}")
        refused = subprocess.run(windows(xttcp, "-s", 5001, "-u", "-uso", "1400", "--backend",
                                         backend), capture_output=True, text=True, timeout=30)
        check(refused.returncode == 2, f"{backend}: -uso exited {refused.returncode}, not 2")
        check(refused.stderr.count("\n") == 1 and
              f"-uso: the {backend} backend does not split a send" in refused.stderr,
              f"{backend}: unclear -uso refusal: {refused.stderr!r}")


def check_udp_count(r, s, buffers, length, threads, began):
    """Both ends of a UDP count-mode run: the sender sent exactly N datagrams of -l bytes per
    thread; the receiver ended by itself, counted only data (no end marker) and, for every flow,
    received + lost = N (the end marker's count makes tail loss visible)."""
    check(time.monotonic() - began < 30, "UDP count mode waited for -t instead of ending")
    expected = buffers * length * threads
    check(s["summary"]["total_bytes"] == expected,
          f"sender: {s['summary']['total_bytes']} bytes, not N x -l x threads = {expected}")
    check(s["udp"]["run"]["sent"] == buffers * threads,
          f"sender: {s['udp']['run']['sent']} datagrams, not {buffers * threads}")
    received = r["udp"]["run"]["received"]
    check(0 < received <= buffers * threads, f"receiver: {received} datagrams received")
    check(r["summary"]["total_bytes"] == received * length,
          f"receiver: {r['summary']['total_bytes']} bytes for {received} datagrams of {length} "
          "(end markers counted as data?)")
    return received


def udp_count_mode(xttcp, started, extra=()):
    """-u -n N: every thread sends exactly N datagrams, then its end markers; the receiver ends
    on them long before -t 60 and accounts for every datagram sent (received + lost = N)."""
    buffers, length, threads = 5000, 1024, 2
    began = time.monotonic()
    outputs = []
    args = ("-u", "-n", str(buffers), "-l", str(length), *extra)
    r, s = pair(xttcp, started, args, args, threads=threads, seconds=60, outputs=outputs)
    check_udp_count(r, s, buffers, length, threads, began)
    flows = [f for f in r["udp"]["flows"] if f.get("native", True)]
    check(len(flows) == threads, f"receiver: {len(flows)} native flows, not {threads}")
    for flow in flows:
        check(flow["received"] + flow["lost"] == buffers,
              f"receiver flow {flow['flow']}: received {flow['received']} + lost {flow['lost']} "
              f"!= N = {buffers}")
    check(f"count mode: every thread sent its {buffers} buffers" in outputs[1],
          "sender: no count-mode end")


def udp_count_mode_uring(xttcp, started):
    if not uring_available(xttcp):
        raise SkipTest("io_uring is not available here ('xttcp backends')")
    udp_count_mode(xttcp, started, ("--backend", "io_uring"))


def udp_default_mode(xttcp, started):
    """NTttcp's default: no -t (count mode, bounded by 3 h) and no -ns (the token handshake, so
    the sender cannot know its peer and sends NTttcp's payload). Both ends end by themselves once
    the sender's N datagrams and its end markers are through."""
    buffers, length = 500, 1024
    base = free_port_block(2)
    work = scratch_dir()
    rjson, sjson = os.path.join(work, "r.json"), os.path.join(work, "s.json")
    common = ["-u", "-m", "1,*,127.0.0.1", "-p", str(base), "-n", str(buffers), "-l", str(length)]
    receiver = Process([xttcp, "--dialect", "windows", "-r", *common, "--json", rjson], "receiver")
    started.append(receiver)
    wait_listening(base + 1000)  # the token port: the receiver is up
    began = time.monotonic()
    sender = Process([xttcp, "--dialect", "windows", "-s", *common, "--json", sjson], "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    r, s = load_json(rjson), load_json(sjson)
    check_udp_count(r, s, buffers, length, 1, began)
    check(s["udp"]["payload"] == "compat", f"sender payload {s['udp']['payload']!r}, not compat")


def udp_count_mode_ntttcp_sender(xttcp, started):
    """A real NTttcp sender sends N datagrams of 'B's per thread and no end marker: an xttcp
    count-mode receiver ends once each port has N datagrams, as NTttcp's receiver does (it
    waited for -t before). Here a Python sender plays NTttcp, 2 threads, -ns."""
    buffers, length, threads = 200, 1024, 2
    base = free_port_block(threads + 1)
    rjson = os.path.join(scratch_dir(), "r.json")
    receiver = Process(windows(xttcp, "-r", base, "-u", "-n", str(buffers), "-l", str(length),
                               "--json", rjson, threads=threads, seconds=30), "receiver")
    started.append(receiver)
    for port in range(base, base + threads):
        wait_udp_bound(port)
    began = time.monotonic()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        for i in range(buffers):
            for port in range(base, base + threads):
                sender.sendto(b"B" * length, ("127.0.0.1", port))
            if i % 20 == 19:
                time.sleep(0.002)  # a pace the receiver keeps up with: no loss to wait for
    check(receiver.wait(40) == 0, "receiver failed")
    check(time.monotonic() - began < 15, "the receiver waited for -t, not for N datagrams")
    r = load_json(rjson)
    check(r["summary"]["total_bytes"] == buffers * length * threads,
          f"receiver: {r['summary']['total_bytes']} bytes, not N x -l x threads")


def count_mode(xttcp, started, extra=()):
    """-n N: every thread sends exactly N buffers of -l bytes, both ends count exactly that, and
    both end without waiting for -t (60 s here: a run that waited would time the test out)."""
    buffers, length, threads = 300, 32 * 1024, 3
    outputs = []
    begin = time.monotonic()
    r, s = pair(xttcp, started, ("-n", str(buffers), "-l", "32k", *extra),
                ("-n", str(buffers), "-l", "32k", *extra), threads=threads, seconds=60,
                outputs=outputs)
    check(time.monotonic() - begin < 30, "count mode waited for -t instead of ending")
    expected = buffers * length * threads
    for name, result in (("receiver", r), ("sender", s)):
        check(result["summary"]["total_bytes"] == expected,
              f"{name}: {result['summary']['total_bytes']} bytes, not N x -l x threads = {expected}")
        per_thread = sorted(t["bytes"] for t in result["threads"])
        check(per_thread == [buffers * length] * threads, f"{name}: per-thread bytes {per_thread}")
    console = outputs[1]
    check("count mode: every thread sent its 300 buffers" in console, "sender: no count-mode end")
    megabytes = f"{expected / 2**20:.6f}"
    check(megabytes in console, f"sender console: no {megabytes} MB total")
    check(f"{buffers * threads}.000" in console, "sender console: Buffers is not N x threads")


def count_mode_window_starts_at_first_data(xttcp, started):
    """-ns count mode: the receiver's clock starts when its last thread connects, but the window
    holds every byte, so its time must start with the first thread's data. Two senders, one per
    receiver thread, the second 1.5 s after the first has sent everything: the receiver's window
    is at least those 1.5 s, not the second sender's few milliseconds."""
    buffers, length = 300, 32 * 1024
    base = free_port_block(3)
    rjson = os.path.join(scratch_dir(), "r.json")
    count = ("-n", str(buffers), "-l", "32k")
    receiver = Process(windows(xttcp, "-r", base, *count, "--json", rjson, threads=2, seconds=60),
                       "receiver")
    started.append(receiver)
    for port in (base, base + 1):
        wait_listening(port)
    for port in (base, base + 1):
        sender = Process(windows(xttcp, "-s", port, *count, seconds=60), f"sender to {port}")
        started.append(sender)
        check(sender.wait(30) == 0, f"sender to {port} failed")
        if port == base:
            time.sleep(1.5)
    check(receiver.wait(30) == 0, "receiver failed")
    r = load_json(rjson)
    check(r["summary"]["total_bytes"] == 2 * buffers * length,
          f"receiver: {r['summary']['total_bytes']} bytes, not N x -l x 2")
    check(r["summary"]["duration_s"] >= 1.4,
          f"receiver window {r['summary']['duration_s']} s: it left out the first thread's time")


def count_mode_receiver_closes_early(xttcp, started):
    """NTttcp's count-mode receiver stops after N receive calls, which short reads reach before
    N buffers came, and closes. A sender whose other flows are done must then end, exit 0, and
    say how many connections were closed early (it waited for -t before)."""
    base = free_port_block(3)
    listeners = []
    for port in (base, base + 1):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(1)
        listener.settimeout(20)
        listeners.append(listener)

    def serve(listener, close_after):
        connection, _ = listener.accept()
        connection.settimeout(20)
        with connection:
            got = 0
            while close_after is None or got < close_after:
                data = connection.recv(65536)
                if not data:
                    break
                got += len(data)

    readers = [threading.Thread(target=serve, args=(listeners[0], None), daemon=True),
               threading.Thread(target=serve, args=(listeners[1], 64 * 1024), daemon=True)]
    for reader in readers:
        reader.start()
    try:
        began = time.monotonic()
        sender = Process(windows(xttcp, "-s", base, "-n", "2000", "-l", "32k", threads=2,
                                 seconds=30), "sender")
        started.append(sender)
        check(sender.wait(40) == 0, f"sender failed: {sender.stderr()}")
        check(time.monotonic() - began < 15, "the sender waited for -t after its receiver closed")
        check("or its receiver closed its connection (1 closed early)" in sender.stdout(),
              f"sender: no word of the early close: {sender.stdout()!r}")
    finally:
        for reader in readers:
            reader.join(timeout=20)
        for listener in listeners:
            listener.close()


def count_mode_uring(xttcp, started):
    if not uring_available(xttcp):
        raise SkipTest("io_uring is not available here ('xttcp backends')")
    count_mode(xttcp, started, ("--backend", "io_uring"))


def cpu_per_mapping(xttcp, started):
    """-m 1,0,HOST 1,1,HOST: one worker per mapping, pinned to its CPU; counts stay exact."""
    if len(os.sched_getaffinity(0)) < 2 or not {0, 1} <= os.sched_getaffinity(0):
        raise SkipTest("CPUs 0 and 1 are not both available to this process")
    base = free_port_block(3)
    args = ["-m", "1,0,127.0.0.1", "1,1,127.0.0.1", "-ns", "-p", str(base), "-n", "200", "-l",
            "16k", "-V"]
    receiver = Process([xttcp, "--dialect", "windows", "-r", *args], "receiver")
    started.append(receiver)
    wait_listening(base)
    wait_listening(base + 1)
    sender = Process([xttcp, "--dialect", "windows", "-s", *args], "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    for p in (sender, receiver):
        check("worker 0 -> cpu 0, worker 1 -> cpu 1" in p.stdout() + p.stderr(),
              f"{p.name}: workers not pinned per mapping")
    check(f"{2 * 200 * 16384 / 2**20:.6f}" in sender.stdout(), "sender: total is not N x -l x 2")


LATENCY_LINE = re.compile(
    r"Latency\(ns\)\n\s+Avg\s+Min\s+Max\n=+ =+ =+\n\s*(\S+)\s+(\S+)\s+(\S+)\n")


def sane_latency(where, avg, low, high):
    check(0 < low <= avg <= high, f"{where}: latency not 0 < min <= avg <= max: {low} {avg} {high}")


def latency(xttcp, started, extra=()):
    """-lm: every send/recv call is timed. The sender's console has the Latency(ns) totals and
    per-thread columns, the receiver's XML the avg/min/max_latency elements per thread and in
    total, both JSON files the calls behind them; all with 0 < min <= avg <= max."""
    threads = 2
    xml = os.path.join(scratch_dir(), "r.xml")
    outputs = []
    r, s = pair(xttcp, started, ("-lm", "-xml", xml, *extra), ("-lm", *extra), threads=threads,
                outputs=outputs)
    console = outputs[1]
    # auto's first choice, epoll, times each call: nothing passed over, nothing to say.
    check("--backend auto runs" not in console,
          f"sender console: auto passed over a backend for -lm: {console!r}")
    totals = LATENCY_LINE.search(console)
    check(totals is not None, f"sender console: no Latency(ns) totals: {console!r}")
    sane_latency("sender totals", *(float(v) for v in totals.groups()))
    rows = re.findall(r"^\s+(\d+)\s+[\d.]+\s+[\d.]+\s+\S+\s+(\d+)\s+(\d+)\s+(\d+)$", console, re.M)
    check(len(rows) == threads, f"sender console: {len(rows)} thread rows with latency columns")
    for row in rows:
        sane_latency(f"sender thread {row[0]}", *(float(v) for v in row[1:]))
    root = ET.parse(xml).getroot()
    check(root.tag == "ntttcpr", f"receiver XML root is {root.tag}")
    blocks = [("receiver totals", root)] + [(f"receiver thread {t.get('index')}", t)
                                            for t in root.findall("thread")]
    check(len(blocks) == threads + 1, f"receiver XML: {len(blocks) - 1} thread elements")
    for where, block in blocks:
        values = [block.find(f"{k}_latency") for k in ("avg", "min", "max")]
        check(all(v is not None and v.get("metric") == "ns" for v in values),
              f"{where}: no avg/min/max_latency in ns")
        sane_latency(where, *(float(v.text) for v in values))
    for name, result in (("receiver", r), ("sender", s)):
        total = result["summary"].get("latency")
        check(total is not None and total["calls"] > 0, f"{name} JSON: no summary.latency")
        sane_latency(f"{name} JSON", total["average_ns"], total["min_ns"], total["max_ns"])
        calls = sum(t["latency"]["calls"] for t in result["threads"] if "latency" in t)
        check(calls == total["calls"], f"{name} JSON: threads' calls {calls} != {total['calls']}")


def latency_refused(xttcp, started):
    """A backend that does not time its calls refuses -lm in one line, naming it."""
    refused = subprocess.run(windows(xttcp, "-s", 5001, "-lm", "--backend", "null"),
                             capture_output=True, text=True, timeout=20)
    check(refused.returncode == 2, f"-lm on null exited {refused.returncode}, not 2")
    check(refused.stderr.count("\n") == 1 and
          "-lm: the null backend does not time each send/recv call" in refused.stderr,
          f"unclear -lm refusal: {refused.stderr!r}")


CASES = {
    "cpu-per-mapping": cpu_per_mapping,
    "count-mode": count_mode,
    "count-mode-epoll-async-buffers": lambda x, s: count_mode(
        x, s, ("--backend", "epoll", "-a", "4", "-rb", "128k", "-sb", "64k")),
    "socket-buffers": socket_buffers,
    "socket-buffers-epoll": lambda x, s: socket_buffers(x, s, ("--backend", "epoll")),
    "verify-ok": verify_ok,
    "verify-catches-b": verify_catches_b,
    "throttle": throttle,
    "async-note": async_note,
    "udp": udp,
    "uc-epoll": unconnected_epoll,
    "udp-offloads": udp_offloads,
    "count-mode-io_uring": count_mode_uring,
    "udp-count-mode-ntttcp-sender": udp_count_mode_ntttcp_sender,
    "count-mode-receiver-closes-early": count_mode_receiver_closes_early,
    "count-mode-window-starts-at-first-data": count_mode_window_starts_at_first_data,
    "udp-count-mode": lambda x, s: udp_count_mode(x, s, ("--backend", "epoll")),
    "udp-count-mode-uc": lambda x, s: udp_count_mode(x, s, ("--backend", "epoll", "-uc")),
    "udp-count-mode-io_uring": udp_count_mode_uring,
    "udp-default-mode": udp_default_mode,
    "latency": latency,
    "latency-udp": lambda x, s: latency(x, s, ("-u",)),
    "latency-refused": latency_refused,
}

sys.exit(run_cases(CASES))
