#!/usr/bin/env python3
"""`xttcp report`: a real loopback run's page, a golden before/after pair's page (the verdict,
each metric's runs side by side, base and new on the same axes) and a golden pair of sweeps' page
(a verdict per cell, the heatmap, the curves, each cell on demand), self-contained (no network
reference); bad inputs exit 2 and leave -o untouched. With 'render': the pages drawn by headless
Chromium in a window 1280 pixels wide and the screenshots checked for what is visible: the
plots' colours (each series has its own, tools/report/xttcp_report.py), the heatmap's red where
a cell regressed, and nothing drawn past the page's right margin (no text cut at the edge)."""
import os
import re
import shutil
import subprocess
import sys

from xttcp_e2e import SkipTest, check, free_port_block, run_test, scratch_dir, xttcp_binary

SOURCE_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GOLDEN = os.path.join(SOURCE_ROOT, "tests", "golden", "compare")
SWEEPS = os.path.join(SOURCE_ROOT, "tests", "golden", "sweep")
THIS_END, BASE_SIDE, NEW_SIDE = "#1f77b4", "#2ca02c", "#d62728"
WORST = "#a50026"  # the heatmap's colour for a change 50 % or more toward worse
WIDTH = 1280


def run(args, timeout=120):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)


def report(xttcp, *args):
    done = run([xttcp, "report", *args])
    return done.returncode, done.stderr


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def check_self_contained(page, name):
    lowered = page.lower()
    for needle in ("<script", "<link", "<img", "<iframe", "src="):
        check(needle not in lowered, f"{name}: the page has {needle!r}: it must need no other file")
    # SVG clips refer to the page's own elements (url(#id)); nothing else may be fetched.
    check(not re.search(r"url\((?!#)", lowered), f"{name}: the page has a url() outside itself")
    # SVG names its namespace with an http URL; nothing else may point at the network.
    outside = lowered.replace("http://www.w3.org/", "").replace("http://purl.org/dc/", "") \
        .replace("http://creativecommons.org/", "").replace("https://matplotlib.org/", "")
    check("http://" not in outside and "https://" not in outside,
          f"{name}: the page refers to the network")


def make_pages(xttcp, out):
    """The two pages: a real run of this build, and the golden regression pair."""
    real = os.path.join(out, "real.json")
    port = free_port_block(2)
    done = run([xttcp, "--local", "-t", "1", "-P", "2", "-p", str(port), "-Q", "--json", real],
               timeout=60)
    check(done.returncode == 0, f"the loopback run exited {done.returncode}: {done.stderr}")
    real_page = os.path.join(out, "real.html")
    code, err = report(xttcp, real, "-o", real_page)
    check(code == 0, f"report of a real run exited {code}: {err}")
    page = read(real_page)
    check(page.count("<svg") >= 3, f"the real run's page has {page.count('<svg')} plots, want >= 3")
    check("Throughput per interval" in page and "CPU split" in page,
          "the real run's page lacks its interval or CPU plot")
    check("<h3>TCP_INFO per interval</h3>" in page and "Jain&#x27;s fairness index over the "
          "connections, per interval" in page,
          "the real run's page lacks its connections' TCP_INFO over time")
    check_self_contained(page, "real run")

    pair_page = os.path.join(out, "pair.html")
    base, new = os.path.join(GOLDEN, "base.json"), os.path.join(GOLDEN, "regression.json")
    code, err = report(xttcp, base, new, "-o", pair_page, "--title", "driver A against B")
    check(code == 0, f"report of the golden pair exited {code}: {err}")
    page = read(pair_page)
    check("<title>driver A against B</title>" in page, "--title is not the page's title")
    check("Verdict: <b>REGRESSION</b>" in page, "the pair's page does not give compare's verdict")
    check("<td class='label'>throughput</td>" in page and "-20.3 %" in page,
          "the pair's verdict table lacks the throughput change compare computes (-20.3 %)")
    check(">throughput_gbps<" not in page and ">cpu_s_per_gb<" not in page,
          "the pair's table shows a metric's JSON key, not its name")
    check("Throughput per interval, base and new" in page,
          "the pair's page does not draw base and new on the same axes")
    for colour in (BASE_SIDE, NEW_SIDE, THIS_END):
        check(colour in page, f"the pair's page draws nothing in {colour}")
    check_self_contained(page, "golden pair")

    sweep_page = os.path.join(out, "sweep.html")
    base, new = os.path.join(SWEEPS, "base.json"), os.path.join(SWEEPS, "new.json")
    code, err = report(xttcp, base, new, "-o", sweep_page)
    check(code == 0, f"report of the golden sweeps exited {code}: {err}")
    page = read(sweep_page)
    for needed in ("<h2>Heatmap</h2>", "<h2>Curves</h2>", "<h2>Each cell</h2>",
                   "REGRESSION in 5 of 8 cells", "TCP, 16 connections, 1M writes, epoll",
                   "noise (throughput)", "TCP: against the number of connections"):
        check(needed in page, f"the sweeps' page lacks {needed!r}")
    check(page.count("<details") == 8, "the sweeps' page does not hold each cell on demand")
    check_self_contained(page, "sweeps")
    # One sweep alone: its cells and its curves.
    one_page = os.path.join(out, "one-sweep.html")
    code, err = report(xttcp, base, "-o", one_page)
    check(code == 0, f"report of one sweep exited {code}: {err}")
    page = read(one_page)
    check("8 of 8 cells measured" in page and "<h2>Curves</h2>" in page,
          "one sweep's page lacks its cells or curves")
    return [real_page, pair_page, sweep_page]


