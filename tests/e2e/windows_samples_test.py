#!/usr/bin/env python3
"""NTttcp-for-Windows -sam and -na on Linux (xttcp vs xttcp on loopback, -ns). -sam S splits the
measured window (after -wu, before -cd) into ceil(-t / S) samples, the last one shorter when -t
is not a multiple of S: each is its own result block, and --json holds the whole window's totals
plus every sample, whose bytes add up to the totals exactly (one sample's end is the next one's
begin); with -lm each sample times its own calls and the window all of them. -na NODE keeps the
threads of '*' mappings on that NUMA node's CPUs; a node that does not exist is refused in one
line naming -na and the nodes there are, exit 2.
Cases: `windows_samples_test.py XTTCP [CASE]`."""
import os
import subprocess
import time

from xttcp_e2e import (Process, check, free_port_block, load_json, run_cases, scratch_dir,
                       wait_listening)


def windows(xttcp, role, base, threads, *extra):
    return [xttcp, "--dialect", "windows", role, "-m", f"{threads},*,127.0.0.1", "-ns",
            "-p", str(base), *extra]


def pair(xttcp, started, extra, threads=2, udp=False):
    """Runs a receiver and a sender with the same options; returns both --json docs and the
    sender's console."""
    base = free_port_block(threads + 1)
    work = scratch_dir()
    rjson, sjson = os.path.join(work, "r.json"), os.path.join(work, "s.json")
    receiver = Process(windows(xttcp, "-r", base, threads, *extra, "--json", rjson), "receiver")
    started.append(receiver)
    if udp:
        time.sleep(0.5)  # nothing listens on TCP; the receiver binds its UDP ports at once
    else:
        for port in range(base, base + threads):
            wait_listening(port)
    sender = Process(windows(xttcp, "-s", base, threads, *extra, "--json", sjson), "sender")
    started.append(sender)
    check(sender.wait(60) == 0, "sender failed")
    check(receiver.wait(60) == 0, "receiver failed")
    return load_json(rjson), load_json(sjson), sender.stdout()


def host_paused(*docs):
    """Whether either end says its host did not run it for part of the window (its clock woke
    late: result_checks.hh host_pause_note). A sample that fell in that time may count nothing or
    time no call: CI once had a sender not run for 0.76 s across a sample edge, and the receiver's
    1 s sample that followed carried nothing. Each such sample is honest, not the rule broken."""
    return any(note.startswith("this host did not run xttcp") for doc in docs
               for note in doc.get("notes", []))


def check_samples(doc, who, count, threads, paused):
    """`paused`: host_paused() of the test's two ends."""
    samples = doc.get("samples")
    check(isinstance(samples, list) and len(samples) == count,
          f"{who}: {len(samples) if isinstance(samples, list) else 'no'} samples, not {count}")
    total = sum(s["summary"]["total_bytes"] for s in samples)
    check(total == doc["summary"]["total_bytes"],
          f"{who}: the samples hold {total} bytes, the window {doc['summary']['total_bytes']}")
    seconds = sum(s["summary"]["duration_s"] for s in samples)
    check(abs(seconds - doc["summary"]["duration_s"]) < 1e-6,
          f"{who}: the samples last {seconds} s, the window {doc['summary']['duration_s']} s")
    for i, sample in enumerate(samples):
        check(sample["index"] == i, f"{who}: sample {i} has index {sample['index']}")
        check(len(sample["threads"]) == threads, f"{who}: sample {i} has not {threads} threads")
        check(sample["summary"]["total_bytes"] > 0 or paused,
              f"{who}: sample {i} counted nothing, and neither host says it was paused")
        check(sum(t["bytes"] for t in sample["threads"]) == sample["summary"]["total_bytes"],
              f"{who}: sample {i}: its threads' bytes are not its total")
        for key in ("cpu", "tcp"):
            check(isinstance(sample.get(key), dict), f"{who}: sample {i} has no '{key}'")
    check(any(s["summary"]["total_bytes"] > 0 for s in samples), f"{who}: no sample counted data")
    check(doc["spec"]["dialect"] == "windows", f"{who}: the spec does not say dialect windows")
    return samples


def tcp(xttcp, started):
    r, s, console = pair(xttcp, started, ["-t", "3", "-sam", "1"])
    for doc, who in ((r, "receiver"), (s, "sender")):
        check_samples(doc, who, 3, 2, host_paused(r, s))
        check(doc["spec"]["windows"]["sample_s"] == 1, f"{who}: spec.windows.sample_s is not 1")
    check(console.count("#####  Totals:  #####") == 3, "sender: not 3 console blocks")


def udp(xttcp, started):
    r, s, _ = pair(xttcp, started, ["-u", "-t", "2", "-sam", "1"], udp=True)
    paused = host_paused(r, s)
    check_samples(s, "sender", 2, 2, paused)
    samples = check_samples(r, "receiver", 2, 2, paused)
    check(all("udp" in sample for sample in samples), "receiver: a UDP sample without 'udp'")


