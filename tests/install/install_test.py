#!/usr/bin/env python3
"""meson install into a scratch root (--destdir): the program runs from there (--version); the
man page xttcp(1) renders with man -l without a troff warning and names every option of both
dialects' --help; the bash completion registers for xttcp and offers options, --backend values
and the Windows dialect's options; the documents and the JSON schema are there; every installed
script's interpreter and every module it imports is declared by debian/control (Depends or
Recommends), so a new script never ships in the package without what it needs (the package
build, scripts/build-deb.sh, is too long for every CI run; this check is not).
Usage: install_test.py BUILD_DIR"""
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
SOURCE_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(args, **kwargs):
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, **kwargs)
    check(done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done


def find(root, suffix):
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            if path.endswith(suffix):
                return path
    raise Failure(f"nothing installed ends with {suffix}")


def help_options(xttcp, *dialect):
    """The option spellings that start a dialect's --help rows ("-P", "-h, --help")."""
    text = run([xttcp, *dialect, "--help"]).stdout
    return {row.group(1) for row in re.finditer(r"^  (-[^\s,]+(?:, --\S+)?)", text, re.M)}


def complete(completion, words):
    """What the completion offers for the last of `words` (bash's COMPREPLY)."""
    line = " ".join(words)
    script = (f"source {completion}; COMP_WORDS=({' '.join(repr(w) for w in words)}); "
              f"COMP_CWORD={len(words) - 1}; COMP_LINE={line!r}; _xttcp; "
              "printf '%s\\n' \"${COMPREPLY[@]}\"")
    return run(["bash", "-c", script]).stdout.split()


# What an installed script's interpreter and imports need from Debian. A script needing anything
# else fails the check until its package is declared in debian/control and named here.
ESSENTIAL_INTERPRETERS = {"sh", "bash", "dash"}  # Essential: yes, never declared
INTERPRETER_PACKAGES = {"python3": "python3", "perl": "perl"}
MODULE_PACKAGES = {"matplotlib": "python3-matplotlib", "numpy": "python3-numpy"}


def declared_relations(control_path, package):
    """The packages the binary package `package` names in Depends, Pre-Depends or Recommends
    (every alternative, without versions or architectures)."""
    with open(control_path, encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if not line.startswith("#")]
    paragraphs, fields, last = [], {}, None
    for line in lines + [""]:
        if not line.strip():
            if fields:
                paragraphs.append(fields)
            fields, last = {}, None
        elif line[0] in " \t" and last:
            fields[last] += " " + line.strip()
        else:
            last, _, value = line.partition(":")
            fields[last] = value.strip()
    mine = [p for p in paragraphs if p.get("Package") == package]
    check(len(mine) == 1, f"debian/control has no paragraph for the package {package}")
    names = set()
    for field in ("Pre-Depends", "Depends", "Recommends"):
        for relation in re.split(r"[,|]", mine[0].get(field, "")):
            name = re.sub(r"\(.*?\)|\[.*?\]|<.*?>|:\S+", "", relation).strip()
            if name:
                names.add(name)
    return names


def script_needs(path):
    """The Debian packages a script needs (its interpreter and, for Python, its imports), or
    None when the file is not a script."""
    with open(path, "rb") as f:
        head = f.readline(256)
    if not head.startswith(b"#!"):
        return None
    words = head[2:].decode("utf-8", "replace").split()
    check(words, f"{path}: an empty #! line")
    interpreter = os.path.basename(words[1] if words[0].endswith("/env") and len(words) > 1
                                   else words[0])
    if interpreter in ESSENTIAL_INTERPRETERS:
        return set()
    interpreter = re.sub(r"[\d.]+$", "3", interpreter) if interpreter.startswith("python") \
        else interpreter
    check(interpreter in INTERPRETER_PACKAGES,
          f"{path}: interpreter {interpreter} is not in this test's INTERPRETER_PACKAGES")
    needs = {INTERPRETER_PACKAGES[interpreter]}
    if interpreter == "python3":
        needs |= python_module_needs(path, set())
    return needs


def python_module_needs(path, seen):
    """The Debian packages a Python file's imports need; a module installed beside it (the
    report generator's own) is followed into, not mapped."""
    seen.add(path)
    needs = set()
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        modules = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                   [node.module] if isinstance(node, ast.ImportFrom) and node.module and
                   not node.level else [])
        for module in (m.split(".")[0] for m in modules):
            if module in sys.stdlib_module_names:
                continue
            sibling = os.path.join(os.path.dirname(path), module + ".py")
            if os.path.isfile(sibling):
                if sibling not in seen:
                    needs |= python_module_needs(sibling, seen)
                continue
            check(module in MODULE_PACKAGES,
                  f"{path}: imports {module}, which this test's MODULE_PACKAGES does not map "
                  "to a Debian package (add it there and to debian/control)")
            needs.add(MODULE_PACKAGES[module])
    return needs


def check_declared_dependencies(root, control_path):
    """Every installed script outside usr/share/doc (as lintian sees them) has what it needs
    declared for the package."""
    declared = declared_relations(control_path, "xttcp")
    scripts = 0
    for folder, _, names in os.walk(root):
        if "/share/doc/" in folder + "/":
            continue
        for name in names:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            needs = script_needs(path)
            if needs is None:
                continue
            scripts += 1
            missing = sorted(needs - declared)
            check(not missing, f"{os.path.relpath(path, root)} needs {', '.join(missing)}, which "
                  "debian/control does not declare (Depends or Recommends of xttcp)")
    check(scripts >= 1, "no installed script found (xttcp_report.py is one): is the walk wrong?")