def check_refusals(xttcp, out):
    page = os.path.join(out, "kept.html")
    with open(page, "w") as f:
        f.write("earlier page")
    cases = [
        ([os.path.join(SOURCE_ROOT, "README.md"), "-o", page], "not a JSON result"),
        ([os.path.join(out, "missing.json"), "-o", page], "a missing file"),
        ([os.path.join(GOLDEN, "base.json"), "-o", os.path.join(out, "no", "dir", "p.html")],
         "a page in a missing directory"),
        ([os.path.join(GOLDEN, "base.json"), "-o", page, "--threshold", "x"], "a bad threshold"),
        ([os.path.join(GOLDEN, "base.json")], "no -o"),
        ([os.path.join(SWEEPS, "base.json"), os.path.join(GOLDEN, "base.json"), "-o", page],
         "a sweep beside a result file"),
    ]
    for args, what in cases:
        code, err = report(xttcp, *args)
        check(code == 2, f"report with {what} exited {code}, want 2: {err}")
        lines = [line for line in err.splitlines() if line.strip()]
        check(len(lines) == 1, f"report with {what} said {len(lines)} lines, want one: {err}")
        check(read(page) == "earlier page", f"report with {what} touched -o")


def colour_pixels(png, colour):
    import matplotlib.image
    pixels = matplotlib.image.imread(png)[:, :, :3]
    want = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    near = abs(pixels - want).max(axis=2) < 10 / 255
    return int(near.sum())


def ink_past_margin(png):
    """Pixels that are not white in the rightmost 24 columns: the page keeps a margin there, so
    anything drawn is a plot, table or line of text that ran past it (cut in a narrower window)."""
    import matplotlib.image
    pixels = matplotlib.image.imread(png)[:, -24:, :3]
    return int((pixels.min(axis=2) < 0.9).sum())


def render(pages, out):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SkipTest("no chromium here (scripts/install-deps.sh installs Debian's)")
    for page, colours in zip(pages, ((THIS_END,), (BASE_SIDE, NEW_SIDE, THIS_END),
                                     (WORST, THIS_END))):
        png = page + ".png"
        done = run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--user-data-dir={os.path.join(out, 'chromium')}",
                    f"--window-size={WIDTH},6000", f"--screenshot={png}", "file://" + page],
                   timeout=90)
        check(os.path.exists(png), f"chromium wrote no screenshot of {page}: {done.stderr[-400:]}")
        for colour in colours:
            count = colour_pixels(png, colour)
            # A scatter dot is ~20 pixels, a bar thousands: the plots are drawn, not just text.
            check(count >= 50, f"the screenshot of {os.path.basename(page)} has {count} pixels "
                               f"of {colour}, want >= 50")
        inked = ink_past_margin(png)
        check(inked == 0, f"the screenshot of {os.path.basename(page)} has {inked} pixels drawn "
                          f"in the last 24 of its {WIDTH}: something runs past the page's margin")


def body(started):
    if sys.argv[2:] == ["render"]:
        try:
            import matplotlib  # noqa: F401  (reads the screenshots)
        except ImportError:
            # Debian's python3-matplotlib is /usr/bin/python3's; another python3 may lack it.
            if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
                os.execv("/usr/bin/python3", ["/usr/bin/python3", *sys.argv])
            raise SkipTest("python3-matplotlib is not installed (scripts/install-deps.sh)")
    xttcp = xttcp_binary()
    out = scratch_dir()
    pages = make_pages(xttcp, out)
    if sys.argv[2:] == ["render"]:
        render(pages, out)
    else:
        check_refusals(xttcp, out)


if __name__ == "__main__":
    run_test(body)
