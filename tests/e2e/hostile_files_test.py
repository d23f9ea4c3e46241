#!/usr/bin/env python3
"""Results that come from outside (docs/hostile-peers.md, "Files handed to compare and report" and
"A peer's result"): a file too large, endless or absurd is refused by `compare` and `report` in
one line naming the file and the field, exit 2; single runs are valid input; `report`'s time and
memory limits hold; a peer's absurd result frame is refused by the sender and by the receiver,
noted and not printed; two result outputs naming one file are refused at the command line.
Cases: `hostile_files_test.py XTTCP [CASE...]`."""
import copy
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import threading

from hostile_peer_test import Peer, frame
from xttcp_e2e import (Failure, Process, ScriptedReceiver, address_sanitized, check,
                       free_port_block, load_json, run_cases, scratch_dir, wait_listening)

SOURCE_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GOLDEN = os.path.join(SOURCE_ROOT, "tests", "golden", "compare")
SINGLE = os.path.join(GOLDEN, "single-base.json")  # a run without --repeat: compare's test null
START, EARLY_EXIT = 82, 69
# Old binaries read a whole file before its size check; under this address-space limit a 3 GB
# file or /dev/zero made them abort with std::bad_alloc (signal 6) instead of refusing it. An
# AddressSanitizer build cannot start under it (its shadow is terabytes of address space): there
# the refusal is checked without the limit.
ADDRESS_SPACE = 1 << 30


def run(args, timeout=120, limit_memory=False):
    """Runs xttcp in its own process group, so that what it starts (report's generator) is
    stopped with it if it outlives `timeout`."""
    limit_memory = limit_memory and not address_sanitized(args[0])

    def setup():
        os.setpgid(0, 0)
        if limit_memory:
            resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, preexec_fn=setup)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the group this test made for it
        proc.communicate()
        raise Failure(f"{' '.join(args)} did not end within {timeout} s")
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def single_run():
    with open(SINGLE, encoding="utf-8") as f:
        return json.load(f)


