#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz from real messages: runs xttcp on loopback, captures
what each end sends the other (an AF_PACKET socket on lo), and writes every target's input form
(see the comment at the top of each target). Ethernet frames come from the kernel on a veth pair
between two network namespaces made here (ARP, neighbour discovery, UDP over IPv4 and IPv6).

Usage (as root): tests/fuzz/make_corpus.py PATH_TO_XTTCP [CORPUS_DIR]
         tests/fuzz/make_corpus.py --declared [CORPUS_DIR]   (udp_datagram's declared-flow
         seeds again, from its count-native.bin; no root, no capture)
CORPUS_DIR defaults to tests/fuzz/corpus; files are named after what they hold, so running it
again replaces them. The seeds are committed: CI does not run this.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from xttcp_e2e import Process, free_port_block, scratch_dir, wait_listening  # noqa: E402

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
HELLO = 0xC0DE7801


class Capture:
    """Every IPv4 TCP and UDP packet on an interface, with its payload, in arrival order."""

    def __init__(self, interface="lo"):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        # The senders are rate-limited (-B), but the capture must not drop a sync segment.
        self.sock.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)  # SO_RCVBUFFORCE
        self.sock.bind((interface, 0))
        self.sock.settimeout(0.2)
        self.frames = []
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stopping:
            try:
                frame, address = self.sock.recvfrom(65600)
            except socket.timeout:
                continue
            if address[2] != PACKET_OUTGOING:  # lo shows each packet twice
                self.frames.append(frame)

    def stop(self):
        time.sleep(0.3)
        self.stopping = True
        self.thread.join()
        self.sock.close()
        return self.frames


def tcp_events(frames):
    """[(sport, dport, payload, fin), ...] for IPv4 TCP on loopback in the order sent, one per
    segment with data or a FIN, retransmissions dropped."""
    events, next_seq = [], {}
    for frame in frames:
        if len(frame) < 34 or struct.unpack("!H", frame[12:14])[0] != 0x0800:
            continue
        ip = frame[14:]
        ihl = (ip[0] & 0x0F) * 4
        if ip[9] != 6:
            continue
        total = struct.unpack("!H", ip[2:4])[0]
        tcp = ip[ihl:total]
        sport, dport, seq = struct.unpack("!HHI", tcp[:8])
        fin = bool(tcp[13] & 0x01)
        payload = bytes(tcp[(tcp[12] >> 4) * 4:])
        if not payload and not fin:
            continue
        key = (sport, dport)
        if payload:
            if key in next_seq and seq != next_seq[key]:
                continue  # a retransmission (loopback does not reorder)
            next_seq[key] = (seq + len(payload)) & 0xFFFFFFFF
        events.append((sport, dport, payload, fin))
    return events


def tcp_streams(frames):
    """{(sport, dport): [payload chunk, ...]}: each direction's segments with data."""
    streams = {}
    for sport, dport, payload, _ in tcp_events(frames):
        if payload:
            streams.setdefault((sport, dport), []).append(payload)
    return streams


def udp_datagrams(frames, ports):
    out = []
    for frame in frames:
        if len(frame) < 42 or struct.unpack("!H", frame[12:14])[0] != 0x0800:
            continue
        ip = frame[14:]
        ihl = (ip[0] & 0x0F) * 4
        if ip[9] != 17:
            continue
        udp = ip[ihl:]
        dport, length = struct.unpack("!HH", udp[2:6])
        if dport in ports:
            out.append(bytes(udp[8:length]))
    return out


def write(corpus, target, name, data):
    directory = os.path.join(corpus, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)
    print(f"  {target}/{name}: {len(data)} bytes")


def record(slot, chunk):
    """A sync_receiver record: slot `slot` sends `chunk` as one read."""
    return bytes([slot]) + struct.pack("!H", len(chunk)) + chunk


def frames_of(chunks, first_is_hello=True):
    """The frames inside one direction of a native sync stream: (offset, json) pairs."""
    data = b"".join(chunks)
    out, at = [], 0
    expect_frame = False
    while at + 4 <= len(data):
        if expect_frame:
            length = struct.unpack("!I", data[at:at + 4])[0]
            out.append(data[at + 4:at + 4 + length])
            at += 4 + length
            expect_frame = False
            continue
        value = struct.unpack("!I", data[at:at + 4])[0]
        at += 4
        # Sender side: HELLO and 'E' are followed by a frame (a native sender's hello, result).
        if value in (HELLO, ord("E")):
            expect_frame = True
    return out


