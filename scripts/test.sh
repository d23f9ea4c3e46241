#!/usr/bin/env bash
# Builds xttcp with warnings as errors and runs every test suite (unit, e2e).
# Usage: scripts/test.sh [meson test arguments, e.g. --suite unit]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
build=build-test
if [[ -d $build ]]; then
  meson setup --reconfigure "$build" -Dwerror=true >/dev/null
else
  meson setup "$build" -Dwerror=true --buildtype=debugoptimized >/dev/null
fi
ninja -C "$build"

status=0
meson test -C "$build" --print-errorlogs "$@" || status=$?

# One closing line any CI reads: "N passed, N failed, N skipped".
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0, "TIMEOUT": 0, "ERROR": 0, "EXPECTEDFAIL": 0, "UNEXPECTEDPASS": 0}
with open(sys.argv[1]) as f:
    for line in f:
        result = json.loads(line).get("result")
        counts[result] = counts.get(result, 0) + 1
failed = counts["FAIL"] + counts["TIMEOUT"] + counts["ERROR"] + counts["UNEXPECTEDPASS"]
print(f"{counts['OK'] + counts['EXPECTEDFAIL']} passed, {failed} failed, {counts['SKIP']} skipped")
PY
exit $status
