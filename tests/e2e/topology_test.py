"""`xttcp topology`: the machine's real NIC is read (discovery only: no packet is sent to it) and
shows queue -> IRQ -> CPU; a veth with 4 RX and 4 TX queues in a network namespace made here
shows its kernel queues and says why it has no IRQs; bad --nic / --json values are usage errors.

A loopback run with --placement says in its native JSON what it used and why: avoid-irq
following this machine's NIC (read only; the traffic stays on loopback) keeps the workers off
the CPU of its RX interrupt, and on lo (no IRQ) it falls back to spread, saying why.

    topology_test.py XTTCP [real-nic|veth-queues|bad-input|placement-in-result]
"""
import atexit
import json
import os
import shutil
import subprocess
import sys

from xttcp_e2e import (Process, SkipTest, check, free_port_block, run_cases, scratch_dir,
                       wait_listening)


def topology(argv, netns=None):
    prefix = ["ip", "netns", "exec", netns] if netns else []
    return subprocess.run(prefix + argv, capture_output=True, text=True, timeout=60)


def nic_with_queue_irqs():
    """A NIC of this machine whose driver names queue IRQs we know, from sysfs alone."""
    for name in sorted(os.listdir("/sys/class/net")):
        driver = os.path.realpath(f"/sys/class/net/{name}/device/driver")
        if os.path.exists(f"/sys/class/net/{name}/device") and os.path.basename(driver) in (
                "virtio_net", "ena", "gve", "mana", "mlx5_core"):
            return name
    return None


def real_nic(xttcp, started):
    name = nic_with_queue_irqs()
    if name is None:
        raise SkipTest("no NIC with a driver whose queue IRQs xttcp knows (virtio_net, ena, gve, "
                       "mana, mlx5_core)")
    out_dir = scratch_dir()
    path = os.path.join(out_dir, "topology.json")
    done = topology([xttcp, "topology", "--json", path])
    check(done.returncode == 0, f"exit {done.returncode}: {done.stderr}")
    check(f"NIC {name}\n" in done.stdout, f"no 'NIC {name}' section:\n{done.stdout}")
    report = json.load(open(path))
    check(report["schema"] == "xttcp-topology", f"schema {report['schema']}")
    nic = next((n for n in report["nics"] if n["name"] == name), None)
    check(nic is not None, f"{name} missing from the JSON nics")
    check(isinstance(nic["irqs"], list), f"{name} irqs: {nic['irqs']}")
    rx = [irq for irq in nic["irqs"] if irq["queue_kind"] in ("rx", "combined")]
    check(rx, f"{name}: no RX queue IRQ in {nic['irqs']}")
    cpus = {cpu["cpu"] for cpu in report["cpus"]}
    for irq in rx:
        check(os.path.exists(f"/proc/irq/{irq['irq']}"), f"IRQ {irq['irq']} does not exist")
        check(irq["name"] in open("/proc/interrupts").read(), f"{irq['name']} not in /proc")
        delivered = irq["effective_affinity"] or irq["affinity"]
        check(isinstance(delivered, list) and delivered, f"IRQ {irq['irq']}: no CPU {irq}")
        check(set(irq["delivered_to"]["cores"]) or not set(delivered) & cpus,
              f"IRQ {irq['irq']}: CPUs {delivered} map to no core")
        # The console table has the same row: queue, IRQ number, then its name at the end.
        queue = f"{irq['queue_kind']}{irq.get('queue', '')}"
        check(any(line.split()[:2] == [queue, str(irq["irq"])] and line.endswith(irq["name"])
                  for line in done.stdout.splitlines()),
              f"no table row '{queue} {irq['irq']} ... {irq['name']}':\n{done.stdout}")
    check(nic["driver"]["name"] == os.path.basename(
        os.path.realpath(f"/sys/class/net/{name}/device/driver")), f"driver {nic['driver']}")
    check(nic["mtu"] == int(open(f"/sys/class/net/{name}/mtu").read()), f"mtu {nic['mtu']}")


