#!/usr/bin/env python3
"""The iperf2 dialect's live interval lines and enhanced (-e) columns against Debian's iperf 2.1.8
(/usr/bin/iperf) on loopback. Live: the first -i line of an xttcp client (and of an xttcp
server) is read while the test still runs (its peer's -t is 30 s; the test then stops it by PID
with Ctrl+C); the server's, of two streams, are each stream's and their [SUM]; a server's -y C
rows (TCP and UDP), one per stream, too. Enhanced: xttcp -c -e against `iperf -s -e` and `iperf -c -e` against
xttcp -s -e (TCP -P 2; UDP -e at both ends, paced with -b): one regex per kind of line parses
both tools' lines, and the two ends' byte totals agree within 2 %. Per stream: with -P 2 -i 1
each stream has its own interval lines at both ends, TCP (a client's -e lines with Rtry and
Cwnd/RTT, a server's with Reads=Dist) and UDP, parsed by the regex that parses iperf 2's.
Cases: live-xttcp-client, live-csv-xttcp-client, live-xttcp-server, live-csv-xttcp-server,
live-csv-xttcp-udp-server, tcp-enhanced, udp-enhanced, tcp-per-stream, udp-per-stream.
Exits 77 when /usr/bin/iperf is missing (scripts/install-deps.sh installs the iperf package)."""
import os
import re
import signal
import sys
import time

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
# A TCP server's -e line: "  Reads=Dist", its reads and their 8 bins by size.
TCP_SERVER = re.compile(FIGURES + r"\s+(\d+)=(\d+(?::\d+){7})$", re.M)
# A -y C row of TCP: timestamp, source (the client) and destination, id, interval, bytes, bits/s.
CSV_ROW = re.compile(r"^(\d{14}(?:\.\d{3})?),([\d.]+),(\d+),([\d.]+),(\d+),(-?\d+),"
                     r"(\d+\.\d)-(\d+\.\d),(\d+),(\d+)$", re.M)
# A -y C row of UDP: the TCP row's fields, then jitter (ms), lost, total, loss % and out-of-order.
CSV_UDP_ROW = re.compile(r"^(\d{14}(?:\.\d{3})?),([\d.]+),(\d+),([\d.]+),(\d+),(-?\d+),"
                         r"(\d+\.\d)-(\d+\.\d),(\d+),(\d+),([\d.]+),(-?\d+),(-?\d+),(-?[\d.]+),(\d+)$",
                         re.M)
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


def wait_whole_test_lines(process, regex, ids, timeout=30):
    """Waits until `process` printed a whole-test line of `regex` for each of `ids` (a stream's
    test may end a little short of -t: "0.0000-2.9934")."""
    deadline = time.monotonic() + timeout
    while len(whole_test_lines(regex, process.stdout(), ids)) < len(ids):
        check(process.proc.poll() is None, f"{process.name} exited before its stream lines")
        check(time.monotonic() < deadline,
              f"{process.name} printed no whole-test line of streams {sorted(ids)}:\n{process.stdout()}")
        time.sleep(0.05)


def wait_first_rows(process, regex, streams=2, timeout=30):
    """Waits until `process` printed the first -y C interval row (0.0-...) of each of `streams`
    streams: each stream's row is its own write, and one may come a while after the other."""
    deadline = time.monotonic() + timeout
    while len([m for m in regex.finditer(process.stdout()) if m.group(7) == "0.0"]) < streams:
        check(process.proc.poll() is None, f"{process.name} exited before its first rows")
        check(time.monotonic() < deadline,
              f"{process.name} printed no first row of {streams} streams:\n{process.stdout()}")
        time.sleep(0.05)


def line_bytes(match):
    return float(match.group(4)) * UNITS[match.group(5)]


def interval_lines(regex, text, stream):
    """The lines of `regex` in `text` of stream `stream` ("1", "SUM") over one -i interval."""
    return [m for m in regex.finditer(text)
            if m.group(1) == stream and float(m.group(3)) - float(m.group(2)) < 1.5]


def check_per_stream(regex, text, who, streams=("1", "2")):
    """Each of `streams` and their [SUM] have interval lines of `regex` in `text`."""
    for stream in (*streams, "SUM"):
        check(interval_lines(regex, text, stream),
              f"{who} printed no interval lines of stream {stream} that parse:\n{text}")


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
    # Two streams: the server's interval lines are each stream's and their [SUM].
    server.wait_output("[SUM] 0.0000-1.0000 sec")
    check(client.proc.poll() is None, "the first interval line came only once the test ended")
    check("[  1] 0.0000-1.0000 sec" in server.stdout() and "[  2] 0.0000-1.0000 sec" in server.stdout(),
          f"no interval line of each stream before their [SUM]:\n{server.stdout()}")
    stop(client)  # iperf 2's client ends its test on Ctrl+C and closes its streams
    server.wait_output("[  2] 0.0000-", timeout=30)
    stop(server)


