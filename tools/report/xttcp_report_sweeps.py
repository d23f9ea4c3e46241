"""`xttcp report` of sweeps (xttcp sweep --json): the part of the page xttcp_report.py draws when
its input holds "sweeps" (tools/report/report_input.hh). For each sweep against the first: the
verdict per cell (worst first), a heatmap of every cell's change per metric marked where it is
significant, curves of the figures against connection count and size with base and new on the
same axes, the cells not judged and why, and each cell's own comparison on demand. A single
sweep gets its curves and a table of its cells.

Everything here is drawn from figures the xttcp program checked; it reads no file.
"""
import html

import matplotlib.pyplot as plt
from matplotlib.colors import TwoSlopeNorm
from matplotlib.patches import Rectangle

from xttcp_report_common import metric_label, non_negative_band, plain, svg

# A change past this many per cent gets the colour's end: a heatmap shows where, not how far.
HEAT_LIMIT = 50.0
SERIES_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf",
                  "#bcbd22", "#7f7f7f", "#d62728"]
KIND_WORDS = {"tcp": "TCP", "udp": "UDP", "rr": "RR"}
# What each kind of cell is drawn by: its headline first.
CURVE_METRICS = {"tcp": ["throughput_gbps", "cpu_s_per_gb"],
                 "udp": ["throughput_gbps", "udp_loss_pct"],
                 "rr": ["round_trip_p50_us", "transactions_per_s"]}


def size_words(size):
    if size >= 1 << 20 and size % (1 << 20) == 0:
        return f"{size >> 20}M"
    if size >= 1024 and size % 1024 == 0:
        return f"{size >> 10}K"
    return str(size)


def cell_stat(cell, key):
    """(mean, ci_low, ci_high) of a measured cell's metric, or None."""
    metrics = ((cell.get("statistics") or {}).get("metrics") or {})
    m = metrics.get(key)
    if not m or m.get("mean") is None:
        return None
    return m["mean"], m.get("ci_low"), m.get("ci_high")


def measured(sweep):
    return [c for c in sweep["cells"] if c["outcome"] == "measured"]


def verdict_class(verdict):
    return {"regression": "regression", "improvement": "improvement"}.get(verdict, "")


def headline_key(cell):
    """The figure a cell is judged by first: throughput; --rr: the median round trip."""
    return "round_trip_p50_us" if cell.get("id", "").startswith("rr/") else "throughput_gbps"


def cell_verdict_words(cell):
    """A cell's verdict, and the metrics that gave it; "noise" where the headline figure moved
    past the threshold without significance (the cell's overall verdict says "same" then)."""
    metrics = cell["comparison"]["metrics"]
    head = next((m for m in metrics if m["metric"] == headline_key(cell)), None)
    deciding = [metric_label(m["metric"]) for m in metrics
                if m.get("judged", True) and m["verdict"] == cell["verdict"]
                and cell["verdict"] in ("regression", "improvement")]
    if cell["verdict"] == "same" and head and head["verdict"] != "same":
        return f"{head['verdict']} ({metric_label(head['metric'])})"
    return cell["verdict"] + (f" ({', '.join(deciding)})" if deciding else "")


def cells_table(comparison):
    """Every cell judged, worst first: its headline figure's change and its verdict."""
    rows = []
    for c in comparison["cells"]:
        metrics = c["comparison"]["metrics"]
        head = next((m for m in metrics if m["metric"] == headline_key(c)), None)
        change = head.get("change_pct") if head else None
        # The p the verdict used: adjusted for the sweep's family of tests (Holm).
        p = (c.get("holm_p") or {}).get(head["metric"]) if head else None
        verdict = cell_verdict_words(c)
        rows.append(
            f"<tr class='{verdict_class(c['verdict'])}'><td class='label'>"
            f"{html.escape(c['label'])}</td>"
            f"<td>{html.escape(metric_label(head['metric'])) if head else '–'}</td>"
            f"<td>{'–' if change is None else f'{change:+.1f} %'}</td>"
            f"<td>{'–' if p is None else f'{p:.3g}'}</td><td>{html.escape(verdict)}</td></tr>")
    return ("<table class='cells'><tr><th>cell</th><th>headline</th><th>change</th>"
            "<th>p (Holm)</th><th>verdict</th></tr>" + "".join(rows) + "</table>")


