#!/usr/bin/env python3
"""A small NTttcp-for-Windows peer written here from the reference (shared/reference/
ntttcp-windows.md sections 2.2 to 2.4): one TCP connection per thread on its own port, the
per-thread token handshake (a connection to data port + 1000 over which each side sends 'X' and
reads one byte), -sp (data ports handed out over the base port as 4-byte little-endian longs) and
-ns, time mode with warm-up and cool-down, TCP data of 'A's. It lets CI check that xttcp's
Windows dialect pairs with a peer that speaks only the original's protocol. Loopback only.

  ntttcp_windows_peer.py receiver --port BASE --threads N --duration T [--sp] [--ns]
  ntttcp_windows_peer.py sender --port BASE --threads N --duration T [--sp] [--ns]
                         [--address 127.0.0.1]

Like the original, the receiver accepts exactly one data connection per thread and starts its
clock once every thread has exchanged its token; the sender connects with up to 100 retries
100 ms apart. It prints, instead of the original's tables, the lines a test can parse:
"test duration :S seconds", "total bytes :N" (bytes counted while recording) and
"throughput :G Gbps", and on
stderr what it did with each token ("token port P: sent X, got X").
"""
import argparse
import socket
import struct
import sys
import threading
import time

TOKEN_OFFSET = 1000  # MAX_NUM_CONNECTIONS
RETRIES, RETRY_PAUSE = 100, 0.1  # SENDER_CONNECTION_RETRIES, SENDER_SLEEP_BETWEEN_RECONNECT
BUFFER = 65536  # the original's TCP -l default


def connect(address, port):
    last = None
    for _ in range(RETRIES):
        try:
            return socket.create_connection((address, port), timeout=5)
        except OSError as error:
            last = error
            time.sleep(RETRY_PAUSE)
    raise ConnectionError(f"port {port}: {last}")


def accept_one(address, port, backlog=0):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind((address, port))
    listener.listen(backlog)
    listener.settimeout(60)
    conn, _ = listener.accept()
    listener.close()
    return conn


def exchange_token(sock, port):
    """Each side sends one 'X' and then reads one byte; the connection is then closed."""
    sock.settimeout(60)
    sock.sendall(b"X")
    got = sock.recv(1)
    if len(got) != 1:
        raise ConnectionError(f"token port {port}: closed before the token")
    print(f"token port {port}: sent X, got {got.decode(errors='replace')}", file=sys.stderr)
    sock.close()


class Run:
    def __init__(self, args):
        self.args = args
        self.bytes = [0] * args.threads
        self.recording = False
        self.finished = False
        self.ready = threading.Barrier(args.threads + 1)    # data connections up
        self.synched = threading.Barrier(args.threads + 1)  # tokens exchanged
        self.errors = []

    def data_port(self, index):
        return self.args.port + (1 if self.args.sp else 0) + index

    def thread(self, index):
        args = self.args
        try:
            port = self.data_port(index)
            if args.role == "sender":
                if args.sp:  # the receiver tells us our data port
                    with connect(args.address, args.port) as assign:
                        raw = b""
                        while len(raw) < 4:
                            chunk = assign.recv(4 - len(raw))
                            if not chunk:
                                raise ConnectionError("-sp: closed before the port")
                            raw += chunk
                    port = struct.unpack("<i", raw)[0]
                data = connect(args.address, port)
            else:
                data = accept_one(args.address, port)
            self.ready.wait(60)
            if not args.ns:
                token_port = port + TOKEN_OFFSET
                if args.role == "sender":
                    exchange_token(connect(args.address, token_port), token_port)
                else:
                    exchange_token(accept_one(args.address, token_port), token_port)
            self.synched.wait(60)
            self.transfer(index, data)
        except Exception as error:  # reported by main
            self.errors.append(f"thread {index}: {error}")
            self.ready.abort()
            self.synched.abort()

    def transfer(self, index, data):
        data.settimeout(0.2)
        payload = b"A" * BUFFER
        while not self.finished:
            try:
                if self.args.role == "sender":
                    n = data.send(payload)
                else:
                    chunk = data.recv(BUFFER)
                    if not chunk:
                        break
                    n = len(chunk)
            except socket.timeout:
                continue
            except OSError:
                break
            if self.recording:
                self.bytes[index] += n
        data.close()

    def serve_ports(self):
        """-sp receiver: hand out base + 1, base + 2, ... to the next connections."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind((self.args.address, self.args.port))
        listener.listen(self.args.threads)
        listener.settimeout(60)
        for i in range(self.args.threads):
            conn, _ = listener.accept()
            conn.sendall(struct.pack("<i", self.args.port + 1 + i))
            conn.close()
        listener.close()

    def main(self):
        args = self.args
        threads = [threading.Thread(target=self.thread, args=(i,), daemon=True)
                   for i in range(args.threads)]
        if args.role == "receiver" and args.sp:
            server = threading.Thread(target=self.serve_ports, daemon=True)
            server.start()
        for t in threads:
            t.start()
        try:
            self.ready.wait(120)
            self.synched.wait(60)
        except threading.BrokenBarrierError:
            print("\n".join(self.errors) or "a thread failed", file=sys.stderr)
            return 1
        print("Network activity progressing...", flush=True)
        time.sleep(args.warmup)
        start = time.monotonic()
        self.recording = True
        time.sleep(args.duration)
        self.recording = False
        elapsed = time.monotonic() - start
        time.sleep(args.cooldown)
        self.finished = True
        for t in threads:
            t.join(5)
        print(f"test duration\t:{elapsed:.2f} seconds")
        print(f"total bytes\t:{sum(self.bytes)}")
        print(f"\t throughput\t:{sum(self.bytes) * 8 / elapsed / 1e9:.2f}Gbps")
        if self.errors:
            print("\n".join(self.errors), file=sys.stderr)
            return 1
        return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=["sender", "receiver"])
    parser.add_argument("--port", type=int, default=5001)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--duration", type=float, default=2)
    parser.add_argument("--warmup", type=float, default=0)
    parser.add_argument("--cooldown", type=float, default=0)
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--sp", action="store_true")
    parser.add_argument("--ns", action="store_true")
    return Run(parser.parse_args()).main()


if __name__ == "__main__":
    sys.exit(main())
