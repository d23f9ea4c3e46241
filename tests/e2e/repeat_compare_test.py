#!/usr/bin/env python3
"""--repeat 3 on loopback against one -H receiver: the set of runs holds three full results with
their environment and statistics; `xttcp compare` of the set with itself says no regression
(exit 0), refuses another workload (exit 2, naming the key) unless told, and reads one run too."""
import json
import os
import signal
import subprocess

from xttcp_e2e import (Process, check, free_port_block, load_json, run_test, scratch_dir,
                       wait_listening, xttcp_binary)


def compare(xttcp, *args):
    done = subprocess.run([xttcp, "compare", *args], capture_output=True, text=True, timeout=30)
    return done.returncode, done.stdout, done.stderr


def body(started):
    xttcp = xttcp_binary()
    out = scratch_dir()
    base = free_port_block(1)
    common = ["-P", "1", "-p", str(base), "-t", "1", "-Q"]
    receiver = Process([xttcp, "-r", "127.0.0.1", "-H", *common], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    runs_file = os.path.join(out, "runs.json")
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common, "--repeat", "3",
                      "--repeat-pause", "0.2", "--json", runs_file], "sender")
    started.append(sender)
    check(sender.wait(60) == 0, "the repeated sender failed")
    check(sender.stdout().count("repeat: test") == 3, "the sender did not say test 1..3 of 3")
    receiver.signal(signal.SIGINT)
    check(receiver.wait(10) == 0, "receiver did not end cleanly on SIGINT")

    doc = load_json(runs_file)
    check(doc["schema"] == "xttcp-runs" and doc["repeat"]["count"] == 3, f"not a set of 3: {doc.get('repeat')}")
    check(len(doc["runs"]) == 3, f"{len(doc['runs'])} runs written")
    stats = doc["statistics"]["metrics"]["throughput_gbps"]
    gbps = sorted(r["summary"]["throughput_gbps"] for r in doc["runs"])
    check(stats["n"] == 3 and abs(stats["median"] - gbps[1]) < 1e-9 * gbps[1],
          f"median {stats['median']} is not the middle of {gbps}")
    check(stats["min"] == gbps[0] and stats["max"] == gbps[2], "min/max are not the runs'")
    check(stats["ci_low"] <= stats["mean"] <= stats["ci_high"], "the interval misses the mean")
    for run in doc["runs"]:
        host = run["host"]
        check(host.get("nic", {}).get("interface") == "lo", f"interface used: {host.get('nic')}")
        check(host["nic"]["mtu"] > 0, "no MTU of the interface used")
        check("net.ipv4.tcp_congestion_control" in host.get("sysctl", {}), "sysctls missing")
        check(run["peer"]["host"].get("sysctl"), "the receiver's environment did not travel")
        check(run["spec"]["repeat"]["count"] == 3, "the spec does not say --repeat 3")

    code, table, err = compare(xttcp, runs_file, runs_file)
    check(code == 0, f"compare of a set with itself: exit {code}\n{table}{err}")
    check("Welch's t-test" in table and "verdict: no regression" in table, table)

    # One run of another workload (a smaller -b): refused by name unless allowed.
    single = doc["runs"][0]
    single["spec"]["send_buffer"] = 65536
    other = os.path.join(out, "other.json")
    with open(other, "w") as f:
        json.dump(single, f)
    code, table, err = compare(xttcp, runs_file, other)
    check(code == 2 and "spec.send_buffer" in err and table == "",
          f"another workload: exit {code}, stderr {err!r}")
    code, table, err = compare(xttcp, runs_file, other, "--allow-different-workload", "--json", "-")
    check(code in (0, 3), f"allowed: exit {code} {err}")
    verdict = json.loads(table)
    check(verdict["test"] is None and verdict["new"]["runs"] == 1,
          "a single run was tested for significance")
    check(verdict["workload_differences"][0]["key"] == "spec.send_buffer", table)

    code, _, err = compare(xttcp, runs_file, os.path.join(out, "missing.json"))
    check(code == 2 and "cannot read" in err, f"missing file: exit {code} {err!r}")
    code, _, err = compare(xttcp, runs_file)
    check(code == 2 and "expected two result files" in err, f"one file: exit {code} {err!r}")

    # A receiver without -H ends after one test: the second fails, says why, the first is kept.
    receiver = Process([xttcp, "-r", "127.0.0.1", *common], "receiver without -H")
    started.append(receiver)
    wait_listening(base - 1)
    partial = os.path.join(out, "partial.json")
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common, "--repeat", "2",
                      "--connect-timeout", "2", "--json", partial], "sender without -H")
    started.append(sender)
    check(sender.wait(60) == 1, "the second test against a receiver that left did not fail")
    check("only with -H" in sender.stdout() + sender.stderr(), "no hint at -H")
    check(receiver.wait(30) == 0, "the receiver without -H failed")
    kept = load_json(partial)
    check(kept["repeat"]["count"] == 1 and len(kept["runs"]) == 1, f"kept {kept['repeat']}")


run_test(body)
