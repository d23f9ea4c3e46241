#!/bin/sh
# The installed package at work, run by scripts/build-deb.sh inside a fresh Debian root (chroot)
# that holds only what the package declares, one stage at a time as the root grows:
#   bare     its Depends only: the program, `backends`, two --local runs, `compare` of them; and
#            `xttcp report` says in one line what to install (python3 is only recommended)
#   python   python3 without matplotlib: `xttcp report` says in one line what to install
#   full     installed with its Recommends: `xttcp report` of the two runs writes a page of plots
#   tools    with man-db and bash-completion: `man xttcp` renders without a warning and the
#            completion loads on demand (bash-completion's loader) and completes options
# The xttcp runs are on loopback inside a network namespace of their own (build-deb.sh).
# Usage (inside the root): deb-root-checks.sh STAGE
set -eu
stage=$1
work=/tmp/xttcp-checks
mkdir -p "$work"
cd "$work"

fail() {
  echo "deb-root-checks ($stage): $*" >&2
  exit 1
}

# A report that cannot draw: exit 1, one line on stderr naming the package, no page written.
report_refused() {
  want=$1
  rm -f page.html
  if xttcp report a.json b.json -o page.html 2>report.err; then
    fail "xttcp report succeeded without $want"
  else
    code=$?
  fi
  [ "$code" -eq 1 ] || fail "xttcp report exited $code without $want, want 1: $(cat report.err)"
  [ "$(wc -l <report.err)" -eq 1 ] || fail "xttcp report said more than one line: $(cat report.err)"
  grep -q "$want" report.err || fail "xttcp report does not say '$want': $(cat report.err)"
  grep -q "apt install python3-matplotlib" report.err ||
    fail "xttcp report does not say what to install: $(cat report.err)"
  [ ! -e page.html ] || fail "xttcp report left page.html behind"
  echo "deb-root-checks ($stage): xttcp report without $want: $(cat report.err)"
}

case $stage in
  bare)
    xttcp --version | head -n 1
    xttcp backends >backends.txt
    grep -q '^auto (TCP): ' backends.txt || fail "xttcp backends names no auto choice: $(cat backends.txt)"
    for run in a b; do
      xttcp --local -t 1 --json "$run.json" >"$run.out" 2>&1 ||
        fail "xttcp --local -t 1 exited $?: $(tail -n 5 "$run.out")"
      [ -s "$run.json" ] || fail "xttcp --local wrote no $run.json"
    done
    xttcp compare a.json a.json >compare.out || fail "xttcp compare a.json a.json exited $?"
    grep -q '^verdict: no regression' compare.out || fail "compare of a run with itself: $(tail -n 3 compare.out)"
    # Two runs: 0 (no regression) or 3 (a regression: loopback in a busy root may differ).
    code=0
    xttcp compare a.json b.json >compare.out || code=$?
    [ "$code" -eq 0 ] || [ "$code" -eq 3 ] || fail "xttcp compare a.json b.json exited $code"
    echo "deb-root-checks (bare): --version, backends, two --local runs, compare (exit $code): ok"
    report_refused python3
    ;;
  python)
    report_refused matplotlib
    ;;
  full)
    xttcp report a.json b.json -o page.html 2>report.err || fail "xttcp report exited $?: $(cat report.err)"
    grep -q '<svg' page.html || fail "the page of xttcp report has no plot"
    echo "deb-root-checks (full): xttcp report wrote $(wc -c <page.html) bytes with plots"
    ;;
  tools)
    LC_ALL=C MANWIDTH=80 man --warnings xttcp >man.txt 2>man.err || fail "man xttcp exited $?"
    [ ! -s man.err ] || fail "man xttcp warned: $(head -n 3 man.err)"
    grep -q '^NAME' man.txt || fail "man xttcp shows no NAME section"
    # As an interactive shell finds it: no `source` of the file, bash-completion loads it.
    bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader xttcp;
             complete -p xttcp' >complete.txt 2>&1 || fail "no completion for xttcp: $(cat complete.txt)"
    grep -q -- '-F _xttcp' complete.txt || fail "complete -p xttcp: $(cat complete.txt)"
    echo "deb-root-checks (tools): man xttcp and bash completion: ok"
    ;;
  *)
    fail "unknown stage (bare, python, full, tools)"
    ;;
esac