def run_pair(xttcp, receiver_args, sender_args, port_count, ready, seconds=30, senders=1,
             last=None, hold=False):
    """Runs a receiver and, once `ready(base)` says it is up, `senders` senders (the last with
    `last` extra args) on loopback while capturing; returns (capture frames, base port,
    [receiver json, sender jsons...]). `hold`: a -H receiver, whose senders run one after the
    other and which is stopped at the end (no receiver json)."""
    base = free_port_block(port_count + 1)
    work = scratch_dir("xttcp-corpus-")
    capture = Capture()
    rjson = os.path.join(work, "r.json")
    receiver = Process([xttcp, *receiver_args(base), "--json", rjson], "receiver")
    started = [receiver]
    try:
        ready(base)
        sjsons = []
        processes = []
        for i in range(senders):
            sjson = os.path.join(work, f"s{i}.json")
            sjsons.append(sjson)
            extra = last if (last and i == senders - 1) else []
            p = Process([xttcp, *sender_args(base), *extra, "--json", sjson], f"sender {i}")
            started.append(p)
            processes.append(p)
            if hold and p.wait(seconds) != 0:
                raise RuntimeError(f"{p.name} failed:\n{p.stdout()}\n{p.stderr()}")
            time.sleep(0.5)
        for p in processes:
            if p.wait(seconds) != 0:
                raise RuntimeError(f"{p.name} failed:\n{p.stdout()}\n{p.stderr()}")
        if not hold and receiver.wait(seconds) != 0:
            raise RuntimeError(f"receiver failed:\n{receiver.stdout()}\n{receiver.stderr()}")
    finally:
        for p in started:
            p.kill()
    frames = capture.stop()
    files = []
    for path in [rjson, *sjsons]:
        if hold and path == rjson:
            files.append(b"")
            continue
        with open(path, "rb") as f:
            files.append(f.read())
    return frames, base, files


