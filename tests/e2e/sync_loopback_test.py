#!/usr/bin/env python3
"""Receiver and sender processes on loopback with the sync protocol: both ends agree on the
byte count, and every result file (XML, NTttcp JSON, native JSON) parses with its fields."""
import os

from xttcp_e2e import (scratch_dir, expected_backend,
                       Process, check, counts_agree, free_port_block, load_json, load_xml, parse_totals,
                       run_test, wait_listening, xttcp_binary)


def body(started):
    xttcp = xttcp_binary()
    base = free_port_block(2)
    out = scratch_dir("xttcp-e2e-")
    f = lambda name: os.path.join(out, name)
    common = ["-m", "2,*,127.0.0.1", "-p", str(base), "-t", "2", "-Q"]
    receiver = Process([xttcp, "-r", *common, "-x", f("r.xml"), "-j", f("r.json"),
                        "--json", f("r.native.json"), "--wait-timeout", "30"], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", *common, "-V", "-x", f("s.xml"), "-j", f("s.json"),
                      "--json", f("s.native.json")], "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")

    r = parse_totals(receiver.stdout())
    s = parse_totals(sender.stdout())
    check(r["bytes"] > 0 and s["bytes"] > 0, "no bytes moved")
    check(counts_agree(r["bytes"], s["bytes"], 0.02, 2, (r["duration"], s["duration"])),
          f"receiver {r['bytes']} and sender {s['bytes']} bytes differ by more than 2 % "
          "and by more than can be in flight or the windows' lengths explain")
    # A loaded host can only delay the timer that closes the window, never fire it early.
    check(1.9 <= r["duration"] <= 3 and 1.9 <= s["duration"] <= 3,
          f"window is not 2 s: receiver {r['duration']}, sender {s['duration']}")
    check("2 connections tested" in sender.stdout(), "sender lacks 'N connections tested'")
    check("\tThread\tTime(s)\tThroughput" in sender.stdout(), "-V per-thread table missing")

    rx = load_xml(f("r.xml"), "ntttcpr")
    sx = load_xml(f("s.xml"), "ntttcps")
    check(rx.find("parameters/port").text == str(base), "XML port is not the base port")
    check(rx.find("parameters/sync_port").text == str(base - 1), "XML sync_port wrong")
    mb = float(rx.find("total_bytes").text)
    check(abs(mb - r["bytes"] / 1e6) < 0.01, "XML total_bytes (MB) disagrees with the console")
    check(sx.find("conns_tested").text == "2", "sender XML conns_tested")
    check(len(sx.findall("thread")) == 2, "sender -V XML lacks 2 <thread> elements")

    rj = load_json(f("r.json"))["ntttcpr"]
    check(rj["totalBytes"]["metric"] == "MB", "JSON totalBytes metric")
    check(isinstance(rj["totalBytes"]["value"], str), "NTttcp JSON values must be strings")
    sj = load_json(f("s.json"))["ntttcps"]
    check(sj["parameters"]["port"] == str(base), "sender JSON port")

    rn = load_json(f("r.native.json"))
    sn = load_json(f("s.native.json"))
    backend = expected_backend(xttcp)
    for doc, role in ((rn, "receiver"), (sn, "sender")):
        check(doc["schema_version"] == 1, "native schema_version")
        check(doc["role"] == role, f"native role {doc['role']} != {role}")
        check(isinstance(doc["summary"]["total_bytes"], int), "native numbers must be numbers")
        check(doc["spec"]["base_port"] == base, "native spec echo lacks base_port")
        check(doc["backend"] == backend, f"native backend {doc['backend']} != {backend}")
    check(rn["summary"]["total_bytes"] == r["bytes"], "native and console totals differ")
    check(sn.get("peer", {}).get("role") == "receiver", "sender's native result lacks the receiver")
    check(rn.get("peer", {}).get("role") == "sender", "receiver's native result lacks the sender")
    check("Peer (receiver)" in sender.stdout(), "sender did not print the receiver's figures")
    check(not [n for n in os.listdir(out) if n.startswith(".") or n.endswith(".tmp")],
          f"temporary files left in {out}: {os.listdir(out)}")


run_test(body)
