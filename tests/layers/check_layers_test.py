#!/usr/bin/env python3
"""scripts/check_layers.py, the build's check that no include runs back up a layer: the real tree
passes; a copy of it with one planted back-edge (planted_back_edge.hh as topology/) fails and names
the file and line; includes written relative to the file or with <> are resolved as the compiler
does; tests/ and bench/ are not layers. Exit 0 pass, 1 fail."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(SOURCE_ROOT, "scripts", "check_layers.py")
LAYERS = ["base", "topology", "engine", "io_backends", "tools"]

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def run(root, *extra):
    return subprocess.run([sys.executable, SCRIPT, "--root", root, *extra], capture_output=True,
                          text=True, timeout=60)


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as out:
        out.write(text)


def real_tree_passes(scratch):
    stamp, depfile = os.path.join(scratch, "ok.stamp"), os.path.join(scratch, "ok.d")
    done = run(SOURCE_ROOT, "--stamp", stamp, "--depfile", depfile)
    check(done.returncode == 0, f"the real tree fails:\n{done.stderr}")
    check(os.path.isfile(stamp), "no stamp written for a clean tree")
    with open(depfile, encoding="utf-8") as deps:
        text = deps.read()
    check(text.startswith(stamp.replace("\\", "/") + ":"), f"depfile target: {text[:200]}")
    for listed in ("base/status.hh", "engine/backend/backend.hh", "io_backends/registry.hh"):
        check(listed in text, f"depfile lacks {listed}")
    check(os.path.join(SOURCE_ROOT, "engine", "backend") in text, "depfile lacks the folders")


def planted_back_edge_fails(scratch):
    copy = os.path.join(scratch, "tree")
    for layer in LAYERS:
        shutil.copytree(os.path.join(SOURCE_ROOT, layer), os.path.join(copy, layer))
    shutil.copy(os.path.join(HERE, "planted_back_edge.hh"),
                os.path.join(copy, "topology", "planted_back_edge.hh"))
    stamp = os.path.join(scratch, "planted.stamp")
    done = run(copy, "--stamp", stamp)
    check(done.returncode == 1, f"a planted back-edge passes (exit {done.returncode})")
    check(not os.path.exists(stamp), "a stamp was written for a tree with a back-edge")
    lines = [line for line in done.stderr.splitlines() if not line.startswith("check_layers:")]
    check(len(lines) == 1 and lines[0].startswith(
              "topology/planted_back_edge.hh:5: includes engine/spec.hh: topology/ may not "
              "include engine/"), f"not the one planted back-edge:\n{done.stderr}")


def include_forms(scratch):
    root = os.path.join(scratch, "forms")
    write(root, "base/util.hh", '#include <string>\n#include "xttcp_config.h"\n')
    write(root, "engine/run/pool.hh", '#include "base/util.hh"\n#include "topology/cpus.hh"\n')
    write(root, "engine/run/pool.cc", '#include "pool.hh"\n#include "../../base/util.hh"\n')
    write(root, "topology/cpus.hh", '#include "base/util.hh"\n')
    write(root, "tools/main.cc",
          '#include "io_backends/registry.hh"\n#include "engine/run/pool.hh"\n')
    write(root, "io_backends/registry.hh", '#include "engine/run/pool.hh"\n')
    write(root, "tests/any_test.cc", '#include "tools/main.cc"\n')  # tests may include anything
    done = run(root)
    check(done.returncode == 0, f"downward includes refused:\n{done.stderr}")

    write(root, "engine/run/back.cc",
          '#include "../../io_backends/registry.hh"\n  #  include <tools/main.cc>\n')
    write(root, "base/up.hh", '// #include "engine/run/pool.hh" in a comment is no include\n'
                              '#if 0\n#include "topology/cpus.hh"\n#endif\n')
    done = run(root)
    check(done.returncode == 1, f"back-edges passed (exit {done.returncode})")
    for expected in ("base/up.hh:3: includes topology/cpus.hh: base/ may not include topology/",
                     "engine/run/back.cc:1: includes io_backends/registry.hh: engine/ may not "
                     "include io_backends/",
                     "engine/run/back.cc:2: includes tools/main.cc: engine/ may not include "
                     "tools/"):
        check(expected in done.stderr, f"no '{expected}' in:\n{done.stderr}")
    check("check_layers: 3 include(s)" in done.stderr, f"not 3 back-edges:\n{done.stderr}")


def main():
    with tempfile.TemporaryDirectory(prefix="xttcp-layers-") as scratch:
        real_tree_passes(scratch)
        planted_back_edge_fails(scratch)
        include_forms(scratch)
    for failure in failures:
        print("FAIL:", failure)
    if not failures:
        print("scripts/check_layers.py: clean tree passes, planted back-edges fail")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