def sync_seeds(xttcp, corpus):
    print("sync: native TCP, native UDP, -M with a -L sender")
    linux = lambda extra: (lambda base: ["-r", "127.0.0.1", "-P", "1", "-p", str(base), "-t", "1",
                                         "-Q", *extra])
    # -B: a few MB of data, so the capture keeps up with loopback.
    sender = lambda extra: (lambda base: ["-s", "127.0.0.1", "-P", "1", "-n", "1", "-p",
                                          str(base), "-t", "1", "-B", "20M", *extra])
    runs = [
        ("tcp", linux([]), sender([]), 1, None, 2, False),
        # --interval: per-interval figures (UDP: datagrams, loss, jitter) in the results.
        ("udp", linux(["-u", "--interval", "0.5"]),
         sender(["-u", "-b", "1200", "--interval", "0.5"]), 1, None, 2, False),
        ("multi", linux(["-M"]), sender([]), 2, ["-L"], 2 | 1, False),
        ("hold", linux(["-H"]), sender([]), 2, None, 2, True),  # two tests, one after the other
    ]
    for name, receiver_args, sender_args, senders, last, config, hold in runs:
        for attempt in range(3):  # a loaded machine may drop a captured segment: run again
            frames, base, files = run_pair(xttcp, receiver_args, sender_args, 1,
                                           lambda base: wait_listening(base - 1),
                                           senders=senders, last=last, hold=hold)
            streams = tcp_streams(frames)
            sync = base - 1
            clients = sorted(key[0] for key in streams if key[1] == sync)
            # Whole: every sender's hello and result frames, and the receiver's.
            if len(clients) == senders and all(
                    len(frames_of(streams[(port, sync)])) == 2 for port in clients) and all(
                    b'"schema"' in b"".join(streams.get((sync, port), [])) for port in clients):
                break
            print(f"  {name}: the capture missed a segment; running it again")
        else:
            raise RuntimeError(f"{name}: no whole capture in 3 runs")
        # The sender's bytes as the receiver read them, one record per segment, in the order
        # they came; the receiver's window ends before a sender's 'E' when it answered 13.
        seed = bytearray([config])
        closed = set()
        for sport, dport, payload, fin in tcp_events(frames):
            if dport != sync or sport not in clients:
                continue
            slot = clients.index(sport)
            replies = b"".join(streams.get((sync, sport), []))
            if payload == struct.pack("!i", ord("E")) and struct.pack("!i", 13) in replies:
                seed += bytes([0x20])  # the receiver's window ended first: test_finished
            if payload:
                seed += record(slot, payload)
            if fin and slot not in closed:
                closed.add(slot)
                seed += bytes([0x10 | slot])  # it closes its connection
        write(corpus, "sync_receiver", f"{name}.bin", bytes(seed))

        for slot, port in enumerate(clients):
            sender_frames = frames_of(streams[(port, sync)])
            for i, frame in enumerate(sender_frames):
                if frame.startswith(b'{"type":"hello"'):
                    write(corpus, "bounded_json", f"{name}-sender{slot}-hello.bin",
                          bytes([16]) + frame)
                else:
                    write(corpus, "peer_result", f"{name}-sender{slot}-result.json", frame)
            replies = b"".join(streams.get((sync, port), []))
            # The receiver's side: ints, its hello frame after HELLO_ACK, its result last.
            ack = replies.find(struct.pack("!I", 0xC0DE7802))
            if ack >= 0:
                at = ack + 4
                length = struct.unpack("!I", replies[at:at + 4])[0]
                write(corpus, "bounded_json", f"{name}-receiver{slot}-hello.bin",
                      bytes([16]) + replies[at + 4:at + 4 + length])
                brace = replies.rfind(b'{\n  "schema"')
                if brace >= 4:
                    length = struct.unpack("!I", replies[brace - 4:brace])[0]
                    write(corpus, "peer_result", f"{name}-receiver{slot}-result.json",
                          replies[brace:brace + length])
        if files[0]:
            write(corpus, "native_json", f"{name}-receiver.json", files[0])
        for i, data in enumerate(files[1:]):
            write(corpus, "native_json", f"{name}-sender{i}.json", data)

    # NTTTCP-for-Linux's own sender (reference 1.4: -W 1 -t 3 -C 1): 'X', its cycle, 'R', 'E'.
    legacy = bytearray([3 << 1])
    for value in (ord("X"), 5, ord("R")):
        legacy += record(0, struct.pack("!i", value))
    legacy += bytes([0x20]) + record(0, struct.pack("!i", ord("E"))) + bytes([0x10])
    write(corpus, "sync_receiver", "ntttcp-linux.bin", bytes(legacy))


def bidir_seeds(xttcp, corpus):
    """--bidir on one port: both ends' result files (each with its other direction, and that
    direction's peer), and each end's peer frame as the other reads it (the file's compact form
    without the peers: render_peer_frame)."""
    print("bidir: both ways on one port")
    base = free_port_block(1)
    work = scratch_dir("xttcp-corpus-")
    files = {end: os.path.join(work, f"{end}.json") for end in ("receiver", "sender")}
    common = ["--one-port", "-p", str(base), "-P", "1", "-t", "1", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "--json", files["receiver"]],
                       "receiver")
    started = [receiver]
    try:
        wait_listening(base)
        sender = Process([xttcp, "-s", "127.0.0.1", "--bidir", *common, "-n", "1", "-B", "20M",
                          "--json", files["sender"]], "sender")
        started.append(sender)
        for p in (sender, receiver):
            if p.wait(30) != 0:
                raise RuntimeError(f"{p.name} failed:\n{p.stdout()}\n{p.stderr()}")
    finally:
        for p in started:
            p.kill()
    for end, path in files.items():
        with open(path, "rb") as f:
            data = f.read()
        write(corpus, "native_json", f"bidir-{end}.json", data)
        frame = json.loads(data)
        frame.pop("peer", None)
        frame["other_direction"].pop("peer", None)
        write(corpus, "peer_result", f"bidir-{end}-result.json",
              json.dumps(frame, separators=(",", ":")).encode())


