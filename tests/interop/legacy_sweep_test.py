#!/usr/bin/env python3
"""xttcp sweep against a receiver that speaks only NTTTCP-for-Linux's sync protocol and stays
for test after test (ntttcp_linux_peer.py --tests K, the original's -H bounded): every cell
measured, each test's bytes as the legacy receiver counted them within what can be in flight,
and the legacy receiver served exactly the tests the sweep ran."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from xttcp_e2e import (Process, check, free_port_block, run_test, scratch_dir,  # noqa: E402
                       wait_listening, xttcp_binary)
from legacy_peer_test import PEER, agree  # noqa: E402

CELLS, REPEAT, PORTS = ["1", "2"], 2, 2


def body(started):
    xttcp = xttcp_binary()
    base = free_port_block(PORTS)
    tests = len(CELLS) * REPEAT
    legacy = Process([sys.executable, PEER, "receiver", "--port", str(base), "--ports",
                      str(PORTS), "--duration", "1", "--tests", str(tests)], "legacy receiver -H")
    started.append(legacy)
    wait_listening(base - 1)
    out = os.path.join(scratch_dir(), "sweep.json")
    sweep = Process([xttcp, "sweep", "-s", "127.0.0.1", "-P", str(PORTS), "-p", str(base),
                     "-t", "1", "--repeat", str(REPEAT), "--connections", ",".join(CELLS),
                     "--json", out], "xttcp sweep")
    started.append(sweep)
    check(sweep.wait(120) == 0, "the sweep failed against a legacy -H receiver")
    check(legacy.wait(30) == 0, "the legacy receiver failed")
    received = [int(b) for b in re.findall(r"total bytes\t:(\d+)", legacy.stdout())]
    check(len(received) == tests, f"the legacy receiver served {len(received)} tests, not {tests}")
    with open(out) as f:
        doc = json.load(f)
    sent = []
    for cell in doc["cells"]:
        check(cell["outcome"] == "measured", f"{cell['id']}: {cell.get('error')}")
        for run in cell["runs"]["runs"]:
            check(run.get("peer") is None, f"{cell['id']}: a peer's result from a legacy receiver")
            sent.append((run["summary"]["total_bytes"], cell["connections"]))
    for i, ((s, connections), r) in enumerate(zip(sent, received)):
        check(agree(s, r, connections), f"test {i + 1}: xttcp sent {s}, the legacy receiver got {r}")


run_test(body)
