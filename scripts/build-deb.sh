#!/usr/bin/env bash
# Builds the Debian package of the committed tree (HEAD) with Debian's own tooling, checks it
# with lintian, and installs it into a fresh root to run it from there.
#   1. a clone of HEAD in a scratch folder (so uncommitted edits never slip into a package and
#      the source tree stays clean; the clone has the git history --version's commit comes from);
#   2. dpkg-buildpackage -us -uc -b there: debian/rules runs dh with its meson build system;
#   3. lintian on the .changes (errors fail; warnings are printed);
#   4. dpkg --root into an empty root (an empty dpkg database: the package's files and nothing
#      else; --force-depends, as the libraries it links are the build machine's), then that
#      root's xttcp --version and `man -l` of its page; `apt-get install --simulate` of the .deb
#      proves its dependencies resolve on this machine.
# Usage: scripts/build-deb.sh [OUT_DIR]   (default build-deb/; the .deb and the logs land there)
# Needs: scripts/install-deps.sh --deb (debhelper, lintian, fakeroot). Takes minutes (a full
# optimised build without the tests), so CI does not run it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build-deb}")
mkdir -p "$out"
for tool in dpkg-buildpackage dh lintian fakeroot; do
  if ! command -v "$tool" >/dev/null; then
    echo "build-deb: $tool not found (scripts/install-deps.sh --deb installs it)" >&2
    exit 1
  fi
done
# The build dependencies from debian/control, installed or not: said before the long build.
if ! dpkg-checkbuilddeps; then
  echo "build-deb: missing build dependencies (scripts/install-deps.sh installs them)" >&2
  exit 1
fi

scratch=$(mktemp -d /tmp/xttcp-deb.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
git clone --quiet --shared . "$scratch/xttcp"
echo "build-deb: building $(git -C "$scratch/xttcp" rev-parse --short=12 HEAD) in $scratch"
(cd "$scratch/xttcp" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
  tail -n 40 "$out/build.log" >&2
  echo "build-deb: dpkg-buildpackage failed (whole log: $out/build.log)" >&2
  exit 1
}
cp "$scratch"/*.deb "$scratch"/*.changes "$scratch"/*.buildinfo "$out/"
deb=$(ls "$out"/xttcp_*.deb | grep -v dbgsym | tail -n 1)
changes=$(ls -t "$out"/*.changes | head -n 1)
echo "build-deb: $deb"

# lintian: E: lines fail the build, W:/I: lines are shown.
lintian --fail-on error "$changes" | tee "$out/lintian.log"
echo "build-deb: lintian passed (no errors)"

root="$scratch/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-script-chrootless --install "$deb" >"$out/install.log" 2>&1 || {
  cat "$out/install.log" >&2
  exit 1
}
"$root/usr/bin/xttcp" --version
# The whole page into a file first: `man | head` would end man with SIGPIPE (pipefail).
LC_ALL=C MANWIDTH=80 man --warnings -l "$root/usr/share/man/man1/xttcp.1.gz" >"$out/man.txt" 2>&1
head -n 5 "$out/man.txt"
if grep -q 'warning' "$out/man.txt"; then
  echo "build-deb: man -l warned (see $out/man.txt)" >&2
  exit 1
fi
test -f "$root/usr/share/bash-completion/completions/xttcp"
test -f "$root/usr/share/doc/xttcp/docs/native-result.schema.json"
if [[ $(id -u) -eq 0 ]]; then
  apt-get install --simulate --no-install-recommends "$deb" >"$out/simulate.log" 2>&1 || {
    cat "$out/simulate.log" >&2
    echo "build-deb: the package's dependencies do not resolve here" >&2
    exit 1
  }
  echo "build-deb: apt-get install --simulate: dependencies resolve"
fi
echo "build-deb: installed into a fresh root and ran from it: ok"
