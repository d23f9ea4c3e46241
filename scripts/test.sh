#!/usr/bin/env bash
# Builds xttcp and runs every test suite, in up to three legs:
#   1. build-test/:     warnings as errors, all suites (unit, e2e, interop, bench smoke);
#   2. build-asan/:     AddressSanitizer + UndefinedBehaviorSanitizer, unit, e2e and interop;
#   3. build-windows/:  xttcp.exe cross-built with mingw-w64 (cross/mingw-w64.ini), warnings as
#                       errors; its unit tests run under Wine, and tests/e2e_windows
#                       runs leg 1's xttcp against xttcp.exe under Wine (XTTCP_LINUX_BIN). With
#                       --windows, or in CI (CI=true) when the toolchain installs
#                       (scripts/install-deps.sh --windows).
# Usage: scripts/test.sh [--no-sanitize] [--windows|--no-windows] [meson test arguments, e.g.
#        --suite unit] (the Windows leg runs all of its own suites)
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=1
windows=auto  # auto: only in CI
while [[ $# -gt 0 ]]; do
  case $1 in
    --no-sanitize) sanitize=0 ;;
    --windows) windows=yes ;;
    --no-windows) windows=no ;;
    *) break ;;
  esac
  shift
done
if [[ $windows == auto ]]; then
  [[ ${CI:-} == true ]] && windows=yes || windows=no
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
timings=()  # "leg: build N s, tests N s", printed at the end: where CI's time goes
start=$SECONDS
setup build-test -Dwerror=true --buildtype=debugoptimized
built=$SECONDS
meson test -C build-test --print-errorlogs "$@" || status=1
logs+=(build-test/meson-logs/testlog.json)
timings+=("warnings-as-errors leg: build $((built - start)) s, tests $((SECONDS - built)) s")

if ((sanitize)); then
  # Unity build: the sanitizer leg checks behaviour, and merged sources halve its compile time.
  start=$SECONDS
  setup build-asan -Dwerror=true --buildtype=debug -Db_sanitize=address,undefined -Dbench=disabled \
    -Dunity=on
  built=$SECONDS
  suites=("$@")
  ((${#suites[@]})) || suites=(--suite unit --suite e2e --suite interop)
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C build-asan --print-errorlogs "${suites[@]}" || status=1
  logs+=(build-asan/meson-logs/testlog.json)
  timings+=("sanitizer leg: build $((built - start)) s, tests $((SECONDS - built)) s")
fi

if [[ $windows == yes ]]; then
  if scripts/install-deps.sh --windows; then
    # A private Wine prefix, so the leg never touches the user's; its wineserver is ended below.
    export WINEPREFIX=${XTTCP_WINEPREFIX:-$PWD/build-windows-wine}
    export WINEDEBUG=-all
    start=$SECONDS
    # -O0 and a unity build: the tests check behaviour, not speed, and compiling is most of
    # this leg's time.
    windows_options=(--cross-file cross/mingw-w64.ini -Dwerror=true --buildtype=debug -Dunity=on)
    # The cross-OS tests run the Linux build of leg 1 against xttcp.exe.
    export XTTCP_LINUX_BIN=$PWD/build-test/xttcp
    if [[ -d build-windows ]]; then
      meson setup --reconfigure build-windows "${windows_options[@]}" >/dev/null
    else
      meson setup build-windows "${windows_options[@]}" >/dev/null
    fi
    unset built
    # Wine's first start creates its prefix (~30 s, mostly waiting): while the build runs.
    timeout 180 wineboot --init >/dev/null 2>&1 &
    wineboot_pid=$!
    if ninja -C build-windows; then
      wait "$wineboot_pid" || echo "wineboot --init failed; the first test under Wine creates the prefix"
      built=$SECONDS
      meson test -C build-windows --print-errorlogs || status=1
      logs+=(build-windows/meson-logs/testlog.json)
    else
      wait "$wineboot_pid" || true
      status=1
    fi
    wineserver -k 2>/dev/null || true
    timings+=("windows leg: $((SECONDS - start)) s (tests $((SECONDS - ${built:-$SECONDS})) s)")
  else
    echo "windows leg skipped: the mingw-w64/Wine toolchain did not install" \
      "(scripts/install-deps.sh --windows)"
  fi
fi

printf '%s\n' "${timings[@]}"
# One closing line any CI reads: "N passed, N failed, N skipped" over every leg run.
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
