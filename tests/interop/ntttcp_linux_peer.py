#!/usr/bin/env python3
"""A small NTTTCP-for-Linux peer written here from the reference (shared/reference/ntttcp-linux.md
section 1.4): the legacy sync protocol as the original implements it, TCP data of 'A's, and the
original's "total bytes" line. It lets CI check that xttcp pairs with a peer that knows nothing
of xttcp's native extension. Loopback only.

  ntttcp_linux_peer.py receiver --port BASE --ports N --duration T
  ntttcp_linux_peer.py sender --port BASE --ports N --duration T [--address 127.0.0.1]
"""
import argparse
import socket
import struct
import sys
import threading
import time

X, R, L, E, W = ord("X"), ord("R"), ord("L"), ord("E"), ord("W")
NOT_STARTED, RUNNING, FINISHED = 11, 12, 13


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

    def data_port(self, listener):
        listener.settimeout(0.2)
        conns = []
        while self.state != FINISHED:
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

    def sync(self, conn):
        while self.state != FINISHED:
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
        conn, _ = sync.accept()
        threading.Thread(target=self.sync, args=(conn,), daemon=True).start()
        if not self.started.wait(30):
            print("receiver: no start within 30 s", file=sys.stderr)
            return 1
        time.sleep(max(0.0, self.begin + a.duration - time.monotonic()))
        with self.lock:
            total = self.bytes
        elapsed = time.monotonic() - self.begin
        self.state = FINISHED
        print_totals(elapsed, total)
        for line in self.log:
            print(line)
        return 0


def sender(args):
    sync = socket.create_connection((args.address, args.port - 1), timeout=10)
    state = (send_int(sync, X), recv_int(sync))[1]
    if state == RUNNING:
        print("sender: receiver is busy with another test", file=sys.stderr)
        return 1
    cycle = (send_int(sync, args.duration), recv_int(sync))[1]
    print(f"negotiated cycle: {cycle}")
    conns = [socket.create_connection((args.address, p), timeout=10)
             for p in range(args.port, args.port + args.ports)]
    reply = (send_int(sync, R), recv_int(sync))[1]
    if reply != R:
        print(f"sender: receiver refused to start ({reply})", file=sys.stderr)
        return 1
    payload = b"A" * 131072
    total = 0
    begin = time.monotonic()
    deadline = begin + cycle
    for c in conns:
        c.settimeout(0.2)
    while time.monotonic() < deadline:
        for c in conns:
            try:
                total += c.send(payload)
            except socket.timeout:
                pass
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
    args = parser.parse_args()
    return Receiver(args).run() if args.role == "receiver" else sender(args)


if __name__ == "__main__":
    sys.exit(main())
