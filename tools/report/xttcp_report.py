#!/usr/bin/env python3
"""`xttcp report`'s page: checked results in on stdin, one self-contained HTML page on stdout.

Run by the xttcp program (tools/report/report_command_linux.cc), which reads and checks the
result files as `xttcp compare` does (size first, bounded parse, plausible figures), compares
each with the first, and writes here one JSON document rewritten from what it checked
(tools/report/report_input.hh): {"title", "files": [{"path", "runs"}], "comparisons": [{"path",
"compare"}]}, or for sweeps {"sweeps", "sweep_comparisons"} (xttcp_report_sweeps.py draws those).
So this script reads no file, runs no program and sees no field the program did not check. Plots
are matplotlib's, inlined as SVG: the page needs no network and no other file; it fits a window
1280 pixels wide. docs/regression.md says what each section shows.

Usage: xttcp_report.py < INPUT.json > PAGE.html
Exit: 0 page written to stdout; 2 the input is not what xttcp report writes; 1 out of memory.
"""
import html
import json
import sys

try:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator
    from xttcp_report_common import (BASE_SIDE, NEW_SIDE, PEER_END, THIS_END, metric_label,
                                     metric_unit, non_negative_error, plain, svg)
    import xttcp_report_sweeps
except ImportError as missing:
    sys.exit(f"xttcp: report: needs matplotlib to draw the page, and {sys.executable} has none "
             f"(Debian: apt install python3-matplotlib; {missing})")

# Several runs on one plot: each its own shade of its end's colour (this end blues, the peer
# oranges; base greens, new reds), so that no two lines blend into a third colour.
SHADES = {THIS_END: plt.cm.Blues, PEER_END: plt.cm.Oranges, BASE_SIDE: plt.cm.Greens,
          NEW_SIDE: plt.cm.Reds}
# Past this many connections, per-interval TCP_INFO is drawn as percentile bands.
MAX_LINES = 8
CPU_PARTS = [("user_pct", "user", "#9467bd"), ("system_pct", "system", "#8c564b"),
             ("softirq_pct", "softirq", "#e377c2"), ("iowait_pct", "iowait", "#7f7f7f"),
             ("idle_pct", "idle", "#dddddd")]
OTHER_CPU = "#f5f5dc"
# Past this many bars (threads, connections, queues) a panel draws their values sorted, as one
# line: 60,000 connections drawn as bars took minutes and gigabytes.
MAX_BARS = 64
# Past this many points a series is drawn as the means of consecutive buckets.
MAX_POINTS = 2000
# Per-interval TCP_INFO: a run watches at most 64 connections.
MAX_SERIES = 64


def thin(xs, ys, limit=MAX_POINTS):
    """At most `limit` points: the means of consecutive buckets when there are more."""
    if len(xs) <= limit:
        return xs, ys
    size = -(-len(xs) // limit)
    mean = lambda part: sum(part) / len(part)  # noqa: E731
    return ([mean(xs[i:i + size]) for i in range(0, len(xs), size)],
            [mean(ys[i:i + size]) for i in range(0, len(ys), size)])


def bars(ax, values, colour, positions=None, errors=None):
    """One bar per value; past MAX_BARS the values sorted, as one line. True when sorted."""
    if len(values) <= MAX_BARS:
        ax.bar(positions if positions is not None else range(len(values)), values,
               yerr=errors, color=colour)
        return False
    ax.plot(*thin(list(range(len(values))), sorted(values)), color=colour)
    return True


def gbps(bps):
    return (bps or 0) / 1e9


def run_gbps(run):
    """The run's throughput as every reader derives it: bytes over the measured window."""
    summary = run.get("summary") or {}
    seconds = summary.get("duration_s") or 0
    return summary.get("total_bytes", 0) * 8 / seconds / 1e9 if seconds else 0.0


def peer_of(run):
    peer = run.get("peer")
    return peer if isinstance(peer, dict) else None


def shade(colour, i, count):
    """The i-th of `count` distinct shades of a series' colour: the first run the colour itself,
    the others lighter to darker shades of its family."""
    if i == 0 or count <= 1:
        return colour
    return SHADES[colour](0.45 + 0.5 * (i - 1) / max(1, count - 2))


def interval_lines(ax, runs, groups):
    """Each run's throughput per interval: `groups` is [(label, colour, end of a run)]; every
    run its own shade and legend entry, this end solid and the peer dashed."""
    for label, colour, end_of in groups:
        for i, run in enumerate(runs):
            end = end_of(run)
            intervals = (end or {}).get("intervals") or []
            if not intervals:
                continue
            xs, ys = thin([iv["start_s"] + iv["seconds"] for iv in intervals],
                          [gbps(iv.get("throughput_bps")) for iv in intervals])
            name = f"{label}, run {i + 1}" if len(runs) > 1 else label
            ax.plot([intervals[0]["start_s"]] + xs, [ys[0]] + ys, drawstyle="steps-pre",
                    color=shade(colour, i, len(runs)), linewidth=1.2,
                    linestyle="--" if colour == PEER_END else "-", label=plain(name))


def finish_interval_plot(ax, fig, title, entries):
    ax.set_xlabel("seconds into the measured window")
    ax.set_ylabel("throughput (Gbit/s)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        # Beside the plot when there are many runs, so it hides no line.
        if entries > 4:
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7, frameon=False)
        else:
            ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title)
    return svg(fig)


