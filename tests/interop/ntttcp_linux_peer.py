#!/usr/bin/env python3
"""A small NTTTCP-for-Linux peer written here from the reference (shared/reference/ntttcp-linux.md
sections 1.4 and 1.9): the legacy sync protocol as the original implements it, TCP data of 'A's
(or with --udp, datagrams of 'B's), and the original's "total bytes" line. It lets CI check that
xttcp pairs with a peer that knows nothing of xttcp's native extension. Loopback only.

  ntttcp_linux_peer.py receiver --port BASE --ports N --duration T [--udp [--size B]]
                       [--tests K]
  ntttcp_linux_peer.py sender --port BASE --ports N --duration T [--address 127.0.0.1]
                       [--udp [--size B] [--rate BITS_PER_S]]

UDP as the original: sync stays TCP on BASE-1; the sender has one UDP socket per
port, connected to it, and sends --size bytes of 'B' (default 65507) per datagram, skipping send
errors (ECONNREFUSED, ENOBUFS, ...); --rate paces it like -B. The receiver has one UDP socket per
port and counts bytes read with --size buffers (default 65536, the original's receive -b). Unlike
the original it does not wait for a 30 s receive timeout: it ends with its window, like TCP. It
also prints, after the totals, a line the original does not have: "udp datagrams :N, not all 'B'
:M", so a test can check what payload it got. --tests K is the original's -H bounded: the
receiver serves K tests in a row, each to its own sender, then exits (the original holds on until
it is killed); a busy check between them says finished (13), not running.
"""
import argparse
import socket
import struct
import sys
import threading
import time

X, R, L, E, W = ord("X"), ord("R"), ord("L"), ord("E"), ord("W")
NOT_STARTED, RUNNING, FINISHED = 11, 12, 13
UDP_SEND_SIZE = 65507  # 128 KiB clamped to the largest IPv4 UDP payload
UDP_RECEIVE_SIZE = 65536  # the original receiver's default -b


def print_totals(elapsed, total):
    print(f"test duration\t:{elapsed:.2f} seconds")
    print(f"total bytes\t:{total}")
    print(f"\t throughput\t:{total * 8 / elapsed / 1e9:.2f}Gbps")


def send_int(sock, value):
    sock.sendall(struct.pack("!i", value))


def recv_int(sock):
    data = b""
    while len(data) < 4:
        chunk = sock.recv(4 - len(data))
        if not chunk:
            raise ConnectionError("sync connection closed")
        data += chunk
    return struct.unpack("!i", data)[0]


class Receiver:
    def __init__(self, args):
        self.args = args
        self.bytes = 0
        self.lock = threading.Lock()
        self.state = NOT_STARTED
        self.started = threading.Event()
        self.log = []
        self.datagrams = 0
        self.not_compat = 0  # datagrams that are not all 'B'
        self.done = False  # every test served: the port threads end

    def data_port(self, listener):
        listener.settimeout(0.2)
        conns = []
        while not self.done:
            try:
                conn, _ = listener.accept()
                conn.setblocking(False)
                conns.append(conn)
            except socket.timeout:
                pass
            got = 0
            for conn in list(conns):
                try:
                    for _ in range(16):  # bounded, so the count is never held back for long
                        data = conn.recv(262144)
                        if not data:
                            conns.remove(conn)
                            break
                        got += len(data)
                        with self.lock:  # counted as it arrives, on the right side of the edges
                            self.bytes += len(data)
                except BlockingIOError:
                    pass
            if got == 0:
                time.sleep(0.0005)

    def udp_port(self, sock):
        sock.settimeout(0.2)  # only so that the thread sees the end of the test
        buffer = bytearray(self.args.size or UDP_RECEIVE_SIZE)
        while not self.done:
            try:
                n = sock.recv_into(buffer)
            except OSError:  # the timeout above, or an error the original would ignore too
                continue
            compat = buffer.count(b"B", 0, n) == n
            with self.lock:
                self.bytes += n
                self.datagrams += 1
                self.not_compat += 0 if compat else 1

    def sync(self, conn):
        # Served until the sender closes it: its 'E' may come after the window.
        while True:
            try:
                request = recv_int(conn)
            except (ConnectionError, OSError):
                return
            if request == E:
                if self.state == RUNNING:
                    self.log.append("test exited because sender side was interrupted")
                    self.state = FINISHED
                answer = self.state
            elif request == X:
                answer = self.state
            elif request == R:
                answer = R
                with self.lock:  # the light goes on: what arrived before does not count
                    self.bytes = 0
                    self.datagrams = self.not_compat = 0
                    self.begin = time.monotonic()
                self.state = RUNNING
                self.started.set()
            elif request == L:
                answer = 0  # not in multi-client mode: the original replies a stale value
            elif request == 0 or self.args.duration == 0:
                answer = 0
            else:  # a cycle proposal: max(own -t, proposal); a negative one gets own -t
                answer = max(self.args.duration, request)
            send_int(conn, answer)

    def run(self):
        a = self.args
        for p in range(a.port, a.port + a.ports):
            if a.udp:
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind(("127.0.0.1", p))
                threading.Thread(target=self.udp_port, args=(s,), daemon=True).start()
                continue
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", p))
            s.listen(64)
            threading.Thread(target=self.data_port, args=(s,), daemon=True).start()
        sync = socket.socket()
        sync.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sync.bind(("127.0.0.1", a.port - 1))
        sync.listen(8)
        sync.settimeout(30)
        for _ in range(a.tests):
            # Each test's sender: its busy check, cycle and start on a connection of its own.
            self.started.clear()
            while not self.started.is_set():
                try:
                    conn, _ = sync.accept()
                except socket.timeout:
                    print("receiver: no start within 30 s", file=sys.stderr)
                    self.done = True
                    return 1
                threading.Thread(target=self.sync, args=(conn,), daemon=True).start()
                self.started.wait(30)
            time.sleep(max(0.0, self.begin + a.duration - time.monotonic()))
            with self.lock:
                total, datagrams, not_compat = self.bytes, self.datagrams, self.not_compat
            elapsed = time.monotonic() - self.begin
            self.state = FINISHED
            print_totals(elapsed, total)
            if a.udp:
                print(f"udp datagrams\t:{datagrams}, not all 'B'\t:{not_compat}")
            for line in self.log:
                print(line)
            self.log.clear()
            sys.stdout.flush()
        self.done = True
        return 0


