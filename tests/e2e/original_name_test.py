#!/usr/bin/env python3
"""Installed or invoked as ntttcp, xttcp does the original's work (--defaults ntttcp): epoll,
a receiver that copies into user space, one UDP datagram per send; the results say so. One
option brings the fast defaults back, and options on the line win. Cases run by name:
original_name_test.py XTTCP [CASE...]."""
import os
import sys

from xttcp_e2e import (Process, check, expected_backend, free_port_block, load_json, parse_totals,
                       run_cases, scratch_dir, wait_listening)


def as_ntttcp(xttcp):
    """A symlink named ntttcp to the binary under test, in a fresh directory."""
    link = os.path.join(scratch_dir(), "ntttcp")
    os.symlink(os.path.abspath(xttcp), link)
    return link


def run_pair(program, started, extra=(), udp=False, receiver_extra=()):
    """A 1-second test over loopback; returns (receiver result, sender result) native JSON."""
    work = scratch_dir()
    base = free_port_block(2)
    proto = ["-u"] if udp else []
    common = [*proto, "-P", "1", "-p", str(base), "-t", "1", "-Q", *extra]
    receiver = Process([program, "-r", "127.0.0.1", *common, *receiver_extra, "--json",
                        f"{work}/r.json"], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([program, "-s", "127.0.0.1", "-n", "1", *common, "--json", f"{work}/s.json"],
                     "sender")
    started.append(sender)
    check(sender.wait(40) == 0, f"sender failed: {sender.stderr()}")
    check(receiver.wait(40) == 0, f"receiver failed: {receiver.stderr()}")
    check(parse_totals(receiver.stdout())["bytes"] > 0, "the receiver counted nothing")
    return load_json(f"{work}/r.json"), load_json(f"{work}/s.json")


def tcp_as_ntttcp(xttcp, started):
    r, s = run_pair(as_ntttcp(xttcp), started)
    for name, doc in (("receiver", r), ("sender", s)):
        check(doc["spec"].get("defaults") == "ntttcp",
              f"{name}: spec.defaults {doc['spec'].get('defaults')!r}, not 'ntttcp'")
        check(doc["backend"] == "epoll", f"{name} ran {doc['backend']}, not epoll")
    check(r["spec"]["skip_rx_copy"] is False, "the receiver did not copy (skip_rx_copy is on)")


def udp_as_ntttcp(xttcp, started):
    r, s = run_pair(as_ntttcp(xttcp), started, udp=True)
    check(s["spec"].get("udp_send_batching") is False, "the UDP sender still batched its sends")
    check(s["spec"]["udp_gso"] is False and r["spec"]["udp_gro"] is False,
          "UDP segmentation or coalescing stayed on")


def fast_defaults_one_option_away(xttcp, started):
    r, s = run_pair(as_ntttcp(xttcp), started, extra=["--defaults", "xttcp"])
    for name, doc in (("receiver", r), ("sender", s)):
        check("defaults" not in doc["spec"], f"{name}: spec names defaults {doc['spec']}")
        check(doc["backend"] == expected_backend(xttcp),
              f"{name} ran {doc['backend']}, not auto's {expected_backend(xttcp)}")
    check(r["spec"]["skip_rx_copy"] is True, "--defaults xttcp left the receiver copying")


def the_line_wins(xttcp, started):
    r, _ = run_pair(as_ntttcp(xttcp), started, receiver_extra=["--skip-rx-copy"])
    check(r["spec"].get("defaults") == "ntttcp", "spec.defaults is not ntttcp")
    check(r["spec"]["skip_rx_copy"] is True, "--skip-rx-copy on the line lost to the defaults")


def as_xttcp_nothing_changes(xttcp, started):
    r, _ = run_pair(xttcp, started)
    check("defaults" not in r["spec"], "xttcp's own name named a defaults set")
    check(r["spec"]["skip_rx_copy"] is True, "xttcp's receiver copied by default")


CASES = {
    "tcp-as-ntttcp": tcp_as_ntttcp,
    "udp-as-ntttcp": udp_as_ntttcp,
    "fast-defaults-one-option-away": fast_defaults_one_option_away,
    "the-line-wins": the_line_wins,
    "as-xttcp-nothing-changes": as_xttcp_nothing_changes,
}

sys.exit(run_cases(CASES))
