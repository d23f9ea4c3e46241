#!/usr/bin/env python3
"""The iperf2 dialect's UDP against Debian's iperf 2.1.8 (/usr/bin/iperf) on loopback, both ways,
paced with -b: xttcp invoked as `iperf -c -u` against a real `iperf -s -u`, and a real
`iperf -c -u` against xttcp as `iperf -s -u`. The two ends' byte totals agree within 2 %; the
server's datagram total is the sender's count (its data datagrams and the FIN); the server
report the client prints (from the report datagram) is the one the server printed. Cases:
udp-xttcp-client, udp-xttcp-server.
Exits 77 when /usr/bin/iperf is missing (scripts/install-deps.sh installs the iperf package)."""
import os
import re
import signal
import sys
import time

from xttcp_e2e import (Process, SkipTest, check, free_port_block, load_json, run_cases, scratch_dir,
                       wait_udp_bound, within)

IPERF = "/usr/bin/iperf"
LENGTH = 1000  # -l: bytes a datagram
# "[  1] 0.0000-3.0012 sec   3.58 MBytes  10.0 Mbits/sec   0.012 ms 0/3751 (0%)"
JITTER_LOSS = re.compile(r"^\[\s*1\] 0\.0000-[\d.]+ sec .*/sec\s+([\d.]+) ms (\d+)/(\d+) \(", re.M)


def need_iperf():
    if not os.access(IPERF, os.X_OK):
        raise SkipTest(f"{IPERF} is missing (apt-get install iperf; scripts/install-deps.sh does)")


def as_iperf(xttcp):
    link = os.path.join(scratch_dir("xttcp-iperf2-udp-"), "iperf")
    os.symlink(xttcp, link)
    return link


def stop(process):
    """A server serves until Ctrl+C: send it and wait for its exit."""
    process.signal(signal.SIGINT)
    process.wait(20)


def wait_csv_row(process, timeout=30):
    """iperf -s -y C prints a stream's row when its FIN arrived; fails if it exits first."""
    deadline = time.monotonic() + timeout
    while True:
        rows = [line.split(",") for line in process.stdout().splitlines()
                if len(line.split(",")) == 14]
        if rows:
            return rows[0]
        check(process.proc.poll() is None, f"{process.name} exited:\n{process.stdout()}")
        check(time.monotonic() < deadline, f"{process.name} printed no UDP CSV row")
        time.sleep(0.05)


def udp_xttcp_client(xttcp, started):
    """iperf -s -u counts loss and jitter of xttcp's datagrams from their iperf 2 heads; its
    report datagram comes back and xttcp prints it as "Server Report:"."""
    need_iperf()
    port = free_port_block(1)
    server = Process([IPERF, "-s", "-u", "-p", str(port), "-y", "C"], "iperf -s -u -y C")
    started.append(server)
    wait_udp_bound(port)
    json_file = os.path.join(scratch_dir(), "client.json")
    client = Process([as_iperf(xttcp), "-c", "127.0.0.1", "-u", "-p", str(port), "-t", "3",
                      "-b", "10m", "-l", str(LENGTH), "--json", json_file], "xttcp as iperf -c -u")
    started.append(client)
    check(client.wait(60) == 0, f"xttcp client failed: {client.stderr()}")
    out = client.stdout()
    check(f"Client connecting to 127.0.0.1, UDP port {port}" in out, f"no UDP banner:\n{out}")
    check(f"Sending {LENGTH} byte datagrams" in out, f"no datagram size line:\n{out}")
    check("[  1] Server Report:" in out, f"no server report:\n{out}\n{client.stderr()}")
    sent_line = re.search(r"^\[  1\] Sent (\d+) datagrams$", out, re.M)
    check(sent_line, f"no 'Sent N datagrams' line:\n{out}")
    reported = JITTER_LOSS.search(out)
    check(reported, f"no jitter/loss line in the server report:\n{out}")
    result = load_json(json_file)
    sent_bytes = result["summary"]["total_bytes"]  # the measured window
    data_datagrams = result["udp"]["run"]["sent"]    # the whole run, as the FIN numbers them
    # iperf -s: timestamp,src,sport,dst,dport,id,interval,bytes,bps,jitter,lost,total,%,ooo
    row = wait_csv_row(server)
    received, lost, total = int(row[7]), int(row[10]), int(row[11])
    check(total == data_datagrams + 1,
          f"iperf -s counted {total} datagrams; xttcp sent {data_datagrams} and the FIN")
    check(int(sent_line.group(1)) == total, f"Sent {sent_line.group(1)}, server total {total}")
    check(received == (total - lost) * LENGTH,
          f"iperf -s received {received} bytes: not {total} - {lost} datagrams of {LENGTH}")
    check(within(received, sent_bytes, 0.02),
          f"iperf -s received {received} bytes, xttcp sent {sent_bytes}: more than 2 % apart")
    check(float(row[9]) >= 0, f"jitter {row[9]}")
    # The report xttcp printed is the one iperf -s printed.
    check((reported.group(2), reported.group(3)) == (row[10], row[11]),
          f"xttcp's server report says {reported.group(2)}/{reported.group(3)}, iperf -s "
          f"{row[10]}/{row[11]}")
    check(abs(float(reported.group(1)) - float(row[9])) <= 0.0011,
          f"jitter: xttcp printed {reported.group(1)} ms, iperf -s {row[9]} ms")
    stop(server)


