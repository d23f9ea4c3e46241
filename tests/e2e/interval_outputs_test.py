#!/usr/bin/env python3
"""--csv and --json-stream on loopback: the CSV rows and the stream's interval lines are the
--json result's intervals (same bytes each), the stream ends with the totals; `--json-stream -`
leaves standard output to the stream alone; a FIFO's reader gets the first interval while the
test still runs; a UDP run's CSV has the datagram columns; bad paths exit 2 before the test."""
import csv
import json
import os
import subprocess
import sys
import threading

from xttcp_e2e import Process, check, free_port_block, load_json, run_cases, scratch_dir

TIMEOUT = 60


def local(xttcp, port, *options):
    return [xttcp, "--local", "-P", "1", "-n", "1", "-p", str(port), "--interval", "0.5",
            "-Q", *options]


def stream_lines(text):
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    check(lines and lines[-1]["type"] == "end", f"the stream does not end with its end line: "
                                                f"{text[-300:]}")
    return [l for l in lines if l["type"] == "interval"], lines[-1]


def files_agree(xttcp, started):
    out = scratch_dir()
    paths = {name: os.path.join(out, name) for name in ("r.json", "i.csv", "s.ndjson")}
    done = subprocess.run(local(xttcp, free_port_block(1), "-t", "2", "--json", paths["r.json"],
                                "--csv", paths["i.csv"], "--json-stream", paths["s.ndjson"]),
                          capture_output=True, text=True, timeout=TIMEOUT)
    check(done.returncode == 0, f"the run exited {done.returncode}: {done.stderr}")
    result = load_json(paths["r.json"])
    intervals = result["intervals"]
    check(len(intervals) >= 2, f"{len(intervals)} intervals in 2 s at --interval 0.5")
    with open(paths["i.csv"], newline="") as f:
        rows = list(csv.DictReader(f))
    check([int(r["bytes"]) for r in rows] == [i["bytes"] for i in intervals],
          f"CSV bytes {[r['bytes'] for r in rows]} != --json's {[i['bytes'] for i in intervals]}")
    with open(paths["s.ndjson"]) as f:
        streamed, end = stream_lines(f.read())
    check([s["bytes"] for s in streamed] == [i["bytes"] for i in intervals],
          "the stream's interval bytes are not --json's")
    check(all(s["role"] == "sender" for s in streamed), "a --local stream line is not the sender's")
    check(end["total_bytes"] == result["summary"]["total_bytes"] and end["dropped_lines"] == 0,
          f"end line {end} against the summary {result['summary']['total_bytes']}")
    check(result["spec"]["csv_file"] == paths["i.csv"], "--csv not echoed in the spec")


def stdout_alone(xttcp, started):
    done = subprocess.run(local(xttcp, free_port_block(1), "-t", "1", "--json-stream", "-"),
                          capture_output=True, text=True, timeout=TIMEOUT)
    check(done.returncode == 0, f"the run exited {done.returncode}: {done.stderr}")
    streamed, _ = stream_lines(done.stdout)  # every line of stdout parses as JSON
    check(streamed, "no interval line on stdout")
    check("throughput" in done.stderr, "the console did not move to stderr")


def fifo_live(xttcp, started):
    out = scratch_dir()
    fifo = os.path.join(out, "live")
    os.mkfifo(fifo)
    first = {}
    got_one = threading.Event()
    # The writer needs its reader first. Read-write, the reader never sees an end of file before
    # the writer comes (Linux), so a blocking readline waits for the first line.
    reader_fd = os.open(fifo, os.O_RDWR)

    def read():
        with os.fdopen(reader_fd) as f:
            first["line"] = f.readline()
            got_one.set()
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    sender = Process(local(xttcp, free_port_block(1), "-t", "3", "--json-stream", fifo), "local")
    started.append(sender)
    check(got_one.wait(TIMEOUT), "the FIFO's reader got no line")
    check(sender.proc.poll() is None, "the first interval arrived only after the test had ended")
    code = sender.wait(TIMEOUT)
    reader.join(10)
    check(code == 0, f"the run exited {code}")
    check(json.loads(first["line"])["type"] == "interval", f"first line: {first['line']}")


def udp_columns(xttcp, started):
    out = scratch_dir()
    path = os.path.join(out, "u.csv")
    done = subprocess.run(local(xttcp, free_port_block(1), "-u", "-t", "1", "--csv", path),
                          capture_output=True, text=True, timeout=TIMEOUT)
    check(done.returncode == 0, f"the UDP run exited {done.returncode}: {done.stderr}")
    with open(path) as f:
        header = f.readline().strip()
    check(header == "start_s,seconds,bytes,throughput_bps,datagrams,lost,reordered,jitter_ms",
          f"UDP CSV header: {header}")


def bad_paths(xttcp, started):
    out = scratch_dir()
    for option, path, said in (
            ("--csv", "/nonexistent-xttcp/dir/i.csv",
             "--csv: cannot write /nonexistent-xttcp/dir/i.csv: No such file or directory"),
            ("--json-stream", out, f"--json-stream: cannot write {out}: it is a directory")):
        done = subprocess.run(local(xttcp, free_port_block(1), "-t", "1", option, path),
                              capture_output=True, text=True, timeout=TIMEOUT)
        check(done.returncode == 2, f"{option} {path} exited {done.returncode}, want 2")
        check(said in done.stderr, f"{option}: no clear error: {done.stderr}")
        check("Network activity" not in done.stdout, f"{option}: the test ran before the check")


CASES = {
    "files-agree": files_agree,
    "stdout-alone": stdout_alone,
    "fifo-live": fifo_live,
    "udp-columns": udp_columns,
    "bad-paths": bad_paths,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
