#!/usr/bin/env bash
# Installs everything xttcp needs to build, test and benchmark on Debian 12.
# Idempotent: when every package is present it only checks and returns (well under a second).
# Usage: scripts/install-deps.sh [--no-dpdk] [--windows] [--fuzz] [--deb]
#   DPDK       installed by default, so the first build has every Linux data path (io_uring,
#              epoll, dpdk): Debian's DPDK 22.11 (libdpdk-dev and dpdk-dev: ~220 packages, 33 MB
#              download, 165 MB installed, systemd and rdma-core among them)
#   --no-dpdk  leave DPDK out (the build then says dpdk is skipped; `xttcp backends` says why)
#   --dpdk     accepted for old command lines; DPDK is the default
#   --windows  also the Windows cross toolchain (mingw-w64, posix threads) and Wine, which run
#              the Windows leg of scripts/test.sh (about 1.1 GB; only when asked for)
#   --deb      also debhelper, lintian, fakeroot and mmdebstrap, which scripts/build-deb.sh
#              builds, checks and tries the Debian package (in a fresh root) with
#   --fuzz     also clang 14 and its libFuzzer/sanitizer runtimes (libclang-rt-14-dev), which
#              build tests/fuzz (the main build stays GCC); scripts/test.sh (CI) asks for it
set -euo pipefail

with_dpdk=1
with_windows=0
with_fuzz=0
with_deb=0
for arg in "$@"; do
  case $arg in
    --dpdk) with_dpdk=1 ;;  # the default since DPDK came into the quick start
    --no-dpdk) with_dpdk=0 ;;
    --windows) with_windows=1 ;;
    --fuzz) with_fuzz=1 ;;
    --deb) with_deb=1 ;;
    *) echo "install-deps: unknown argument '$arg' (known: --no-dpdk, --dpdk, --windows, --fuzz, --deb)" >&2; exit 2 ;;
  esac
done

packages=(
  # build
  build-essential g++ meson ninja-build pkg-config
  # libraries (Debian's, no vendored copies)
  libhwloc-dev nlohmann-json3-dev libfmt-dev libpugixml-dev liburing-dev
  # --auth-key's HMAC-SHA256 (OpenSSL's libcrypto)
  libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # test and benchmark tools; jsonschema checks docs/native-result.schema.json, man-db reads
  # the installed man page (tests/install)
  iproute2 iperf iperf3 python3 procps python3-jsonschema man-db sockperf
  # a firewall inside a test namespace (tests/e2e_netns/one_port_netns_test.py)
  nftables
  # `xttcp report` draws with matplotlib; its test renders the page in headless Chromium
  python3-matplotlib chromium
  # tests/format/check_format.sh: the tree is as clang-format 14 writes it
  clang-format-14
)
if ((with_windows)); then
  # googletest's sources (/usr/src/googletest, from libgtest-dev) are cross-built by Meson.
  packages+=(g++-mingw-w64-x86-64-posix wine wine64)
fi
# dpdk-dev has dpdk-testpmd (bench/compare/dpdk_txonly.py); libdpdk-dev the build files.
((with_dpdk)) && packages+=(libdpdk-dev dpdk-dev)
# The Debian package (scripts/build-deb.sh): dh with its meson build system, lintian, and
# mmdebstrap for the fresh root it is installed into.
((with_deb)) && packages+=(debhelper lintian fakeroot dpkg-dev mmdebstrap)
# clang-14 does not pull in compiler-rt, where -fsanitize=fuzzer,address,undefined live.
((with_fuzz)) && packages+=(clang-14 libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages (${missing[*]}); run this script as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# iperf3 asks whether to start a daemon; we never want one.
echo 'iperf3 iperf3/start_daemon boolean false' | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
