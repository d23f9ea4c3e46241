#!/usr/bin/env python3
"""The command lines and files of the frameworks that drive NTttcp (reference/consumers.md):
LISA's unquoted interrupt string, the sender-only options NTTTCP-for-Linux's own tests pass to
the receiver too, the -V sender's per-connection lines they grep, and a Windows XML file that
VirtualClient reads as numbers even where a counter is absent (DPCs on Linux). Then each
consumer's own patterns (as published in their sources) over xttcp's real output, invoked under
the original's name as they install it: LISA's console regexes (Linux and Windows), the
NTTTCP-for-Linux functional tests' regexes, VirtualClient's typed reading of both XML files and
PerfKitBenchmarker's reading of xml.txt. docs/compatibility.md lists what each case checks.
Usage: frameworks_test.py XTTCP [CASE...]"""
import decimal
import os
import re
import shlex
import sys
import xml.etree.ElementTree as ET

from xttcp_e2e import (Process, check, free_port_block, load_json, load_xml, run_cases,
                       scratch_dir, wait_listening, wait_udp_bound)


def under_name(xttcp, name):
    """A symlink called `name` (ntttcp, NTttcp.exe) to the binary, as the frameworks install it."""
    link = os.path.join(scratch_dir(), name)
    os.symlink(os.path.abspath(xttcp), link)
    return link


def shell_process(xttcp, line, name):
    """xttcp started the way the frameworks start it: one line split by a shell, unquoted."""
    return Process(["sh", "-c", f"exec {shlex.quote(xttcp)} {line}"], name)


def lisa_stray_words(xttcp, started):
    # lisa/tools/ntttcp.py: run_as_server_async / run_as_client, with the default differentiator
    # "Hypervisor callback interrupts" unquoted; loopback, 2 ports and short phases here.
    base = free_port_block(2)
    dev = "Hypervisor callback interrupts"
    receiver = shell_process(
        xttcp, f" -r127.0.0.1  -P 2 -t 1 -W 1 -C 1 -b 64k --show-nic-packets lo  -e "
        f" --show-dev-interrupts {dev}  -p {base}", "LISA receiver")
    started.append(receiver)
    receiver.wait_output("threads created")  # what LISA waits for
    sender = shell_process(
        xttcp, f" -s127.0.0.1 -P 2 -n 1 -t 1 -W 1 -C 1 -b 64k --show-nic-packets lo "
        f" --show-dev-interrupts {dev}  -p {base}", "LISA sender")
    started.append(sender)
    check(sender.wait(40) == 0, "LISA's sender line failed")
    check(receiver.wait(40) == 0, "LISA's receiver line failed")
    for process in (receiver, sender):
        out = process.stdout()
        check("ignoring 'callback', 'interrupts'" in out,
              f"{process.name}: no note naming the ignored words")
        check("--show-dev-interrupts took only 'Hypervisor'" in out,
              f"{process.name}: the note does not say what the option took")
        # What LISA's parser reads from the first Totals block.
        totals = out.split("#####  Totals:  #####", 1)[-1]
        for label in ("throughput", "tx_packets", "rx_packets", "cycles/byte"):
            check(re.search(rf"{re.escape(label)}\s*:\s*[\d.]+", totals),
                  f"{process.name}: no '{label}' figure in the Totals block")
    check(re.search(r"\d+ connections created in \d+ microseconds", sender.stdout()),
          "sender: no 'connections created in' line")


