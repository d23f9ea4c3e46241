#!/usr/bin/env bash
# Builds xttcp and runs every test suite, in up to three legs:
#   1. build-test/:     warnings as errors, all suites (unit, e2e, interop, bench smoke);
#   2. build-asan/:     AddressSanitizer + UndefinedBehaviorSanitizer, unit, e2e (without the
#                       per-backend variants) and interop;
#   3. build-windows/:  xttcp.exe cross-built with mingw-w64 (cross/mingw-w64.ini), warnings as
#                       errors; its unit tests run under Wine, and tests/e2e_windows
#                       runs leg 1's xttcp against xttcp.exe under Wine (XTTCP_LINUX_BIN). With
#                       --windows, or in CI (CI=true) when the toolchain installs
#                       (scripts/install-deps.sh --windows).
#   4. build-fuzz/:     the libFuzzer targets of tests/fuzz (clang, ASan + UBSan), each run for
#                       a few seconds from its seed corpus (suite fuzz). Skipped, with the reason,
#                       when clang cannot build them (tests/fuzz/toolchain.sh exits 77).
#   5. build-deb/:      the Debian package, built, linted and tried in a fresh root
#                       (scripts/build-deb.sh), when its inputs changed since it was last proven
#                       (scripts/package-inputs.sh --changed), or with --deb; never with --no-deb.
# Legs 2 to 4 compile in the background (nice 19) while leg 1's tests run; their tests run after.
# Usage: scripts/test.sh [--no-sanitize] [--windows|--no-windows] [--no-fuzz] [--deb|--no-deb]
#        [meson test arguments, e.g. --suite unit] (the Windows, fuzz and package legs run all of
#        their own checks)
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=1
fuzz=1
windows=auto  # auto: only in CI
deb=auto  # auto: when the package's inputs changed
while [[ $# -gt 0 ]]; do
  case $1 in
    --no-sanitize) sanitize=0 ;;
    --no-fuzz) fuzz=0 ;;
    --windows) windows=yes ;;
    --no-windows) windows=no ;;
    --deb) deb=yes ;;
    --no-deb) deb=no ;;
    *) break ;;
  esac
  shift
done
if [[ $windows == auto ]]; then
  [[ ${CI:-} == true ]] && windows=yes || windows=no
fi

scripts/install-deps.sh  # with DPDK (the default): the dpdk backend is built and tested on virtual devices
skipped_legs=0  # legs skipped for want of a toolchain: each counts as one skipped test
if ((fuzz)); then
  scripts/install-deps.sh --fuzz || true  # a failed install shows up as the reason below
  if fuzz_cxx=$(tests/fuzz/toolchain.sh); then
    :
  else
    echo "fuzz leg skipped: $fuzz_cxx"
    fuzz=0
    skipped_legs=$((skipped_legs + 1))
  fi
fi
if [[ $windows == yes ]] && ! scripts/install-deps.sh --windows; then
  echo "windows leg skipped: the mingw-w64/Wine toolchain did not install" \
    "(scripts/install-deps.sh --windows)"
  windows=no
fi

# configure DIR OPTIONS...: configure once, reconfigure after.
# meson setup, quiet unless it fails: then its last lines (meson says why on stdout) and exit 1.
configure() {
  local dir=$1
  shift
  local said
  if [[ -d $dir ]]; then
    said=$(meson setup --reconfigure "$dir" "$@" 2>&1) || {
      tail -n 20 <<<"$said" >&2
      echo "test.sh: meson setup $dir failed (above)" >&2
      exit 1
    }
  else
    said=$(meson setup "$dir" "$@" 2>&1) || {
      tail -n 20 <<<"$said" >&2
      echo "test.sh: meson setup $dir failed (above)" >&2
      exit 1
    }
  fi
}

