"""Two network namespaces joined by a veth pair, for xttcp tests that need a real link (loss,
reordering, IPv6 on a NIC) instead of loopback.

    with VethPair(netem_side="b", netem=Netem(loss=2)) as net:
        receiver = net.start("a", [xttcp, "-r", net.ipv4("a"), ...], "receiver")
        net.wait_listening(receiver, 5000)
        sender = net.start("b", [xttcp, "-s", net.ipv4("a"), ...], "sender")

Side "a" is namespace xttcp-a-<pid>-<n> with 10.213.0.1/30 and fd00:213::1/64 on its veth end,
side "b" is xttcp-b-<pid>-<n> with 10.213.0.2/30 and fd00:213::2/64. The addresses exist only in
those namespaces, so no packet can leave them. Everything created here is deleted on every way
out: the context manager, atexit, and SIGTERM/SIGINT/SIGHUP (turned into an exception so the
`with` blocks and the test's own cleanup run too). Namespaces left by a run that was SIGKILLed
are recognised by their dead PID and removed by the next run.

Raises SkipTest (one line) when the machine cannot do it: not root, no `ip`, `ip netns add`
refused, no veth, or no netem (sch_netem missing).
"""
import atexit
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import Failure, Process, SkipTest  # noqa: E402

NAME_PREFIX = "xttcp-"
ADDRESSES = {
    "a": {"ipv4": "10.213.0.1", "ipv6": "fd00:213::1"},
    "b": {"ipv4": "10.213.0.2", "ipv6": "fd00:213::2"},
}
IPV4_PREFIX, IPV6_PREFIX = 30, 64
_pair_numbers = itertools.count()
_live_pairs = []  # what atexit and the signal handlers must delete


