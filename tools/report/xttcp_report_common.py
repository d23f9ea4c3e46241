"""What every part of `xttcp report`'s page shares: the colours of the series, human names of
the metrics, SVG inlining, and bands that never go below zero (xttcp_report.py,
xttcp_report_sweeps.py)."""
import io

import matplotlib
matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

# Each series has its own colour, the same on every plot (and what the tests look for).
THIS_END = "#1f77b4"
PEER_END = "#ff7f0e"
BASE_SIDE = "#2ca02c"
NEW_SIDE = "#d62728"

# The metrics' keys (compare's JSON) as a person reads them, and their one unit each.
METRIC_NAMES = {
    "throughput_gbps": ("throughput", "Gbit/s"),
    "packets_per_s": ("packets per second", "pkt/s"),
    "cycles_per_byte": ("cycles per byte", "cycles"),
    "cpu_s_per_gb": ("CPU seconds per GB", "s"),
    "retransmits_per_gb": ("retransmits per GB", "segments"),
    "udp_loss_pct": ("UDP loss", "%"),
    "latency_average_us": ("call latency, average", "µs"),
    "latency_max_us": ("call latency, max", "µs"),
    "transactions_per_s": ("transactions per second", "1/s"),
    "round_trip_p50_us": ("round trip, median", "µs"),
    "round_trip_p99_us": ("round trip, 99th percentile", "µs"),
}


def metric_label(key, with_unit=False):
    name, unit = METRIC_NAMES.get(key, (str(key).replace("_", " "), ""))
    return f"{name} ({unit})" if with_unit and unit else name


def metric_unit(key, fallback=""):
    return METRIC_NAMES.get(key, ("", fallback))[1] or fallback


def plain(text):
    """Text from a result as matplotlib draws it, literally: '$...$' would be mathtext."""
    return str(text).replace("$", r"\$")


def svg(fig):
    out = io.StringIO()
    fig.savefig(out, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg"):]  # inline: no XML prolog or DOCTYPE


def non_negative_band(points):
    """(lows, highs) of [(x, (mean, ci_low, ci_high))], the lows clipped at zero: every figure
    drawn is a quantity that cannot be negative. (None, None) when a point has no interval."""
    if any(s[1] is None or s[2] is None for _, s in points):
        return None, None
    return [max(0.0, s[1]) for _, s in points], [s[2] for _, s in points]


def non_negative_error(mean, low, high):
    """Matplotlib's yerr for a mean with its interval, the lower arm stopped at zero."""
    return [[mean - max(0.0, low)], [max(0.0, high - mean)]]
