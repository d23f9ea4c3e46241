#!/usr/bin/env python3
"""The command lines and files of the frameworks that drive NTttcp (reference/consumers.md):
LISA's unquoted interrupt string, the sender-only options NTTTCP-for-Linux's own tests pass to
the receiver too, the -V sender's per-connection lines they grep, and a Windows XML file that
VirtualClient reads as numbers even where a counter is absent (DPCs on Linux).
Usage: frameworks_test.py XTTCP [CASE...]"""
import re
import shlex
import sys

from xttcp_e2e import (Process, check, free_port_block, load_xml, run_cases,
                       scratch_dir, wait_listening, wait_udp_bound)


def shell_process(xttcp, line, name):
    """xttcp started the way the frameworks start it: one line split by a shell, unquoted."""
    return Process(["sh", "-c", f"exec {shlex.quote(xttcp)} {line}"], name)


def lisa_stray_words(xttcp, started):
    # lisa/tools/ntttcp.py: run_as_server_async / run_as_client, with the default differentiator
    # "Hypervisor callback interrupts" unquoted; loopback, 2 ports and short phases here.
    base = free_port_block(2)
    dev = "Hypervisor callback interrupts"
    receiver = shell_process(
        xttcp, f" -r127.0.0.1  -P 2 -t 1 -W 1 -C 1 -b 64k --show-nic-packets lo  -e "
        f" --show-dev-interrupts {dev}  -p {base}", "LISA receiver")
    started.append(receiver)
    receiver.wait_output("threads created")  # what LISA waits for
    sender = shell_process(
        xttcp, f" -s127.0.0.1 -P 2 -n 1 -t 1 -W 1 -C 1 -b 64k --show-nic-packets lo "
        f" --show-dev-interrupts {dev}  -p {base}", "LISA sender")
    started.append(sender)
    check(sender.wait(40) == 0, "LISA's sender line failed")
    check(receiver.wait(40) == 0, "LISA's receiver line failed")
    for process in (receiver, sender):
        out = process.stdout()
        check("ignoring 'callback', 'interrupts'" in out,
              f"{process.name}: no note naming the ignored words")
        check("--show-dev-interrupts took only 'Hypervisor'" in out,
              f"{process.name}: the note does not say what the option took")
        # What LISA's parser reads from the first Totals block.
        totals = out.split("#####  Totals:  #####", 1)[-1]
        for label in ("throughput", "tx_packets", "rx_packets", "cycles/byte"):
            check(re.search(rf"{re.escape(label)}\s*:\s*[\d.]+", totals),
                  f"{process.name}: no '{label}' figure in the Totals block")
    check(re.search(r"\d+ connections created in \d+ microseconds", sender.stdout()),
          "sender: no 'connections created in' line")


def sender_options_on_receiver(xttcp, started):
    # NTTTCP-for-Linux's test/ passes the same options to both ends; -e and -H the other way.
    base = free_port_block(2)
    source = free_port_block(2)
    common = f"-t 1 -P 2 -p {base} -B 10G --fq-rate-limit 10G -f {source} -n 1 -l 1"
    receiver = shell_process(xttcp, f"-r127.0.0.1 -Q {common}", "receiver")
    started.append(receiver)
    for port in (base - 1, base, base + 1):  # the sync port and both data ports
        wait_listening(port)
    sender = shell_process(xttcp, f"-s127.0.0.1 -Q {common} -e -H", "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    received = receiver.stdout()
    for option in ("-B", "--fq-rate-limit", "-f", "-n", "-l"):
        check(f"INFO: ignore '{option}' on receiver role: it does nothing there (sender only)"
              in received, f"receiver: no note that {option} does nothing there")
    for option in ("-e", "-H"):
        check(f"INFO: ignore '{option}' on sender role: it does nothing there (receiver only)"
              in sender.stdout(), f"sender: no note that {option} does nothing there")
    check("#####  Totals:  #####" in received, "receiver: no results")


def connection_lines(xttcp, started, udp):
    base = free_port_block(2)
    proto = ["-u", "-b", "1400"] if udp else []
    receiver = Process([xttcp, "-r", "127.0.0.1", "-p", str(base), "-P", "2", "-t", "1", "-Q",
                        *proto], "receiver")
    started.append(receiver)
    wait_listening(base - 1)  # the sync port
    for port in (base, base + 1):
        (wait_udp_bound if udp else wait_listening)(port)
    sender = Process([xttcp, "-s", "127.0.0.1", "-p", str(base), "-P", "2", "-n", "2", "-t", "1",
                      "-Q", "-V", *proto], "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    lines = sender.stdout().splitlines()
    what = "Running UDP stream" if udp else "New connection"
    pattern = re.compile(rf"^\d\d:\d\d:\d\d DBG : {what}: local:(\d+) \[socket:(\d+)\] --> "
                         rf"127\.0\.0\.1:(\d+)$")
    found = [(i, pattern.match(line)) for i, line in enumerate(lines) if pattern.match(line)]
    check(len(found) == 4, f"sender: {len(found)} '{what}' lines for 2 ports x 2 threads, not 4")
    ports = sorted(int(m.group(3)) for _, m in found)
    check(ports == [base, base, base + 1, base + 1], f"sender: connections to ports {ports}")
    check(len({m.group(2) for _, m in found}) == 4, "sender: two connections share a socket")
    check(all(int(m.group(1)) > 0 for _, m in found), "sender: a local port is 0")
    # Where the original prints them: after "threads created", before "connections created".
    created = next(i for i, line in enumerate(lines) if "threads created" in line)
    connected = next(i for i, line in enumerate(lines) if "connections created in" in line)
    check(all(created < i < connected for i, _ in found),
          "sender: the connection lines are not between 'threads created' and 'connections "
          "created'")


def windows_xml_numbers(xttcp, started):
    # VirtualClient converts every figure of both XML files to a number; on Linux DPCs (and
    # maybe per-thread completions) are absent: NTttcp writes 0.000 for such a counter.
    base = free_port_block(2)
    work = scratch_dir()
    mapping = ["--dialect", "windows", "-m", "2,*,127.0.0.1", "-t", "1", "-wu", "1", "-cd", "1",
               "-p", str(base), "-ns", "-l", "4k"]
    receiver = Process([xttcp, "-r", *mapping, "-xml", f"{work}/r.xml"], "receiver")
    started.append(receiver)
    wait_listening(base + 1)
    sender = Process([xttcp, "-s", *mapping, "-xml", f"{work}/s.xml"], "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    for path, root in ((f"{work}/r.xml", "ntttcpr"), (f"{work}/s.xml", "ntttcps")):
        tree = load_xml(path, root)
        check(tree.find("dpcs").text == "0.000", f"{path}: <dpcs> is {tree.find('dpcs').text!r}")
        parameters = {id(e) for e in tree.find("parameters")}
        leaves = [e for e in tree.iter() if len(e) == 0 and id(e) not in parameters]
        check(len(leaves) > 20, f"{path}: only {len(leaves)} figures")
        for element in leaves:
            try:
                float(element.text)
            except (TypeError, ValueError):
                check(False, f"{path}: <{element.tag} {element.attrib}> holds {element.text!r}")


CASES = {
    "lisa-stray-words": lisa_stray_words,
    "sender-options-on-receiver": sender_options_on_receiver,
    "tcp-connection-lines": lambda xttcp, started: connection_lines(xttcp, started, False),
    "udp-stream-lines": lambda xttcp, started: connection_lines(xttcp, started, True),
    "windows-xml-numbers": windows_xml_numbers,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
