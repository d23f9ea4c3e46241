#!/usr/bin/env python3
"""--version says the version, the git commit of the build, the data paths and the libraries
compiled in; each is checked against a source of its own: git, 'xttcp backends', and the
dependencies Meson found (meson-info beside the binary). Both dialects print the same text."""
import json
import os
import subprocess

from xttcp_e2e import check, run_test, xttcp_binary

SOURCE_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def run(args):
    done = subprocess.run(args, capture_output=True, text=True, timeout=30)
    check(done.returncode == 0, f"{args} exited {done.returncode}: {done.stderr}")
    return done.stdout


def fields(text):
    """'name: value' lines after the first, as a dict."""
    return {k.strip(): v.strip() for k, v in
            (line.split(":", 1) for line in text.splitlines()[1:] if ":" in line)}


def body(started):
    xttcp = xttcp_binary()
    text = run([xttcp, "--version"])
    check(text.splitlines()[0].startswith("xttcp "), f"first line is not 'xttcp VERSION':\n{text}")
    info = fields(text)

    head = subprocess.run(["git", "-C", SOURCE_ROOT, "rev-parse", "HEAD"], capture_output=True,
                          text=True, timeout=30)
    if head.returncode == 0:
        commit = info.get("commit", "").removesuffix("-dirty")
        check(len(commit) >= 12 and head.stdout.strip().startswith(commit),
              f"commit {info.get('commit')!r} is not HEAD {head.stdout.strip()}")
    else:
        check(info.get("commit") == "unknown", f"no git checkout, yet commit {info.get('commit')!r}")

    # Every backend 'xttcp backends' lists as compiled in (a status row), in the same order.
    backends = run([xttcp, "backends"])
    compiled = [line.split()[0] for line in backends.splitlines()
                if line.split()[1:2] == ["available"]]
    paths = info.get("data paths", "")
    check(paths.split(";")[0].split(", ") == compiled,
          f"data paths {paths!r}, but 'xttcp backends' lists {compiled}")

    # The linked libraries, with the versions Meson found for this build.
    intro = os.path.join(os.path.dirname(xttcp), "meson-info", "intro-dependencies.json")
    found = {d["name"]: d["version"] for d in json.load(open(intro))}
    libraries = info.get("libraries", "")
    for name in ("liburing", "libdpdk", "hwloc"):
        if name in found:
            check(f"{name} {found[name]}" in libraries,
                  f"libraries {libraries!r} lack {name} {found[name]} (Meson found it)")
        else:
            check(name not in libraries, f"libraries {libraries!r} name {name}, not in this build")
    for name in ("fmt", "nlohmann_json"):
        check(f"{name} " in libraries, f"libraries {libraries!r} lack {name}")
    check(info.get("built with", "") != "", f"no 'built with' line:\n{text}")

    check(run([xttcp, "--dialect", "windows", "--version"]) == text,
          "the Windows dialect's --version differs from the Linux dialect's")


run_test(body)
