#!/usr/bin/env python3
"""--backend auto (the default): 'xttcp backends' says which backend it takes and why the others
were passed over; a run names that backend in its results; a kernel without io_uring send bundles
(simulated with XTTCP_URING_DISABLE) makes auto take epoll, and the run says so in its results."""
import os
import subprocess

from xttcp_e2e import (scratch_dir, Process, check, free_port_block, load_json, run_test,
                       xttcp_binary)


def auto_line(xttcp, env):
    out = subprocess.run([xttcp, "backends"], capture_output=True, text=True, timeout=30,
                         env=env).stdout
    lines = [line for line in out.splitlines() if line.startswith("auto (TCP): ")]
    check(len(lines) == 1, f"'xttcp backends' has no 'auto (TCP):' line:\n{out}")
    return lines[0]


def local_run(xttcp, started, env, name):
    base = free_port_block(1)
    out = os.path.join(scratch_dir(), "r.json")
    p = Process([xttcp, "--local", "-P", "1", "-n", "1", "-p", str(base), "-t", "1", "-Q",
                 "--json", out], name, env=env)
    started.append(p)
    check(p.wait(30) == 0, f"{name} failed")
    return load_json(out)


def body(started):
    xttcp = xttcp_binary()
    env = dict(os.environ)
    env.pop("XTTCP_URING_DISABLE", None)
    chosen = auto_line(xttcp, env).split(": ", 1)[1].split(";")[0]
    check(chosen in ("io_uring", "epoll"), f"auto took {chosen!r}")
    doc = local_run(xttcp, started, env, "auto")
    check(doc["backend"] == chosen and doc["spec"]["backend"] == chosen,
          f"the run names {doc['backend']} (spec {doc['spec']['backend']}), auto said {chosen}")

    env["XTTCP_URING_DISABLE"] = "bundle"
    line = auto_line(xttcp, env)
    check(line.startswith("auto (TCP): epoll"), f"without bundles auto must take epoll: {line}")
    if chosen == "io_uring":
        check("not io_uring: no send bundles" in line, f"no reason for passing io_uring: {line}")
    doc = local_run(xttcp, started, env, "auto without bundles")
    check(doc["backend"] == "epoll", f"without bundles the run used {doc['backend']}")


run_test(body)
