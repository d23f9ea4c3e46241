#!/usr/bin/env python3
"""--zerocopy (MSG_ZEROCOPY): completions are counted and, on loopback, all of them report that
the kernel copied; --zerocopy=auto notices and falls back to plain sends, saying so;
--skip-rx-copy (MSG_TRUNC, the default) and --skip-rx-copy=off both count every byte. Each
check runs on every kernel-socket backend this machine has (epoll, io_uring)."""
import os

from xttcp_e2e import (scratch_dir, Process, check, counts_agree, free_port_block, load_json, run_test,
                       socket_backends, xttcp_binary)


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
    backends = socket_backends(xttcp)
    check("epoll" in backends, f"'xttcp backends' lists no epoll: {backends}")
    for backend in backends:
        one_backend(xttcp, started, backend)


def one_backend(xttcp, started, backend):
    def local_run_on(extra, name):
        return local_run(xttcp, started, ["--backend", backend, *extra], f"{backend}: {name}")

    p, doc = local_run_on(["--zerocopy"], "zerocopy on")
    z = doc["zerocopy"]
    check(z["sends"] > 0 and z["notifications"] > 0, f"no zero-copy completions counted: {z}")
    check(z["copied"] > 0, "loopback always copies, yet no completion said so")
    check(not z["fell_back"], "--zerocopy=on must not fall back")
    check(doc["spec"]["zerocopy"] == "on", "spec echo")
    check(doc["connections"][0]["zerocopy"]["sends"] > 0, "per-connection zero-copy counts")
    check("zerocopy sends" in p.stdout(), "console lacks the zerocopy line")

    p, doc = local_run_on(["--zerocopy=auto"], "zerocopy auto")
    check(doc["zerocopy"]["fell_back"], "--zerocopy=auto did not fall back on loopback")
    check(any("switched to plain send" in n for n in doc["notes"]), "no note about the fallback")

    for extra, skipped in (([], True), (["--skip-rx-copy"], True),
                           (["--skip-rx-copy=off"], False)):
        p, doc = local_run_on(extra, " ".join(extra) or "default receive")
        sent, got = doc["summary"]["total_bytes"], doc["peer"]["summary"]["total_bytes"]
        check(got > 0 and counts_agree(got, sent, 0.02, 1), f"{backend} {extra} counted {got} of {sent}")
        check(doc["peer"]["spec"]["skip_rx_copy"] == skipped,
              f"{backend} {extra}: receiver spec echo says skip_rx_copy "
              f"{doc['peer']['spec']['skip_rx_copy']}")
        check(doc["backend"] == backend and doc["peer"]["backend"] == backend,
              f"ran on {doc['backend']}/{doc['peer']['backend']}, not {backend}")
        # Each end names both addresses of each connection, the peer gone or not.
        for side in (doc, doc["peer"]):
            for c in side["connections"]:
                check(c["local"].startswith("127.0.0.1:") and c["remote"].startswith("127.0.0.1:"),
                      f"{backend} {side['role']}: connection {c['local']!r} -> {c['remote']!r}")


run_test(body)
