#!/usr/bin/env python3
"""Loopback TCP throughput of xttcp next to iperf2 and iperf3 (Debian's), measured in one run.

The matrix is streams x write sizes; xttcp runs once per variant (a backend, optionally with
':copy' for a receiver that copies the data like NTttcp). For each cell, every tool runs once per
round, in alternating order, so drift on a shared machine hits all tools alike. Streams 'default'
gives no stream option to any tool: each runs at its own defaults (xttcp and NTTTCP: 64
connections; iperf2 and iperf3: 1).
Reported per tool: the receiver's throughput (median over rounds, with the rounds' range), CPU
seconds per GB received for the sender and for the receiver separately (each process's rusage),
the host's ksoftirqd threads per GB (softirq work the kernel deferred, in neither rusage), their
context switches per GB (sleeps and preemptions: what a data path saves by waking less),
and the ratio to the best peer at the same streams and write size.

  bench/compare/loopback_peers.py --xttcp build/xttcp [--seconds 5] [--rounds 3]
      [--streams default,1,2,16] [--sizes default,4096,64000,131072]
      [--backends auto,epoll,io_uring,epoll:copy] [--ntttcp PATH] [--json FILE]
  bench/compare/loopback_peers.py --xttcp build/xttcp --quick     # 1-second smoke run

--sizes sets the sender's write size (xttcp and NTTTCP -b, iperf2 and iperf3 -l); 'default'
forces nothing, so each tool writes its own default. Receivers always read at their defaults.
--ntttcp adds an NTTTCP-for-Linux binary as a peer (its receiver's console totals are parsed).

Traffic goes to 127.0.0.1 only. Every process is started and stopped by PID here, and every wait
is bounded.
"""
import argparse
import atexit
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SETTLE_S = 30  # bound on a run beyond its duration (start-up, sync, final report)
CONGESTION = None  # --congestion: every tool that can set it (NTTTCP cannot: the system's)


def free_port(count):
    for base in range(47001, 60000, 50):
        sockets = []
        try:
            for p in range(base - 1, base + count):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            pass
        finally:
            for s in sockets:
                s.close()
    raise SystemExit("no free ports")


