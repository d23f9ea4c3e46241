#!/usr/bin/env python3
"""--zerocopy (MSG_ZEROCOPY): completions are counted and, on loopback, all of them report that
the kernel copied; --zerocopy=auto notices and falls back to plain sends, saying so;
--skip-rx-copy (MSG_TRUNC) still counts every byte."""
import os

from xttcp_e2e import (scratch_dir, Process, check, free_port_block, load_json, run_test, within,
                       xttcp_binary)


def local_run(xttcp, started, extra, name):
    base = free_port_block(1)
    out = os.path.join(scratch_dir("xttcp-e2e-"), "r.json")
    p = Process([xttcp, "--local", "-P", "1", "-n", "1", "-p", str(base), "-t", "1", "-Q",
                 "--json", out, *extra], name)
    started.append(p)
    check(p.wait(30) == 0, f"{name} failed")
    return p, load_json(out)


def body(started):
    xttcp = xttcp_binary()

    p, doc = local_run(xttcp, started, ["--zerocopy"], "zerocopy on")
    z = doc["zerocopy"]
    check(z["sends"] > 0 and z["notifications"] > 0, f"no zero-copy completions counted: {z}")
    check(z["copied"] > 0, "loopback always copies, yet no completion said so")
    check(not z["fell_back"], "--zerocopy=on must not fall back")
    check(doc["spec"]["zerocopy"] == "on", "spec echo")
    check(doc["connections"][0]["zerocopy"]["sends"] > 0, "per-connection zero-copy counts")
    check("zerocopy sends" in p.stdout(), "console lacks the zerocopy line")

    p, doc = local_run(xttcp, started, ["--zerocopy=auto"], "zerocopy auto")
    check(doc["zerocopy"]["fell_back"], "--zerocopy=auto did not fall back on loopback")
    check(any("switched to plain send" in n for n in doc["notes"]), "no note about the fallback")

    p, doc = local_run(xttcp, started, ["--skip-rx-copy"], "skip rx copy")
    sent, got = doc["summary"]["total_bytes"], doc["peer"]["summary"]["total_bytes"]
    check(got > 0 and within(sent, got, 0.02), f"--skip-rx-copy counted {got} of {sent}")
    check(doc["peer"]["spec"]["skip_rx_copy"], "receiver spec echo lacks skip_rx_copy")


run_test(body)