def plot_intervals(runs):
    """Throughput per interval, this end and the peer's, one line per run."""
    fig, ax = plt.subplots(figsize=(8, 3.2))
    role = runs[0].get("role", "this end")
    peer = peer_of(runs[0])
    groups = [(role, THIS_END, lambda run: run)]
    if peer:
        groups.append(("peer: " + peer.get("role", ""), PEER_END, peer_of))
    interval_lines(ax, runs, groups)
    return finish_interval_plot(
        ax, fig, "Throughput per interval" + (f" ({len(runs)} runs)" if len(runs) > 1 else ""),
        len(runs) * len(groups))


def plot_intervals_side_by_side(base_runs, new_runs):
    """Base and new on the same axes: every run of each, this end's throughput per interval."""
    fig, ax = plt.subplots(figsize=(8, 3.2))
    interval_lines(ax, base_runs, [("base", BASE_SIDE, lambda run: run)])
    interval_lines(ax, new_runs, [("new", NEW_SIDE, lambda run: run)])
    return finish_interval_plot(ax, fig, "Throughput per interval, base and new",
                                len(base_runs) + len(new_runs))


def jain_index(values):
    total = sum(values)
    squares = sum(v * v for v in values)
    return total * total / (len(values) * squares) if squares else None


def plot_flows(run):
    """The spread over threads and connections (and the device's queues, when it has them)."""
    threads = run.get("threads") or []
    connections = run.get("connections") or []
    queues = (run.get("device") or {}).get("queues") or []
    panels = [name for name, rows in (("threads", threads), ("connections", connections),
                                      ("queues", queues)) if rows]
    if not panels:
        return None, None
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3), squeeze=False)
    fairness = None
    for ax, panel in zip(axes[0], panels):
        if panel == "threads":
            values = [gbps(t.get("throughput_bps")) for t in threads]
            fairness = jain_index(values)
            many = bars(ax, values, THIS_END)
            ax.set_ylabel("Gbit/s")
            ax.set_title("Per thread")
        elif panel == "connections":
            # Gbit/s, as per thread: one unit for one quantity on the page.
            seconds = (run.get("summary") or {}).get("duration_s") or 0
            values = [c.get("bytes", 0) * 8 / seconds / 1e9 if seconds else 0.0
                      for c in connections]
            many = bars(ax, values, THIS_END)
            ax.set_ylabel("Gbit/s")
            ax.set_title("Per connection")
        else:
            direction = "tx" if run.get("role") == "sender" else "rx"
            values = [q.get(f"{direction}_frames", 0) for q in queues]
            many = bars(ax, values, THIS_END,
                        positions=[q.get("queue", i) for i, q in enumerate(queues)])
            ax.set_ylabel(f"{direction} frames")
            ax.set_title("Per device queue")
        name = panel[:-1]  # thread, connection, queue
        ax.set_xlabel(f"{panel}, sorted ({len(values)})" if many else name)
        ax.grid(alpha=0.3, axis="y")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return svg(fig), fairness


def plot_cpu(run):
    """The CPU split of this end and of its peer (system-wide %), and each process's busy %."""
    ends = [(run.get("role", "this end"), run.get("cpu") or {})]
    if peer_of(run) and run["peer"].get("cpu"):
        ends.append(("peer: " + run["peer"].get("role", ""), run["peer"]["cpu"]))
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.6 * len(ends)))
    for row, (label, cpu) in enumerate(ends):
        left = 0.0
        for key, part, colour in CPU_PARTS:
            value = cpu.get(key) or 0.0
            ax.barh(row, value, left=left, color=colour, label=part if row == 0 else None)
            left += value
        # What the split does not name (nice, irq, steal: a VM's host taking the CPU back).
        ax.barh(row, max(0.0, 100.0 - left), left=left, color=OTHER_CPU,
                label="other (nice, irq, steal)" if row == 0 else None)
    ax.set_yticks(range(len(ends)), [plain(label) for label, _ in ends])
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of all CPUs (system-wide)")
    ax.legend(ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.45), frameon=False)
    ax.set_title("CPU split")
    return svg(fig)


