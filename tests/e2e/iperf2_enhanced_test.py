#!/usr/bin/env python3
"""The iperf2 dialect's live interval lines and enhanced (-e) columns against Debian's iperf 2.1.8
(/usr/bin/iperf) on loopback. Live: the first -i line of an xttcp client (and of an xttcp
server) is read while the test still runs (its peer's -t is 30 s; the test then stops it by PID
with Ctrl+C); the server's, of two streams, are [SUM] lines. Enhanced: xttcp -c -e against `iperf -s -e` and `iperf -c -e` against xttcp -s
(TCP -P 2; UDP -e at both ends, paced with -b): one regex per kind of line parses both tools'
lines, and the two ends' byte totals agree within 2 %. Cases: live-xttcp-client,
live-csv-xttcp-client, live-xttcp-server, tcp-enhanced, udp-enhanced.
Exits 77 when /usr/bin/iperf is missing (scripts/install-deps.sh installs the iperf package)."""
import os
import re
import signal
import sys

from xttcp_e2e import (Process, SkipTest, check, free_port_block, load_json, run_cases, scratch_dir,
                       wait_listening, wait_udp_bound, within)

IPERF = "/usr/bin/iperf"
FIGURES = r"^\[\s*(\d+|SUM)\] (\d+\.\d{4})-(\d+\.\d{4}) sec\s+([\d.]+) (\w*Bytes)\s+[\d.]+ \w*bits/sec"
# A TCP client's -e line: "  Write/Err  Rtry  Cwnd/RTT(var)  NetPwr"; a [SUM] or an interval
# line may stop after Write/Err (iperf 2 without TCP stats prints so) or after Rtry.
TCP_CLIENT = re.compile(FIGURES + r"\s+(\d+)/(\d+)(?:\s+(\d+)(?:\s+(\d+)K/(\d+)\((\d+)\) us\s+(\d+))?)?$",
                        re.M)
# A UDP client's -e line: "  Write/Err  PPS".
UDP_CLIENT = re.compile(FIGURES + r"\s+(\d+)/(\d+)\s+(\d+) pps$", re.M)
# A UDP server's -e line: "  Jitter  Lost/Total (loss)  Latency avg/min/max/stdev  PPS ...";
# xttcp has no latency figures and prints them as iperf 2 does without: -/-/-/-.
UDP_SERVER = re.compile(
    FIGURES + r"\s+([\d.]+) ms (\d+)/(\d+) \(([\d.e+-]+)%\) (?:[\d.]+/[\d.]+/[\d.]+/[\d.]+|-/-/-/-) ms "
    r"(\d+) pps", re.M)
UNITS = {"Bytes": 1, "KBytes": 1024, "MBytes": 1024 ** 2, "GBytes": 1024 ** 3, "TBytes": 1024 ** 4}


def need_iperf():
    if not os.access(IPERF, os.X_OK):
        raise SkipTest(f"{IPERF} is missing (apt-get install iperf; scripts/install-deps.sh does)")


def as_iperf(xttcp):
    """xttcp under the name iperf: the name chooses the iperf2 dialect."""
    link = os.path.join(scratch_dir("xttcp-iperf2-e-"), "iperf")
    os.symlink(xttcp, link)
    return link


def stop(process):
    """A server serves until Ctrl+C (a client stops early on it): send it, wait for the exit."""
    process.signal(signal.SIGINT)
    process.wait(20)


def whole_test_lines(regex, text, ids):
    """The lines of `regex` in `text` over a whole test (from 0.0000, not [SUM]) of stream ids
    `ids`, by id; the last one of each id (a server's interval lines come first)."""
    lines = {}
    for m in regex.finditer(text):
        if m.group(1) in ids and m.group(2) == "0.0000" and float(m.group(3)) > 1.5:
            lines[m.group(1)] = m
    return lines


def line_bytes(match):
    return float(match.group(4)) * UNITS[match.group(5)]


def live_xttcp_client(xttcp, started):
    need_iperf()
    port = free_port_block(1)
    server = Process([IPERF, "-s", "-p", str(port)], "iperf -s")
    started.append(server)
    wait_listening(port)
    client = Process([as_iperf(xttcp), "-c", "127.0.0.1", "-p", str(port), "-t", "30", "-i", "1",
                      "-e"], "xttcp as iperf -c -t 30 -i 1 -e")
    started.append(client)
    client.wait_output("[  1] 0.0000-1.0000 sec")
    check(client.proc.poll() is None, "the first interval line came only once the test ended")
    check(TCP_CLIENT.search(client.stdout()), f"the interval line does not parse:\n{client.stdout()}")
    stop(client)
    stop(server)


