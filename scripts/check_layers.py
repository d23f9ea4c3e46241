#!/usr/bin/env python3
"""Fails when a file of a lower layer includes a file of a higher one (docs/architecture.md).

The layers, lowest first: base < topology < engine < io_backends < tools. A file may include
files of its own layer and of the layers below it; tests/ and bench/ may include anything and
are not scanned. An include names its layer by its first folder ("engine/spec.hh"); one written
relative to the including file ("../engine/spec.hh", "spec.hh") is resolved from that file's
folder first, as the compiler does. An include behind #if counts too: it is still an arrow.

The build runs this on every change (a Meson custom_target built by default, in the top
meson.build), so an include that runs back up fails `ninja`:
  check_layers.py --root SRC [--stamp FILE --depfile FILE]
--stamp is written when the tree is clean; --depfile lists every scanned file and folder (ninja
runs the check again when one changes or a file is added). Exit status: 0 clean, 1 back-edges
(one line each: file:line: what it includes and why that is not allowed), 2 bad usage.
"""
import argparse
import os
import re
import sys

LAYERS = ["base", "topology", "engine", "io_backends", "tools"]
RANK = {name: rank for rank, name in enumerate(LAYERS)}
SOURCE_SUFFIXES = (".cc", ".hh", ".h", ".cpp", ".hpp", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def layer_of(relative_path):
    """The layer a root-relative path belongs to, or None outside the layers."""
    first = relative_path.replace("\\", "/").split("/", 1)[0]
    return first if first in RANK else None


def included_path(root, including_file, written):
    """The root-relative path an include names: next to the including file when that file
    exists (quote includes only), else from the root."""
    here = os.path.dirname(os.path.join(root, including_file))
    beside = os.path.normpath(os.path.join(here, written))
    if os.path.isfile(beside):
        return os.path.relpath(beside, root).replace(os.sep, "/")
    return os.path.normpath(written).replace(os.sep, "/")


def scan(root):
    """Every source file and folder of the layers under root, root-relative."""
    files, folders = [], []
    for layer in LAYERS:
        top = os.path.join(root, layer)
        if not os.path.isdir(top):
            continue
        for folder, subfolders, names in os.walk(top):
            subfolders.sort()
            folders.append(folder)
            for name in sorted(names):
                if name.endswith(SOURCE_SUFFIXES):
                    files.append(os.path.relpath(os.path.join(folder, name), root))
    return files, folders


def back_edges(root, files):
    """(file, line number, included path, file's layer, included layer) for each back-edge."""
    found = []
    for relative in files:
        source_layer = layer_of(relative)
        with open(os.path.join(root, relative), encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, start=1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                kind, written = match.groups()
                target = included_path(root, relative, written) if kind == '"' else written
                target_layer = layer_of(target)
                if target_layer is None or RANK[target_layer] <= RANK[source_layer]:
                    continue
                found.append((relative.replace(os.sep, "/"), number, target, source_layer,
                              target_layer))
    return found


def ninja_escape(path):
    return path.replace("\\", "/").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", required=True, help="the source tree's root")
    parser.add_argument("--stamp", help="written when no back-edge is found")
    parser.add_argument("--depfile", help="ninja depfile: the scanned files and folders")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(root):
        print(f"check_layers: --root {args.root}: not a folder", file=sys.stderr)
        return 2

    files, folders = scan(root)
    if args.depfile:
        target = args.stamp or "check-layers"
        deps = [os.path.join(root, f) for f in files] + folders
        with open(args.depfile, "w", encoding="utf-8") as out:
            out.write(ninja_escape(target) + ": \\\n")
            out.write(" \\\n".join("  " + ninja_escape(path) for path in deps) + "\n")

    edges = back_edges(root, files)
    for relative, number, target, source_layer, target_layer in edges:
        print(f"{relative}:{number}: includes {target}: {source_layer}/ may not include "
              f"{target_layer}/ (layers, lowest first: {' < '.join(LAYERS)}; "
              f"see docs/architecture.md)", file=sys.stderr)
    if edges:
        print(f"check_layers: {len(edges)} include(s) run back up a layer", file=sys.stderr)
        return 1
    if args.stamp:
        with open(args.stamp, "w", encoding="utf-8") as out:
            out.write(f"{len(files)} files, no include runs back up a layer\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
