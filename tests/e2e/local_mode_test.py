#!/usr/bin/env python3
"""--local: receiver and sender in one process over loopback, full lifecycle, both sides'
results on the console and in the native JSON."""
import os

from xttcp_e2e import (scratch_dir,
                       Process, check, counts_agree, free_port_block, load_json, parse_totals, run_test,
                       xttcp_binary)


def body(started):
    xttcp = xttcp_binary()
    base = free_port_block(2)
    out = scratch_dir("xttcp-e2e-")
    native = os.path.join(out, "local.json")
    local = Process([xttcp, "--local", "-P", "2", "-n", "1", "-p", str(base), "-t", "2", "-Q",
                     "--json", native, "-x", os.path.join(out, "local.xml")], "local")
    started.append(local)
    check(local.wait(40) == 0, "local run failed")
    console = local.stdout()
    s = parse_totals(console)
    check("Peer (receiver)" in console, "local run did not print the receiver's side")
    doc = load_json(native)
    check(doc["role"] == "sender" and doc["peer"]["role"] == "receiver", "native roles")
    r_bytes = doc["peer"]["summary"]["total_bytes"]
    check(counts_agree(r_bytes, s["bytes"], 0.02, 2), f"receiver {r_bytes} vs sender {s['bytes']}")


run_test(body)
