#!/usr/bin/env python3
"""The first hour of a new user (issue 29): mistyped commands, other tools' habits, the commands
in --help and the man page, one format and one exit-code table for errors, 'xttcp backends'
within its columns, and a build without GCC 12 warnings.

Cases (python3 first_hour_cli_test.py XTTCP [CASE...]):
  command-words     a first word that is no option (help, compre, an address) or a stray that is
                    a command or a file is refused in one line, at once; LISA's stray words
                    after --show-dev-interrupts still run
  habits            iperf / sockperf / NTttcp-for-Windows habits get a one-line hint; -b 100m
                    says it is a buffer; -t 1.5 says the rule
  ipv6-literal      -r ::1 / -s ::1 run without -6; -6 with an IPv4 literal is refused
  commands-listed   every command in --help and the man page's synopsis; report's bad input
  error-format      every usage error: exit 2, one 'xttcp: ' line on stderr, nothing on stdout;
                    a run failure: exit 1 and an ERR line; the exit codes of --help are the
                    documented table's
  backends-columns  'xttcp backends' within 100 columns, no 'available: available'
  gcc-clean         the files GCC 12 warned about compile with -Werror as the build compiles them
"""
import json
import os
import re
import shlex
import subprocess
import sys

from xttcp_e2e import (Failure, Process, SkipTest, check, free_port_block, run_cases,
                       scratch_dir, wait_listening)

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def run(xttcp, args, timeout=15, cwd=None):
    """xttcp ARGS to its end; a process still running at `timeout` is a failure (a receiver
    started by mistake never ends)."""
    try:
        return subprocess.run([xttcp, *args], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise Failure(f"xttcp {' '.join(args)}: still running after {timeout} s")


def refused(xttcp, args, *expected):
    """ARGS are a usage error: exit 2, one 'xttcp: ' line on stderr holding every `expected`,
    nothing on stdout. Returns the line."""
    done = run(xttcp, args, cwd=scratch_dir())
    where = f"xttcp {shlex.join(args)}"
    check(done.returncode == 2,
          f"{where}: exit {done.returncode}, expected 2\nstdout:\n{done.stdout}\n"
          f"stderr:\n{done.stderr}")
    lines = done.stderr.splitlines()
    check(len(lines) == 1, f"{where}: expected one stderr line, got:\n{done.stderr}")
    check(lines[0].startswith("xttcp: "), f"{where}: the line lacks 'xttcp: ': {lines[0]}")
    check(done.stdout == "", f"{where}: wrote to stdout:\n{done.stdout}")
    for text in expected:
        check(text in lines[0], f"{where}: {text!r} not in: {lines[0]}")
    return lines[0]


def command_words(xttcp, started):
    refused(xttcp, ["help"], "did you mean --help?")
    refused(xttcp, ["compre", "before.json", "after.json"], "did you mean 'compare'?")
    refused(xttcp, ["10.0.0.2"], "xttcp -s 10.0.0.2")
    refused(xttcp, ["ping-pong"], "--rr")
    refused(xttcp, ["-s", "127.0.0.1", "results.json"], "--json FILE")
    refused(xttcp, ["-s", "127.0.0.1", "compare"], "'compare'")
    # LISA's unquoted "Hypervisor callback interrupts": still ignored with a note, and the run
    # completes (frameworks_test.py runs LISA's exact lines).
    base = free_port_block(1)
    local = Process(["sh", "-c", f"exec {shlex.quote(xttcp)} --local -P 1 -n 1 -t 1 -p {base}"
                     f" --show-dev-interrupts Hypervisor callback interrupts"], "LISA-like local")
    started.append(local)
    check(local.wait(40) == 0, "a line with LISA's stray words failed")
    check("ignoring 'callback', 'interrupts'" in local.stdout(), "no note on the stray words")


def habits(xttcp, started):
    refused(xttcp, ["-c", "127.0.0.1"], "unknown option '-c'", "-s HOST")
    refused(xttcp, ["--client", "127.0.0.1"], "-s HOST")
    refused(xttcp, ["-R"], "reverse mode is --reverse", "--bidir")
    refused(xttcp, ["-d"], "dual test", "--bidir")
    refused(xttcp, ["-i", "1"], "--interval")
    refused(xttcp, ["-s", "127.0.0.1", "-b", "100Mbps"], "-B RATE")
    refused(xttcp, ["-s", "127.0.0.1", "-l", "128k"], "-b SIZE")
    refused(xttcp, ["-s", "127.0.0.1", "-C", "cubic"], "--congestion")
    refused(xttcp, ["-t", "1.5"], "whole number of seconds", "--interval")
    refused(xttcp, ["-s", "-m", "1,0,127.0.0.1", "1,1,127.0.0.1"], "--dialect windows")
    refused(xttcp, ["-r", "-xml", "out.xml"], "-x FILE", "--dialect windows")
    # iperf's -b 100m is a rate; here it is a buffer, and the run says so before it starts.
    base = free_port_block(1)
    sender = Process([xttcp, "-s", "127.0.0.1", "-b", "100m", "-p", str(base), "-P", "1",
                      "-n", "1", "--connect-timeout", "1"], "-b 100m sender")
    started.append(sender)
    sender.wait(30)
    check("-b 100m: each send and receive moves up to 104857600 bytes" in sender.stdout()
          and "-B 100m" in sender.stdout(), "-b 100m: no note that it is a buffer, not a rate")


def ipv6_literal(xttcp, started):
    try:
        base = free_port_block(1, ipv6=True)
    except OSError as error:
        raise SkipTest(f"no IPv6 loopback: {error}")
    receiver = Process([xttcp, "-r", "::1", "-P", "1", "-t", "1", "-p", str(base), "-Q"],
                       "receiver -r ::1")
    started.append(receiver)
    wait_listening(base, ipv6=True)
    sender = Process([xttcp, "-s", "::1", "-P", "1", "-n", "1", "-t", "1", "-p", str(base), "-Q"],
                     "sender -s ::1")
    started.append(sender)
    check(sender.wait(40) == 0, "-s ::1 without -6 failed")
    check(receiver.wait(40) == 0, "-r ::1 without -6 failed")
    refused(xttcp, ["-6", "-s", "127.0.0.1"], "IPv4 address", "-6")


def commands_listed(xttcp, started):
    names = ["compare", "report", "compare-paths", "topology", "backends"]
    help_text = run(xttcp, ["--help"]).stdout
    listed = help_text.split("Commands", 1)[-1].split("\n\n", 1)[0] if "Commands" in help_text \
        else ""
    for name in names:
        check(re.search(rf"^  {re.escape(name)}\s", listed, re.M),
              f"--help lists no command '{name}' in a Commands section")
        done = run(xttcp, [name, "--help"])
        check(done.returncode == 0 and done.stdout, f"'xttcp {name} --help' printed no help")
    man = os.path.join(os.path.dirname(os.path.abspath(xttcp)), "tools", "docgen", "xttcp.1")
    if os.path.exists(man):
        page = open(man).read()
        synopsis = page.split(".SH SYNOPSIS", 1)[-1].split(".SH ", 1)[0].replace("\\-", "-")
        for name in names:
            check(f"xttcp {name}" in synopsis, f"the man page's synopsis lacks 'xttcp {name}'")
    work = scratch_dir()
    for name, content in [("noschema.json", '{"a": 1}'), ("list.json", "[1, 2]")]:
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(content)
        line = refused(xttcp, ["report", path, "-o", os.path.join(work, "page.html")],
                       "xttcp: report: ", name)
        check("None" not in line, f"report: {line}")
    check(sorted(os.listdir(work)) == ["list.json", "noschema.json"], "report wrote a page")


USAGE_ERRORS = [
    ["-P", "abc"],
    ["--bakend", "epoll"],
    ["nosuchcommand"],
    ["-r", "192.0.2.1", "-t", "1"],             # not an address of this host
    ["-s", "127.0.0.1", "-a", "192.0.2.1"],     # nor this
    ["-6", "-s", "127.0.0.1"],
    ["--json", "/nonexistent-dir/r.json"],
    ["-O", "/nonexistent-dir/r.log"],
    ["compare"],
    ["compare", "--nosuch"],
    ["report"],
    ["report", "--nosuch"],
    ["compare-paths", "--nosuch"],
    ["topology", "extra"],
    ["backends", "extra"],
    ["--dialect", "windows", "-r", "-nosuch"],
    ["--dialect", "iperf2", "-s", "-Y"],
    ["--dialect", "nosuch"],
]


def error_format(xttcp, started):
    for args in USAGE_ERRORS:
        refused(xttcp, args)
    # A run failure: exit 1, the log's ERR line says why (not the usage format).
    base = free_port_block(1)
    done = run(xttcp, ["-s", "127.0.0.1", "-p", str(base), "-P", "1", "-n", "1",
                       "--connect-timeout", "1"], timeout=30)
    check(done.returncode == 1, f"a refused connection: exit {done.returncode}, expected 1")
    check(re.search(r"^\d\d:\d\d:\d\d ERR : .*refused", done.stdout + done.stderr, re.M),
          f"a refused connection: no ERR line\n{done.stdout}{done.stderr}")
    # --help's exit codes are the documented table's (docs/usage.md "Exit codes").
    codes = dict(re.findall(r"^  (\d)  (.*)$", run(xttcp, ["--help"]).stdout.split(
        "Exit codes:", 1)[-1], re.M))
    check(set(codes) == {"0", "1", "2", "3"}, f"--help's exit codes: {codes}")
    usage_md = os.path.join(SOURCE, "docs", "usage.md")
    if os.path.exists(usage_md):
        table = open(usage_md).read().split("## Exit codes", 1)[-1].split("\n## ", 1)[0]
        documented = set(re.findall(r"^\| (\d) \|", table, re.M))
        check(documented == set(codes), f"docs/usage.md's table {documented} != --help's")


def backends_columns(xttcp, started):
    out = run(xttcp, ["backends"]).stdout
    for line in out.splitlines():
        check(len(line) <= 100, f"'xttcp backends': a line of {len(line)} columns: {line}")
    check(": available" not in out and "available: available" not in out,
          f"'xttcp backends' repeats 'available':\n{out}")
    for line in out.splitlines():
        if line and not line[0].isspace() and not line.startswith("auto ("):
            check(line.split()[1:2] in (["available"], ["missing"]),
                  f"a backend's first line lacks its status: {line}")
    check(re.search(r"^auto \(TCP\): \S+", out, re.M), "no 'auto (TCP):' line")


def gcc_clean(xttcp, started):
    """Compiles the files GCC 12 warned about in a release build (-Wrestrict,
    -Wstringop-overflow inside libstdc++) as the build does, with -Werror."""
    build = os.path.dirname(os.path.abspath(xttcp))
    database = os.path.join(build, "compile_commands.json")
    if not os.path.exists(database):
        raise SkipTest("no compile_commands.json beside the binary")
    entries = json.load(open(database))
    wanted = ["topology/nic/netlink_qstats.cc", "engine/net/address_filter.cc",
              "tools/docgen/man_page.cc", "engine/report/queue_console.cc",
              "tools/backends_command.cc"]
    listed = [e for e in entries if any(e["file"].endswith(name) for name in wanted)]
    if not listed and any("-unity" in e["file"] for e in entries):
        raise SkipTest("a unity build (the sanitizer leg) compiles these files inside unity "
                       "sources; the release build checks them one by one")
    found = 0
    for entry in entries:
        if not any(entry["file"].endswith(name) for name in wanted):
            continue
        command = shlex.split(entry["command"])
        if os.path.basename(command[0]) == "ccache":  # compile for real, not from the cache
            command = command[1:]
        version = subprocess.run([command[0], "-dumpversion"], capture_output=True, text=True,
                                 timeout=30).stdout.strip()
        if "g++" not in os.path.basename(command[0]) and "c++" != os.path.basename(command[0]):
            raise SkipTest(f"not GCC: {command[0]}")
        if not version.startswith("12"):
            raise SkipTest(f"GCC {version}, not 12")
        if "-O0" in command or not any(a.startswith("-O") for a in command):
            raise SkipTest("not an optimised build (the warnings need the optimiser)")
        out = command.index("-o")
        command[out + 1] = os.devnull
        for flag in ("-MD", "-MQ", "-MF"):
            while flag in command:
                at = command.index(flag)
                del command[at:at + (1 if flag == "-MD" else 2)]
        done = subprocess.run([*command, "-Werror"], cwd=entry["directory"],
                              capture_output=True, text=True, timeout=300)
        check(done.returncode == 0, f"{entry['file']} has warnings:\n{done.stderr[-3000:]}")
        found += 1
    check(found == len(wanted), f"only {found} of {wanted} in compile_commands.json")


CASES = {
    "command-words": command_words,
    "habits": habits,
    "ipv6-literal": ipv6_literal,
    "commands-listed": commands_listed,
    "error-format": error_format,
    "backends-columns": backends_columns,
    "gcc-clean": gcc_clean,
}

if __name__ == "__main__":
    sys.exit(run_cases(CASES))
