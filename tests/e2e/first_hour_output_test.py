#!/usr/bin/env python3
"""What a new user reads on the console (issue 29, items 7 and 9):
- --repeat N prints every test's own block, then a summary of the set, last: per metric the
  median, min-max, coefficient of variation and 95 % confidence interval, the same figures as
  --json's "statistics";
- a test cut short says so in place of "Test run completed." (never after it), on both ends;
- live lines show where the test stands (elapsed of the duration, time left), while under the
  original's name the line stays NTTTCP's own "Real-time throughput: X" for its parsers;
- --rr live lines count transactions per second and the round trip, not Mbit/s."""
import os
import re
import signal

from xttcp_e2e import (Process, all_totals, check, free_port_block, load_json, run_cases,
                       scratch_dir, wait_listening)

# NTTTCP-for-Linux's live line, as it prints it (format_bps: bps, Kbps, Mbps, Gbps).
ORIGINAL_LIVE_LINE = re.compile(r"^Real-time throughput: \d+\.\d\d[KMG]?bps$")
PROGRESS = re.compile(r"  \[(?:warm-up )?\d+\.\d/\d+ s, ends in \d+\.\d s\]$|"
                      r"  \[cool-down, ends in \d+\.\d s\]$")


def figure(v):
    """A figure as the summary table writes it (engine/report/repeat_console.cc)."""
    if abs(v) >= 1000:
        return f"{v:.0f}"
    if abs(v) >= 1 or v == 0:
        return f"{v:.2f}"
    return f"{v:#.4g}"


def receiver_and_sender(xttcp, started, receiver_args, sender_args, ports=1, program=None):
    base = free_port_block(ports)
    common = ["-P", str(ports), "-p", str(base)]
    binary = program or xttcp
    receiver = Process([binary, "-r", "127.0.0.1", *common, *receiver_args], "receiver")
    started.append(receiver)
    wait_listening(base - 1)
    sender = Process([binary, "-s", "127.0.0.1", "-n", "1", *common, *sender_args], "sender")
    started.append(sender)
    return receiver, sender


def info_messages(console):
    return [line.split(" INFO: ", 1)[1] for line in console.splitlines() if " INFO: " in line]


def repeat_summary(xttcp, started):
    out = scratch_dir()
    runs_file = os.path.join(out, "runs.json")
    receiver, sender = receiver_and_sender(
        xttcp, started, ["-H", "-t", "1"], ["-t", "1", "--repeat", "3", "--json", runs_file])
    check(sender.wait(90) == 0, "the repeated sender failed")
    console = sender.stdout()
    # Every test keeps its own block (a script reading the first Totals block reads test 1).
    check(len(all_totals(console)) == 3, f"{len(all_totals(console))} Totals blocks, not 3")
    head = "#####  Summary of 3 tests (--repeat):  #####"
    check(head in console, f"no summary block after the 3 tests:\n{console[-3000:]}")
    check(console.rindex(head) > console.rindex("#####  Totals:  #####"),
          "the summary is not after the last test's block")
    messages = info_messages(console[console.rindex(head):])
    for i in (1, 2, 3):
        check(any(m.startswith(f"test {i} of 3\t:") for m in messages), f"no line for test {i}")
    # The table's figures are --json's statistics (one source of truth), in the same rounding.
    stats = load_json(runs_file)["statistics"]["metrics"]
    row = next((m for m in messages if m.startswith("throughput ")), None)
    check(row is not None, f"no throughput row in the summary: {messages}")
    t = stats["throughput_gbps"]
    for key in ("median", "mean", "min", "max", "ci_low", "ci_high"):
        check(figure(t[key]) in row, f"throughput {key} {figure(t[key])} is not in {row!r}")
    check(f"{t['cv'] * 100:.1f}%" in row, f"throughput cv {t['cv'] * 100:.1f}% not in {row!r}")
    # The summary is what the eye lands on last: nothing after it but the closing separator.
    tail = console.rstrip("\n").splitlines()
    check(tail[-1].startswith("-----") and "CI: Student t" in tail[-2],
          f"the console does not end with the summary: {tail[-4:]}")
    receiver.kill()


