#!/usr/bin/env bash
# Rewrites every C++ file of the tree as clang-format 14 writes it (.clang-format); CI checks
# the same list (tests/format/check_format.sh). --list prints the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
list() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- '*.cc' '*.hh' '*.h' '*.cpp'
  else  # a tarball: everything but build directories
    find . -path './build*' -prune -o -type f \( -name '*.cc' -o -name '*.hh' -o -name '*.h' \
      -o -name '*.cpp' \) -print | sed 's|^\./||' | sort
  fi
}
if [[ ${1:-} == --list ]]; then
  list
  exit 0
fi
list | xargs -r clang-format-14 -i