def wait_listen(port, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open("/proc/net/tcp") as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port:
                    return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


class Child:
    def __init__(self, args, cwd=None):
        self.out = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(args, stdout=self.out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, cwd=cwd)
        self.cpu = 0.0
        self.switches = 0  # context switches: voluntary (sleeps) + involuntary (preempted)

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid == self.proc.pid:
                self.cpu = usage.ru_utime + usage.ru_stime
                self.switches = usage.ru_nvcsw + usage.ru_nivcsw
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                return self.proc.returncode
            time.sleep(0.02)
        raise RuntimeError(f"timeout after {timeout} s: {' '.join(map(str, self.proc.args))}")

    def stop(self):
        """SIGINT, then SIGKILL after 5 s. The PID is ours until wait4 reaps it."""
        if self.proc.returncode is not None:
            return self.proc.returncode
        os.kill(self.proc.pid, signal.SIGINT)
        try:
            return self.wait(5)
        except RuntimeError:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.wait(5)
            return None

    def text(self):
        self.out.seek(0)
        return self.out.read()


class Children:
    """Stops (by PID) every child still running when the block ends, whatever happened."""

    def __init__(self):
        self.children = []

    def start(self, args, cwd=None):
        child = Child([str(a) for a in args], cwd)
        self.children.append(child)
        return child

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for child in reversed(self.children):
            child.stop()
        return False


def softirq_threads_seconds():
    """CPU seconds of the kernel's ksoftirqd/N threads: softirq work deferred from whichever
    task raised it, in no process's rusage."""
    ticks = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:  # a program's name need not be UTF-8
                text = f.read()
        except OSError:
            continue
        name, _, rest = text.partition(b"(")[2].rpartition(b")")
        fields = rest.split()
        # A kernel thread (PF_KTHREAD in flags): a program may call itself ksoftirqd/0.
        if name.startswith(b"ksoftirqd/") and len(fields) > 12 and int(fields[6]) & 0x00200000:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


class Sample:
    def __init__(self, nbytes, seconds, sender, receiver):
        self.nbytes, self.seconds = nbytes, seconds
        self.sender_cpu, self.receiver_cpu = sender.cpu, receiver.cpu
        self.sender_switches, self.receiver_switches = sender.switches, receiver.switches
        self.softirq_threads_cpu = None  # the host's ksoftirqd over the pair's lifetime

    def bps(self):
        return self.nbytes * 8 / self.seconds if self.seconds else 0.0

    def cpu_per_gb(self, cpu):
        return cpu / (self.nbytes / 1e9) if self.nbytes else None

    def per_gb(self, count):
        return count / (self.nbytes / 1e9) if self.nbytes else None


VARIANT_SUFFIXES = "copy (--skip-rx-copy=off), mark / nomark (--receive-mark=on / off), " \
    "cc=NAME (--congestion NAME), busy=US (--busy-poll US), rx=BACKEND (the receiver's backend), " \
    "place=MODE@IF (the receiver's --placement MODE --nic IF, e.g. place=avoid-irq@eth0)"


def variant_options(variant):
    """'epoll:copy:cc=bbr' -> (backend, options of both ends, options of the receiver only)."""
    backend, *suffixes = variant.split(":")
    both, receiver = [], []
    for suffix in suffixes:
        key, _, value = suffix.partition("=")
        if suffix == "copy":
            receiver.append("--skip-rx-copy=off")
        elif suffix == "nomark":
            receiver.append("--receive-mark=off")
        elif suffix == "mark":
            receiver.append("--receive-mark=on")
        elif key == "cc" and value:
            both += ["--congestion", value]
        elif key == "busy" and value.isdigit():
            both.append(f"--busy-poll={value}")
        elif key == "rx" and value:
            receiver += ["--backend", value]  # the later --backend wins
        elif key == "place" and "@" in value:
            mode, _, nic = value.partition("@")
            receiver += ["--placement", mode, "--nic", nic]
        else:
            raise SystemExit(f"--backends: '{variant}': '{suffix}' is not one of {VARIANT_SUFFIXES}")
    return backend, both, receiver


def run_xttcp(binary, variant, streams, size, seconds, port, tmp):
    rjson = os.path.join(tmp, "r.json")
    if os.path.exists(rjson):
        os.remove(rjson)
    backend, both, receiver_only = variant_options(variant)
    common = ["-p", port, "-t", seconds, "-Q", "--backend", backend, *both]
    if CONGESTION and "--congestion" not in both:
        common += ["--congestion", CONGESTION]
    if streams:
        common += ["-m", f"{streams},*,127.0.0.1"]
    sender_size = ["-b", size] if size else []
    with Children() as children:
        server = children.start([binary, "-r", *common, *receiver_only, "--json", rjson,
                                 "--wait-timeout", 30])
        wait_listen(port - 1)
        client = children.start([binary, "-s", "127.0.0.1", *common, *sender_size])
        client.wait(seconds + SETTLE_S)
        server.wait(seconds + SETTLE_S)
    with open(rjson) as f:
        doc = json.load(f)
    return Sample(doc["summary"]["total_bytes"], doc["summary"]["duration_s"], client, server)


def run_ntttcp(binary, streams, size, seconds, port, tmp):
    common = ["-p", port, "-t", seconds]
    if streams:
        common += ["-m", f"{streams},*,127.0.0.1"]
    sender_size = ["-b", size] if size else []
    with Children() as children:
        server = children.start([binary, "-r" if streams else "-r127.0.0.1", *common], cwd=tmp)
        wait_listen(port - 1)
        client = children.start([binary, "-s" if streams else "-s127.0.0.1", *common,
                                 *sender_size], cwd=tmp)
        client.wait(seconds + SETTLE_S)
        server.wait(seconds + SETTLE_S)
    # The receiver's totals: "test duration\t:10.00 seconds" and "total bytes\t:19870252526".
    text = server.text()
    nbytes = re.search(r"total bytes\s*:\s*(\d+)", text)
    duration = re.search(r"test duration\s*:\s*([\d.]+)\s*seconds", text)
    if not nbytes or not duration:
        raise RuntimeError(f"ntttcp receiver printed no totals:\n{text[-500:]}")
    return Sample(int(nbytes.group(1)), float(duration.group(1)), client, server)


def run_iperf2(streams, size, seconds, port, tmp):
    with Children() as children:
        server = children.start(["iperf", "-s", "-p", port, "-f", "k", "-B", "127.0.0.1",
                                 *(["-Z", CONGESTION] if CONGESTION else [])])
        wait_listen(port)
        client = children.start(["iperf", "-c", "127.0.0.1", "-p", port, "-t", seconds,
                                 *(["-Z", CONGESTION] if CONGESTION else []),
                                 *(["-P", streams] if streams else []), "-f", "k",
                                 *(["-l", size] if size else [])])
        client.wait(seconds + SETTLE_S)
        time.sleep(0.3)  # let the server print its report
        server.stop()
    text = server.text()
    # The server's per-connection lines: "[  1] 0.0000-5.0012 sec  22.4 GBytes  38470000 Kbits/sec"
    rates = [float(m.group(2)) for m in re.finditer(
        r"\]\s+([\d.]+-[\d.]+) sec\s+[\d.]+ \w+\s+([\d.]+) Kbits/sec", text)]
    total = re.search(r"\[SUM\].*?([\d.]+) Kbits/sec", text)
    count = streams or 1
    bps = float(total.group(1)) * 1e3 if total and count > 1 else sum(rates[:count]) * 1e3
    return Sample(bps / 8 * seconds, seconds, client, server)


def run_iperf3(streams, size, seconds, port, tmp):
    with Children() as children:
        server = children.start(["iperf3", "-s", "-p", port, "-1", "-B", "127.0.0.1"])
        wait_listen(port)
        client = children.start(["iperf3", "-c", "127.0.0.1", "-p", port, "-t", seconds,
                                 *(["-C", CONGESTION] if CONGESTION else []),
                                 *(["-P", streams] if streams else []), "-J",
                                 *(["-l", size] if size else [])])
        client.wait(seconds + SETTLE_S)
        server.wait(15)
    doc = json.loads(client.text())
    received = doc["end"]["sum_received"]
    return Sample(received["bytes"], received["seconds"], client, server)


def available_backends(binary):
    """Backend name -> '' if available, else the reason (from `xttcp backends`)."""
    out = subprocess.run([binary, "backends"], capture_output=True, text=True, timeout=30).stdout
    found = {"auto": ""}  # --backend auto always resolves to something (or the run says why)
    for line in out.splitlines():
        # A backend's line starts at the margin ("epoll      available"); its details are
        # indented; "auto (TCP): io_uring" says what auto takes, not a backend.
        if line[:1].isspace() or line.startswith("auto ("):
            continue
        fields = line.split(None, 3)
        if len(fields) >= 2:
            found[fields[0]] = "" if fields[1] == "available" else " ".join(fields[1:])
    return found


def parse_streams(text):
    streams = []
    for word in text.split(","):
        word = word.strip()
        if word == "default":
            streams.append(None)
        elif word.isdigit() and int(word) > 0:
            streams.append(int(word))
        else:
            raise SystemExit(f"--streams: '{word}' is neither 'default' nor a stream count")
    return streams


def parse_sizes(text):
    sizes = []
    for word in text.split(","):
        word = word.strip()
        if word == "default":
            sizes.append(None)
        elif word.isdigit() and int(word) > 0:
            sizes.append(int(word))
        else:
            raise SystemExit(f"--sizes: '{word}' is neither 'default' nor a byte count")
    return sizes


def read_sysctl(name):
    try:
        with open(f"/proc/sys/{name}") as f:
            return f.read().strip()
    except OSError:
        return None


def cpu_model():
    """/proc/cpuinfo's model name, with the clock when the name lacks it ("AMD EPYC @ 2.45 GHz")."""
    model, mhz = platform.processor() or platform.machine(), None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and model in (platform.processor(), platform.machine()):
                    model = value.strip()
                elif key.strip() == "cpu MHz" and mhz is None:
                    mhz = float(value)
    except OSError:
        pass
    if mhz and "Hz" not in model:
        model += f" @ {mhz / 1000:.2f} GHz"
    return model


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xttcp", required=True)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--streams", default="default,1,2",
                        help="stream counts, comma-separated; 'default' gives each tool none")
    parser.add_argument("--sizes", default="default",
                        help="sender write sizes in bytes, comma-separated; 'default' forces none")
    parser.add_argument("--backends", default="auto",
                        help="xttcp variants, comma-separated: a backend (auto, epoll, io_uring), "
                             "with ':'-separated suffixes: " + VARIANT_SUFFIXES)
    parser.add_argument("--ntttcp", help="an NTTTCP-for-Linux binary to include as a peer")
    parser.add_argument("--congestion", metavar="NAME",
                        help="TCP congestion control for every tool that sets it (xttcp "
                             "--congestion, iperf2 -Z, iperf3 -C); NTTTCP keeps the system's")
    parser.add_argument("--no-peers", action="store_true",
                        help="xttcp variants only (an A/B of options; no ratio to a peer)")
    parser.add_argument("--quick", action="store_true", help="1 s, 1 round, 1 stream (smoke)")
    parser.add_argument("--json", help="also write the table as JSON here")
    args = parser.parse_args()
    # SIGTERM unwinds like Ctrl+C, so every child is stopped by PID on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    global CONGESTION
    CONGESTION = args.congestion
    if args.quick:
        args.seconds, args.rounds, args.streams = 1, 1, "1"
    sizes = parse_sizes(args.sizes)
    xttcp = os.path.abspath(args.xttcp)

    tools = {}
    have = available_backends(xttcp)
    for variant in [b.strip() for b in args.backends.split(",") if b.strip()]:
        backend = variant_options(variant)[0]
        if have.get(backend) == "":
            tools[f"xttcp/{variant}"] = (
                lambda s, b, t, p, d, variant=variant: run_xttcp(xttcp, variant, s, b, t, p, d))
        else:
            print(f"note: xttcp backend {backend} left out: "
                  f"{have.get(backend, 'not in this build')} (see 'xttcp backends')")
    if not tools:
        raise SystemExit("--backends: none of them is available in this xttcp")
    if args.ntttcp:
        ntttcp = os.path.abspath(args.ntttcp)
        if not os.access(ntttcp, os.X_OK):
            raise SystemExit(f"--ntttcp: {args.ntttcp} is not an executable file")
        tools["ntttcp"] = lambda s, b, t, p, d: run_ntttcp(ntttcp, s, b, t, p, d)
    for name, exe, fn in (("iperf2", "iperf", run_iperf2), ("iperf3", "iperf3", run_iperf3)):
        if args.no_peers:
            break
        if shutil.which(exe):
            tools[name] = fn
        else:
            print(f"note: {exe} not installed; {name} left out "
                  "(scripts/install-deps.sh installs it)")

    results = []
    cpu = cpu_model()
    tmp = tempfile.mkdtemp(prefix="xttcp-bench-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    for streams in parse_streams(args.streams):
        for size in sizes:
            samples = {name: [] for name in tools}
            load_before = os.getloadavg()[0]
            for r in range(args.rounds):
                order = list(tools) if r % 2 == 0 else list(reversed(tools))
                for name in order:
                    port = free_port((streams or 16) + 1)
                    try:
                        before = softirq_threads_seconds()
                        sample = tools[name](streams, size, args.seconds, port, tmp)
                        sample.softirq_threads_cpu = softirq_threads_seconds() - before
                        samples[name].append(sample)
                    except (RuntimeError, OSError, ValueError, KeyError) as error:
                        print(f"note: {name}, {streams or 'default'} streams, "
                              f"size {size or 'default'}, "
                              f"round {r + 1} failed: {error}", file=sys.stderr)
            load = (load_before, os.getloadavg()[0])  # the machine is shared: say how busy
            medians = {name: median_or_none([s.bps() for s in v]) for name, v in samples.items()}
            best_peer = max((v for k, v in medians.items()
                             if not k.startswith("xttcp") and v is not None), default=None)
            for name, values in samples.items():
                gbps = medians[name]
                rates = [s.bps() / 1e9 for s in values]
                tx = median_or_none([s.cpu_per_gb(s.sender_cpu) for s in values])
                rx = median_or_none([s.cpu_per_gb(s.receiver_cpu) for s in values])
                tx_sw = median_or_none([s.per_gb(s.sender_switches) for s in values])
                rx_sw = median_or_none([s.per_gb(s.receiver_switches) for s in values])
                kso = median_or_none([s.cpu_per_gb(s.softirq_threads_cpu) for s in values])
                results.append({
                    "streams": streams or "default", "size": size or "default", "tool": name,
                    "gbps": round(gbps / 1e9, 2) if gbps is not None else None,
                    "gbps_min": round(min(rates), 2) if rates else None,
                    "gbps_max": round(max(rates), 2) if rates else None,
                    "sender_cpu_s_per_gb": round(tx, 3) if tx is not None else None,
                    "receiver_cpu_s_per_gb": round(rx, 3) if rx is not None else None,
                    "ksoftirqd_cpu_s_per_gb": round(kso, 3) if kso is not None else None,
                    "sender_switches_per_gb": round(tx_sw) if tx_sw is not None else None,
                    "receiver_switches_per_gb": round(rx_sw) if rx_sw is not None else None,
                    "vs_best_peer": round(gbps / best_peer, 2) if gbps and best_peer else None,
                    "rounds_ok": len(values), "cpu": cpu,
                    "load_1m": [round(x, 2) for x in load]})

    def number(value, digits):
        return "-" if value is None else f"{value:.{digits}f}"

    print(f"{'streams':>7} {'size':>7} {'tool':<19} {'Gbit/s':>7} {'min-max':>13} "
          f"{'tx CPU-s/GB':>11} {'rx CPU-s/GB':>11} {'kso CPU-s/GB':>12} "
          f"{'tx sw/GB':>8} {'rx sw/GB':>8} "
          f"{'vs best peer':>12} {'load':>9}")
    for row in results:
        ratio = f"{row['vs_best_peer']:.2f}x" if row["vs_best_peer"] else "-"
        spread = f"{number(row['gbps_min'], 1)}-{number(row['gbps_max'], 1)}"
        print(f"{row['streams']:>7} {row['size']:>7} {row['tool']:<19} "
              f"{number(row['gbps'], 2):>7} {spread:>13} "
              f"{number(row['sender_cpu_s_per_gb'], 3):>11} "
              f"{number(row['receiver_cpu_s_per_gb'], 3):>11} "
              f"{number(row['ksoftirqd_cpu_s_per_gb'], 3):>12} "
              f"{number(row['sender_switches_per_gb'], 0):>8} "
              f"{number(row['receiver_switches_per_gb'], 0):>8} {ratio:>12} "
              f"{row['load_1m'][0]:>4.1f}-{row['load_1m'][1]:<4.1f}")
    print(f"CPU: {cpu}; congestion control: "
          f"{args.congestion or read_sysctl('net/ipv4/tcp_congestion_control') + ' (the system default)'}; "
          "load = the 1-minute load average before-after each cell; kso = the host's ksoftirqd "
          "threads (softirq work deferred from either process, in neither's CPU-s/GB); "
          "sw/GB = the process's context switches (sleeps and preemptions) per GB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"schema": 2,
                       "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                       "host": {"machine": platform.machine(), "kernel": platform.release(),
                                "cpus": os.cpu_count(), "cpu": cpu},
                       "command": sys.argv, "seconds": args.seconds, "rounds": args.rounds,
                       "congestion": args.congestion or read_sysctl("net/ipv4/tcp_congestion_control"),
                       "results": results}, f, indent=2)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