def heatmap(comparison, plan_order):
    """Cells × metrics, the colour the change toward worse (red) or better (green), a frame and
    a dot where the change is significant past the threshold."""
    cells = sorted(comparison["cells"], key=lambda c: plan_order.get(c["id"], 1 << 30))
    keys = []
    for c in cells:
        for m in c["comparison"]["metrics"]:
            if m["metric"] not in keys:
                keys.append(m["metric"])
    if not cells or not keys:
        return "<p>No metric both sweeps measured.</p>"
    grid, marks, texts = [], [], []
    for c in cells:
        by_key = {m["metric"]: m for m in c["comparison"]["metrics"]}
        row, row_marks, row_texts = [], [], []
        for key in keys:
            m = by_key.get(key)
            change = m.get("change_pct") if m else None
            if change is None:
                row.append(float("nan"))
                row_texts.append("–")
                row_marks.append(False)
                continue
            worse = -change if m["better"] == "higher" else change
            row.append(max(-HEAT_LIMIT, min(HEAT_LIMIT, worse)))
            row_texts.append(f"{change:+.1f}%")
            # Only what counts in the verdict is marked: a not-judged metric's test was not
            # taken with the sweep's others (Holm), so its own "significant" would mislead.
            row_marks.append(m["verdict"] in ("regression", "improvement") and
                             m.get("judged", True))
        grid.append(row)
        marks.append(row_marks)
        texts.append(row_texts)
    width = min(11.5, 3.2 + 1.25 * len(keys))
    fig, ax = plt.subplots(figsize=(width, 0.8 + 0.32 * len(cells)))
    cmap = plt.get_cmap("RdYlGn_r").copy()
    cmap.set_bad("#eeeeee")
    image = ax.imshow(grid, cmap=cmap, aspect="auto",
                      norm=TwoSlopeNorm(vcenter=0, vmin=-HEAT_LIMIT, vmax=HEAT_LIMIT))
    for r, row in enumerate(texts):
        for k, text in enumerate(row):
            bold = marks[r][k]
            ax.text(k, r, ("● " if bold else "") + text, ha="center", va="center", fontsize=8,
                    fontweight="bold" if bold else "normal")
            if bold:
                ax.add_patch(Rectangle((k - 0.5, r - 0.5), 1, 1, fill=False, linewidth=1.8,
                                       edgecolor="black"))
    judged = {}
    for c in cells:
        for m in c["comparison"]["metrics"]:
            judged[m["metric"]] = judged.get(m["metric"], False) or m.get("judged", True)
    ax.set_xticks(range(len(keys)),
                  [metric_label(k) + ("" if judged.get(k) else "\n(not judged)") for k in keys],
                  fontsize=8)
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(cells)), [plain(c["label"]) for c in cells], fontsize=8)
    bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    bar.set_label("change toward worse, % (capped at ±50)", fontsize=8)
    fig.tight_layout()
    return svg(fig)


def series_of(cells, key_of):
    """Cells grouped into series by key_of(cell), each sorted by its x."""
    series = {}
    for c in cells:
        series.setdefault(key_of(c), []).append(c)
    return series