# The sanitizer and Windows legs compile in the background, one after the other, at nice 19,
# while leg 1's tests run: those tests mostly wait (on -t windows, on peers), so the compiles
# use the idle cores, and a test still gets a core whenever it wants one (nice 0 against 19).
# Each build leaves DIR/build-status ("exit-code seconds") and its output in DIR/build-output.
background_build() {
  local dir=$1 begin=$SECONDS rc=0
  nice -n 19 ninja -C "$dir" >"$dir/build-output" 2>&1 || rc=$?
  echo "$rc $((SECONDS - begin))" >"$dir/build-status"
}
# wait_build DIR: 0 once DIR built; else prints the end of its output and returns 1.
wait_build() {
  local dir=$1
  wait_started=$SECONDS
  while [[ ! -s $dir/build-status ]]; do
    if ! kill -0 "$builds_pid" 2>/dev/null && [[ ! -s $dir/build-status ]]; then
      echo "$dir: the background build ended without a status" >&2
      return 1
    fi
    sleep 1
  done
  read -r build_rc build_seconds <"$dir/build-status"
  if ((build_rc != 0)); then
    tail -n 60 "$dir/build-output" >&2
    return 1
  fi
}

logs=()
status=0
timings=()  # "leg: build N s, tests N s", printed at the end: where CI's time goes

start=$SECONDS
# -g1 (line tables: backtraces keep file:line) instead of -g: full debug info of the JSON
# templates doubled the compile time of a file (-O2 -g 9.3 s, -O2 -g1 5.4 s for native_json.cc),
# and CI's time is mostly compiling.
configure build-test -Dwerror=true --buildtype=debugoptimized -Dcpp_args=-g1
ninja -C build-test
built=$SECONDS

if ((sanitize)); then
  # Unity build: the sanitizer leg checks behaviour, and merged sources halve its compile time.
  # No vptr check: it reads a constructing object's vptr slot, so fmt's inline buffer on a stack
  # slot holding stale bytes is "an invalid vptr" now and then (seen once in e2e-scale, never
  # again in 3 reruns; google/sanitizers#1526 is the same false positive on fmt).
  configure build-asan -Dwerror=true --buildtype=debug -Db_sanitize=address,undefined \
    -Dbench=disabled -Dunity=on "-Dcpp_args=-g1 -fno-sanitize=vptr"
  rm -f build-asan/build-status
fi
if ((fuzz)); then
  # Its own build dir: only the fuzz targets and the engine sources they reach (tests/fuzz).
  CXX=$fuzz_cxx configure build-fuzz -Dfuzz=enabled --buildtype=plain -Doptimization=1
  rm -f build-fuzz/build-status
fi
if [[ $windows == yes ]]; then
  # A private Wine prefix, so the leg never touches the user's; its wineserver is ended below.
  export WINEPREFIX=${XTTCP_WINEPREFIX:-$PWD/build-windows-wine}
  export WINEDEBUG=-all
  # -O0: the tests check behaviour, not speed. Not a unity build: docs/windows.md's own commands
  # (a unity build once hid a member template that no file instantiated: iocp linked only when
  # merged), and on 2 cores no dearer (from scratch: 287 s of CPU, unity 320 s; the unit tests
  # are one unity chunk each either way).
  configure build-windows --cross-file cross/mingw-w64.ini -Dwerror=true --buildtype=debug \
    -Dunity=off -Dcpp_args=-g1
  rm -f build-windows/build-status
fi
set -m  # the background builds get their own process group: stopped with this script
(
  if ((sanitize)); then background_build build-asan; fi
  if ((fuzz)); then background_build build-fuzz; fi
  if [[ $windows == yes ]]; then
    # Wine's first start creates its prefix (seconds, mostly waiting): before the tests need it.
    timeout 180 wineboot --init >/dev/null 2>&1 || echo "wineboot --init failed" >&2
    background_build build-windows
  fi
) </dev/null &
builds_pid=$!
set +m
trap 'kill -- -"$builds_pid" 2>/dev/null || true' EXIT

meson test -C build-test --print-errorlogs "$@" || status=1
logs+=(build-test/meson-logs/testlog.json)
timings+=("warnings-as-errors leg: build $((built - start)) s, tests $((SECONDS - built)) s")