def _ip(*args, check=False, timeout=20):
    """Runs `ip ARGS`; returns (exit code, stderr's first line)."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise Failure(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done.returncode, (done.stderr.strip().splitlines() or [""])[0]


class Netem:
    """tc netem settings: loss and reorder in percent, delay in ms, rate like tc ("100mbit")."""

    def __init__(self, loss=None, delay_ms=None, reorder=None, reorder_correlation=None,
                 rate=None, limit=None):
        self.loss, self.delay_ms, self.rate, self.limit = loss, delay_ms, rate, limit
        self.reorder, self.reorder_correlation = reorder, reorder_correlation
        if reorder is not None and not delay_ms:
            raise ValueError("netem reorder needs a delay (the reordered packets skip it)")

    def args(self):
        words = ["netem"]
        if self.limit is not None:
            words += ["limit", str(self.limit)]
        if self.delay_ms is not None:
            words += ["delay", f"{self.delay_ms}ms"]
        if self.loss is not None:
            words += ["loss", f"{self.loss}%"]
        if self.reorder is not None:
            words += ["reorder", f"{self.reorder}%"]
            if self.reorder_correlation is not None:
                words.append(f"{self.reorder_correlation}%")
        if self.rate is not None:
            words += ["rate", str(self.rate)]
        return words

    def __str__(self):
        return " ".join(self.args())


class NetnsProcess(Process):
    """A process inside a namespace. `ip netns exec` execs the command in place (no fork), so
    self.pid is the command's own PID and Process's stop-by-PID reaches it."""

    def __init__(self, namespace, args, name, cwd=None, env=None):
        self.namespace = namespace
        super().__init__(["ip", "netns", "exec", namespace, *args], name, cwd=cwd, env=env)


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def remove_stale_namespaces():
    """Deletes xttcp-[ab]-<pid>-<n> namespaces whose creating process no longer exists (a run
    killed with SIGKILL cannot clean up). Namespaces of live runs are left alone."""
    done = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=20)
    for line in done.stdout.splitlines():
        m = re.match(rf"({NAME_PREFIX}[ab]-(\d+)-\d+)\b", line)
        if m and int(m.group(2)) != os.getpid() and not _pid_alive(int(m.group(2))):
            _ip("netns", "del", m.group(1))


class Interrupted(BaseException):
    """A termination signal, raised so that `with` blocks and finally clauses run."""

    def __init__(self, signal_number):
        super().__init__(f"interrupted by signal {signal_number}")
        self.signal_number = signal_number


def _on_signal(number, frame):
    for pair in list(_live_pairs):
        pair.close()
    raise Interrupted(number)


def _install_cleanup_handlers():
    if getattr(_install_cleanup_handlers, "done", False):
        return
    _install_cleanup_handlers.done = True
    atexit.register(lambda: [pair.close() for pair in list(_live_pairs)])
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        if signal.getsignal(number) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(number, _on_signal)


def require_root_and_ip():
    if os.geteuid() != 0:
        raise SkipTest("network namespaces need root (CAP_NET_ADMIN); run the test as root")
    try:
        _ip("-V")
    except FileNotFoundError:
        raise SkipTest("the 'ip' command (iproute2) is not installed")


class VethPair:
    """Namespaces a and b joined by one veth pair; netem (optional) on one side's egress."""

    def __init__(self, netem=None, netem_side="b", queues=None):
        self.number = next(_pair_numbers)
        self.queues = queues  # RX and TX queues of each veth end (numrxqueues); None: one
        pid = os.getpid()
        self.namespaces = {s: f"{NAME_PREFIX}{s}-{pid}-{self.number}" for s in "ab"}
        # Interface names are at most 15 characters: "xv" + PID (<= 7 digits) + side + number.
        self.links = {s: f"xv{pid}{s}{self.number}"[:15] for s in "ab"}
        self.netem, self.netem_side = netem, netem_side
        self.processes = []
        self.created = []  # namespaces actually added, deleted in reverse order

    # --- lifecycle ---
    def __enter__(self):
        require_root_and_ip()
        _install_cleanup_handlers()
        remove_stale_namespaces()
        _live_pairs.append(self)
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _build(self):
        for side in "ab":
            code, err = _ip("netns", "add", self.namespaces[side])
            if code != 0:
                raise SkipTest(f"cannot create a network namespace (ip netns add: {err})")
            self.created.append(self.namespaces[side])
        # Both ends are created directly inside their namespaces: nothing is left in the root
        # namespace even if a later step fails.
        queues = [] if self.queues is None else ["numrxqueues", str(self.queues),
                                                 "numtxqueues", str(self.queues)]
        code, err = _ip("link", "add", "name", self.links["a"], "netns", self.namespaces["a"],
                        *queues, "type", "veth", "peer", "name", self.links["b"],
                        "netns", self.namespaces["b"], *queues)
        if code != 0:
            raise SkipTest(f"cannot create a veth pair (ip link add type veth: {err})")
        for side in "ab":
            ns, link = self.namespaces[side], self.links[side]
            _ip("-n", ns, "link", "set", "lo", "up", check=True)
            _ip("-n", ns, "addr", "add", f"{ADDRESSES[side]['ipv4']}/{IPV4_PREFIX}", "dev", link,
                check=True)
            # nodad: usable at once, no 1-2 s of duplicate address detection.
            _ip("-n", ns, "-6", "addr", "add", f"{ADDRESSES[side]['ipv6']}/{IPV6_PREFIX}",
                "dev", link, "nodad", check=True)
            _ip("-n", ns, "link", "set", link, "up", check=True)
        if self.netem is not None:
            self.apply_netem(self.netem, self.netem_side)
        self._wait_link_up()

    def _wait_link_up(self, timeout=5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(self.link_stats(s).get("operstate") == "UP" for s in "ab"):
                return
            time.sleep(0.02)
        raise Failure(f"veth {self.links['a']}/{self.links['b']} not UP after {timeout} s")

    def close(self):
        """Stops the processes started here (by PID), then deletes the namespaces (which takes
        the veth pair with them). Safe to call more than once."""
        for p in self.processes:
            try:
                p.kill()
            except Exception:  # keep cleaning up whatever happens
                pass
        self.processes = []
        while self.created:
            _ip("netns", "del", self.created.pop())
        for link in self.links.values():  # only if a kernel oddity left one in the root namespace
            if _ip("link", "show", "dev", link)[0] == 0:
                _ip("link", "del", "dev", link)
        if self in _live_pairs:
            _live_pairs.remove(self)

    # --- configuration ---
    def apply_netem(self, netem, side="b"):
        """netem on side's veth egress (replacing any root qdisc). SkipTest if the kernel has
        no sch_netem."""
        tc = ["ip", "netns", "exec", self.namespaces[side], "tc", "qdisc", "replace", "dev",
              self.links[side], "root", *netem.args()]
        try:
            done = subprocess.run(tc, capture_output=True, text=True, timeout=20)
        except FileNotFoundError:
            raise SkipTest("the 'tc' command (iproute2) is not installed")
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or ["?"])[0]
            raise SkipTest(f"netem unavailable (sch_netem missing?): '{' '.join(tc[4:])}': "
                           f"{reason}")
        self.netem, self.netem_side = netem, side

    def set_feature(self, side, feature, on):
        """Turns an offload of side's veth on or off: "gro" (ETHTOOL_SGRO) or "tso"
        (ETHTOOL_STSO), by the ioctl itself (Debian's base image has no ethtool program)."""
        code = ("import ctypes,fcntl,socket,struct,sys\n"
                "v=ctypes.create_string_buffer(struct.pack('II',int(sys.argv[2]),int(sys.argv[3])))\n"
                "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n"
                "fcntl.ioctl(s.fileno(),0x8946,struct.pack('16sP',sys.argv[1].encode(),"
                "ctypes.addressof(v))+bytes(16))\n")
        number = {"gro": 0x2C, "tso": 0x1F}[feature]
        done = subprocess.run(self.exec_args(side, [sys.executable, "-c", code, self.links[side],
                                                    str(number), str(int(on))]),
                              capture_output=True, text=True, timeout=20)
        if done.returncode != 0:
            raise Failure(f"cannot set {feature} on {self.links[side]}: {done.stderr.strip()}")

    # --- use ---
    def ipv4(self, side):
        return ADDRESSES[side]["ipv4"]

    def ipv6(self, side):
        return ADDRESSES[side]["ipv6"]

    def exec_args(self, side, args):
        return ["ip", "netns", "exec", self.namespaces[side], *args]

    def start(self, side, args, name, cwd=None, env=None):
        """Starts args in side's namespace; stopped by PID when the pair closes."""
        p = NetnsProcess(self.namespaces[side], args, name, cwd=cwd, env=env)
        self.processes.append(p)
        return p

    def wait_listening(self, process, port, ipv6=False, timeout=10.0):
        """Waits until process (in its namespace) listens on TCP port: reads the namespace's
        table through /proc/PID/net, without connecting (that would disturb the sync port)."""
        table = f"/proc/{process.pid}/net/{'tcp6' if ipv6 else 'tcp'}"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.proc.poll() is not None:
                raise Failure(f"{process.name} exited ({process.proc.returncode}) before "
                              f"listening on port {port}")
            try:
                with open(table) as f:
                    for line in f.readlines()[1:]:
                        fields = line.split()
                        if fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port:
                            return
            except (FileNotFoundError, ProcessLookupError):
                pass
            time.sleep(0.05)
        raise Failure(f"{process.name} not listening on TCP port {port} after {timeout} s")

    def sysctl_max(self, side, name):
        """The largest value of a per-namespace triple such as net.ipv4.tcp_rmem."""
        done = subprocess.run(self.exec_args(side, ["cat", f"/proc/sys/{name.replace('.', '/')}"]),
                              capture_output=True, text=True, timeout=20)
        return int(done.stdout.split()[-1])

    def link_stats(self, side):
        """`ip -s link` of side's veth as a dict (operstate, stats64.rx.bytes, ...)."""
        done = subprocess.run(["ip", "-n", self.namespaces[side], "-j", "-s", "link", "show",
                               "dev", self.links[side]], capture_output=True, text=True,
                              timeout=20)
        if done.returncode != 0:
            return {}
        return json.loads(done.stdout)[0]
