#!/usr/bin/env bash
# Builds xttcp and runs every test suite, in two legs:
#   1. build-test/:  warnings as errors, all suites (unit, e2e, interop, bench smoke);
#   2. build-asan/:  AddressSanitizer + UndefinedBehaviorSanitizer, unit, e2e and interop.
# Usage: scripts/test.sh [--no-sanitize] [meson test arguments, e.g. --suite unit]
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=1
if [[ ${1:-} == --no-sanitize ]]; then
  sanitize=0
  shift
fi

scripts/install-deps.sh --dpdk  # the dpdk backend is built and tested on virtual devices

# setup DIR OPTIONS...: configure once, reconfigure after.
setup() {
  local dir=$1
  shift
  if [[ -d $dir ]]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@" >/dev/null
  fi
  ninja -C "$dir"
}

logs=()
status=0
setup build-test -Dwerror=true --buildtype=debugoptimized
meson test -C build-test --print-errorlogs "$@" || status=1
logs+=(build-test/meson-logs/testlog.json)

if ((sanitize)); then
  setup build-asan -Dwerror=true --buildtype=debug -Db_sanitize=address,undefined -Dbench=disabled
  suites=("$@")
  ((${#suites[@]})) || suites=(--suite unit --suite e2e --suite interop)
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs "${suites[@]}" || status=1
  logs+=(build-asan/meson-logs/testlog.json)
fi

# One closing line any CI reads: "N passed, N failed, N skipped" over both legs.
python3 - "${logs[@]}" <<'PY'
import json, sys
ok = failed = skipped = 0
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            result = json.loads(line).get("result")
            if result in ("OK", "EXPECTEDFAIL"):
                ok += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1
print(f"{ok} passed, {failed} failed, {skipped} skipped")
PY
exit $status