def draw_curves(sides, x_of, key_of, name_of, x_label, metrics, title):
    """One panel per metric: every series of every side (base solid, new dashed, same colour),
    its mean with the confidence band clipped at zero. None when no series has two points."""
    groups = {}
    for side, (sweep, style) in sides.items():
        for key, cells in series_of(measured(sweep), key_of).items():
            groups.setdefault(key, {})[side] = sorted(cells, key=x_of)
    if not any(len(cells) > 1 for by_side in groups.values() for cells in by_side.values()):
        return None
    fig, axes = plt.subplots(1, len(metrics), figsize=(5.6 * len(metrics), 3.6), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        drawn = False
        for n, (key, by_side) in enumerate(sorted(groups.items())):
            colour = SERIES_COLOURS[n % len(SERIES_COLOURS)]
            for side, (sweep, style) in sides.items():
                cells = by_side.get(side, [])
                points = [(x_of(c), cell_stat(c, metric)) for c in cells]
                points = [(x, s) for x, s in points if s is not None]
                if not points:
                    continue
                xs = [x for x, _ in points]
                means = [s[0] for _, s in points]
                ax.plot(xs, means, linestyle=style["line"], marker=style["marker"],
                        color=colour, label=plain(f"{name_of(key)}, {side}"))
                low, high = non_negative_band(points)
                if low is not None:
                    ax.fill_between(xs, low, high, color=colour, alpha=0.12, linewidth=0)
                drawn = True
        if not drawn:
            ax.set_visible(False)
            continue
        xs_all = sorted({x_of(c) for side in sides.values() for c in measured(side[0])})
        if len(xs_all) > 1 and xs_all[-1] / max(1, xs_all[0]) >= 8:
            ax.set_xscale("log", base=2)
        # Ticks at the values measured only: connections and sizes are whole numbers.
        ax.set_xticks(xs_all, [size_words(x) if "size" in x_label else str(x) for x in xs_all],
                      fontsize=8)
        ax.minorticks_off()
        ax.set_xlabel(x_label)
        ax.set_ylabel(metric_label(metric, with_unit=True))
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    # One legend for the panels (they share their series), below them: it hides no line.
    handles, labels = next((ax.get_legend_handles_labels() for ax in axes[0]
                            if ax.get_visible()), ([], []))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    if handles:
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                   ncol=min(4, len(handles)), fontsize=8, frameon=False)
    return svg(fig)


def curves(base, new):
    """Figures against connection count (series: kind, size, backend) and against size (series:
    kind, connections, backend), base solid and new dashed on the same axes."""
    sides = {"base": (base, {"line": "-", "marker": "o"})}
    if new is not None:
        sides["new"] = (new, {"line": "--", "marker": "s"})
    parts = []
    kinds = sorted({c["kind"] for c in measured(base)})
    for kind in kinds:
        metrics = CURVE_METRICS.get(kind, ["throughput_gbps"])
        of_kind = {side: ({**sweep, "cells": [c for c in sweep["cells"] if c["kind"] == kind]},
                          style) for side, (sweep, style) in sides.items()}
        by_connections = draw_curves(
            of_kind, lambda c: c["connections"],
            lambda c: (c["size_bytes"], c["backend"]),
            lambda k: f"{size_words(k[0])}" + (f" {k[1]}" if k[1] else ""),
            "connections" if kind == "tcp" else "flows", metrics,
            f"{KIND_WORDS.get(kind, kind)}: against the number of "
            f"{'connections' if kind == 'tcp' else 'flows'}")
        if by_connections:
            parts.append(by_connections)
        by_size = draw_curves(
            of_kind, lambda c: c["size_bytes"],
            lambda c: (c["connections"], c["backend"]),
            lambda k: f"{k[0]} conn." + (f" {k[1]}" if k[1] else ""),
            "write size (bytes)" if kind == "tcp" else "size (bytes)", metrics,
            f"{KIND_WORDS.get(kind, kind)}: against the size")
        if by_size:
            parts.append(by_size)
    if not parts:
        return "<p>Each axis has one value: no curve to draw.</p>"
    legend = ("<p>Solid lines and circles: base; dashed lines and squares: new. The shaded "
              "bands are the 95 % confidence intervals of the means (none below zero).</p>"
              if new is not None else
              "<p>The shaded bands are the 95 % confidence intervals of the means.</p>")
    return legend + "\n".join(parts)


def cell_details(comparison, verdict_table, plot_distributions):
    """Each cell's own comparison (the single-file page's verdict table and the runs of each
    metric), folded until asked for."""
    parts = []
    for c in comparison["cells"]:
        cls = verdict_class(c["verdict"])
        parts.append(f"<details class='{cls}'><summary>{html.escape(c['label'])}: "
                     f"{html.escape(cell_verdict_words(c))}</summary>")
        parts.append(verdict_table(c["comparison"]))
        parts.append(plot_distributions(c["comparison"]))
        parts.append("</details>")
    return "\n".join(parts)


