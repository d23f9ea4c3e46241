#!/usr/bin/env python3
"""`xttcp.exe topology` under Wine: Windows NIC discovery (GetIfTable2, GetAdaptersAddresses,
SIO_QUERY_RSS_SCALABILITY_INFO) on whatever interfaces Wine shows. The names come from the run
itself, never from this machine's: `lists` checks the report and its JSON agree and that what
Windows cannot give says "not available"; `nic` asks for one interface Wine listed by --nic;
`no-such-nic` is a one-line usage error; `cpu-busy`: a 1 s --local run watching one listed
interface writes each CPU's busy split (NtQuerySystemInformation) in its queue_window.

    topology_test.py XTTCP_EXE [lists|nic|no-such-nic|cpu-busy]
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (SkipTest, check, free_port_block, run_cases,  # noqa: E402
                       scratch_dir)

# Parts IP Helper does not give: each must say why instead of holding a value.
NOT_FROM_WINDOWS = ("pci_address", "numa_node", "local_cpus", "max_mtu", "channels", "rings",
                    "coalescing", "rss", "irqs", "queue_counters")


def topology(xttcp_exe, *args):
    wine = shutil.which("wine")
    if wine is None:
        raise SkipTest("wine is not installed")
    return subprocess.run([wine, xttcp_exe, "topology", *args], capture_output=True, text=True,
                          timeout=120)  # Wine's first start can take seconds


def report(xttcp_exe, *args):
    """The run's stdout and its JSON, after checking it succeeded."""
    path = os.path.join(scratch_dir(), "topology.json")
    done = topology(xttcp_exe, *args, "--json", path)
    check(done.returncode == 0, f"topology {args}: exit {done.returncode}: {done.stderr}")
    with open(path, encoding="utf-8") as file:
        doc = json.load(file)
    check(doc["schema"] == "xttcp-topology", f"schema {doc['schema']}")
    check(doc["cpus"], f"no CPU in {doc['cpus']}")
    return done.stdout, doc


def check_nic(nic, stdout):
    name = nic["name"]
    check(isinstance(name, str) and name, f"a NIC without a name: {nic}")
    check(f"NIC {name}\n" in stdout, f"no 'NIC {name}' section:\n{stdout}")
    for part in NOT_FROM_WINDOWS:
        value = nic[part]
        check(isinstance(value, dict) and value.get("not_available"),
              f"{name} {part}: {value!r}, want a reason it is not available")
    check("SIO_QUERY_RSS_SCALABILITY_INFO" in nic["rss"]["not_available"],
          f"{name} rss does not say what the RSS query answered: {nic['rss']}")
    check(isinstance(nic["mtu"], int) or "not_available" in nic["mtu"], f"{name} mtu {nic['mtu']}")
    check(isinstance(nic["driver"], dict), f"{name} driver {nic['driver']}")


def all_interfaces(xttcp_exe):
    """The names of the interfaces `topology` reports (those Wine marks as hardware), with the
    run's stdout and JSON."""
    stdout, doc = report(xttcp_exe)
    return [nic["name"] for nic in doc["nics"]], stdout, doc


def lists(xttcp_exe, started):
    names, stdout, doc = all_interfaces(xttcp_exe)
    if not names:
        check("NICs: none with a device behind it" in stdout,
              f"no NIC in the JSON and no line saying so:\n{stdout}")
    for nic in doc["nics"]:
        check_nic(nic, stdout)
    check(len(set(names)) == len(names), f"an interface listed twice: {names}")


def nic(xttcp_exe, started):
    names, _, _ = all_interfaces(xttcp_exe)
    if not names:
        raise SkipTest("Wine lists no interface with a device behind it")
    stdout, doc = report(xttcp_exe, "--nic", names[0])
    check([n["name"] for n in doc["nics"]] == [names[0]], f"nics {doc['nics']}")
    check_nic(doc["nics"][0], stdout)


def cpu_busy(xttcp_exe, started):
    names, _, _ = all_interfaces(xttcp_exe)
    if not names:
        raise SkipTest("Wine lists no interface with a device behind it")
    port = free_port_block(2)
    path = os.path.join(scratch_dir(), "run.json")
    done = subprocess.run([shutil.which("wine"), xttcp_exe, "--dialect", "linux", "--local",
                           "-t", "1", "-P", "1", "-n", "1", "-p", str(port), "--nic", names[0],
                           "--json", path], capture_output=True, text=True, timeout=120)
    check(done.returncode == 0, f"run: exit {done.returncode}: {done.stderr}")
    with open(path, encoding="utf-8") as file:
        window = json.load(file).get("queue_window")
    check(isinstance(window, dict) and window["nic"] == names[0], f"queue_window {window}")
    check(window["cpus"], f"no CPU in queue_window: {window.get('cpus_unavailable')}")
    for cpu in window["cpus"]:
        parts = sum(cpu[k] for k in ("user", "system", "irq", "softirq", "steal"))
        check(0 <= cpu["busy"] <= 1 and abs(parts - cpu["busy"]) < 1e-9, f"cpu {cpu}")
    for part in ("queues_unavailable", "irqs_unavailable", "softirqs_unavailable"):
        check(window[part].startswith("not available: "), f"{part}: {window[part]!r}")


def no_such_nic(xttcp_exe, started):
    done = topology(xttcp_exe, "--nic", "xttcp-no-such-nic")
    check(done.returncode == 2, f"exit {done.returncode}, want 2 (usage error)")
    lines = done.stderr.strip().splitlines()
    check(len(lines) == 1 and "--nic: no network interface 'xttcp-no-such-nic'" in lines[0],
          f"stderr {done.stderr!r}")


if __name__ == "__main__":
    sys.exit(run_cases({"lists": lists, "nic": nic, "no-such-nic": no_such_nic,
                        "cpu-busy": cpu_busy}))