def plot_tcp(run):
    """TCP_INFO of each connection at the end of the run: RTT and retransmits."""
    connections = [c for c in run.get("connections") or [] if "rtt_us" in c]
    if not connections:
        return None
    fig, (rtt, retrans) = plt.subplots(1, 2, figsize=(8, 3))
    # ± rttvar, the lower arm stopped at zero: no RTT is negative.
    rtts = [c["rtt_us"] for c in connections]
    spread = [c.get("rttvar_us", 0) for c in connections]
    many = bars(rtt, rtts, THIS_END, errors=[[min(r, v) for r, v in zip(rtts, spread)], spread])
    rtt.set_title("RTT (µs)" if many else "RTT ± rttvar (µs)")
    bars(retrans, [c.get("total_retrans", 0) for c in connections], THIS_END)
    retrans.set_title("Retransmitted segments")
    for ax in (rtt, retrans):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(f"connections, sorted ({len(connections)})" if many else "connection")
        ax.grid(alpha=0.3, axis="y")
    return svg(fig)


def plot_tcp_over_time(run):
    """Each watched connection's TCP_INFO per interval: its throughput (the per-flow view of a
    regression), RTT, congestion window and retransmits; and how much of the time the connections
    were held back by the peer's window or the send buffer."""
    intervals = [iv for iv in run.get("intervals") or [] if iv.get("connections")]
    if not intervals:
        return None, None
    series = {}  # id -> list of (interval end, connection figures)
    for iv in intervals:
        end = iv["start_s"] + iv["seconds"]
        for c in iv["connections"]:
            series.setdefault(c["id"], []).append((end, iv["seconds"], c))
    fig, axes = plt.subplots(2, 2, figsize=(9, 5.5), sharex=True)
    (rate, rtt), (cwnd, retrans) = axes
    figures = ((rate, lambda s, c: c["bytes"] * 8 / s / 1e9 if s else 0),
               (rtt, lambda s, c: c["rtt_us"]), (cwnd, lambda s, c: c["snd_cwnd"]),
               (retrans, lambda s, c: c["retransmits"]))
    drawn = sorted(series.items())[:MAX_SERIES]
    if len(drawn) <= MAX_LINES:
        # A few connections: a line each, told apart by colour and named in the legend.
        colours = plt.cm.tab10(range(len(drawn)))
        for colour, (ident, points) in zip(colours, drawn):
            xs = [p[0] for p in points]
            for ax, value in figures:
                ax.plot(*thin(xs, [value(s, c) for _, s, c in points]), color=colour,
                        linewidth=1.1, label=plain(f"connection {ident}"))
        rate.legend(fontsize=7, loc="lower right")
    else:
        # Many: per interval, the median over the connections and the band from the 10th to
        # the 90th percentile (64 lines were unreadable).
        ends = [iv["start_s"] + iv["seconds"] for iv in intervals]  # one per interval, as p10..p90
        for ax, value in figures:
            p10, p50, p90 = [], [], []
            for iv in intervals:
                ys = sorted(value(iv["seconds"], c) for c in iv["connections"])
                pick = lambda q: ys[min(len(ys) - 1, int(q * (len(ys) - 1) + 0.5))]  # noqa: E731
                p10.append(pick(0.1))
                p50.append(pick(0.5))
                p90.append(pick(0.9))
            ax.fill_between(ends, p10, p90, color=THIS_END, alpha=0.25, linewidth=0,
                            label="10th to 90th percentile")
            ax.plot(ends, p50, color=THIS_END, linewidth=1.3, label="median")
        rate.legend(fontsize=7, loc="lower right",
                    title=f"{len(drawn)} connections", title_fontsize=7)
    for ax, title in ((rate, "Gbit/s per connection"), (rtt, "RTT (µs)"),
                      (cwnd, "congestion window (segments)"),
                      (retrans, "retransmitted segments per interval")):
        ax.set_title(title)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("seconds into the measured window")
    busy = sum(c["busy_us"] for iv in intervals for c in iv["connections"])
    text = None
    if busy:
        rwnd = sum(c["rwnd_limited_us"] for iv in intervals for c in iv["connections"])
        sndbuf = sum(c["sndbuf_limited_us"] for iv in intervals for c in iv["connections"])
        text = (f"Of the time the connections had data to send, {100 * rwnd / busy:.1f} % was "
                f"limited by the receiver's window and {100 * sndbuf / busy:.1f} % by the send "
                f"buffer.")
    fairness = [jain_index([c["bytes"] for c in iv["connections"]]) for iv in intervals]
    fairness = [f for f in fairness if f is not None]
    if fairness:
        text = (text + " " if text else "") + (
            f"Jain's fairness index over the connections, per interval: "
            f"{min(fairness):.3f} to {max(fairness):.3f}.")
    return svg(fig), text