def tcp_send(conns, deadline):
    """'A's on every connection in turn until the deadline; returns the bytes sent."""
    payload = b"A" * 131072
    total = 0
    for c in conns:
        c.settimeout(0.2)
    live = list(conns)
    while live and time.monotonic() < deadline:
        for c in list(live):
            try:
                total += c.send(payload)
            except socket.timeout:
                pass
            except (ConnectionResetError, BrokenPipeError):
                # The receiver's window ended first and it closed: as the original, the test
                # is over for this connection (a receiver timing ahead by a few ms is normal).
                live.remove(c)
    return total


def udp_send(conns, args, deadline):
    """The original's UDP loop: one datagram per socket in turn, send errors skipped. Returns
    the bytes the kernel accepted."""
    payload = b"B" * (args.size or UDP_SEND_SIZE)
    total = 0
    begin = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= deadline:
            return total
        if args.rate and total * 8 > args.rate * (now - begin):  # ahead of -B: sleep it off
            time.sleep(min(total * 8 / args.rate - (now - begin), 0.001))
            continue
        for c in conns:
            try:
                total += c.send(payload)
            except OSError:  # ECONNREFUSED, ENOBUFS, ...: the original ignores them all
                pass


def sender(args):
    sync = socket.create_connection((args.address, args.port - 1), timeout=10)
    state = (send_int(sync, X), recv_int(sync))[1]
    if state == RUNNING:
        print("sender: receiver is busy with another test", file=sys.stderr)
        return 1
    cycle = (send_int(sync, args.duration), recv_int(sync))[1]
    print(f"negotiated cycle: {cycle}")
    if args.udp:
        conns = []
        for p in range(args.port, args.port + args.ports):
            c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            c.connect((args.address, p))
            conns.append(c)
    else:
        conns = [socket.create_connection((args.address, p), timeout=10)
                 for p in range(args.port, args.port + args.ports)]
    reply = (send_int(sync, R), recv_int(sync))[1]
    if reply != R:
        print(f"sender: receiver refused to start ({reply})", file=sys.stderr)
        return 1
    begin = time.monotonic()
    deadline = begin + cycle
    total = udp_send(conns, args, deadline) if args.udp else tcp_send(conns, deadline)
    elapsed = time.monotonic() - begin
    if elapsed < cycle:
        send_int(sync, E)
        recv_int(sync)
    sync.close()
    for c in conns:
        c.close()
    print_totals(elapsed, total)
    return 0


def main():
    sys.setswitchinterval(0.0005)  # let the timing thread in promptly while data threads run
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=["receiver", "sender"])
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ports", type=int, default=1)
    parser.add_argument("--duration", type=int, default=2)
    parser.add_argument("--udp", action="store_true", help="UDP data (sync stays TCP)")
    parser.add_argument("--size", type=int, default=None,
                        help=f"UDP datagram size (sender, default {UDP_SEND_SIZE}) or receive "
                             f"buffer (receiver, default {UDP_RECEIVE_SIZE})")
    parser.add_argument("--tests", type=int, default=1,
                        help="receiver: tests to serve in a row (the original's -H, bounded)")
    parser.add_argument("--rate", type=float, default=0,
                        help="UDP sender: pace to this many bits/s over all ports, like -B")
    args = parser.parse_args()
    return Receiver(args).run() if args.role == "receiver" else sender(args)


if __name__ == "__main__":
    sys.exit(main())
