#!/usr/bin/env python3
"""xttcp sweep against one -H receiver on loopback: every cell measured and kept in one file,
compare of a sweep with itself (exit 0, a verdict per cell), TCP, UDP and --rr cells each to its
kind's receiver, Ctrl+C (by PID) keeps the cells that finished, a receiver that is not there
stops the sweep after three failed cells, and the command line's mistakes are one line with exit
2 before anything runs.

  sweep_test.py XTTCP [CASE...]"""
import os
import signal
import subprocess
import sys

from xttcp_e2e import (Process, check, free_port_block, load_json, run_cases, scratch_dir,
                       wait_listening)

PORTS = 4


def held_receiver(xttcp, started, base, *kind):
    receiver = Process([xttcp, "-r", "127.0.0.1", "-H", "-P", str(PORTS), "-p", str(base), "-Q",
                        *kind], "receiver -H " + " ".join(kind))
    started.append(receiver)
    wait_listening(base - 1)
    return receiver


def case_loopback(xttcp, started):
    base = free_port_block(PORTS)
    receiver = held_receiver(xttcp, started, base)
    out = os.path.join(scratch_dir(), "sweep.json")
    sweep = Process([xttcp, "sweep", "-s", "127.0.0.1", "-p", str(base), "-P", str(PORTS),
                     "-t", "1", "--repeat", "2", "--connections", "1,4", "--sizes", "64K,1M",
                     "--json", out], "sweep")
    started.append(sweep)
    check(sweep.wait(120) == 0, "the sweep failed")
    err = sweep.stderr()
    for k in range(1, 5):
        check(f"sweep: cell {k} of 4: " in err, f"no progress line for cell {k}:\n{err}")
    check("about" in err and "elapsed" in err, f"progress lines lack elapsed time and ETA:\n{err}")
    doc = load_json(out)
    check(doc["schema"] == "xttcp-sweep" and not doc["interrupted"] and doc["complete"],
          f"{out}: not a whole sweep")
    check(doc["environment"] and doc["environment"].get("cpu_model"),
          "the sweep's environment is missing")
    ids = [c["id"] for c in doc["cells"]]
    check(ids == ["tcp/c1/s65536", "tcp/c1/s1048576", "tcp/c4/s65536", "tcp/c4/s1048576"],
          f"cells in the wrong order or missing: {ids}")
    for cell in doc["cells"]:
        check(cell["outcome"] == "measured", f"{cell['id']}: {cell['outcome']}")
        runs = cell["runs"]["runs"]
        check(len(runs) == 2, f"{cell['id']}: {len(runs)} runs, expected --repeat 2")
        spec = runs[0]["spec"]
        connections = spec["ports"] * spec["threads_per_port"] * spec["conns_per_thread"]
        check(connections == cell["connections"] and spec["send_buffer"] == cell["size_bytes"],
              f"{cell['id']}: its runs are {connections} connections of -b {spec['send_buffer']}")
        check(runs[0]["summary"]["total_bytes"] > 0, f"{cell['id']}: no bytes")
    done = subprocess.run([xttcp, "compare", out, out], capture_output=True, text=True,
                          timeout=60)
    check(done.returncode == 0, f"a sweep against itself: exit {done.returncode}\n{done.stdout}"
                                f"{done.stderr}")
    check(done.stdout.count(" same") == 4 and "no regression in 4 cells" in done.stdout,
          f"compare's table lacks a verdict per cell:\n{done.stdout}")
    receiver.signal(signal.SIGINT)
    check(receiver.wait(10) == 0, "the receiver did not end cleanly on SIGINT")


def case_three_kinds(xttcp, started):
    """TCP, UDP and --rr cells in one sweep: each kind to its own -H receiver (--udp-port,
    --rr-port); without --udp-port a UDP cell reaches the TCP receiver, which refuses it in one
    line, and the cell is kept as failed with that line."""
    tcp, udp, rr = free_port_block(PORTS), free_port_block(PORTS), free_port_block(PORTS)
    held_receiver(xttcp, started, tcp)
    held_receiver(xttcp, started, udp, "-u")
    held_receiver(xttcp, started, rr, "--rr", "-b", "64")
    out = os.path.join(scratch_dir(), "sweep.json")
    common = [xttcp, "sweep", "-s", "127.0.0.1", "-p", str(tcp), "-P", str(PORTS), "-t", "1",
              "--connections", "1", "--sizes", "64K", "--udp-sizes", "1400", "--rr-sizes", "64"]
    sweep = Process(common + ["--udp-port", str(udp), "--rr-port", str(rr), "--json", out],
                    "sweep")
    started.append(sweep)
    check(sweep.wait(120) == 0, "the sweep over three kinds failed")
    doc = load_json(out)
    kinds = {c["kind"]: c for c in doc["cells"]}
    check(sorted(kinds) == ["rr", "tcp", "udp"] and
          all(c["outcome"] == "measured" for c in doc["cells"]),
          f"not one measured cell of each kind: {[(c['id'], c['outcome']) for c in doc['cells']]}")
    check(kinds["udp"]["runs"]["runs"][0]["spec"]["protocol"] == "udp" and
          kinds["rr"]["runs"]["runs"][0].get("rr"), "the UDP or --rr cell did not run as one")
    done = subprocess.run([xttcp, "compare", out, out], capture_output=True, text=True,
                          timeout=60)
    check(done.returncode == 0 and "round trip p50" in done.stdout,
          f"compare of the three kinds: exit {done.returncode}\n{done.stdout}{done.stderr}")
    # The page draws every kind (UDP's loss, --rr's round trip), if matplotlib is here.
    page = os.path.join(scratch_dir(), "kinds.html")
    done = subprocess.run([xttcp, "report", out, out, "-o", page], capture_output=True,
                          text=True, timeout=120)
    if "needs matplotlib" not in done.stderr:
        check(done.returncode == 0, f"report of the three kinds: {done.stderr}")
        with open(page, encoding="utf-8") as f:
            text = f.read()
        check("RR, 1 flow, 64 requests" in text and "UDP, 1 flow, 1400 datagrams" in text,
              "the page lacks the UDP or --rr cell")
    # The UDP and --rr cells sent to the TCP receiver: each refused in one line, kept as failed.
    sweep = Process(common + ["--json", out], "sweep without --udp-port and --rr-port")
    started.append(sweep)
    check(sweep.wait(120) == 1, "a sweep with refused cells did not exit 1")
    doc = load_json(out)
    errors = {c["kind"]: c.get("error", "") for c in doc["cells"] if c["outcome"] == "failed"}
    check(sorted(errors) == ["rr", "udp"] and "-u" in errors["udp"] and "--rr" in errors["rr"],
          f"the UDP and --rr cells were not kept with their refusals: {errors}")