def tcp_enhanced(xttcp, started):
    """xttcp -c -e against iperf -s -e, and iperf -c -e against xttcp -s -e: both clients' lines
    parse with TCP_CLIENT, both servers' with TCP_SERVER."""
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
    check(len(interval_lines(TCP_CLIENT, client.stdout(), "SUM")) >= 3,
          f"no -e [SUM] interval lines:\n{client.stdout()}")
    wait_whole_test_lines(server, TCP_SERVER, {"1", "2"})
    stop(server)
    # iperf -s -e: "[  1] 0.0000-3.0039 sec  4.59 GBytes  13.1 Gbits/sec  55576=8930:..."
    theirs = whole_test_lines(TCP_SERVER, server.stdout(), {"1", "2"})
    check(len(theirs) == 2, f"iperf -s -e printed no stream lines:\n{server.stdout()}")
    sent = load_json(json_file)["summary"]["total_bytes"]
    received = sum(line_bytes(m) for m in theirs.values())
    check(within(received, sent, 0.02), f"iperf -s -e received {received:.0f} bytes, xttcp sent {sent}")

    port = free_port_block(1)
    json_file = os.path.join(scratch_dir(), "server.json")
    server = Process([as_iperf(xttcp), "-s", "-e", "-p", str(port), "--json", json_file],
                     "xttcp as iperf -s -e")
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
    ours = whole_test_lines(TCP_SERVER, server.stdout(), {"1", "2"})
    check(len(ours) == 2, f"xttcp -s -e's stream lines do not parse as iperf -s -e's do:\n{server.stdout()}")
    received = load_json(json_file)["summary"]["total_bytes"]
    sent = sum(line_bytes(m) for m in theirs.values())
    check(within(received, sent, 0.02), f"xttcp received {received} bytes, iperf -c -e sent {sent:.0f}")
    check(within(sum(line_bytes(m) for m in ours.values()), received, 0.02),
          f"xttcp -s -e's stream lines do not add up to what it received:\n{server.stdout()}")


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
    wait_whole_test_lines(server, UDP_SERVER, {"1"})
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
    wait_whole_test_lines(server, UDP_SERVER, {"1"})
    stop(server)
    ours = whole_test_lines(UDP_SERVER, server.stdout(), {"1"})
    check("1" in ours and len(UDP_SERVER.findall(server.stdout())) >= 4,
          f"xttcp's -e server lines do not parse:\n{server.stdout()}")
    received = load_json(json_file)["summary"]["total_bytes"]
    check(within(received, line_bytes(theirs["1"]), 0.02),
          f"xttcp received {received} bytes, iperf -c -u -e sent {line_bytes(theirs['1']):.0f}")


def live_csv_xttcp_server(xttcp, started):
    """-y C: a server's interval rows come live, one per stream (as iperf 2.1.8 writes them: no
    sum row), the source being the client."""
    need_iperf()
    port = free_port_block(1)
    server = Process([as_iperf(xttcp), "-s", "-p", str(port), "-i", "1", "-y", "C"],
                     "xttcp as iperf -s -i 1 -y C")
    started.append(server)
    wait_listening(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-p", str(port), "-t", "30", "-P", "2", "-i", "1",
                      "-y", "C"], "iperf -c -t 30 -P 2 -i 1 -y C")
    started.append(client)
    wait_first_rows(client, CSV_ROW)
    deadline = time.monotonic() + 20
    while len([m for m in CSV_ROW.finditer(server.stdout()) if m.group(7) == "0.0"]) < 2:
        check(client.proc.poll() is None, f"the server's first rows came only once the test ended:\n"
                                          f"{server.stdout()}")
        check(time.monotonic() < deadline, f"no row of each stream from the server:\n{server.stdout()}")
        time.sleep(0.05)
    ours = [m for m in CSV_ROW.finditer(server.stdout()) if m.group(7) == "0.0"]
    theirs = [m for m in CSV_ROW.finditer(client.stdout()) if m.group(7) == "0.0"]
    check(sorted(m.group(6) for m in ours) == ["1", "2"], f"not one row per stream:\n{server.stdout()}")
    check(len(theirs) >= 2, f"iperf -c -y C's rows do not parse as xttcp's do:\n{client.stdout()}")
    client_ports = sorted(m.group(3) for m in theirs[:2])
    check(sorted(m.group(3) for m in ours) == client_ports and all(m.group(5) == str(port) for m in ours),
          f"the server's rows do not name the client as the source:\n{server.stdout()}\n{client.stdout()}")
    stop(client)
    stop(server)