def plot_distributions(comparison):
    """Each metric's runs, base beside new: every run a dot, the mean a bar with its CI."""
    metrics = [m for m in comparison["metrics"] if m["base"].get("values")]
    if not metrics:
        return "<p>No metric both sides measured.</p>"
    # At most four panels a row: the page is 1280 pixels wide and no label may be cut.
    columns = min(4, len(metrics))
    rows = -(-len(metrics) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(2.7 * columns, 3.2 * rows), squeeze=False)
    for ax in axes.flat[len(metrics):]:
        ax.set_visible(False)
    axes = [list(axes.flat)]
    for ax, m in zip(axes[0], metrics):
        for x, side, colour in ((0, "base", BASE_SIDE), (1, "new", NEW_SIDE)):
            values = [v for v in m[side]["values"] if v is not None]
            jitter = [x + (i - (len(values) - 1) / 2) * 0.04 for i in range(len(values))]
            ax.scatter(jitter, values, color=colour, zorder=3, s=18)
            mean = m[side].get("mean")
            if mean is not None:
                low, high = m[side].get("ci_low"), m[side].get("ci_high")
                # Every metric is a quantity that cannot be negative: the interval stops at 0.
                err = (non_negative_error(mean, low, high)
                       if low is not None and high is not None else None)
                ax.errorbar([x + 0.25], [mean], yerr=err, fmt="_", color=colour, capsize=4,
                            markersize=14)
        ax.set_xticks([0, 1], ["base", "new"])
        ax.set_xlim(-0.5, 1.6)
        ax.set_title(plain(f"{metric_label(m['metric'])}\n{m['verdict']}"), fontsize=9)
        ax.set_ylabel(plain(metric_unit(m["metric"], m["unit"])))
        # From zero, with room above the highest point (at the frame it would hide).
        top = ax.get_ylim()[1]
        ax.set_ylim(0, top * 1.1 if top > 0 else 1)
        ax.ticklabel_format(axis="y", useOffset=False, style="plain")
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    return svg(fig)


def figure_text(value):
    if value is None:
        return "–"
    return f"{value:.4g}"


def verdict_table(comparison):
    rows = []
    for m in comparison["metrics"]:
        change = m.get("change_pct")
        verdict = m["verdict"] + ("" if m.get("judged", True) else " (not judged)")
        rows.append(
            f"<tr class='{html.escape(m['verdict'])}'><td class='label'>"
            f"{html.escape(metric_label(m['metric']))}</td>"
            f"<td>{html.escape(metric_unit(m['metric'], m['unit']))}</td><td>{figure_text(m['base'].get('mean'))}</td>"
            f"<td>{figure_text(m['new'].get('mean'))}</td>"
            f"<td>{'–' if change is None else f'{change:+.1f} %'}</td>"
            f"<td>{figure_text(m.get('p_value'))}</td><td>{html.escape(verdict)}</td></tr>")
    differences = "".join(
        f"<li>{html.escape(d['key'])}: {html.escape(json.dumps(d['base']))} → "
        f"{html.escape(json.dumps(d['new']))}{' (warning)' if d.get('warning') else ''}</li>"
        for d in comparison.get("environment_differences", []) +
        comparison.get("workload_differences", []))
    # With a single run on a side there is no significance test: compare's "test" is null.
    test = comparison["test"] or "a single run on a side: no significance test, the threshold only"
    return (f"<p class='verdict {html.escape(comparison['verdict'])}'>Verdict: "
            f"<b>{html.escape(comparison['verdict'].upper())}</b> (threshold "
            f"{comparison['threshold_pct']:g} %, {html.escape(test)}, alpha "
            f"{comparison['alpha']:g})</p>"
            "<table><tr><th>metric</th><th>unit</th><th>base mean</th><th>new mean</th>"
            "<th>change</th><th>p</th><th>verdict</th></tr>" + "".join(rows) + "</table>" +
            (f"<p>What differs between the two:</p><ul>{differences}</ul>" if differences
             else "<p>No difference in the environment or the workload.</p>"))