def write(out, name, doc):
    path = os.path.join(out, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def refused(done, *words):
    """Exit 2 and one line on stderr holding every word (the file, the field)."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    check(done.returncode == 2, f"exit {done.returncode}, want 2 (refused):\n{done.stdout}"
          f"{done.stderr}")
    check(len(lines) == 1, f"{len(lines)} lines on stderr, want one:\n{done.stderr}")
    for word in words:
        check(word in lines[0], f"the refusal does not say {word!r}: {lines[0]}")
    for bad in ("inf%", "nan%", "Traceback"):
        check(bad not in done.stdout + done.stderr, f"{bad!r} printed:\n{done.stdout}")


# ---- compare: files it must refuse before (or instead of) using them ---------------------------

def compare_sparse_file(xttcp, started):
    """A 3 GB sparse file: refused by its size, before a byte is read (was: std::bad_alloc)."""
    out = scratch_dir()
    big = os.path.join(out, "sparse.json")
    with open(big, "wb") as f:
        f.truncate(3 << 30)
    refused(run([xttcp, "compare", big, SINGLE], limit_memory=True), big,
            "3221225472 bytes, over the limit of 268435456 bytes")


def compare_dev_zero(xttcp, started):
    """/dev/zero has no size: read up to the bound, then refused (was: std::bad_alloc)."""
    refused(run([xttcp, "compare", SINGLE, "/dev/zero"], limit_memory=True), "/dev/zero",
            "more than 268435456 bytes")


def absurd_file_case(change, field, words):
    """A case that gives compare a base (and a new) file with one absurd figure."""
    def case(xttcp, started):
        out = scratch_dir()
        doc = single_run()
        change(doc)
        path = write(out, "absurd.json", doc)
        refused(run([xttcp, "compare", path, SINGLE]), path, field, *words)
        refused(run([xttcp, "compare", SINGLE, path]), path, field, *words)
    case.__doc__ = f"compare refuses {field} ({', '.join(words)})"
    return case


def set_summary(key, value):
    return lambda doc: doc["summary"].__setitem__(key, value)


# ---- report ----------------------------------------------------------------------------------

def report(xttcp, *args, timeout=200):
    """A report within its own limit (120 s by default, then it must kill its generator)."""
    return run([xttcp, "report", *args], timeout=timeout)


def report_single_runs(xttcp, started):
    """Two single-run files (even one file twice): a page (was: Python AttributeError)."""
    out = scratch_dir()
    page = os.path.join(out, "p.html")
    done = report(xttcp, SINGLE, SINGLE, "-o", page)
    check(done.returncode == 0, f"report of two single runs exited {done.returncode}:\n"
          f"{done.stderr}")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    check("no significance test" in text, "the page does not say a single run has no test")
    check("Traceback" not in done.stderr, done.stderr)


def report_refuses(change, *words):
    def case(xttcp, started):
        out = scratch_dir()
        page = write(out, "kept.html", "earlier page")
        doc = single_run()
        text = change(doc)
        path = write(out, "hostile.json", text if text is not None else doc)
        refused(report(xttcp, path, "-o", page), path, *words)
        with open(page, encoding="utf-8") as f:
            check(f.read() == "earlier page", "report touched -o")
    return case


def deep(doc):
    return json.dumps(doc)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"


def mathtext_role(doc):
    doc["role"] = "$\\foo{}$"


def many_connections(doc, count=60_000):
    conn = doc["connections"][0]
    doc["connections"] = [dict(conn, local=f"127.0.0.1:{10000 + i % 50000}",
                               bytes=conn["bytes"] // count) for i in range(count)]


def report_many_connections(xttcp, started):
    """60,000 connections (a 12 MB file): a page, its panels drawn sorted (was: 215 s, 1.8 GB,
    and the 2-minute limit not enforced)."""
    out = scratch_dir()
    doc = single_run()
    many_connections(doc)
    path = write(out, "many.json", doc)
    page = os.path.join(out, "many.html")
    done = report(xttcp, path, "-o", page)
    check(done.returncode == 0, f"report exited {done.returncode}:\n{done.stderr}")
    with open(page, encoding="utf-8") as f:
        check("connections, sorted (60000)" in f.read(), "the connections are not drawn sorted")
    # Every process this test waited for, the page's generator included (kB). The generator may
    # take 2 GiB; drawing one line instead of 180,000 bars takes about 120 MB.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    check(peak < 1_000_000, f"the report took {peak} kB of memory")


def fake_generator(xttcp, out, body):
    """A copy of xttcp beside a stand-in page generator (the program looks beside itself)."""
    shutil.copy(xttcp, os.path.join(out, "xttcp"))
    os.makedirs(os.path.join(out, "tools", "report"))
    write(out, os.path.join("tools", "report", "xttcp_report.py"), body)
    return os.path.join(out, "xttcp")


def report_time_limit(xttcp, started):
    """A generator that neither reads its input (12 MB, past the pipe's buffer) nor writes: killed
    by its pid at the time limit, the parent blocked in neither read nor write (was: read()
    blocked after poll() timed out, far past the 2-minute limit)."""
    out = scratch_dir()
    program = fake_generator(xttcp, out, "import os, sys, time\n"
                             "print(os.getpid(), file=sys.stderr, flush=True)\n"
                             "time.sleep(3600)\n")
    doc = single_run()
    many_connections(doc)
    path = write(out, "many.json", doc)
    page = write(out, "kept.html", "earlier page")
    done = report(program, path, "-o", page, "--time-limit", "2", timeout=60)
    check(done.returncode == 1, f"exit {done.returncode}, want 1:\n{done.stderr}")
    check("did not finish in 2 s and was stopped" in done.stderr, done.stderr)
    first = done.stderr.split()[0]
    check(first.isdigit(), f"the generator did not start:\n{done.stderr}")
    check(not os.path.exists(f"/proc/{first}"), f"the generator {first} still runs")
    with open(page, encoding="utf-8") as f:
        check(f.read() == "earlier page", "report touched -o")


def report_memory_limit(xttcp, started):
    """The generator runs with 2 GiB of address space at most (was: unlimited)."""
    out = scratch_dir()
    program = fake_generator(xttcp, out, "import sys\nsys.stdin.read()\n"
                             "limit = [l for l in open('/proc/self/limits')"
                             " if l.startswith('Max address space')][0].split()[3]\n"
                             "print('<p>limit', limit, '</p>')\n")
    page = os.path.join(out, "p.html")
    done = report(program, SINGLE, "-o", page, timeout=60)
    check(done.returncode == 0, f"exit {done.returncode}:\n{done.stderr}")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    check("limit 2147483648" in text, f"the generator's address space: {text}")


# ---- a peer's result frame --------------------------------------------------------------------

ABSURD_RECEIVER = {"schema": "xttcp-result", "schema_version": 1, "role": "receiver",
                   "summary": {"duration_s": 1e-300, "total_bytes": 2**64 - 1},
                   "cpu": {"user_pct": 1e308, "system_pct": 1e308, "process_busy_pct": 1e308,
                           "cycles_per_byte": 1e308}}


def receiver_frame_case(frame, field):
    def case(xttcp, started):
        base = free_port_block(1)
        out = scratch_dir()
        native = os.path.join(out, "s.json")
        with ScriptedReceiver(base) as fake:
            sender = Process([xttcp, "-s", "127.0.0.1", "-P", "1", "-n", "1", "-p", str(base),
                              "-t", "1", "--json", native], "sender")
            started.append(sender)
            fake.run_test()
            fake.send_frame(json.dumps(frame).encode())
            code = sender.wait(30)
        console = sender.stdout() + sender.stderr()
        check(code == 1, f"the sender exited {code}, want 1 (its receiver's result refused)")
        line = "the receiver's result is refused (its figures are not shown): " + field
        check(line in sender.stderr(), f"the sender does not say why:\n{sender.stderr()}")
        check("Peer (receiver) totals" not in console and "infGbps" not in console,
              f"the receiver's figures were printed:\n{console}")
        result = load_json(native)
        check("peer" not in result, "the refused result is in --json")
        check(any(n.startswith(line) for n in result["notes"]), f"no note: {result['notes']}")
        check(result["summary"]["total_bytes"] > 0, "the sender lost its own result")
    return case


def send_data(port, stop):
    """A sender's data connection: bytes until `stop` is set or the receiver closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as data:
        chunk = b"A" * 65536
        while not stop.is_set():
            try:
                data.sendall(chunk)
            except OSError:
                return


def peer_sender_too_fast(xttcp, started):
    """A sender's result claiming 3,999,483,002 Gbit/s: the receiver refuses it, notes why and
    prints none of it (was: printed and written into --json, exit 0). The fake sender sends real
    data through the window, so the test carries data and has a result to write."""
    base = free_port_block(1)
    out = scratch_dir()
    native = os.path.join(out, "r.json")
    receiver = Process([xttcp, "-r", "127.0.0.1", "-P", "1", "-p", str(base), "-t", "1",
                        "--json", native], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    peer = Peer(base - 1)
    peer.hello()
    check(peer.exchange(START) == START, "the start was refused")
    stop = threading.Event()
    sender = threading.Thread(target=send_data, args=(base, stop), daemon=True)
    sender.start()
    try:
        receiver.wait_output("#####  Totals:  #####", timeout=30)  # its window has ended
    finally:
        stop.set()
        sender.join(10)
    peer.exchange(EARLY_EXIT)
    peer.send(frame(json.dumps({"schema": "xttcp-result", "schema_version": 1,
                                "role": "sender", "host": {"hostname": "attacker"},
                                "summary": {"duration_s": 1.0,
                                            "total_bytes": 499_935_375_250_000_000}}).encode()))
    code = receiver.wait(30)
    peer.sock.close()
    check(code == 0, f"the receiver exited {code}")
    line = ("the sender's result is refused (its figures are not shown): summary.total_bytes: "
            "499935375250000000 bytes in 1 s is 4e+18 bit/s")
    check(line in receiver.stderr(), f"the receiver does not say why:\n{receiver.stderr()}")
    check("3999483002" not in receiver.stdout() and "Peer (sender)" not in receiver.stdout(),
          f"the sender's figures were printed:\n{receiver.stdout()}")
    result = load_json(native)
    check(result["summary"]["total_bytes"] > 0, "the receiver counted none of the data")
    check("peer" not in result, "the refused result is in --json")
    check(any(n.startswith(line) for n in result["notes"]), f"no note: {result['notes']}")


# ---- two outputs, one file ---------------------------------------------------------------------

def same_output_file(xttcp, started):
    """-j and --json (and any two result outputs) naming one file: refused, nothing written
    (was: the run went ahead and one overwrote the other)."""
    out = scratch_dir()
    port = free_port_block(2)
    same = os.path.join(out, "r.json")
    lines = [
        (["--local", "-t", "1", "-P", "1", "-p", str(port), "-j", same, "--json", same],
         "-j and --json name the same file"),
        (["--local", "-t", "1", "-P", "1", "-p", str(port), "-x", same, "--csv",
          os.path.join(out, ".", "r.json")], "-x and --csv name the same file"),
        (["-s", "127.0.0.1", "-t", "1", "-p", str(port), "--connect-timeout", "1", "-O", same,
          "--json-stream", same],
         "-O and --json-stream name the same file"),
        (["--dialect", "windows", "-s", "-m", "1,*,127.0.0.1", "-p", str(port), "-t", "1",
          "--connect-timeout", "1", "-xml", same, "--json", same],
         "-xml and --json name the same file"),
    ]
    for args, words in lines:
        refused(run([xttcp, *args], timeout=60), words, same if "--csv" not in args else "r.json")
        check(not os.path.exists(same), f"{' '.join(args)}: wrote {same}")


CASES = {
    "compare-sparse-file": compare_sparse_file,
    "compare-dev-zero": compare_dev_zero,
    "compare-duration-zero": absurd_file_case(set_summary("duration_s", 0), "summary.duration_s",
                                              ["0 s: the run measured no window"]),
    "compare-duration-negative": absurd_file_case(set_summary("duration_s", -1),
                                                  "summary.duration_s",
                                                  ["-1 s is not a measured time"]),
    "compare-duration-tiny": absurd_file_case(set_summary("duration_s", 1e-300),
                                              "summary.duration_s",
                                              ["1e-300 s is not a measured time"]),
    "compare-bytes-max": absurd_file_case(set_summary("total_bytes", 2**64 - 1),
                                          "summary.total_bytes", ["is not a count"]),
    "compare-too-fast": absurd_file_case(set_summary("total_bytes", 2**62), "summary.total_bytes",
                                         ["above the ceiling of 1e+13 bit/s"]),
    "compare-cpu-huge": absurd_file_case(lambda d: d["cpu"].__setitem__("cycles_per_byte", 1e308),
                                         "cpu.cycles_per_byte", ["1e+308 is outside 0 to 1e+15"]),
    "compare-softirq-threads-negative": absurd_file_case(
        lambda d: d["cpu"].__setitem__("softirq_threads_s", -5), "cpu.softirq_threads_s",
        ["-5 is outside 0 to"]),
    "compare-softirq-threads-not-a-number": absurd_file_case(
        lambda d: d["cpu"].__setitem__("softirq_threads_s", "lots"), "cpu.softirq_threads_s",
        ["expected a number"]),
    "report-single-runs": report_single_runs,
    "report-deep-nesting": report_refuses(deep, "nested more than 18 deep"),
    "report-mathtext-role": report_refuses(mathtext_role, "role: expected"),
    "report-absurd-figure": report_refuses(
        lambda d: d["summary"].__setitem__("duration_s", 1e-300), "summary.duration_s"),
    "report-many-connections": report_many_connections,
    "report-time-limit": report_time_limit,
    "report-memory-limit": report_memory_limit,
    "peer-receiver-absurd": receiver_frame_case(ABSURD_RECEIVER, "summary.duration_s: 1e-300 s"),
    "peer-receiver-too-fast": receiver_frame_case(
        dict(copy.deepcopy(ABSURD_RECEIVER), summary={"duration_s": 1.0, "total_bytes": 2**62},
             cpu={}), "summary.total_bytes: 4611686018427387904 bytes in 1 s"),
    "peer-sender-too-fast": peer_sender_too_fast,
    "same-output-file": same_output_file,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