def udp_seeds(xttcp, corpus):
    print("udp: Windows dialect count mode, native and compat payload, 2 threads")
    for payload in ("native", "compat"):
        common = lambda base: ["--dialect", "windows", "-m", f"2,*,127.0.0.1", "-ns", "-t", "30",
                               "-p", str(base), "-u", "-n", "12", "-l", "64"]
        receiver = lambda base: [*common(base)[:2], "-r", *common(base)[2:]]
        sender = lambda base: [*common(base)[:2], "-s", *common(base)[2:], "--udp-payload",
                               payload]
        frames, base, files = run_pair(xttcp, receiver, sender, 2,
                                       lambda base: time.sleep(0.5))  # UDP: nothing to poll
        datagrams = udp_datagrams(frames, {base, base + 1})
        seed = bytearray([0, 0])  # markers end the flows (no end_compat_after), no admission
        for d in datagrams:
            seed += struct.pack("!HH", len(d), 0) + d
        write(corpus, "udp_datagram", f"count-{payload}.bin", bytes(seed))
        # The same datagrams as UDP_GRO trains: up to 8 of one flow's equal-sized datagrams.
        gro = bytearray([12 if payload == "compat" else 0, 0])  # compat: end after 12 (-n)
        trains = []
        for d in datagrams:
            first = trains[-1][0] if trains else None
            if (first is not None and len(trains[-1]) < 8 and len(d) == len(first)
                    and (payload == "compat" or d[8:12] == first[8:12])):
                trains[-1].append(d)
            else:
                trains.append([d])
        for train in trains:
            gro += struct.pack("!HH", sum(map(len, train)), len(train[0])) + b"".join(train)
        write(corpus, "udp_datagram", f"gro-{payload}.bin", bytes(gro))
        write(corpus, "native_json", f"udp-count-{payload}-receiver.json", files[0])
        write(corpus, "native_json", f"udp-count-{payload}-sender.json", files[1])
    declared_flow_seeds(corpus)