def cut_short_said_instead_of_completed(xttcp, started):
    receiver, sender = receiver_and_sender(xttcp, started, ["-t", "60"], ["-t", "60"])
    sender.wait_output("Real-time ")  # the window is open and data flows
    sender.signal(signal.SIGINT)
    sender.wait(30)
    receiver.wait(30)
    for p in (sender, receiver):
        messages = info_messages(p.stdout())
        cut = next((i for i, m in enumerate(messages) if m.startswith("test was cut short")), None)
        check(cut is not None, f"{p.name} does not say the test was cut short: {messages}")
        check("Test run completed." not in messages[:cut],
              f"{p.name} says 'Test run completed.' before the test was cut short: {messages}")
        check("Test run completed." not in messages, f"{p.name} says both: {messages}")


def completed_test_says_completed(xttcp, started):
    receiver, sender = receiver_and_sender(xttcp, started, ["-t", "1"], ["-t", "1"])
    check(sender.wait(60) == 0 and receiver.wait(60) == 0, "a plain 1 s test failed")
    for p in (sender, receiver):
        messages = info_messages(p.stdout())
        check("Test run completed." in messages, f"{p.name}: no 'Test run completed.'")
        check(not any("cut short" in m for m in messages), f"{p.name}: 'cut short' said")


def live_lines_show_progress(xttcp, started):
    receiver, sender = receiver_and_sender(xttcp, started, ["-t", "3"], ["-t", "3"])
    check(sender.wait(60) == 0 and receiver.wait(60) == 0, "a 3 s test failed")
    for p in (sender, receiver):
        live = [line for line in p.stdout().splitlines() if line.startswith("Real-time")]
        check(live, f"{p.name} printed no live line")
        for line in live:
            check(line.startswith("Real-time throughput: "), f"{p.name}: {line!r}")
            check(PROGRESS.search(line), f"{p.name}: no elapsed/remaining time in {line!r}")


def live_lines_under_the_original_name(xttcp, started):
    link = os.path.join(scratch_dir(), "ntttcp")
    os.symlink(os.path.abspath(xttcp), link)
    receiver, sender = receiver_and_sender(xttcp, started, ["-t", "2"], ["-t", "2"], program=link)
    check(sender.wait(60) == 0 and receiver.wait(60) == 0, "a 2 s test as ntttcp failed")
    for p in (sender, receiver):
        live = [line for line in p.stdout().splitlines() if line.startswith("Real-time")]
        check(live, f"{p.name} printed no live line")
        for line in live:
            check(ORIGINAL_LIVE_LINE.match(line), f"{p.name}: not the original's line: {line!r}")


def rr_live_lines(xttcp, started):
    receiver, sender = receiver_and_sender(xttcp, started, ["-t", "2", "--rr"],
                                           ["-t", "2", "--rr"])
    check(sender.wait(60) == 0 and receiver.wait(60) == 0, "a 2 s --rr test failed")
    # An interval in which no round trip ended (a stalled, loaded host) has no latency part.
    ends = {"sender": r"/s completed(, round trip p50 \d+\.\d\d p99 \d+\.\d\d us)?",
            "receiver": r"/s answered"}
    for p in (sender, receiver):
        live = [line for line in p.stdout().splitlines() if line.startswith("Real-time")]
        check(live, f"{p.name} printed no live line")
        pattern = re.compile(r"^Real-time transactions: \d+\.\d" + ends[p.name] + r"  \[")
        for line in live:
            check(pattern.match(line), f"{p.name}: not transactions and latency: {line!r}")
            check(PROGRESS.search(line), f"{p.name}: no elapsed/remaining time in {line!r}")
    check(any(", round trip p50 " in line for line in sender.stdout().splitlines()),
          "the requester's live lines never show a round trip")


CASES = {
    "repeat-summary": repeat_summary,
    "cut-short-said-instead-of-completed": cut_short_said_instead_of_completed,
    "completed-test-says-completed": completed_test_says_completed,
    "live-lines-show-progress": live_lines_show_progress,
    "live-lines-under-the-original-name": live_lines_under_the_original_name,
    "rr-live-lines": rr_live_lines,
}

if __name__ == "__main__":
    raise SystemExit(run_cases(CASES))