def veth_queues(xttcp, started):
    if os.geteuid() != 0:
        raise SkipTest("not root: cannot create a network namespace")
    if shutil.which("ip") is None:
        raise SkipTest("no 'ip' program")
    netns = f"xttcp-nic-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", netns], capture_output=True, text=True,
                          timeout=20)
    if made.returncode != 0:
        raise SkipTest(f"ip netns add refused: {made.stderr.strip()}")
    atexit.register(subprocess.run, ["ip", "netns", "del", netns], capture_output=True,
                    timeout=20)
    try:
        link = subprocess.run(
            ["ip", "-n", netns, "link", "add", "xv0", "numrxqueues", "4", "numtxqueues", "4",
             "type", "veth", "peer", "name", "xv1", "numrxqueues", "4", "numtxqueues", "4"],
            capture_output=True, text=True, timeout=20)
        if link.returncode != 0:
            raise SkipTest(f"no veth with 4 queues: {link.stderr.strip()}")
        path = os.path.join(scratch_dir(), "veth.json")
        done = topology([xttcp, "topology", "--nic", "xv0", "--json", path], netns=netns)
        check(done.returncode == 0, f"exit {done.returncode}: {done.stderr}")
        nic = json.load(open(path))["nics"]
        check([n["name"] for n in nic] == ["xv0"], f"nics {[n['name'] for n in nic]}")
        nic = nic[0]
        check(nic["driver"]["name"] == "veth", f"driver {nic['driver']}")
        queues = [q["queue"] for q in nic["steering"]]
        check(queues == [f"rx-{i}" for i in range(4)] + [f"tx-{i}" for i in range(4)],
              f"queues {queues}")
        check(nic["rx_queues"] == 4, f"rx_queues {nic['rx_queues']}")
        check("virtual interface" in nic["irqs"].get("not_available", ""),
              f"irqs of a veth: {nic['irqs']}")
        check("queue IRQs: not available: xv0 is a virtual interface" in done.stdout,
              f"console does not say why xv0 has no IRQs:\n{done.stdout}")
        for i in range(4):
            check(f"RPS rx-{i}: " in done.stdout, f"no RPS line for rx-{i}:\n{done.stdout}")
    finally:
        subprocess.run(["ip", "netns", "del", netns], capture_output=True, timeout=20)


def bad_input(xttcp, started):
    for argv, message in (
            (["topology", "--nic", "xttcp-no-such-if"],
             "--nic: no network interface 'xttcp-no-such-if'"),
            (["topology", "--nic"], "--nic: needs a value"),
            (["topology", "--bogus"], "'topology' takes --nic IF and --json FILE only"),
            (["topology", "--json", "/nonexistent-dir/x.json"], "--json: cannot write")):
        done = topology([xttcp, *argv])
        check(done.returncode == 2, f"{argv}: exit {done.returncode}, want 2")
        lines = done.stderr.strip().splitlines()
        check(len(lines) == 1 and message in lines[0], f"{argv}: stderr {done.stderr!r}")


def local_run(xttcp, started, placement, nic, out_dir):
    """A 1 s loopback run, receiver and sender processes; returns both native results."""
    base = free_port_block(2)
    common = ["-P", "2", "-p", str(base), "-t", "1", "-Q", "--placement", placement, "--nic", nic]
    paths = [os.path.join(out_dir, f"{placement}-{nic}-{role}.json") for role in ("r", "s")]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "--json", paths[0],
                        "--wait-timeout", "30"], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", *common, "-n", "1", "--json", paths[1]], "sender")
    started.append(sender)
    check(sender.wait(60) == 0, "sender failed")
    check(receiver.wait(60) == 0, "receiver failed")
    return [json.load(open(path)) for path in paths]


def placement_in_result(xttcp, started):
    out_dir = scratch_dir()
    for result in local_run(xttcp, started, "avoid-irq", "lo", out_dir):
        p = result["placement"]
        check(p["asked"] == "avoid-irq" and p["used"] == "spread", f"lo placement {p}")
        check("lo is a virtual interface" in p["why"], f"why: {p['why']}")
        check(result["spec"]["placement"] == "avoid-irq" and result["spec"]["nic"] == "lo",
              f"spec {result['spec']['placement']} {result['spec']['nic']}")
    name = nic_with_queue_irqs()
    if name is None:
        return  # the fallback above is still checked
    path = os.path.join(out_dir, "nic.json")
    check(topology([xttcp, "topology", "--nic", name, "--json", path]).returncode == 0,
          "topology failed")
    report = json.load(open(path))
    nic = report["nics"][0]
    irq_cpus = {cpu for irq in nic["irqs"] if irq["queue_kind"] in ("rx", "combined")
                for cpu in (irq["effective_affinity"] or irq["affinity"])}
    core_of = {cpu["cpu"]: cpu["core"] for cpu in report["cpus"]}
    irq_cores = {core_of[cpu] for cpu in irq_cpus if cpu in core_of}
    for result in local_run(xttcp, started, "avoid-irq", name, out_dir):
        p = result["placement"]
        if not set(core_of.values()) - irq_cores:
            check(p["used"] == "spread", f"every core takes an RX IRQ, yet {p}")
            continue
        check(p["used"] == "avoid-irq", f"{name} placement {p}")
        used = {int(part.split("cpu ")[1]) for part in result["cpu_mapping"].split(", ")
                if "cpu " in part}
        check(used and not used & irq_cpus,
              f"workers on {used}, RX IRQs of {name} on {irq_cpus}: {result['cpu_mapping']}")


if __name__ == "__main__":
    sys.exit(run_cases({"real-nic": real_nic, "veth-queues": veth_queues,
                        "bad-input": bad_input, "placement-in-result": placement_in_result}))