def with_latency(xttcp, started):
    """-sam with -lm: each sample times its own calls, and the window's are all of them (every
    sample edge starts a new latency period, so the window must add the samples up)."""
    r, s, _ = pair(xttcp, started, ["-t", "2", "-sam", "1", "-lm", "--backend", "epoll"])
    paused = host_paused(r, s)
    for doc, who in ((r, "receiver"), (s, "sender")):
        samples = check_samples(doc, who, 2, 2, paused)
        timed = [sample["summary"].get("latency") for sample in samples]
        check(all(isinstance(l, dict) and l["calls"] > 0 for l in timed) or paused,
              f"{who}: a sample without timed calls, and neither host says it was paused: {timed}")
        latencies = [l for l in timed if isinstance(l, dict)]
        check(latencies, f"{who}: no sample timed a call")
        window = doc["summary"].get("latency")
        check(isinstance(window, dict), f"{who}: no window latency")
        calls = sum(l["calls"] for l in latencies)
        check(window["calls"] == calls,
              f"{who}: the window timed {window['calls']} calls, its samples {calls}")
        check(window["min_ns"] == min(l["min_ns"] for l in latencies)
              and window["max_ns"] == max(l["max_ns"] for l in latencies),
              f"{who}: the window's min/max are not its samples' ({window}, {latencies})")


def shorter_last_sample(xttcp, started):
    """-t 3 -sam 2: a 2 s sample and a 1 s one, after 1 s of warm-up and before 1 s of
    cool-down. The edges are kept on the wall clock, so a loaded host that wakes the timeline
    late lengthens a sample by that lateness (the counts are read then): the last sample holds
    the rest of the window, 1 s plus however late the window closed (its length over 3 s), never
    more; its being the shorter is not the rule (CI once saw the window close 1.37 s late)."""
    r, s, console = pair(xttcp, started, ["-wu", "1", "-t", "3", "-cd", "1", "-sam", "2"],
                         threads=1)
    for doc, who in ((r, "receiver"), (s, "sender")):
        first, last = check_samples(doc, who, 2, 1, host_paused(r, s))
        window = doc["summary"]["duration_s"]
        check(window >= 3.0, f"{who}: the window lasted {window} s, under -t 3")
        check(first["summary"]["duration_s"] >= 2.0,
              f"{who}: the first sample lasted {first['summary']['duration_s']} s, not 2")
        late = window - 3.0
        check(last["summary"]["duration_s"] <= 1.0 + late + 1e-6,
              f"{who}: the last sample lasted {last['summary']['duration_s']} s, more than the "
              f"1 s left of the window (+{late:.3f} s late)")
    check(console.count("#####  Totals:  #####") == 2, "sender: not 2 console blocks")


def node_cpus(node):
    """The CPUs of NUMA node `node` this process may use (all of them without sysfs nodes)."""
    allowed = os.sched_getaffinity(0)
    path = f"/sys/devices/system/node/node{node}/cpulist"
    if not os.path.exists(path):
        return sorted(allowed)
    cpus = set()
    with open(path) as f:
        for part in f.read().strip().split(","):
            low, _, high = part.partition("-")
            cpus.update(range(int(low), int(high or low) + 1))
    return sorted(cpus & allowed)


def cpu_list(cpus):
    """Linux cpulist text, as xttcp prints it ("0-3,8")."""
    ranges, start = [], None
    for i, cpu in enumerate(cpus):
        if start is None:
            start = cpu
        if i + 1 == len(cpus) or cpus[i + 1] != cpu + 1:
            ranges.append(str(start) if start == cpu else f"{start}-{cpu}")
            start = None
    return ",".join(ranges)


def numa_node(xttcp, started):
    r, s, console = pair(xttcp, started, ["-t", "1", "-na", "0", "-v"])
    expected = f"-> cpus {cpu_list(node_cpus(0))}"
    check(expected in console, f"sender: its workers are not placed '{expected}':\n{console}")
    for doc, who in ((r, "receiver"), (s, "sender")):
        check(doc["summary"]["total_bytes"] > 0, f"{who}: nothing counted with -na 0")
        check(expected in doc["cpu_mapping"], f"{who}: cpu_mapping {doc['cpu_mapping']!r}")
        check(doc["spec"]["windows"]["numa_node"] == 0, f"{who}: spec.windows.numa_node not 0")


def missing_numa_node(xttcp, started):
    nodes = sorted(int(n[4:]) for n in os.listdir("/sys/devices/system/node")
                   if n.startswith("node") and n[4:].isdigit()) \
        if os.path.isdir("/sys/devices/system/node") else [0]
    missing = max(nodes) + 3
    refused = subprocess.run(windows(xttcp, "-s", free_port_block(2), 1, "-t", "1", "-na",
                                     str(missing)), capture_output=True, text=True, timeout=20)
    check(refused.returncode == 2, f"-na {missing} exited {refused.returncode}, not 2")
    lines = refused.stderr.strip().splitlines()
    check(len(lines) == 1 and f"-na {missing}: NUMA node {missing} " in lines[0]
          and "(nodes: " in lines[0], f"unclear -na refusal: {refused.stderr!r}")
    check(refused.stdout.count("Totals") == 0, "a refused run printed results")


CASES = {
    "tcp": tcp,
    "udp": udp,
    "with-latency": with_latency,
    "shorter-last-sample": shorter_last_sample,
    "numa-node": numa_node,
    "missing-numa-node": missing_numa_node,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