def live_csv_xttcp_udp_server(xttcp, started):
    """-u -y C: a UDP server's interval rows come live too, one per stream, with its jitter, loss
    and total; the source is the client's stream, as iperf 2.1.8 -s -u -y C writes it."""
    need_iperf()
    port = free_port_block(1)
    server = Process([as_iperf(xttcp), "-s", "-u", "-p", str(port), "-i", "1", "-y", "C"],
                     "xttcp as iperf -s -u -i 1 -y C")
    started.append(server)
    wait_udp_bound(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-u", "-b", "10m", "-p", str(port), "-t", "30",
                      "-P", "2", "-i", "1", "-y", "C"], "iperf -c -u -t 30 -P 2 -i 1 -y C")
    started.append(client)
    wait_first_rows(client, CSV_UDP_ROW)
    deadline = time.monotonic() + 20
    while len([m for m in CSV_UDP_ROW.finditer(server.stdout()) if m.group(7) == "0.0"]) < 2:
        check(client.proc.poll() is None, f"the server's first rows came only once the test ended:\n"
                                          f"{server.stdout()}")
        check(time.monotonic() < deadline, f"no row of each stream from the server:\n{server.stdout()}")
        time.sleep(0.05)
    ours = [m for m in CSV_UDP_ROW.finditer(server.stdout()) if m.group(7) == "0.0"]
    theirs = [m for m in CSV_UDP_ROW.finditer(client.stdout()) if m.group(7) == "0.0"]
    check(sorted(m.group(6) for m in ours) == ["1", "2"], f"not one row per stream:\n{server.stdout()}")
    check(len(theirs) >= 2, f"iperf -c -u -y C's rows do not parse as xttcp's do:\n{client.stdout()}")
    check(sorted(m.group(3) for m in ours) == sorted(m.group(3) for m in theirs[:2]),
          f"the server's rows do not name the client's streams as the source:\n{server.stdout()}\n"
          f"{client.stdout()}")
    check(all(int(m.group(13)) > 0 for m in ours), f"a row without its datagrams:\n{server.stdout()}")
    stop(client)
    stop(server)


def tcp_per_stream(xttcp, started):
    """-P 2 -i 1 -e, xttcp -c against iperf -s -e -i 1 and iperf -c against xttcp -s -e -i 1:
    each stream's interval lines and their [SUM], a client's with Write/Err, Rtry and
    Cwnd/RTT(var) (TCP_INFO at each interval's end), a server's with Reads=Dist."""
    need_iperf()
    port = free_port_block(1)
    server = Process([IPERF, "-s", "-e", "-i", "1", "-p", str(port)], "iperf -s -e -i 1")
    started.append(server)
    wait_listening(port)
    json_file = os.path.join(scratch_dir(), "client.json")
    client = Process([as_iperf(xttcp), "-c", "127.0.0.1", "-p", str(port), "-t", "3", "-P", "2",
                      "-i", "1", "-e", "--json", json_file], "xttcp as iperf -c -P 2 -i 1 -e")
    started.append(client)
    check(client.wait(60) == 0, f"xttcp client failed: {client.stderr()}")
    ours = client.stdout()
    check_per_stream(TCP_CLIENT, ours, "xttcp -c -P 2 -i 1 -e")
    for stream in ("1", "2"):
        check(all(m.group(12) for m in interval_lines(TCP_CLIENT, ours, stream)),
              f"stream {stream}'s interval lines lack Rtry and Cwnd/RTT(var):\n{ours}")
    check(all(m.group(8) for m in interval_lines(TCP_CLIENT, ours, "SUM")),
          f"the [SUM] interval lines lack Rtry:\n{ours}")
    wait_whole_test_lines(server, TCP_SERVER, {"1", "2"})
    stop(server)
    check_per_stream(TCP_SERVER, server.stdout(), "iperf -s -e -i 1")
    sent = load_json(json_file)["summary"]["total_bytes"]
    received = sum(line_bytes(m) for m in whole_test_lines(TCP_SERVER, server.stdout(), {"1", "2"}).values())
    check(within(received, sent, 0.02), f"iperf -s -e received {received:.0f} bytes, xttcp sent {sent}")

    port = free_port_block(1)
    json_file = os.path.join(scratch_dir(), "server.json")
    server = Process([as_iperf(xttcp), "-s", "-e", "-i", "1", "-p", str(port), "--json", json_file],
                     "xttcp as iperf -s -e -i 1")
    started.append(server)
    wait_listening(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-p", str(port), "-t", "3", "-P", "2", "-i", "1",
                      "-e"], "iperf -c -P 2 -i 1 -e")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c -e failed: {client.stdout()}")
    check_per_stream(TCP_CLIENT, client.stdout(), "iperf -c -P 2 -i 1 -e")
    server.wait_output("[SUM] 0.0000-", timeout=30)
    stop(server)
    check_per_stream(TCP_SERVER, server.stdout(), "xttcp -s -e -i 1")
    received = load_json(json_file)["summary"]["total_bytes"]
    sent = sum(line_bytes(m) for m in whole_test_lines(TCP_CLIENT, client.stdout(), {"1", "2"}).values())
    check(within(received, sent, 0.02), f"xttcp received {received} bytes, iperf -c sent {sent:.0f}")