def body(build_dir, root):
    run(["meson", "install", "-C", build_dir, "--destdir", root, "--no-rebuild", "--quiet"])
    xttcp = find(root, "/bin/xttcp")
    version = run([xttcp, "--version"]).stdout
    check(version.startswith("xttcp ") and "commit:" in version, f"installed --version:\n{version}")

    page = find(root, "/man1/xttcp.1")
    env = dict(os.environ, LC_ALL="C", LANG="C", MANWIDTH="100")
    shown = run(["man", "--warnings", "-l", page], env=env)
    check(shown.stderr.strip() == "", f"man -l {page} warned:\n{shown.stderr}")
    text = shown.stdout
    for heading in ("NAME", "SYNOPSIS", "OPTIONS", "NTTTCP FOR WINDOWS", "EXIT STATUS", "EXAMPLES"):
        check(re.search(rf"^{heading}", text, re.M), f"the man page has no {heading} section")
    status = text[text.index("EXIT STATUS"):text.index("EXAMPLES")]
    for code in ("0", "1", "2"):
        check(re.search(rf"^\s+{code}\s+\S", status, re.M), f"the man page lacks exit code {code}")
    for dialect in ((), ("--dialect", "windows")):
        # Each must start an option's entry (a tagged paragraph, indented 7), not just be named.
        missing = [n for n in help_options(xttcp, *dialect) if not re.search(
            rf"^ {{7}}{re.escape(n)}(\s|$)", text, re.M)]
        check(not missing, f"options of {' '.join(dialect) or 'the Linux'} --help missing "
              f"from the man page: {missing}")

    completion = find(root, "/bash-completion/completions/xttcp")
    registered = run(["bash", "-c", f"source {completion}; complete -p xttcp"]).stdout
    check("-F _xttcp" in registered and registered.rstrip().endswith(" xttcp"),
          f"complete -p xttcp: {registered!r}")
    offered = complete(completion, ["xttcp", "--show-"])
    check({"--show-tcp-retrans", "--show-nic-packets", "--show-dev-interrupts"} <= set(offered),
          f"'xttcp --show-<TAB>' offers {offered}")
    check(complete(completion, ["xttcp", "-s", "-"]).count("-P") == 1, "'-<TAB>' lacks -P")
    backends = complete(completion, ["xttcp", "--backend", ""])
    check("auto" in backends and "epoll" in backends, f"'--backend <TAB>' offers {backends}")
    windows = complete(completion, ["xttcp", "--dialect", "windows", "-x"])
    check("-xml" in windows, f"'--dialect windows -x<TAB>' offers {windows}")
    check("-xml" not in complete(completion, ["xttcp", "-x"]), "the Linux dialect offers -xml")
    check(complete(completion, ["xttcp", "b"]) == ["backends"], "'xttcp b<TAB>' is not backends")

    for document in ("README.md", "docs/native-json.md", "docs/native-result.schema.json"):
        find(root, "/doc/xttcp/" + document)

    # `xttcp report` finds its generator where meson install put it (PREFIX/share/xttcp/).
    find(root, "/share/xttcp/xttcp_report.py")
    for module in ("xttcp_report_common.py", "xttcp_report_sweeps.py"):
        find(root, "/share/xttcp/" + module)
    control = os.path.join(SOURCE_ROOT, "debian", "control")
    check_declared_dependencies(root, control)
    # The check can fail: the same control without its Recommends is refused.
    with open(control, encoding="utf-8") as f:
        stripped = re.sub(r"^Recommends:.*\n", "", f.read(), flags=re.M)
    planted = os.path.join(root, "control-without-recommends")
    with open(planted, "w", encoding="utf-8") as f:
        f.write(stripped)
    try:
        check_declared_dependencies(root, planted)
    except Failure as refused:
        check("python3" in str(refused), f"the planted control was refused oddly: {refused}")
    else:
        raise Failure("a debian/control without python3-matplotlib passed the dependency check")
    if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True,
                      timeout=60).returncode == 0:
        golden = os.path.join(SOURCE_ROOT, "tests", "golden", "compare", "base.json")
        page = os.path.join(root, "page.html")
        run([xttcp, "report", golden, "-o", page])
        with open(page, encoding="utf-8") as f:
            check("<svg" in f.read(), "the installed xttcp report wrote a page without plots")
        # And a page of sweeps, drawn by the installed modules beside the generator.
        sweep = os.path.join(SOURCE_ROOT, "tests", "golden", "sweep", "base.json")
        run([xttcp, "report", sweep, "-o", page])
        with open(page, encoding="utf-8") as f:
            check("<h2>Curves</h2>" in f.read(), "the installed xttcp report drew no sweep")


def main():
    if len(sys.argv) != 2:
        print("usage: install_test.py BUILD_DIR", file=sys.stderr)
        return 2
    for tool in ("meson", "man", "bash"):
        if shutil.which(tool) is None:
            print(f"SKIP: {tool} is not installed (scripts/install-deps.sh installs it)")
            return SKIP
    root = tempfile.mkdtemp(prefix="xttcp-install-")
    try:
        body(os.path.abspath(sys.argv[1]), root)
    except Failure as failure:
        print(f"FAIL: {failure}")
        return 1
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print("PASS")
    return 0


sys.exit(main())