if ((sanitize)); then
  if wait_build build-asan; then
    waited=$((SECONDS - wait_started))
    begin=$SECONDS
    suites=("$@")
    # The per-backend e2e variants (tests/e2e_backends) run in leg 1 only: under the sanitizers
    # the default e2e scripts already drive both kernel data paths, and the variants' failure
    # and UDP cases, which run alone, were ~90 s of this leg.
    ((${#suites[@]})) || suites=(--suite unit --suite e2e --suite interop --no-suite e2e-backends)
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      meson test -C build-asan --print-errorlogs "${suites[@]}" || status=1
    logs+=(build-asan/meson-logs/testlog.json)
    timings+=("sanitizer leg: build $build_seconds s (in the background; waited $waited s for it)," \
      "tests $((SECONDS - begin)) s")
  else
    status=1
  fi
fi

if ((fuzz)); then
  if wait_build build-fuzz; then
    waited=$((SECONDS - wait_started))
    begin=$SECONDS
    # Each target runs -Dfuzz_seconds (5 s) from its seeds; a crash, leak, UB report or failed
    # property fails its test and leaves the input in build-fuzz/tests/fuzz/artifacts/.
    meson test -C build-fuzz --print-errorlogs --suite fuzz || status=1
    logs+=(build-fuzz/meson-logs/testlog.json)
    timings+=("fuzz leg: build $build_seconds s (in the background; waited $waited s for it)," \
      "tests $((SECONDS - begin)) s")
  else
    status=1
  fi
fi

if [[ $windows == yes ]]; then
  if wait_build build-windows; then
    waited=$((SECONDS - wait_started))
    begin=$SECONDS
    # The cross-OS tests run the Linux build of leg 1 against xttcp.exe.
    export XTTCP_LINUX_BIN=$PWD/build-test/xttcp
    meson test -C build-windows --print-errorlogs || status=1
    logs+=(build-windows/meson-logs/testlog.json)
    timings+=("windows leg: build $build_seconds s (in the background; waited $waited s for it)," \
      "tests $((SECONDS - begin)) s")
  else
    status=1
  fi
  wineserver -k 2>/dev/null || true
fi
wait "$builds_pid" || true

# The package: a full optimised build of its own (minutes), so only when what can break it changed.
package_leg=none  # none, passed or failed: one test in the closing line
if [[ $deb == auto ]]; then
  if scripts/package-inputs.sh --changed; then deb=yes; else deb=no; fi
fi
if [[ $deb == yes ]]; then
  begin=$SECONDS
  if scripts/install-deps.sh --deb && scripts/build-deb.sh build-deb; then
    package_leg=passed
  else
    package_leg=failed
    status=1
  fi
  timings+=("package leg: $((SECONDS - begin)) s (scripts/build-deb.sh)")
fi

printf '%s\n' "${timings[@]}"
# One closing line any CI reads: "N passed, N failed, N skipped" over every leg run. Before it,
# the end of each failed test's output again: a CI that keeps only the tail of the log (ours
# does) then still shows why, which meson printed minutes earlier.
python3 - "$skipped_legs" "$package_leg" "${logs[@]}" <<'PY'
import json, sys
skipped = int(sys.argv[1])
ok, failed = int(sys.argv[2] == "passed"), int(sys.argv[2] == "failed")  # the package leg
failures = []
for path in sys.argv[3:]:
    with open(path) as f:
        for line in f:
            test = json.loads(line)
            result = test.get("result")
            if result in ("OK", "EXPECTEDFAIL"):
                ok += 1
            elif result == "SKIP":
                skipped += 1
            else:
                failed += 1
                failures.append((path.split("/")[0], test))
for leg, test in failures:
    tail = (test.get("stdout") or "").splitlines()[-40:]
    print(f"==== {leg}: {test.get('name')} {test.get('result')}, its output's last {len(tail)} lines:")
    print("\n".join(tail))
print(f"{ok} passed, {failed} failed, {skipped} skipped")
PY
exit $status