def describe(run):
    host = run.get("host") or {}
    spec = run.get("spec") or {}
    summary = run.get("summary") or {}
    facts = [("role", run.get("role")), ("backend", run.get("backend")),
             ("protocol", spec.get("protocol")), ("duration", f"{summary.get('duration_s', 0):.2f} s"),
             ("host", host.get("hostname")), ("CPU", host.get("cpu_model")),
             ("kernel", host.get("kernel")), ("xttcp", (run.get("tool") or {}).get("version")),
             ("start", run.get("start_time"))]
    return "<dl>" + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(str(v))}</dd>"
                            for k, v in facts if v) + "</dl>"


def file_section(path, runs):
    totals = [run_gbps(r) for r in runs]
    mean = sum(totals) / len(totals)
    parts = [f"<section><h2>{html.escape(path)}</h2>",
             f"<p>{len(runs)} run{'s' if len(runs) > 1 else ''}: "
             f"{mean:.3f} Gbit/s{' (mean)' if len(runs) > 1 else ''}"
             + (f", {min(totals):.3f}–{max(totals):.3f}" if len(runs) > 1 else "") + "</p>",
             describe(runs[0]), plot_intervals(runs)]
    last = runs[-1]
    flows, fairness = plot_flows(last)
    if flows:
        parts.append("<h3>Spread over flows" + (" (last run)" if len(runs) > 1 else "") + "</h3>")
        if fairness is not None:
            parts.append(f"<p>Jain's fairness index over threads: {fairness:.3f} (1 = equal)</p>")
        parts.append(flows)
    parts.append(plot_cpu(last))
    over_time, summary = plot_tcp_over_time(last)
    if over_time:
        parts.append("<h3>TCP_INFO per interval" + (" (last run)" if len(runs) > 1 else "") +
                     "</h3>")
        if summary:
            parts.append(f"<p>{html.escape(summary)}</p>")
        parts.append(over_time)
    tcp = plot_tcp(last)
    if tcp:
        parts.append("<h3>TCP_INFO at the end of the run</h3>" + tcp)
    if last.get("notes"):
        parts.append("<h3>Notes</h3><ul>" +
                     "".join(f"<li>{html.escape(n)}</li>" for n in last["notes"]) + "</ul>")
    parts.append("</section>")
    return "\n".join(parts)


STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; padding: 0 16px; max-width: 1200px;
       color: #222; box-sizing: border-box; overflow-wrap: anywhere; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1em 0; max-width: 100%; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }
td.label { text-align: left; }
details { margin: 0.3em 0; } details summary { cursor: pointer; }
details.regression summary { color: #b00; } details.improvement summary { color: #070; }
tr.regression td { background: #fdd; } tr.improvement td { background: #dfd; }
p.verdict.regression b { color: #b00; } p.verdict b { color: #070; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.1em 1em; }
dt { font-weight: bold; } dd { margin: 0; }
svg { max-width: 100%; height: auto; display: block; margin: 0.5em 0; }
"""


def page(doc):
    title = doc["title"]
    body = [f"<h1>{html.escape(title)}</h1>"]
    if doc.get("sweeps"):
        body += xttcp_report_sweeps.sweep_sections(doc, verdict_table, plot_distributions)
    files = [(f["path"], f["runs"]) for f in doc["files"]]
    runs_of = dict(files)
    for c in doc["comparisons"]:
        body.append(f"<section><h2>{html.escape(files[0][0])} (base) against "
                    f"{html.escape(c['path'])} (new)</h2>")
        body.append(verdict_table(c["compare"]))
        body.append(plot_distributions(c["compare"]))
        body.append(plot_intervals_side_by_side(files[0][1], runs_of.get(c["path"], [])))
        body.append("</section>")
    body += [file_section(path, runs) for path, runs in files]
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n" +
            "\n".join(body) + "\n</body></html>\n")


def main():
    if len(sys.argv) > 1:
        print("usage: xttcp_report.py < INPUT.json > PAGE.html (xttcp report runs it)",
              file=sys.stderr)
        return 2
    try:
        doc = json.load(sys.stdin)
        if doc.get("sweeps"):
            if not all(isinstance(s["cells"], list) for s in doc["sweeps"]):
                raise ValueError("a sweep without cells")
        elif not doc["files"] or not all(f["runs"] for f in doc["files"]):
            raise ValueError("a file without runs")
    except (ValueError, KeyError, TypeError) as e:
        print(f"xttcp: report: the page's input is not what xttcp report writes ({e})",
              file=sys.stderr)
        return 2
    try:
        sys.stdout.write(page(doc))
    except MemoryError:
        print("xttcp: report: the page needs more memory than its generator may take (2 GiB)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
