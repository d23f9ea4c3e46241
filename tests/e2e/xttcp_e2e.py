"""Shared helpers for xttcp's end-to-end tests.

Each test is a small script: it starts xttcp processes on loopback (or in its own network
namespaces), waits for them with a timeout, stops whatever it started by PID, and exits
0 (pass), 1 (fail) or 77 (skipped: the machine lacks something, said on stdout).
"""
import atexit
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET

SKIP = 77


class Failure(Exception):
    pass


def xttcp_binary():
    if len(sys.argv) < 2:
        print("usage: test.py PATH_TO_XTTCP", file=sys.stderr)
        sys.exit(2)
    return os.path.abspath(sys.argv[1])


def expected_backend(xttcp, protocol="TCP"):
    """The backend a run uses: XTTCP_E2E_BACKEND when a wrapper forces one, else what
    'xttcp backends' says --backend auto takes ("auto (TCP): io_uring")."""
    forced = os.environ.get("XTTCP_E2E_BACKEND")
    if forced:
        return forced
    out = subprocess.run([xttcp, "backends"], capture_output=True, text=True, timeout=30).stdout
    for line in out.splitlines():
        if line.startswith(f"auto ({protocol}): "):
            return line.split(": ", 1)[1].split(";")[0].strip()
    raise Failure(f"'xttcp backends' does not say what auto takes for {protocol}:\n{out}")


def socket_backends(xttcp):
    """The kernel-socket backends 'xttcp backends' lists as available here (epoll, io_uring)."""
    out = subprocess.run([xttcp, "backends"], capture_output=True, text=True, timeout=30).stdout
    return [line.split()[0] for line in out.splitlines()
            if line.split()[:2] in (["epoll", "available"], ["io_uring", "available"])]


def address_sanitized(xttcp):
    """Whether the binary is built with AddressSanitizer (the sanitizer leg): it reserves
    terabytes of shadow address space, so an address-space limit kills it at start."""
    with open(xttcp, "rb") as f:
        while chunk := f.read(1 << 20):
            if b"__asan_init" in chunk:
                return True
    return False


def small_quarantine_env():
    """The environment with AddressSanitizer's quarantine at 4 MB: it keeps freed memory
    resident (256 MB by default), so an RSS bound would measure the sanitizer, not the table
    under test. Builds without the sanitizer ignore the variable."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "quarantine_size_mb=4"]))
    return env


def check(condition, message):
    if not condition:
        raise Failure(message)


def scratch_dir(prefix="xttcp-e2e-"):
    """A temporary directory removed when the test exits, whatever its verdict."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def free_port_block(count, ipv6=False):
    """A base port such that base-1 .. base+count-1 are free now (sync port included), and so
    are the Windows dialect's token ports, base+1000 .. base+count-1+1000."""
    family = socket.AF_INET6 if ipv6 else socket.AF_INET
    host = "::1" if ipv6 else "127.0.0.1"
    for _ in range(200):
        base = random.randint(20000, 60000 - count)
        sockets = []
        try:
            for port in [*range(base - 1, base + count), *range(base + 1000, base + count + 1000)]:
                s = socket.socket(family, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((host, port))
                sockets.append(s)
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise Failure("no free block of ports found")


class Process:
    """An xttcp process with captured output, always stopped by PID at the end."""

    def __init__(self, args, name, cwd=None, env=None, preexec_fn=None):
        self.name = name
        self.args = args
        self.out = tempfile.TemporaryFile(mode="w+")
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(args, stdout=self.out, stderr=self.err,
                                     stdin=subprocess.DEVNULL, cwd=cwd, env=env,
                                     preexec_fn=preexec_fn)
        self.pid = self.proc.pid

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise Failure(f"{self.name} did not exit within {timeout} s: {' '.join(self.args)}\n"
                          f"stdout:\n{self.stdout()}\nstderr:\n{self.stderr()}")

    def signal(self, number):
        if self.proc.poll() is None:
            os.kill(self.pid, number)

    def kill(self):
        if self.proc.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stdout(self):
        self.out.seek(0)
        return self.out.read()

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def wait_output(self, text, timeout=20, stderr_too=False):
        """Waits until stdout (and stderr if asked) holds `text` (readiness: a line printed);
        fails if the process exits first."""
        deadline = time.monotonic() + timeout
        while text not in self.stdout() + (self.stderr() if stderr_too else ""):
            check(self.proc.poll() is None, f"{self.name} exited before printing {text!r}")
            check(time.monotonic() < deadline, f"{self.name} never printed {text!r}")
            time.sleep(0.02)

    def wait_stderr(self, pattern, timeout=20):
        """Waits until stderr holds a match of the regular expression `pattern` (a note printed
        when a test ends comes after its last table row); fails if the process exits first."""
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.stderr()):
            check(self.proc.poll() is None, f"{self.name} exited before printing /{pattern}/:\n"
                  f"{self.stderr()}")
            check(time.monotonic() < deadline, f"{self.name} never printed /{pattern}/:\n"
                  f"{self.stderr()}")
            time.sleep(0.02)

    def describe(self):
        return (f"--- {self.name}: {' '.join(self.args)}\n"
                f"exit {self.proc.poll()}\nstdout:\n{self.stdout()}\nstderr:\n{self.stderr()}")