def udp_xttcp_server(xttcp, started):
    """xttcp counts iperf -c -u's datagrams, loss and jitter from their heads and answers the FIN
    with the report iperf's client prints."""
    need_iperf()
    port = free_port_block(1)
    json_file = os.path.join(scratch_dir(), "server.json")
    server = Process([as_iperf(xttcp), "-s", "-u", "-p", str(port), "--json", json_file],
                     "xttcp as iperf -s -u")
    started.append(server)
    server.wait_output("Server listening on UDP port")
    wait_udp_bound(port)
    client = Process([IPERF, "-c", "127.0.0.1", "-u", "-p", str(port), "-t", "3", "-b", "10m",
                      "-l", str(LENGTH)], "iperf -c -u")
    started.append(client)
    check(client.wait(60) == 0, f"iperf -c -u failed: {client.stdout()}")
    out = client.stdout()
    check("WARNING: did not receive ack" not in out, f"iperf got no report from xttcp:\n{out}")
    check("[  1] Server Report:" in out, f"iperf printed no server report:\n{out}")
    sent = re.search(r"^\[  1\] Sent (\d+) datagrams$", out, re.M)
    check(sent, f"iperf printed no 'Sent N datagrams':\n{out}")
    theirs = JITTER_LOSS.search(out)
    check(theirs, f"iperf's server report has no jitter/loss:\n{out}")
    # iperf 2.1.8 prints one more than the datagrams it numbered (data + the FIN).
    total = int(sent.group(1)) - 1
    check(int(theirs.group(3)) == total,
          f"xttcp reported {theirs.group(3)} datagrams; iperf sent {total} (data + FIN)")
    server.wait_output("Lost/Total Datagrams", timeout=30)
    deadline = time.monotonic() + 30
    while not JITTER_LOSS.search(server.stdout()):
        check(time.monotonic() < deadline, f"xttcp printed no stream line:\n{server.stdout()}")
        time.sleep(0.05)
    stop(server)
    ours = JITTER_LOSS.search(server.stdout())
    check(ours.groups() == theirs.groups(),
          f"xttcp printed {ours.groups()}, iperf's server report {theirs.groups()}")
    result = load_json(json_file)
    check(result["udp"]["payload"] == "iperf2", f"udp.payload is {result['udp']['payload']}")
    received = result["summary"]["total_bytes"]
    # The window starts at the first datagram's arrival: its bytes may fall on either side.
    check(within(received, total * LENGTH, 0.02),
          f"xttcp received {received} bytes, iperf sent {total * LENGTH}: more than 2 % apart")


CASES = {
    "udp-xttcp-client": udp_xttcp_client,
    "udp-xttcp-server": udp_xttcp_server,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
