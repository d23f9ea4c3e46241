#!/usr/bin/env python3
"""The iperf2 dialect against Debian's iperf 2.1.8 (/usr/bin/iperf) on loopback, both ways:
xttcp invoked as `iperf` (a link) as the client of a real `iperf -s`, and as the server of a real
`iperf -c`. TCP with -P 4: the two ends' byte totals agree within 2 %. (UDP:
iperf2_udp_peer_test.py.) With -y C on both ends, each stream's bytes agree. Cases:
tcp-xttcp-client, tcp-xttcp-server, csv-xttcp-server.
Exits 77 when /usr/bin/iperf is missing (scripts/install-deps.sh installs the iperf package)."""
import os
import re
import signal
import sys
import time

from xttcp_e2e import (Process, SkipTest, check, free_port_block, load_json, run_cases, scratch_dir,
                       wait_listening, within)

IPERF = "/usr/bin/iperf"


def need_iperf():
    if not os.access(IPERF, os.X_OK):
        raise SkipTest(f"{IPERF} is missing (apt-get install iperf; scripts/install-deps.sh does)")


def as_iperf(xttcp):
    """xttcp under the name iperf: the name chooses the iperf2 dialect."""
    link = os.path.join(scratch_dir("xttcp-iperf2-"), "iperf")
    os.symlink(xttcp, link)
    return link


def csv_rows(text):
    """iperf 2's -y C lines: timestamp, local, lport, remote, rport, id, interval, bytes, bps[, ...]."""
    rows = []
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) >= 9 and re.fullmatch(r"[\d.]+", fields[0]):
            rows.append(fields)
    return rows


def wait_csv_rows(process, count, timeout=30):
    """Waits until `process` printed `count` CSV lines; fails if it exits first."""
    deadline = time.monotonic() + timeout
    while len(csv_rows(process.stdout())) < count:
        check(process.proc.poll() is None, f"{process.name} exited:\n{process.stdout()}")
        check(time.monotonic() < deadline, f"{process.name} printed fewer than {count} CSV lines")
        time.sleep(0.05)


def stop(process):
    """A server serves until Ctrl+C: send it and wait for its exit."""
    process.signal(signal.SIGINT)
    process.wait(20)


def tcp_xttcp_client(xttcp, started):
    need_iperf()
    port = free_port_block(1)
    server = Process([IPERF, "-s", "-p", str(port), "-y", "C"], "iperf -s")
    started.append(server)
    wait_listening(port)
    json_file = os.path.join(scratch_dir(), "client.json")
    client = Process([as_iperf(xttcp), "-c", "127.0.0.1", "-p", str(port), "-t", "3", "-P", "4",
                      "-i", "1", "--json", json_file], "xttcp as iperf -c")
    started.append(client)
    check(client.wait(60) == 0, f"xttcp client failed: {client.stderr()}")
    out = client.stdout()
    check("Client connecting to 127.0.0.1, TCP port" in out, "no iperf 2 banner")
    check("[ ID] Interval       Transfer     Bandwidth" in out, "no iperf 2 header line")
    check(re.search(r"^\[SUM\] 0\.0000-3\.\d{4} sec .* [KMG]?bits/sec$", out, re.M),
          f"no [SUM] line over the whole test:\n{out}")
    check(len(re.findall(r"^\[SUM\] \d+\.\d{4}-\d+\.\d{4} sec", out, re.M)) >= 3,
          "no [SUM] interval lines with -i 1")
    sent = load_json(json_file)["summary"]["total_bytes"]
    wait_csv_rows(server, 4)  # iperf -s prints one line per stream as each closes
    rows = csv_rows(server.stdout())
    check(len(rows) >= 4, f"iperf -s reported {len(rows)} streams, not 4:\n{server.stdout()}")
    received = sum(int(r[7]) for r in rows[:4])
    check(within(received, sent, 0.02),
          f"iperf -s received {received} bytes, xttcp sent {sent}: more than 2 % apart")
    stop(server)


def tcp_xttcp_server(xttcp, started):
    need_iperf()
    port = free_port_block(1)
    json_file = os.path.join(scratch_dir(), "server.json")
    server = Process([xttcp, "--dialect", "iperf2", "-s", "-p", str(port), "--json", json_file],
                     "xttcp --dialect iperf2 -s")
    started.append(server)
    server.wait_output("Server listening on TCP port")
    wait_listening(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-p", str(port), "-t", "3", "-P", "4", "-y", "C"],
                     "iperf -c")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c failed: {client.stdout()}")
    rows = csv_rows(client.stdout())
    check(len(rows) == 4, f"iperf -c printed {len(rows)} stream lines, not 4:\n{client.stdout()}")
    sent = sum(int(r[7]) for r in rows)
    server.wait_output("[SUM] 0.0000-", timeout=30)
    stop(server)
    out = server.stdout()
    check(len(re.findall(r"^\[  \d\] local 127\.0\.0\.1 port \d+ connected with", out, re.M)) == 4,
          f"not four connection lines:\n{out}")
    received = load_json(json_file)["summary"]["total_bytes"]
    check(within(received, sent, 0.02),
          f"xttcp received {received} bytes, iperf -c sent {sent}: more than 2 % apart")


def csv_xttcp_server(xttcp, started):
    """-y C on both ends: each stream's row on the xttcp server has the bytes iperf -c's row says
    it sent (both count the 60-byte header), and the source is the client, as iperf 2 writes it."""
    need_iperf()
    port = free_port_block(1)
    server = Process([as_iperf(xttcp), "-s", "-p", str(port), "-y", "C"], "xttcp as iperf -s -y C")
    started.append(server)
    wait_listening(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-p", str(port), "-t", "2", "-P", "2", "-y", "C"],
                     "iperf -c -y C")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c failed: {client.stdout()}")
    wait_csv_rows(server, 2)
    stop(server)
    check(server.stdout().strip().count("\n") == 1, f"more than the two CSV lines:\n{server.stdout()}")
    sent = {r[2]: int(r[7]) for r in csv_rows(client.stdout())}      # client port -> bytes
    received = {r[2]: int(r[7]) for r in csv_rows(server.stdout())}  # source = the client
    check(set(sent) == set(received), f"streams differ: iperf -c {sent}, xttcp {received}")
    for port_, bytes_ in sent.items():
        check(within(received[port_], bytes_, 0.02),
              f"stream from port {port_}: xttcp received {received[port_]}, iperf sent {bytes_}")


CASES = {
    "tcp-xttcp-client": tcp_xttcp_client,
    "tcp-xttcp-server": tcp_xttcp_server,
    "csv-xttcp-server": csv_xttcp_server,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