def declared_flow_seeds(corpus):
    """The native count-mode datagrams again, at a receiver that admits only declared flows
    (flow_admission.hh): their own base and token declared, a wrong token, nothing declared yet,
    a sender that declared nothing, and a second test whose senders no longer include theirs."""
    with open(os.path.join(corpus, "udp_datagram", "count-native.bin"), "rb") as f:
        seed = f.read()
    records, at = [], 2
    while at + 4 <= len(seed):
        length = struct.unpack("!H", seed[at:at + 2])[0]
        records.append(seed[at:at + 4 + length])
        at += 4 + length
    first = next(r[4:] for r in records if r[4:8] == b"XTUD")
    flow_id, token = struct.unpack("!I", first[8:12])[0], struct.unpack("!H", first[6:8])[0]
    base = flow_id >> 20
    own = struct.pack("!HHH", base, 2, token)
    other = struct.pack("!HHH", base ^ 0x5a5, 1, token ^ 0x5a5a)
    body = b"".join(records)
    half = b"".join(records[:len(records) // 2])
    rest = b"".join(records[len(records) // 2:])
    next_test = struct.pack("!HH", 0xffff, 0xffff)
    for name, head in (("declared-own", bytes([0, 0x81]) + own),
                       ("declared-wrong-token",
                        bytes([0, 0x81]) + struct.pack("!HHH", base, 2, token ^ 0x5a5a)),
                       ("declared-none-yet", bytes([0, 0x80])),
                       ("declared-nothing", bytes([0, 0xc0]))):
        write(corpus, "udp_datagram", f"{name}.bin", head + body)
    write(corpus, "udp_datagram", "declared-next-test.bin",
          bytes([0, 0x82]) + own + other + half + next_test + rest)


def windows_seeds(xttcp, corpus):
    print("windows: TCP with -sam samples and -lm latency; -sp hands out data ports")
    common = lambda base: ["-m", "2,*,127.0.0.1", "-ns", "-t", "2", "-p", str(base), "-sam", "1",
                           "-lm"]
    _, _, files = run_pair(
        xttcp, lambda base: ["--dialect", "windows", "-r", *common(base)],
        lambda base: ["--dialect", "windows", "-s", *common(base)], 2,
        lambda base: wait_listening(base))
    write(corpus, "native_json", "windows-samples-receiver.json", files[0])
    write(corpus, "native_json", "windows-samples-sender.json", files[1])

    threads = 3
    common = lambda base: ["-m", f"{threads},*,127.0.0.1", "-t", "1", "-p", str(base), "-sp"]
    frames, base, _ = run_pair(
        xttcp, lambda base: ["--dialect", "windows", "-r", *common(base)],
        lambda base: ["--dialect", "windows", "-s", *common(base)], threads + 1,
        lambda base: wait_listening(base))
    streams = tcp_streams(frames)
    handed = b"".join(b"".join(chunks) for (sport, dport), chunks in sorted(streams.items())
                      if sport == base and len(b"".join(chunks)) == 4)
    write(corpus, "windows_token", "sp-3-threads.bin",
          struct.pack("!HB", base, threads) + handed)
    write(corpus, "windows_token", "sp-1-thread.bin", struct.pack("!HB", base, 1) + handed[:4])


def frame_seeds(corpus):
    print("dpdk frames: the kernel's ARP, ND and UDP on a veth pair")
    tag = f"xfz{os.getpid() % 10000}"
    a, b = f"{tag}a", f"{tag}b"

    def ip(*args):
        subprocess.run(["ip", *args], check=True, capture_output=True)

    try:
        ip("netns", "add", a)
        ip("netns", "add", b)
        ip("link", "add", f"{tag}0", "netns", a, "type", "veth", "peer", "name", f"{tag}1",
           "netns", b)
        for ns, dev, v4, v6 in ((a, f"{tag}0", "10.213.9.1/30", "fd00:213:9::1/64"),
                                (b, f"{tag}1", "10.213.9.2/30", "fd00:213:9::2/64")):
            ip("-n", ns, "addr", "add", v4, "dev", dev)
            ip("-n", ns, "-6", "addr", "add", v6, "dev", dev, "nodad")
            ip("-n", ns, "link", "set", dev, "up")
        capture = subprocess.Popen(
            ["ip", "netns", "exec", b, sys.executable, os.path.abspath(__file__), "--frames",
             f"{tag}1"], stdout=subprocess.PIPE)
        time.sleep(0.5)
        send = ("import socket\n"
                "for family, host in ((socket.AF_INET, '10.213.9.2'), "
                "(socket.AF_INET6, 'fd00:213:9::2')):\n"
                "    s = socket.socket(family, socket.SOCK_DGRAM)\n"
                "    for i in range(2): s.sendto(b'B' * 40, (host, 5001))\n")
        subprocess.run(["ip", "netns", "exec", a, sys.executable, "-c", send], check=True,
                       timeout=20)
        time.sleep(1.0)
        capture.terminate()
        frames = json.loads(capture.communicate(timeout=10)[0] or b"[]")
    finally:
        subprocess.run(["ip", "netns", "del", a], capture_output=True)
        subprocess.run(["ip", "netns", "del", b], capture_output=True)
    names = {0x0806: "arp", 0x86DD: "ipv6", 0x0800: "ipv4"}
    seen = set()
    for hexed in frames:
        frame = bytes.fromhex(hexed)
        kind = names.get(struct.unpack("!H", frame[12:14])[0])
        if kind is None:
            continue
        if kind == "arp":
            kind += "-request" if frame[21] == 1 else "-reply"
        elif kind == "ipv6" and frame[20] == 58:
            kind = {135: "ns", 136: "na"}.get(frame[54], f"icmpv6-{frame[54]}")
        elif kind == "ipv6" and frame[20] == 17:
            kind = "udp6"
        elif kind == "ipv4" and frame[23] == 17:
            kind = "udp4"
        if kind in seen:
            continue
        seen.add(kind)
        # Byte 0: our address is the one asked for, and 64 bytes of tailroom.
        write(corpus, "dpdk_frame", f"{kind}.bin", bytes([1 | (32 << 1)]) + frame)


def capture_frames(interface):
    """--frames IFACE (inside a namespace): prints the frames seen on IFACE as JSON hex."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.bind((interface, 0))
    sock.settimeout(0.2)
    frames = []
    import signal
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    while not stop:
        try:
            frame, _ = sock.recvfrom(65600)
            frames.append(frame.hex())
        except socket.timeout:
            pass
        except InterruptedError:
            pass
    print(json.dumps(frames))


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--declared":  # from the seeds already written
        declared_flow_seeds(sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "corpus"))
        return
    if len(sys.argv) >= 3 and sys.argv[1] == "--frames":
        capture_frames(sys.argv[2])
        return
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    xttcp = os.path.abspath(sys.argv[1])
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "corpus")
    sync_seeds(xttcp, corpus)
    bidir_seeds(xttcp, corpus)
    udp_seeds(xttcp, corpus)
    windows_seeds(xttcp, corpus)
    frame_seeds(corpus)


if __name__ == "__main__":
    main()