def cpu_seconds(pid):
    """User + system CPU time a process has used (a spinning loop shows as ~1 s per second)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid):
    """A process's resident memory now, in kB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise Failure(f"no VmRSS for {pid}")


def recv_exact(sock, count, closed_why):
    """Exactly `count` bytes from `sock`; fails with `closed_why` if the peer closes first."""
    got = b""
    while len(got) < count:
        chunk = sock.recv(count - len(got))
        check(chunk, closed_why)
        got += chunk
    return got


def native_sender_hello(base):
    """The hello frame's payload of a native sender of one TCP connection to `base` (a hello
    without a spec, or one the receiver cannot serve, is refused: docs/usage.md, first hour)."""
    spec = {"role": "sender", "protocol": "tcp", "base_port": base, "ports": 1,
            "threads_per_port": 1, "conns_per_thread": 1}
    return json.dumps({"type": "hello", "spec": spec}).encode()


class ScriptedReceiver:
    """A native xttcp receiver written out by hand on 127.0.0.1 (sync port base-1, one data port
    base, whose bytes a thread reads and drops), for tests that need a receiver to say what a
    real one never would. Use as a context manager; everything it opened is closed at the end."""

    HELLO_ACK = 0xC0DE7802 - (1 << 32)

    def __init__(self, base):
        self.sync = socket.create_server(("127.0.0.1", base - 1))
        self.data = socket.create_server(("127.0.0.1", base))
        self.stop = threading.Event()
        self.drainer = threading.Thread(target=self._drain, daemon=True)
        self.conn = None

    def __enter__(self):
        self.drainer.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.drainer.join(5)
        for s in (self.conn, self.sync, self.data):
            if s is not None:
                s.close()

    def _drain(self):
        self.data.settimeout(0.2)
        conns = []
        while not self.stop.is_set():
            try:
                conn = self.data.accept()[0]
                conn.setblocking(False)
                conns.append(conn)
            except OSError:
                pass
            for c in list(conns):
                try:
                    if not c.recv(1 << 20):
                        conns.remove(c)
                except BlockingIOError:
                    pass
                except OSError:
                    conns.remove(c)

    def read_exact(self, count):
        return recv_exact(self.conn, count, "the sender closed the sync connection")

    def read_int(self):
        return struct.unpack("!i", self.read_exact(4))[0]

    def send_int(self, value):
        self.conn.sendall(struct.pack("!i", value))

    def read_frame(self):
        return self.read_exact(struct.unpack("!I", self.read_exact(4))[0])

    def send_frame(self, payload):
        self.conn.sendall(struct.pack("!I", len(payload)) + payload)

    def run_test(self):
        """Accepts a native sender's sync connection and plays a receiver's part until the
        sender's result frame has come (returned); the caller answers with its own frame."""
        self.sync.settimeout(10)
        self.conn, _ = self.sync.accept()
        self.conn.settimeout(10)
        check(self.read_int() == 0xC0DE7801 - (1 << 32), "the sender did not say hello")
        self.send_int(self.HELLO_ACK)
        # A real receiver's hello carries its spec: here the sender's own, as a receiver's.
        spec = json.loads(self.read_frame()).get("spec", {})
        spec["role"] = "receiver"
        self.send_frame(json.dumps({"type": "hello", "tool": "xttcp", "spec": spec}).encode())
        check(self.read_int() == 88, "no busy check ('X')")
        self.send_int(11)
        self.send_int(self.read_int())  # the cycle it proposes
        check(self.read_int() == 82, "no start ('R')")
        self.send_int(82)
        check(self.read_int() == 69, "no 'E' at the end")
        self.send_int(13)
        return self.read_frame()