def sender_options_on_receiver(xttcp, started):
    # NTTTCP-for-Linux's test/ passes the same options to both ends; -e and -H the other way.
    base = free_port_block(2)
    source = free_port_block(2)
    common = f"-t 1 -P 2 -p {base} -B 10G --fq-rate-limit 10G -f {source} -n 1 -l 1"
    receiver = shell_process(xttcp, f"-r127.0.0.1 -Q {common}", "receiver")
    started.append(receiver)
    for port in (base - 1, base, base + 1):  # the sync port and both data ports
        wait_listening(port)
    sender = shell_process(xttcp, f"-s127.0.0.1 -Q {common} -e -H", "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    received = receiver.stdout()
    for option in ("-B", "--fq-rate-limit", "-f", "-n", "-l"):
        check(f"INFO: ignore '{option}' on receiver role: it does nothing there (sender only)"
              in received, f"receiver: no note that {option} does nothing there")
    for option in ("-e", "-H"):
        check(f"INFO: ignore '{option}' on sender role: it does nothing there (receiver only)"
              in sender.stdout(), f"sender: no note that {option} does nothing there")
    check("#####  Totals:  #####" in received, "receiver: no results")


def connection_lines(xttcp, started, udp):
    base = free_port_block(2)
    proto = ["-u", "-b", "1400"] if udp else []
    receiver = Process([xttcp, "-r", "127.0.0.1", "-p", str(base), "-P", "2", "-t", "1", "-Q",
                        *proto], "receiver")
    started.append(receiver)
    wait_listening(base - 1)  # the sync port
    for port in (base, base + 1):
        (wait_udp_bound if udp else wait_listening)(port)
    sender = Process([xttcp, "-s", "127.0.0.1", "-p", str(base), "-P", "2", "-n", "2", "-t", "1",
                      "-Q", "-V", *proto], "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    lines = sender.stdout().splitlines()
    what = "Running UDP stream" if udp else "New connection"
    pattern = re.compile(rf"^\d\d:\d\d:\d\d DBG : {what}: local:(\d+) \[socket:(\d+)\] --> "
                         rf"127\.0\.0\.1:(\d+)$")
    found = [(i, pattern.match(line)) for i, line in enumerate(lines) if pattern.match(line)]
    check(len(found) == 4, f"sender: {len(found)} '{what}' lines for 2 ports x 2 threads, not 4")
    ports = sorted(int(m.group(3)) for _, m in found)
    check(ports == [base, base, base + 1, base + 1], f"sender: connections to ports {ports}")
    check(len({m.group(2) for _, m in found}) == 4, "sender: two connections share a socket")
    check(all(int(m.group(1)) > 0 for _, m in found), "sender: a local port is 0")
    # Where the original prints them: after "threads created", before "connections created".
    created = next(i for i, line in enumerate(lines) if "threads created" in line)
    connected = next(i for i, line in enumerate(lines) if "connections created in" in line)
    check(all(created < i < connected for i, _ in found),
          "sender: the connection lines are not between 'threads created' and 'connections "
          "created'")


def windows_xml_numbers(xttcp, started):
    # VirtualClient converts every figure of both XML files to a number; on Linux DPCs (and
    # maybe per-thread completions) are absent: NTttcp writes 0.000 for such a counter.
    base = free_port_block(2)
    work = scratch_dir()
    mapping = ["--dialect", "windows", "-m", "2,*,127.0.0.1", "-t", "1", "-wu", "1", "-cd", "1",
               "-p", str(base), "-ns", "-l", "4k"]
    receiver = Process([xttcp, "-r", *mapping, "-xml", f"{work}/r.xml"], "receiver")
    started.append(receiver)
    wait_listening(base + 1)
    sender = Process([xttcp, "-s", *mapping, "-xml", f"{work}/s.xml"], "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    for path, root in ((f"{work}/r.xml", "ntttcpr"), (f"{work}/s.xml", "ntttcps")):
        tree = load_xml(path, root)
        check(tree.find("dpcs").text == "0.000", f"{path}: <dpcs> is {tree.find('dpcs').text!r}")
        parameters = {id(e) for e in tree.find("parameters")}
        leaves = [e for e in tree.iter() if len(e) == 0 and id(e) not in parameters]
        check(len(leaves) > 20, f"{path}: only {len(leaves)} figures")
        for element in leaves:
            try:
                float(element.text)
            except (TypeError, ValueError):
                check(False, f"{path}: <{element.tag} {element.attrib}> holds {element.text!r}")


# ---- the consumers' own patterns over xttcp's real output ---------------------------------

# LISA, lisa/tools/ntttcp.py: Ntttcp.output_pattern (read with .match from the first "Totals:")
# and throughput_pattern (get_throughput: the first match).
LISA_LINUX = re.compile(
    r"(([\w\W]*?)connections created in "
    r"(?P<connections_created_time>.+) microseconds)?([\w\W]*?)Totals:([\w\W]*?)"
    r"throughput.*:(?P<throughput>.+)(?P<unit>Mbps|Gbps)(([\w\W]*?)"
    r"retrans segs.*:(?P<retrans_segs>.+))?"
    r"([\w\W]*?)tx_packets.*:(?P<tx_packets>.+)"
    r"([\w\W]*?)rx_packets.*:(?P<rx_packets>.+)"
    r"(([\w\W]*?)pkts/interrupt.*:(?P<pkts_interrupt>.+))?"
    r"([\w\W]*?)cycles/byte.*:(?P<cycles_per_byte>.+)",
    re.MULTILINE)
LISA_THROUGHPUT = re.compile(r" \t throughput\t:(.+)")
# LISA's WindowsNtttcp: a "TOTAL <MB/s>" line first, else the Bytes(MEG) table's 4th column.
LISA_WINDOWS_TOTAL = re.compile(r"(?im)^\s*TOTAL\s+(?P<throughput>[0-9]+(?:\.[0-9]+)?)\s*$")
LISA_WINDOWS_TABLE = re.compile(
    r"(?is)Bytes\(MEG\).*?Throughput\(MB/s\).*?"
    r"=+\s+=+\s+=+\s+=+\s*\n"
    r"\s*[0-9]+(?:\.[0-9]+)?\s+"
    r"[0-9]+(?:\.[0-9]+)?\s+"
    r"[0-9]+(?:\.[0-9]+)?\s+"
    r"(?P<throughput>[0-9]+(?:\.[0-9]+)?)")

# The labels NTTTCP-for-Linux prints once per run; a second one (a peer's block) would give a
# script that keeps the last match the other end's figure.
ONCE = ("test duration\t:", "total bytes\t:", "\t throughput\t:", "\t cycles/byte\t:",
        "cpu busy (all)\t:", "\t tx_packets\t:", "\t rx_packets\t:")


def lisa_read(out, who):
    """LISA's create_ntttcp_result: every group it reads must convert with Decimal."""
    m = LISA_LINUX.match(out)
    check(m is not None, f"{who}: LISA's output_pattern does not match")
    for group in ("throughput", "tx_packets", "rx_packets", "cycles_per_byte", "retrans_segs",
                  "pkts_interrupt", "connections_created_time"):
        text = m.group(group)
        if text is None:
            continue
        try:
            decimal.Decimal(text)
        except decimal.InvalidOperation:
            check(False, f"{who}: LISA reads {group} as {text!r}, not a number")
    check(LISA_THROUGHPUT.findall(out), f"{who}: LISA's get_throughput finds nothing")
    return m


def lisa_parsers(xttcp, started, udp):
    # perf_ntttcp: both ends as "ntttcp", receiver awaited on "threads created", the sender run
    # to its end, then the receiver killed at once (Kill.by_name, SIGKILL) and both parsed.
    ntttcp = under_name(xttcp, "ntttcp")
    base = free_port_block(2)
    dev = "Hypervisor callback interrupts"
    size, proto = ("1k", " -u ") if udp else ("64k", "")
    receiver = shell_process(
        ntttcp, f" -r127.0.0.1  -P 2 -t 1 -W 1 -C 1 -b {size} --show-nic-packets lo {proto} -e "
        f" --show-dev-interrupts {dev}  -p {base}", "LISA receiver")
    started.append(receiver)
    receiver.wait_output("threads created")
    sender = shell_process(
        ntttcp, f" -s127.0.0.1 -P 2 -n 1 -t 1 -W 1 -C 1 -b {size} --show-nic-packets lo {proto} "
        f" --show-dev-interrupts {dev}  -a 127.0.0.1  -p {base}", "LISA sender")
    started.append(sender)
    check(sender.wait(40) == 0, "LISA's sender line failed")
    receiver.kill()
    results = {}
    for process in (receiver, sender):
        out = process.stdout()
        results[process.name] = lisa_read(out, process.name)
        for label in ONCE:
            check(out.count(label) == 1,
                  f"{process.name}: {label.strip()!r} printed {out.count(label)} times, not once")
    check(results["LISA sender"].group("connections_created_time") is not None,
          "sender: LISA finds no connections-created time")
    # The sender's lines of LISA's sample output, in its order (warm-up and cool-down given).
    lines = [line.split("INFO: ", 1)[-1] for line in sender.stdout().splitlines()
             if "INFO: " in line]
    expected = ["Test cycle time negotiated is: 3 seconds", "threads created",
                "connections created in", "Network activity progressing...",
                "Test warmup completed.", "Test run completed.",
                "Test cooldown is in progress...", "Test cycle finished.",
                "receiver exited from current test", "connections tested", "#####  Totals:  #####"]
    found = [next((i for i, line in enumerate(lines) if want in line), -1) for want in expected]
    check(-1 not in found and found == sorted(found),
          f"sender: LISA's sample lines missing or out of order: {list(zip(expected, found))}")
    check((results["LISA sender"].group("retrans_segs") is None) == udp,
          "retrans segs: present for UDP or absent for TCP")


def functional_test_parsers(xttcp, started):
    # NTTTCP-for-Linux's test/ntttcp_output.py regexes, over the options of test/functional_test.py
    # (-e -V and -b on the receiver; -W/-C, --show-* and the three files on the sender).
    ntttcp = under_name(xttcp, "ntttcp")
    base = free_port_block(3)
    work = scratch_dir()
    dev = "Hypervisor callback interrupts"
    common = f"-t 1 -Q -P 3 -p {base} -W 1 -C 1 --show-tcp-retrans --show-nic-packets lo " \
             f"--show-dev-interrupts {dev}"
    receiver = shell_process(ntttcp, f"-r127.0.0.1 {common} -e -V -b 1470", "receiver")
    started.append(receiver)
    receiver.wait_output("threads created")
    sender = shell_process(
        ntttcp, f"-s127.0.0.1 {common} -n 2 -l 2 -V -x {work}/s.xml -j {work}/s.json "
        f"-O {work}/s.log", "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    r, s = receiver.stdout(), sender.stdout()
    check(re.findall(r"\*\*\*\s+use epoll()", r), "receiver: no '*** use epoll()'")
    check(re.findall(r"receiver socket buffer \(bytes\):\s+(\d+)", r) == ["1470"],
          "receiver: socket buffer line is not 1470")
    check(re.findall(r"(\d+) connections created in (\d+) microseconds", s)[0][0] == "12",
          "sender: 'connections created' does not count 3 x 2 x 2")
    check(re.findall(r"(\d+) connections tested", s) == ["12"], "sender: 'connections tested'")
    check(re.findall(r"INFO: test duration\s+:(\d+)", s) == ["1"], "sender: test duration")
    for line in ("Network activity progressing...", "Test warmup completed.",
                 "Test cooldown is in progress...", "Test cycle finished."):
        check(re.search(r"(\d+:\d+:\d+) INFO: " + re.escape(line), s), f"sender: no {line!r}")
    check(re.findall(r"INFO:\s+throughput\s+:(\d+\.\d+)(\w+)", s), "sender: throughput")
    check(re.findall(r"retrans_segments/sec\s+:(\d+\.\d+)", s), "sender: retrans_segments/sec")
    check(re.findall(r"\s+tx_packets\s:(\d+)", s) and re.findall(r"\s+rx_packets\s:(\d+)", s),
          "sender: tx/rx packets")
    total = re.findall(r"total\s+:(\d+)", s)
    per_sec = re.findall(r"interrupts/sec\s+:(\d+\.\d+)", s)
    check(total and per_sec, "sender: interrupt total and rate")
    xml_text = open(f"{work}/s.xml").read()
    check(re.findall(r"<throughput metric=\"MB\/s\">(\d+)\.(\d+)", xml_text), "XML: MB/s")
    check(re.findall(r'<total_interrupts metric="count">(\d+)</total_interrupts>', xml_text) ==
          [total[0]], "XML: total_interrupts differs from the console's")
    xml_rate = re.findall(r'<interrupts metric="count/sec">(\d+\.\d+)</interrupts>', xml_text)
    check(xml_rate and abs(float(xml_rate[0]) - float(per_sec[0])) < 0.01, "XML: interrupts/s")
    ET.fromstring(xml_text)
    json_text = open(f"{work}/s.json").read()
    check(re.findall(r"\"throughputs\" : \[[\s\S]*\{[\s\S]*\"metric\" : \"MB\/s\"\,[\s\S]*"
                     r"\"value\" : \"(\d+\.\d+)\"", json_text), "JSON: MB/s throughput")
    doc = load_json(f"{work}/s.json")["ntttcps"]
    check(doc["interruptTotal"]["value"] == total[0], "JSON: interruptTotal differs")
    check(re.findall(r"INFO:\s+throughput\s+:(\d+\.\d+)(\w+)", open(f"{work}/s.log").read()),
          "-O log: no throughput line")


# VirtualClient's NTttcpMetricsParser deserializes either XML file into typed fields: these
# must be integers (C# int/long), every metric element and total_buffers a double.
VC_INTEGERS = ("packets_sent", "packets_received", "packets_retransmitted", "errors",
               "num_processors", "bufferCount", "bufferLen", "io")
VC_PARAMETER_INTEGERS = ("send_socket_buff", "recv_socket_buff", "port",
                         "wait_timeout_milliseconds", "run_time", "warmup_time",
                         "cooldown_time", "dash_n_timeout", "max_active_threads")
VC_DOUBLES = ("total_bytes", "realtime", "avg_bytes_per_compl", "threads_avg_bytes_per_compl",
              "avg_frame_size", "throughput", "total_buffers", "avg_packets_per_interrupt",
              "interrupts", "dpcs", "avg_packets_per_dpc", "cycles", "cycles_per_byte",
              "cpu_cores", "cpu", "cpu_busy_all", "idle", "iowait", "softirq", "system", "user",
              "cpu_speed", "tcp_average_rtt")


def virtualclient_reads(path, root):
    tree = load_xml(path, root)
    for element in tree:
        if element.tag in VC_INTEGERS:
            check(re.fullmatch(r"-?\d+", element.text or ""),
                  f"{path}: <{element.tag}> is {element.text!r}, VirtualClient reads an integer")
        elif element.tag in VC_DOUBLES:
            try:
                float(element.text)
            except (TypeError, ValueError):
                check(False, f"{path}: <{element.tag}> is {element.text!r}, not a number")
    for element in tree.find("parameters"):
        if element.tag in VC_PARAMETER_INTEGERS:
            check(re.fullmatch(r"-?\d+", element.text or ""),
                  f"{path}: <parameters><{element.tag}> is {element.text!r}, not an integer")
    check(tree.find("throughput[@metric='mbps']") is not None, f"{path}: no mbps throughput")


def virtualclient_linux(xttcp, started):
    # VirtualClient's Linux line (short phases): the same options on both ends.
    ntttcp = under_name(xttcp, "ntttcp")
    base = free_port_block(2)
    work = scratch_dir()
    common = f"-V -m 2,*,127.0.0.1 -W 1 -C 1 -t 1 -b 4K -p {base} --show-tcp-retrans"
    receiver = shell_process(ntttcp, f"-r {common} -x {work}/r.xml", "receiver")
    started.append(receiver)
    receiver.wait_output("threads created")
    sender = shell_process(ntttcp, f"-s {common} -x {work}/s.xml", "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    virtualclient_reads(f"{work}/r.xml", "ntttcpr")
    virtualclient_reads(f"{work}/s.xml", "ntttcps")


def windows_pair(program, started, common, cwd=None, receiver_extra="", sender_extra="",
                 receiver_map="127.0.0.1"):
    base = free_port_block(2)
    receiver = shell_process(program, f"-r -m 2,*,{receiver_map} -p {base} {common} "
                             f"{receiver_extra}", "receiver")
    started.append(receiver)
    wait_listening(base + 1)
    sender = shell_process(program, f"-s -m 2,*,127.0.0.1 -p {base} {common} {sender_extra}",
                           "sender")
    started.append(sender)
    check(sender.wait(40) == 0, "sender failed")
    check(receiver.wait(40) == 0, "receiver failed")
    return receiver, sender


def lisa_windows_table(xttcp, started):
    # LISA's WindowsNtttcp line (-p made free here; LISA's sender takes the default 5001).
    receiver, sender = windows_pair(under_name(xttcp, "ntttcp.exe"), started,
                                    "-t 1 -l 65536")
    for process in (receiver, sender):
        out = process.stdout()
        check(LISA_WINDOWS_TOTAL.search(out) is None,
              f"{process.name}: a 'TOTAL' line LISA would read as MB/s")
        m = LISA_WINDOWS_TABLE.search(out)
        check(m is not None and float(m.group("throughput")) > 0,
              f"{process.name}: LISA finds no MB/s in the Bytes(MEG) table")


def pkb_and_virtualclient_windows(xttcp, started):
    # PerfKitBenchmarker: -xml with no file (xml.txt in the working directory), -rb/-sb -1, the
    # receiver on 0.0.0.0. Then VirtualClient's Windows line, -nic on the sender only.
    ntttcp = under_name(xttcp, "NTttcp.exe")
    rdir, sdir = scratch_dir(), scratch_dir()
    base = free_port_block(2)
    receiver = Process(["sh", "-c", f"exec {shlex.quote(ntttcp)} -xml -t 1 -p {base} -r "
                        f"-m '2,*,0.0.0.0' -rb -1 -sb -1"], "PKB receiver", cwd=rdir)
    started.append(receiver)
    wait_listening(base + 1)
    sender = Process(["sh", "-c", f"exec {shlex.quote(ntttcp)} -xml -t 1 -p {base} -s "
                      f"-m '2,*,127.0.0.1' -rb -1 -sb -1"], "PKB sender", cwd=sdir)
    started.append(sender)
    check(sender.wait(40) == 0, "PKB sender failed")
    check(receiver.wait(40) == 0, "PKB receiver failed")
    sent = ET.fromstring(open(f"{sdir}/xml.txt").read())
    received = ET.fromstring(open(f"{rdir}/xml.txt").read())
    check(float(sent.find('./throughput[@metric="mbps"]').text) > 0, "PKB: sender mbps")
    threads = sent.findall("./thread")
    check(len(threads) == 2 and all(float(t.find('./throughput[@metric="mbps"]').text) >= 0
                                    for t in threads), "PKB: per-thread mbps")
    check(any(e.tag == "throughput" and e.attrib["metric"] == "mbps" for e in received),
          "PKB: receiver mbps")
    work = scratch_dir()
    windows_pair(ntttcp, started, "-wu 1 -cd 1 -t 1 -l 4K",
                 receiver_extra=f"-xml {work}/r.xml",
                 sender_extra=f"-xml {work}/s.xml -nic 127.0.0.1")
    virtualclient_reads(f"{work}/r.xml", "ntttcpr")
    virtualclient_reads(f"{work}/s.xml", "ntttcps")


CASES = {
    "lisa-stray-words": lisa_stray_words,
    "sender-options-on-receiver": sender_options_on_receiver,
    "tcp-connection-lines": lambda xttcp, started: connection_lines(xttcp, started, False),
    "udp-stream-lines": lambda xttcp, started: connection_lines(xttcp, started, True),
    "windows-xml-numbers": windows_xml_numbers,
    "lisa-parsers-tcp": lambda xttcp, started: lisa_parsers(xttcp, started, False),
    "lisa-parsers-udp": lambda xttcp, started: lisa_parsers(xttcp, started, True),
    "functional-test-parsers": functional_test_parsers,
    "virtualclient-linux": virtualclient_linux,
    "lisa-windows-table": lisa_windows_table,
    "pkb-and-virtualclient-windows": pkb_and_virtualclient_windows,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
