#!/usr/bin/env bash
# Can clang build the libFuzzer targets here? Exit 0 and print the compiler (for CXX), or exit
# 77 (skipped) with the reason on stdout. FUZZ_CXX overrides the compiler (clang++-14).
set -u
cxx=${FUZZ_CXX:-clang++-14}
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "$cxx not found (scripts/install-deps.sh --fuzz installs it)"
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cat >"$scratch/target.cc" <<'CC'
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
CC
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$scratch/target.cc" -o "$scratch/target" \
    >/dev/null 2>&1; then
  echo "$cxx cannot link -fsanitize=fuzzer,address,undefined (libclang-rt-14-dev:" \
    "scripts/install-deps.sh --fuzz installs it)"
  exit 77
fi
echo "$cxx"