def live_csv_xttcp_client(xttcp, started):
    """-y C: a client's interval rows come live too, from its stream's own ends."""
    need_iperf()
    port = free_port_block(1)
    server = Process([IPERF, "-s", "-p", str(port)], "iperf -s")
    started.append(server)
    wait_listening(port)
    client = Process([as_iperf(xttcp), "-c", "127.0.0.1", "-p", str(port), "-t", "30", "-i", "1",
                      "-y", "C"], "xttcp as iperf -c -t 30 -i 1 -y C")
    started.append(client)
    client.wait_output(",0.0-1.0,")
    check(client.proc.poll() is None, "the first interval row came only once the test ended")
    check(re.search(rf"^\d{{14}},127\.0\.0\.1,\d+,127\.0\.0\.1,{port},1,0\.0-1\.0,\d+,\d+$",
                    client.stdout(), re.M), f"the interval row is not iperf 2's:\n{client.stdout()}")
    stop(client)
    stop(server)


def live_xttcp_server(xttcp, started):
    need_iperf()
    port = free_port_block(1)
    server = Process([as_iperf(xttcp), "-s", "-p", str(port), "-i", "1"], "xttcp as iperf -s -i 1")
    started.append(server)
    wait_listening(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-p", str(port), "-t", "30", "-P", "2"],
                     "iperf -c -t 30 -P 2")
    started.append(client)
    # Two streams: the server's interval lines are their [SUM].
    server.wait_output("[SUM] 0.0000-1.0000 sec")
    check(client.proc.poll() is None, "the first interval line came only once the test ended")
    stop(client)  # iperf 2's client ends its test on Ctrl+C and closes its streams
    server.wait_output("[  2] 0.0000-", timeout=30)
    stop(server)


def tcp_enhanced(xttcp, started):
    """xttcp -c -e against iperf -s -e, and iperf -c -e against xttcp -s (a TCP server's -e is
    refused: docs/iperf2.md): both clients' lines parse with TCP_CLIENT."""
    need_iperf()
    port = free_port_block(1)
    server = Process([IPERF, "-s", "-e", "-p", str(port)], "iperf -s -e")
    started.append(server)
    wait_listening(port)
    json_file = os.path.join(scratch_dir(), "client.json")
    client = Process([as_iperf(xttcp), "-c", "127.0.0.1", "-p", str(port), "-t", "3", "-P", "2",
                      "-i", "1", "-e", "--json", json_file], "xttcp as iperf -c -e")
    started.append(client)
    check(client.wait(60) == 0, f"xttcp client failed: {client.stderr()}")
    ours = whole_test_lines(TCP_CLIENT, client.stdout(), {"1", "2"})
    check(len(ours) == 2 and all(m.group(12) for m in ours.values()),
          f"xttcp's stream lines lack the -e columns:\n{client.stdout()}")
    check(len(re.findall(r"^\[SUM\] \d+\.\d{4}-\d+\.\d{4} sec .*\d+/0$", client.stdout(), re.M)) >= 3,
          f"no -e [SUM] interval lines:\n{client.stdout()}")
    server.wait_output("[  2] 0.0000-3.", timeout=30)
    stop(server)
    # iperf -s -e: "[  1] 0.0000-3.0039 sec  4.59 GBytes  13.1 Gbits/sec  55576=8930:..."
    reads = re.compile(FIGURES + r"\s+(\d+)=(\d+(?::\d+){7})$", re.M)
    theirs = whole_test_lines(reads, server.stdout(), {"1", "2"})
    check(len(theirs) == 2, f"iperf -s -e printed no stream lines:\n{server.stdout()}")
    sent = load_json(json_file)["summary"]["total_bytes"]
    received = sum(line_bytes(m) for m in theirs.values())
    check(within(received, sent, 0.02), f"iperf -s -e received {received:.0f} bytes, xttcp sent {sent}")

    port = free_port_block(1)
    json_file = os.path.join(scratch_dir(), "server.json")
    server = Process([as_iperf(xttcp), "-s", "-p", str(port), "--json", json_file], "xttcp as iperf -s")
    started.append(server)
    wait_listening(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-p", str(port), "-t", "3", "-P", "2", "-i", "1",
                      "-e"], "iperf -c -e")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c -e failed: {client.stdout()}")
    theirs = whole_test_lines(TCP_CLIENT, client.stdout(), {"1", "2"})
    check(len(theirs) == 2 and all(m.group(12) for m in theirs.values()),
          f"iperf -c -e's stream lines do not parse as xttcp's do:\n{client.stdout()}")
    server.wait_output("[SUM] 0.0000-", timeout=30)
    stop(server)
    received = load_json(json_file)["summary"]["total_bytes"]
    sent = sum(line_bytes(m) for m in theirs.values())
    check(within(received, sent, 0.02), f"xttcp received {received} bytes, iperf -c -e sent {sent:.0f}")


