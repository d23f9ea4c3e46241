#!/usr/bin/env python3
"""Truth at the end of a test:
- Ctrl+C on a sync'd sender ends the test with 'E': both ends print and exchange their results,
  flagged as cut short (end.cut_short in --json), and exit 0;
- Ctrl+C on a receiver ends it at once (it waits for no sender's result);
- a -N receiver whose sender was killed early says its data stopped, and exits 1 (and so does
  a -ns receiver of the Windows dialect); a host that did not run either end (paused) is no
  sender that stopped, and both ends say how long it did not run them;
- a sender whose receiver counted far less than it sent says so, and exits 1."""
import os
import signal
import time

from xttcp_e2e import (Process, ScriptedReceiver, check, free_port_block, load_json,
                       parse_totals, run_cases, scratch_dir, wait_listening)


def sender_interrupted(xttcp, started):
    base = free_port_block(1)
    out = scratch_dir()
    common = ["-P", "1", "-p", str(base), "-t", "60"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "--json", os.path.join(out, "r.json")],
                       "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common,
                      "--json", os.path.join(out, "s.json")], "sender")
    started.append(sender)
    sender.wait_output("Network activity progressing")
    time.sleep(1)  # a second of data: what a user sees before pressing Ctrl+C
    sender.signal(signal.SIGINT)
    check(sender.wait(30) == 0, "the interrupted sender did not exit 0")
    check(receiver.wait(30) == 0, "the receiver of an interrupted sender did not exit 0")
    for p in (sender, receiver):
        check("test was cut short" in p.stdout(), f"{p.name} does not say the test was cut short")
    check("#####  Peer (receiver) totals:  #####" in sender.stdout(), "the sender got no result")
    check("#####  Peer (sender) totals:  #####" in receiver.stdout(), "the receiver got no result")
    s = load_json(os.path.join(out, "s.json"))
    r = load_json(os.path.join(out, "r.json"))
    check(s["end"]["cut_short"] and s["end"]["cause"] == "interrupted",
          f"the sender's end is {s['end']}")
    check(r["end"]["cut_short"] and r["end"]["cause"] == "sender_stopped",
          f"the receiver's end is {r['end']}")
    check(s["peer"]["end"]["cut_short"], "the exchanged result is not flagged as cut short")


def receiver_interrupted(xttcp, started):
    base = free_port_block(1)
    common = ["-P", "1", "-p", str(base), "-t", "60"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(sender)
    receiver.wait_output("Real-time throughput")  # its window is open (not just its gate)
    receiver.signal(signal.SIGINT)
    # It waited 5 s for the sender's result before; now it owes nobody anything.
    check(receiver.wait(4.5) == 0, "the interrupted receiver did not exit 0")
    check("test was cut short" in receiver.stdout(), "the receiver does not say it was cut short")
    check(sender.wait(30) == 1, "the sender whose receiver left did not exit 1")
    check("the receiver closed" in sender.stderr(), f"the sender does not say why:\n{sender.stderr()}")


def nosync_sender_killed(xttcp, started):
    base = free_port_block(1)
    common = ["-P", "1", "-p", str(base), "-t", "5", "-N"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common], "receiver")
    started.append(receiver)
    wait_listening(base)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
    started.append(sender)
    sender.wait_output("Network activity progressing")
    time.sleep(1)
    sender.signal(signal.SIGKILL)
    check(receiver.wait(30) == 1, "the -N receiver whose sender died did not exit 1")
    check("no data arrived in the last" in receiver.stderr(),
          f"the receiver does not say its data stopped:\n{receiver.stderr()}")