def udp_per_stream(xttcp, started):
    """-u -P 2 -i 1 at 10 Mbit/s a stream: an xttcp client's -e lines of each stream against
    iperf -s -u -i 1 (iperf 2.1.8's server with -u -e crashes with -P 2), and an xttcp server's
    -e lines of each stream against iperf -c -u -P 2 -i 1 -e."""
    need_iperf()
    port = free_port_block(1)
    server = Process([IPERF, "-s", "-u", "-i", "1", "-p", str(port)], "iperf -s -u -i 1")
    started.append(server)
    wait_udp_bound(port)
    json_file = os.path.join(scratch_dir(), "client.json")
    client = Process([as_iperf(xttcp), "-c", "127.0.0.1", "-u", "-b", "10m", "-p", str(port), "-t",
                      "3", "-P", "2", "-i", "1", "-e", "--json", json_file],
                     "xttcp as iperf -c -u -P 2 -i 1 -e")
    started.append(client)
    check(client.wait(60) == 0, f"xttcp client failed: {client.stderr()}")
    check_per_stream(UDP_CLIENT, client.stdout(), "xttcp -c -u -P 2 -i 1 -e")
    plain = re.compile(FIGURES + r"\s+([\d.]+) ms (\d+)/(\d+) \(([\d.e+-]+)%\)$", re.M)
    wait_whole_test_lines(server, plain, {"1", "2"})
    stop(server)
    sent = load_json(json_file)["summary"]["total_bytes"]
    received = sum(line_bytes(m) for m in whole_test_lines(plain, server.stdout(), {"1", "2"}).values())
    check(within(received, sent, 0.02), f"iperf -s -u received {received:.0f} bytes, xttcp sent {sent}")

    port = free_port_block(1)
    json_file = os.path.join(scratch_dir(), "server.json")
    server = Process([as_iperf(xttcp), "-s", "-u", "-e", "-i", "1", "-p", str(port), "--json",
                      json_file], "xttcp as iperf -s -u -e -i 1")
    started.append(server)
    wait_udp_bound(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-u", "-b", "10m", "-p", str(port), "-t", "3",
                      "-P", "2", "-i", "1", "-e"], "iperf -c -u -P 2 -i 1 -e")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c -u -e failed: {client.stdout()}")
    check_per_stream(UDP_CLIENT, client.stdout(), "iperf -c -u -P 2 -i 1 -e")
    wait_whole_test_lines(server, UDP_SERVER, {"1", "2"})
    stop(server)
    for stream in ("1", "2"):
        check(interval_lines(UDP_SERVER, server.stdout(), stream),
              f"xttcp -s -u -e printed no interval lines of stream {stream} that parse:\n{server.stdout()}")
    received = load_json(json_file)["summary"]["total_bytes"]
    sent = sum(line_bytes(m) for m in whole_test_lines(UDP_CLIENT, client.stdout(), {"1", "2"}).values())
    check(within(received, sent, 0.02), f"xttcp received {received} bytes, iperf -c -u sent {sent:.0f}")


CASES = {
    "live-xttcp-client": live_xttcp_client,
    "live-csv-xttcp-client": live_csv_xttcp_client,
    "live-xttcp-server": live_xttcp_server,
    "live-csv-xttcp-server": live_csv_xttcp_server,
    "live-csv-xttcp-udp-server": live_csv_xttcp_udp_server,
    "tcp-enhanced": tcp_enhanced,
    "udp-enhanced": udp_enhanced,
    "tcp-per-stream": tcp_per_stream,
    "udp-per-stream": udp_per_stream,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