def udp_enhanced(xttcp, started):
    """-u -e at both ends, one stream at 10 Mbit/s (iperf 2.1.8's server with -u -e crashes
    with -P 2): each end's lines parse with UDP_CLIENT / UDP_SERVER, whichever tool printed them."""
    need_iperf()
    port = free_port_block(1)
    server = Process([IPERF, "-s", "-u", "-e", "-i", "1", "-p", str(port)], "iperf -s -u -e")
    started.append(server)
    wait_udp_bound(port)
    json_file = os.path.join(scratch_dir(), "client.json")
    client = Process([as_iperf(xttcp), "-c", "127.0.0.1", "-u", "-b", "10m", "-p", str(port), "-t",
                      "3", "-i", "1", "-e", "--json", json_file], "xttcp as iperf -c -u -e")
    started.append(client)
    check(client.wait(60) == 0, f"xttcp client failed: {client.stderr()}")
    check(len(UDP_CLIENT.findall(client.stdout())) >= 4,
          f"xttcp's -e lines (3 intervals, the test) do not parse:\n{client.stdout()}")
    check(UDP_SERVER.search(client.stdout()), f"no enhanced server report:\n{client.stdout()}")
    server.wait_output("[  1] 0.0000-3.", timeout=30)
    stop(server)
    theirs = whole_test_lines(UDP_SERVER, server.stdout(), {"1"})
    check("1" in theirs, f"iperf -s -u -e's line does not parse as xttcp's does:\n{server.stdout()}")
    sent = load_json(json_file)["summary"]["total_bytes"]
    check(within(line_bytes(theirs["1"]), sent, 0.02),
          f"iperf -s -u -e received {line_bytes(theirs['1']):.0f} bytes, xttcp sent {sent}")

    port = free_port_block(1)
    json_file = os.path.join(scratch_dir(), "server.json")
    server = Process([as_iperf(xttcp), "-s", "-u", "-e", "-i", "1", "-p", str(port), "--json",
                      json_file], "xttcp as iperf -s -u -e")
    started.append(server)
    wait_udp_bound(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-u", "-b", "10m", "-p", str(port), "-t", "3",
                      "-i", "1", "-e"], "iperf -c -u -e")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c -u -e failed: {client.stdout()}")
    theirs = whole_test_lines(UDP_CLIENT, client.stdout(), {"1"})
    check("1" in theirs, f"iperf -c -u -e's line does not parse as xttcp's does:\n{client.stdout()}")
    server.wait_output("[  1] 0.0000-3.", timeout=30)
    stop(server)
    ours = whole_test_lines(UDP_SERVER, server.stdout(), {"1"})
    check("1" in ours and len(UDP_SERVER.findall(server.stdout())) >= 4,
          f"xttcp's -e server lines do not parse:\n{server.stdout()}")
    received = load_json(json_file)["summary"]["total_bytes"]
    check(within(received, line_bytes(theirs["1"]), 0.02),
          f"xttcp received {received} bytes, iperf -c -u -e sent {line_bytes(theirs['1']):.0f}")


CASES = {
    "live-xttcp-client": live_xttcp_client,
    "live-csv-xttcp-client": live_csv_xttcp_client,
    "live-xttcp-server": live_xttcp_server,
    "tcp-enhanced": tcp_enhanced,
    "udp-enhanced": udp_enhanced,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
