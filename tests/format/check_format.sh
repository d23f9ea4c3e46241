#!/usr/bin/env bash
# Every C++ file of the tree is as clang-format 14 writes it with the tree's .clang-format
# (scripts/format.sh rewrites them). Exits 1 naming the files that differ, 77 without
# clang-format-14 (scripts/install-deps.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v clang-format-14 >/dev/null; then
  echo "SKIP: clang-format-14 is not installed (scripts/install-deps.sh installs it)"
  exit 77
fi
mapfile -t files < <(scripts/format.sh --list)
((${#files[@]} > 0)) || { echo "FAIL: no C++ files found"; exit 1; }
report=$(mktemp)
trap 'rm -f "$report"' EXIT
if clang-format-14 --dry-run --Werror "${files[@]}" >"$report" 2>&1; then
  echo "PASS: ${#files[@]} files as clang-format-14 writes them"
  exit 0
fi
echo "FAIL: files not as clang-format-14 writes them (scripts/format.sh fixes them):"
grep -oE '^[^:]+\.(cc|hh|h|cpp):' "$report" | sort -u | sed 's/:$//; s/^/  /'
echo "first differences:"
head -n 30 "$report"
exit 1
