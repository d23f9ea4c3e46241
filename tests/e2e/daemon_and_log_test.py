#!/usr/bin/env python3
"""-D daemonizes with relative result paths made absolute first (they must not land in '/'),
and -O copies the console log to a file. Before it detaches it prints what NTTTCP-for-Linux
prints (its own tests grep the launcher's output): the banner, the -V settings and
"INFO: main: run this tool in the background"."""
import os
import time

from xttcp_e2e import (scratch_dir,
                       Process, check, free_port_block, load_xml, run_test, wait_listening,
                       xttcp_binary)


def find_daemon(marker):
    """PIDs of our daemon: its command line carries this test's unique port."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if b"-D" in args and marker.encode() in args:
            pids.append(int(entry))
    return pids


def body(started):
    xttcp = xttcp_binary()
    base = free_port_block(1)
    work = scratch_dir("xttcp-daemon-")
    common = ["-N", "-P", "1", "-p", str(base), "-t", "1", "-Q"]
    launcher = Process([xttcp, "-r", "127.0.0.1", "-D", "-V", *common, "-x", "daemon.xml",
                        "-O", "daemon.log", "--wait-timeout", "20"], "daemon launcher", cwd=work)
    started.append(launcher)
    check(launcher.wait(10) == 0, "the launching process did not return 0")
    # All of it printed by the launcher itself, before the detach, in this order.
    printed = launcher.stdout().splitlines()
    expected = ["(NTTTCP for Linux 1.4.3 compatible)", "*** receiver role", "*** run as daemon",
                "receiver socket buffer (bytes):\t 65536", "verbose mode:\t\t\t enabled",
                "INFO: main: run this tool in the background"]
    at = 0
    for line in printed:
        if at < len(expected) and expected[at] in line:
            at += 1
    check(at == len(expected),
          f"the launcher did not print '{expected[min(at, len(expected) - 1)]}' (in order) "
          f"before detaching:\n{launcher.stdout()}")
    check(printed[-1].endswith("INFO: main: run this tool in the background"),
          f"the launcher printed more after detaching:\n{launcher.stdout()}")
    try:
        wait_listening(base)
        sender = Process([xttcp, "-s", "127.0.0.1", "-n", "1", *common], "sender")
        started.append(sender)
        check(sender.wait(30) == 0, "sender failed")
        xml = os.path.join(work, "daemon.xml")
        deadline = time.monotonic() + 15
        while find_daemon(str(base)) and time.monotonic() < deadline:
            time.sleep(0.1)
        check(not find_daemon(str(base)), "the daemon did not exit after its test")
    finally:
        for pid in find_daemon(str(base)):
            os.kill(pid, 9)
    check(not os.path.exists("/daemon.xml"), "result file landed in '/'")
    check(os.path.exists(xml), f"no {xml}")
    load_xml(xml, "ntttcpr")
    log = xml.replace("daemon.xml", "daemon.log")
    with open(log) as f:
        text = f.read()
    check("#####  Totals:  #####" in text, "-O log lacks the Totals block")


run_test(body)
