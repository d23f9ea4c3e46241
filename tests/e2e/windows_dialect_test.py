#!/usr/bin/env python3
"""The NTttcp-for-Windows command line on Linux: a -ns TCP run with -m/-p/-t/-l between two xttcp
processes. The receiver appends its Windows XML (-xml, run twice: two blocks in one file); the
sender prints the Windows console tables. A run the engine cannot do yet (-sam) is refused,
exit 2. The token handshake (no -ns) is tested against a peer in tests/interop."""
import os
import subprocess

from xttcp_e2e import (Process, check, free_port_block, run_test, scratch_dir, wait_listening,
                       xttcp_binary)


def one_run(started, xttcp, base, xml):
    mapping = ["-m", "2,*,127.0.0.1", "-ns", "-t", "2", "-p", str(base), "-l", "64k"]
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
        check("#####  Totals:  #####" not in receiver.stdout(),
              "receiver: -xml must replace the console tables")
        with open(xml) as f:
            text = f.read()
        check(text.count('<ntttcpr computername="') == run + 1,
              f"run {run + 1}: the XML file does not hold {run + 1} appended block(s)")
        check("<no_sync>True</no_sync>" in text, "XML: no_sync is not True")
    refused = subprocess.run([xttcp, "--dialect", "windows", "-s", "-m", "1,*,127.0.0.1", "-t",
                              "2", "-sam", "1"], capture_output=True, text=True, timeout=20)
    check(refused.returncode == 2, f"a run with -sam exited {refused.returncode}, not 2")
    check("-sam: xttcp does not split a run" in refused.stderr,
          f"unclear refusal: {refused.stderr!r}")


run_test(body)
