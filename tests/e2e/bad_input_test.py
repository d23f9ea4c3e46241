#!/usr/bin/env python3
"""Bad command lines: each gives exactly one line on stderr naming the option, exit code 2,
nothing on stdout, and no file written."""
import os
import subprocess

from xttcp_e2e import check, run_test, scratch_dir, xttcp_binary

BAD = [
    ["-r", "-s"],
    ["-s"],                                  # no receiver address
    ["-P", "abc"],
    ["-P", "0"],
    ["-P", "-3"],
    ["-n", "0", "-s", "127.0.0.1"],
    ["-l", "0", "-s", "127.0.0.1"],
    ["-p", "0"],
    ["-p", "70000"],
    ["-p", "1"],
    ["-p", "port"],
    ["-b", "0"],
    ["-b", "12x"],
    ["-B", "fast", "-s", "127.0.0.1"],
    ["-t", "-1"],
    ["-t", "ten"],
    ["-W", "x"],
    ["-C", "1.5.2"],
    ["-m", "a,b,c"],
    ["-m", "2,99999,127.0.0.1"],
    ["-M", "-s", "127.0.0.1"],
    ["-L"],
    ["-a", "127.0.0.1"],                     # sender-only on a receiver
    ["-r", "-n", "two"],                      # ignored on a receiver, but still read
    ["--udp-gso", "off", "-s", "127.0.0.1"],  # a UDP option without -u
    ["-u", "--zerocopy", "-s", "127.0.0.1"],  # zero-copy is TCP only
    ["-u", "-b", "20", "--udp-payload", "native", "-s", "127.0.0.1"],  # no room for the header
    ["--no-delay", "-u", "-s", "127.0.0.1"],
    ["--bakend", "epoll"],
    ["--backend", "nosuch"],
    ["--backend", "epoll", "--sqpoll", "-s", "127.0.0.1"],  # epoll has no submission queue
    ["--interval", "0"],
    ["--interval", "-1"],
    ["--threads", "0"],
    ["--local", "-s", "127.0.0.1"],
    ["--local", "-H"],
    ["--show-nic-packets", "nosuchif0"],
    ["--fq-rate-limit", "1t", "-s", "127.0.0.1"],
    ["-s", "127.0.0.1", "\u2013u"],            # an en dash, pasted from a web page
    ["\u2014json", "x.json"],                  # an em dash for "--"
    ["--rr-depth", "2", "-s", "127.0.0.1"],  # an --rr option without --rr
    ["--rr", "--rr-depth", "0", "-s", "127.0.0.1"],
    ["--rr", "-u", "-b", "4", "-s", "127.0.0.1"],  # no room for the send time
    ["--rr", "--zerocopy", "-s", "127.0.0.1"],
    ["--rr", "--rr-delay-us", "200000"],      # above 100 ms
    ["--rr", "--backend", "null", "-s", "127.0.0.1"],  # refused in check()
    ["--dialect", "iperf2", "-s", "-e", "--backend", "null"],  # Reads=Dist: counts no reads
    ["-P"],                                   # missing value
    ["--json"],                               # missing file
    ["-Z"],
]


def body(started):
    xttcp = xttcp_binary()
    workdir = scratch_dir("xttcp-bad-")
    for args in BAD:
        done = subprocess.run([xttcp, *args], cwd=workdir, capture_output=True, text=True,
                              timeout=10, stdin=subprocess.DEVNULL)
        where = f"xttcp {' '.join(args)}"
        check(done.returncode == 2, f"{where}: exit {done.returncode}, expected 2\n{done.stderr}")
        lines = done.stderr.splitlines()
        check(len(lines) == 1, f"{where}: expected one stderr line, got:\n{done.stderr}")
        check(lines[0].startswith("xttcp: "), f"{where}: stderr line lacks 'xttcp: ': {lines[0]}")
        check(done.stdout == "", f"{where}: wrote to stdout:\n{done.stdout}")
    check(os.listdir(workdir) == [], f"bad command lines left files: {os.listdir(workdir)}")


run_test(body)
