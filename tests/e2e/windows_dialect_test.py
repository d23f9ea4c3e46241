#!/usr/bin/env python3
"""The NTttcp-for-Windows command line on Linux: a -ns TCP run with -m/-p/-t/-l between two xttcp
processes. The receiver appends its Windows XML (-xml, run twice: two blocks in one file); the
sender prints the Windows console tables. -t 3 -sam 1 gives 3 result blocks: 3 tables on the
sender's console, 3 blocks within <samples> in the receiver's XML (more -sam and -na cases:
windows_samples_test.py). The token handshake (no -ns) is tested against a peer in
tests/interop."""
import os

from xttcp_e2e import (Process, check, free_port_block, run_test, scratch_dir, wait_listening,
                       xttcp_binary)


def one_run(started, xttcp, base, xml, *extra, seconds=2):
    mapping = ["-m", "2,*,127.0.0.1", "-ns", "-t", str(seconds), "-p", str(base), "-l", "64k",
               *extra]
    receiver = Process([xttcp, "--dialect", "windows", "-r", *mapping, "-xml", xml], "receiver")
    started.append(receiver)
    wait_listening(base)
    sender = Process([xttcp, "--dialect", "windows", "-s", *mapping], "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    return receiver, sender


def body(started):
    xttcp = xttcp_binary()
    xml = os.path.join(scratch_dir(), "xml.txt")
    for run in range(2):
        base = free_port_block(2)
        receiver, sender = one_run(started, xttcp, base, xml)
        out = sender.stdout()
        check("Copyright Version 5.40" in out, "sender: no NTttcp-for-Windows banner")
        check("#####  Totals:  #####" in out, "sender: no Windows Totals block")
        check("Thread  Time(s) Throughput(KB/s) Avg B / Compl" in out, "sender: no thread table")
        # Each thread row ends in its bytes per completed send: a number, not NA.
        lines = out.splitlines()
        table = lines.index("======  ======= ================ =============") + 1
        rows = [line.split() for line in lines[table:table + 2]]
        check(all(len(row) == 4 and row[3] != "NA" and float(row[3]) > 0 for row in rows),
              f"sender: thread rows without Avg B / Compl: {rows}")
        # Packets, retransmits and errors come from /proc/net/snmp: numbers, not NA.
        header = next(i for i, line in enumerate(lines) if line.startswith("Packets Sent"))
        packets = lines[header + 2].split()
        check(len(packets) == 5 and all(v != "NA" for v in packets[:4]) and int(packets[0]) > 0,
              f"sender: packet counters not read: {lines[header:header + 3]}")
        check("#####  Totals:  #####" not in receiver.stdout(),
              "receiver: -xml must replace the console tables")
        with open(xml) as f:
            text = f.read()
        check(text.count('<ntttcpr computername="') == run + 1,
              f"run {run + 1}: the XML file does not hold {run + 1} appended block(s)")
        check("<no_sync>True</no_sync>" in text, "XML: no_sync is not True")
    # -sam 1 over -t 3: one block per sample on the console and in the XML, none for the whole.
    samples_xml = os.path.join(scratch_dir(), "samples.xml")
    receiver, sender = one_run(started, xttcp, free_port_block(2), samples_xml, "-sam", "1",
                               seconds=3)
    out = sender.stdout()
    check(out.count("#####  Totals:  #####") == 3,
          f"sender: {out.count('#####  Totals:  #####')} Totals blocks for -t 3 -sam 1, not 3")
    check(out.count("Thread  Time(s) Throughput(KB/s)") == 3, "sender: not 3 thread tables")
    with open(samples_xml) as f:
        text = f.read()
    check(text.startswith("<samples>\n") and text.endswith("</samples>\n"),
          f"XML: the samples are not wrapped in <samples>: {text[:40]!r} ... {text[-40:]!r}")
    check(text.count('<ntttcpr computername="') == 3,
          f"XML: {text.count('<ntttcpr computername=')} blocks within <samples>, not 3")
    check(text.count("</ntttcpr>") == 3, "XML: not 3 closed blocks")


run_test(body)