def wait_listening(port, timeout=10.0, ipv6=False):
    """Waits until something accepts TCP connections on port (the receiver is up)."""
    host = "::1" if ipv6 else "127.0.0.1"
    family = socket.AF_INET6 if ipv6 else socket.AF_INET
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # A listening socket shows in /proc/net/tcp[6] as state 0A; connecting would disturb
        # the sync protocol (the receiver would log a closed sync connection).
        table = "/proc/net/tcp6" if ipv6 else "/proc/net/tcp"
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port:
                    return
        time.sleep(0.05)
    raise Failure(f"nothing listening on {host}:{port} after {timeout} s")


def wait_udp_bound(port, timeout=10.0):
    """Waits until a UDP socket is bound to port (/proc/net/udp; sending a probe would count)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open("/proc/net/udp") as f:
            for line in f.readlines()[1:]:
                if int(line.split()[1].split(":")[1], 16) == port:
                    return
        time.sleep(0.05)
    raise Failure(f"no UDP socket bound to port {port} after {timeout} s")


TOTALS = {
    "duration": re.compile(r"test duration\s*:([\d.]+) seconds"),
    "bytes": re.compile(r"total bytes\s*:(\d+)"),
    "throughput": re.compile(r"throughput\s*:([\d.]+)([KMGT]?bps)"),
}


def parse_totals(console):
    """The numbers automation reads from the 'Totals' block (first block if several)."""
    found = {}
    for key, pattern in TOTALS.items():
        m = pattern.search(console)
        check(m is not None, f"console output lacks '{key}' in its Totals block:\n{console}")
        found[key] = m.groups()
    return {"duration": float(found["duration"][0]), "bytes": int(found["bytes"][0])}


def all_totals(console):
    """Total bytes of every own 'Totals' block (not the peer's blocks), in order."""
    blocks = console.split("#####  Totals:  #####")[1:]
    return [int(re.search(r"total bytes\s*:(\d+)", b).group(1)) for b in blocks]


def load_xml(path, root):
    tree = ET.parse(path)
    check(tree.getroot().tag == root, f"{path}: root is {tree.getroot().tag}, expected {root}")
    return tree.getroot()


def last_test(doc):
    """The last test's result in a result file: itself, or the last of a set of runs (a -H
    receiver's --json holds every test, as --repeat's does)."""
    return doc["runs"][-1] if doc.get("schema") == "xttcp-runs" else doc


def load_json(path):
    with open(path) as f:
        return json.load(f)


def key_paths(value, path=""):
    """Every key's path in a JSON document (a list's first item standing for all): two
    documents with the same paths have the same keys in the same nesting."""
    paths = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            paths.add(f"{path}/{key}")
            paths |= key_paths(inner, f"{path}/{key}")
    elif isinstance(value, list) and value:
        paths |= key_paths(value[0], f"{path}[]")
    return paths


def within(a, b, fraction):
    return abs(a - b) <= fraction * max(a, b)


def in_flight_bound(connections):
    """Bytes a TCP sender can have counted (the kernel took them) that its receiver has not read
    at the window's edge: each connection's send buffer and receive buffer at their limits
    (tcp_wmem[2] + tcp_rmem[2]). On a loaded host, where little moves per second, that can be
    several per cent of a short test."""
    limits = []
    for name in ("tcp_wmem", "tcp_rmem"):
        with open(f"/proc/sys/net/ipv4/{name}") as f:
            limits.append(int(f.read().split()[2]))
    return connections * sum(limits)


def counts_agree(receiver, sender, fraction, connections, durations=None):
    """The receiver's and sender's byte counts of one TCP test agree: within `fraction`, or
    within what can be in flight at the window's edges. `durations` (receiver's, sender's
    window in seconds, as the consoles print them, to 10 ms): each end times its own window,
    and on a loaded host one may close tens of ms after the other; the bytes the longer window
    held over the shorter (at the faster end's rate, plus the printing's 10 ms) are allowed
    too."""
    if within(receiver, sender, fraction):
        return True
    allowed = in_flight_bound(connections)
    if durations is not None:
        r_s, s_s = durations
        rate = max(receiver / r_s if r_s > 0 else 0, sender / s_s if s_s > 0 else 0)
        allowed += (abs(r_s - s_s) + 0.01) * rate
    return abs(receiver - sender) <= allowed


def run_test(body):
    """Runs body(), prints the verdict and exits with the matching code."""
    started = []
    try:
        body(started)
    except Failure as failure:
        print(f"FAIL: {failure}")
        for p in started:
            print(p.describe())
        for p in started:
            p.kill()
        sys.exit(1)
    except SkipTest as skip:
        print(f"SKIP: {skip}")
        for p in started:
            p.kill()
        sys.exit(SKIP)
    finally:
        for p in started:
            p.kill()
    print("PASS")
    sys.exit(0)


class SkipTest(Exception):
    pass


def run_case(cases, name, xttcp):
    """Runs one named case; returns its verdict ('PASS', 'FAIL' or 'SKIP') and why, and prints
    both (and its processes' output on failure). Whatever the case started is stopped by PID."""
    started = []
    begin = time.monotonic()
    try:
        cases[name](xttcp, started)
        verdict, detail = "PASS", ""
    except SkipTest as skip:
        verdict, detail = "SKIP", f": {skip}"
    except Failure as failure:
        verdict, detail = "FAIL", f": {failure}"
    finally:
        for p in started:
            p.kill()
    print(f"case {name}: {verdict}{detail} ({time.monotonic() - begin:.1f} s)", flush=True)
    if verdict == "FAIL":
        for p in started:
            print(p.describe())
    return verdict, detail


def run_cases(cases, interrupted=()):
    """A test script of named cases: `script.py XTTCP [CASE...]` (all cases by default).
    Exit 0 if none failed, 1 if one did, 77 if every case skipped, 2 for an unknown case.
    `interrupted`: exception types meaning the run was stopped by a signal (exit 128 + signal)."""
    xttcp = xttcp_binary()
    names = sys.argv[2:] or list(cases)
    unknown = [n for n in names if n not in cases]
    if unknown:
        print(f"unknown case {unknown[0]!r}; cases: {', '.join(cases)}", file=sys.stderr)
        return 2
    try:
        outcomes = {name: run_case(cases, name, xttcp) for name in names}
    except tuple(interrupted) as stop:
        print(f"FAIL: {stop}; everything started was stopped and deleted")
        return 128 + getattr(stop, "signal_number", 0)
    verdicts = {name: verdict for name, (verdict, _) in outcomes.items()}
    failed = [n for n, v in verdicts.items() if v == "FAIL"]
    if failed:
        # Why, last: a log cut to its last lines (CI's) has the processes' output above it.
        for name in failed:
            print(f"FAIL: {name}{outcomes[name][1]}")
        return 1
    if all(v == "SKIP" for v in verdicts.values()):
        print("SKIP: every case skipped (reasons above)")
        return SKIP
    skipped = [n for n, v in verdicts.items() if v == "SKIP"]
    print("PASS" + (f" (skipped: {', '.join(skipped)})" if skipped else ""))
    return 0