def nosync_host_paused(xttcp, started):
    """A host that stops running both ends for longer than the test (a VM paused, a machine
    overloaded; CI saw a 1 s window close 2.01 s late, its last 2.19 s silent): the receiver
    does not blame its sender for the silence, and both ends say how long the host did not run
    them. As in CI, the sender stops first and the receiver still sees a silent interval."""
    base = free_port_block(1)
    out = scratch_dir()
    common = ["-P", "1", "-p", str(base), "-t", "3", "-N", "--interval", "0.25"]
    receiver = Process([xttcp, "-r", "127.0.0.1", *common, "--json", os.path.join(out, "r.json")],
                       "receiver")
    started.append(receiver)
    wait_listening(base)
    sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common,
                      "--json", os.path.join(out, "s.json")], "sender")
    started.append(sender)
    sender.wait_output("Network activity progressing")
    receiver.wait_output("Real-time throughput")  # its window is open
    sender.signal(signal.SIGSTOP)
    lines = receiver.stdout().count("Real-time throughput")
    deadline = time.monotonic() + 20
    while receiver.stdout().count("Real-time throughput") < lines + 2:  # one interval silent
        check(time.monotonic() < deadline, "the receiver printed no more real-time lines")
        time.sleep(0.01)
    receiver.signal(signal.SIGSTOP)
    time.sleep(4)  # the pause itself, past the 3 s window's end: no readiness to wait for
    receiver.signal(signal.SIGCONT)  # its window closes before its sender sends again
    receiver.wait_output("Test run completed.")
    sender.signal(signal.SIGCONT)
    check(sender.wait(30) == 0, f"the paused sender failed:\n{sender.stderr()}")
    check(receiver.wait(30) == 0, f"the paused receiver failed:\n{receiver.stderr()}")
    for name in ("r.json", "s.json"):
        notes = load_json(os.path.join(out, name)).get("notes", [])
        check(not any("no data arrived" in n for n in notes), f"{name}: a silent tail: {notes}")
        check(any(n.startswith("this host did not run xttcp for ") for n in notes),
              f"{name}: no note says the host did not run it: {notes}")


def established(port):
    """True once a TCP connection to `port` on loopback is established (/proc/net/tcp)."""
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if int(fields[1].split(":")[1], 16) == port and fields[3] == "01":
                return True
    return False


def windows_nosync_sender_killed(xttcp, started):
    """The Windows dialect's -ns: no token exchange watches the sender, so its data stopping
    early is what tells the receiver."""
    base = free_port_block(1)
    mapping = ["-m", "1,*,127.0.0.1", "-ns", "-t", "5", "-p", str(base)]
    out = os.path.join(scratch_dir(), "r.json")
    receiver = Process([xttcp, "--dialect", "windows", "-r", *mapping, "--json", out], "receiver")
    started.append(receiver)
    wait_listening(base)
    sender = Process([xttcp, "--dialect", "windows", "-s", *mapping], "sender")
    started.append(sender)
    deadline = time.monotonic() + 20
    while not established(base):
        check(time.monotonic() < deadline, "the sender never connected")
        time.sleep(0.05)
    time.sleep(1)  # data flows for a while, then the sender dies
    sender.signal(signal.SIGKILL)
    check(receiver.wait(30) == 1, "the -ns receiver whose sender died did not exit 1")
    check("no data arrived in the last" in receiver.stderr(),
          f"the receiver does not say its data stopped:\n{receiver.stderr()}")
    notes = load_json(out).get("notes", [])
    check(any("no data arrived in the last" in n for n in notes),
          f"the receiver's --json does not say its data stopped: {notes}")


def receiver_counted_less(xttcp, started):
    """A native receiver (a script here) that reports 0 bytes: the sender calls the test invalid."""
    base = free_port_block(1)
    with ScriptedReceiver(base) as fake:
        sender = Process([xttcp, "-s", "127.0.0.1", "-P", "1", "-n", "1", "-p", str(base), "-t",
                          "1"], "sender")
        started.append(sender)
        fake.run_test()
        fake.send_frame(b'{"schema":"xttcp-result","schema_version":1,"role":"receiver",'
                        b'"summary":{"duration_s":1.0,"total_bytes":0}}')
        check(sender.wait(30) == 1, "the sender whose receiver counted 0 bytes did not exit 1")
        check("the receiver counted 0 bytes, 0.0 % of the" in sender.stderr(),
              f"the sender does not say what is wrong:\n{sender.stderr()}")
        check(parse_totals(sender.stdout())["bytes"] > 0, "the sender printed no result")


CASES = {
    "sender-interrupted": sender_interrupted,
    "receiver-interrupted": receiver_interrupted,
    "nosync-sender-killed": nosync_sender_killed,
    "windows-nosync-sender-killed": windows_nosync_sender_killed,
    "nosync-host-paused": nosync_host_paused,
    "receiver-counted-less": receiver_counted_less,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