def single_sweep_table(sweep):
    rows = []
    for c in sweep["cells"]:
        if c["outcome"] != "measured":
            rows.append(f"<tr class='regression'><td class='label'>{html.escape(c['label'])}</td>"
                        f"<td colspan='3'>failed: {html.escape(c['error'])}</td></tr>")
            continue
        figures = []
        for key in ("throughput_gbps", "cpu_s_per_gb", "round_trip_p50_us"):
            s = cell_stat(c, key)
            figures.append("–" if s is None else f"{s[0]:.4g}")
        rows.append(f"<tr><td class='label'>{html.escape(c['label'])}</td>" +
                    "".join(f"<td>{f}</td>" for f in figures) + "</tr>")
    return ("<table class='cells'><tr><th>cell</th><th>throughput (Gbit/s)</th>"
            "<th>CPU seconds per GB</th><th>round trip, median (µs)</th></tr>" +
            "".join(rows) + "</table>")


def sweep_sections(doc, verdict_table, plot_distributions):
    """The page's body for a report of sweeps."""
    sweeps = doc["sweeps"]
    base = sweeps[0]
    plan_order = {c["id"]: i for i, c in enumerate(base["cells"])}
    body = []
    if len(sweeps) == 1:
        body.append(f"<section><h2>{html.escape(base['path'])}: "
                    f"{len(measured(base))} of {base['planned']} cells measured"
                    f"{' (interrupted)' if base['interrupted'] else ''}</h2>")
        body.append(single_sweep_table(base))
        body.append("</section><section><h2>Curves</h2>")
        body.append(curves(base, None))
        body.append("</section>")
        return body
    for entry in doc["sweep_comparisons"]:
        comparison = entry["compare"]
        new = next(s for s in sweeps if s["path"] == entry["path"])
        regressed = sum(c["verdict"] == "regression" for c in comparison["cells"])
        judged = len(comparison["cells"])
        verdict = (f"REGRESSION in {regressed} of {judged} cells" if regressed
                   else f"no regression in {judged} cells")
        body.append(f"<section><h2>{html.escape(base['path'])} (base) against "
                    f"{html.escape(entry['path'])} (new)</h2>")
        body.append(f"<p class='verdict {'regression' if regressed else ''}'>Verdict: "
                    f"<b>{html.escape(verdict)}</b> (threshold {comparison['threshold_pct']:g} %, "
                    f"alpha {comparison['alpha']:g} over the sweep: each cell judged as 'xttcp "
                    "compare' judges two files, the cells' tests significant together, Holm)</p>")
        body.append(cells_table(comparison))
        if comparison["not_judged"]:
            body.append("<p>Not judged (measured in one sweep only, or in neither):</p><ul>" +
                        "".join(f"<li>{html.escape(u['label'])}: {html.escape(u['why'])}</li>"
                                for u in comparison["not_judged"]) + "</ul>")
        body.append("</section>")
        title = "Heatmap" if len(sweeps) == 2 else f"Heatmap: {entry['path']}"
        body.append(f"<section><h2>{html.escape(title)}</h2><p>Each cell's change per metric, "
                    "red where it got worse and green where better; a frame and a dot mark a "
                    "change past the threshold and significant.</p>")
        body.append(heatmap(comparison, plan_order))
        body.append("</section>")
        body.append(f"<section><h2>Curves{'' if len(sweeps) == 2 else ': ' + html.escape(entry['path'])}"
                    "</h2>")
        body.append(curves(base, new))
        body.append("</section>")
        body.append("<section><h2>Each cell</h2><p>Each cell's comparison, as 'xttcp compare' "
                    "prints it for two files, with every run of each metric (open a cell).</p>")
        body.append(cell_details(comparison, verdict_table, plot_distributions))
        body.append("</section>")
    return body