def case_interrupted(xttcp, started):
    base = free_port_block(PORTS)
    held_receiver(xttcp, started, base)
    out = os.path.join(scratch_dir(), "sweep.json")
    sweep = Process([xttcp, "sweep", "-s", "127.0.0.1", "-p", str(base), "-P", str(PORTS),
                     "-t", "1", "--connections", "1,2,3,4", "--sizes", "64K,128K",
                     "--json", out], "sweep")
    started.append(sweep)
    # Readiness: the first cell was measured (and so is in the file).
    sweep.wait_output("sweep: cell 1 of 8: throughput", timeout=60, stderr_too=True)
    sweep.signal(signal.SIGINT)
    check(sweep.wait(60) == 1, "an interrupted sweep did not exit 1")
    doc = load_json(out)
    kept = len(doc["cells"])
    check(doc["interrupted"] and not doc["complete"] and 1 <= kept < 8,
          f"the file holds {kept} cells, interrupted {doc['interrupted']}")
    check(all(c["outcome"] == "measured" for c in doc["cells"]),
          "a cell cut short by Ctrl+C was kept")
    check(f"interrupted after {kept} of 8 cells" in sweep.stderr(),
          f"the last line does not say how many cells ran:\n{sweep.stderr()}")


def case_no_receiver(xttcp, started):
    base = free_port_block(PORTS)  # free: nobody listens
    out = os.path.join(scratch_dir(), "sweep.json")
    sweep = Process([xttcp, "sweep", "-s", "127.0.0.1", "-p", str(base), "-t", "1",
                     "--connect-timeout", "1", "--connections", "1,2,3,4", "--json", out],
                    "sweep")
    started.append(sweep)
    check(sweep.wait(120) == 1, "a sweep with no receiver did not exit 1")
    doc = load_json(out)
    check(len(doc["cells"]) == 3 and all(c["outcome"] == "failed" for c in doc["cells"]),
          f"expected three failed cells, then a stop: {[c['outcome'] for c in doc['cells']]}")
    check(doc["interrupted"] and not doc["complete"], "a sweep that gave up says it is whole")
    check(all(c["error"] for c in doc["cells"]), "a failed cell does not say why")
    check("3 cells in a row failed" in sweep.stderr(), sweep.stderr())


def case_refused(xttcp, started):
    out = os.path.join(scratch_dir(), "sweep.json")
    common = [xttcp, "sweep", "-s", "127.0.0.1", "-t", "1"]
    for args, words in [
        (["--connections", "1,4"], "--json FILE is required"),
        (["--json", out], "nothing to sweep"),
        (["--connections", "1,4", "-b", "64K", "--json", out], "-b: each cell sets -b"),
        (["--connections", "1,0", "--json", out], "--connections: '0'"),
        (["--connections", "24", "-P", "16", "--json", out], "a multiple of it"),
        (["--sizes", "64K,64K", "--json", out], "given twice"),
        (["--preset", "nope", "--json", out], "not a preset"),
        (["--connections", "1", "-x", "r.xml", "--json", out], "same file"),
        (["--connections", "1", "--backends", "epoll,nosuch", "--json", out], "nosuch"),
        (["--connections", "1", "--udp-port", "6001", "--json", out], "no UDP cell"),
        (["--udp-sizes", "64", "--udp-port", "1", "--json", out], "not a port"),
    ]:
        done = subprocess.run(common + args, capture_output=True, text=True, timeout=30)
        lines = done.stderr.strip().splitlines()
        check(done.returncode == 2 and len(lines) == 1 and words in lines[0],
              f"{' '.join(args)}: exit {done.returncode}, {done.stderr!r} (expected {words!r})")
        check(not os.path.exists(out), f"{' '.join(args)}: a refused sweep wrote {out}")


if __name__ == "__main__":
    sys.exit(run_cases({"loopback": case_loopback, "three-kinds": case_three_kinds,
                        "interrupted": case_interrupted,
                        "no-receiver": case_no_receiver, "refused": case_refused}))
