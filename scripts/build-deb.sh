#!/usr/bin/env bash
# Builds the Debian package of the committed tree (HEAD) with Debian's own tooling, checks it
# with lintian, and installs it into a fresh Debian root to run it from there:
#   1. a clone of HEAD in OUT_DIR/source (so uncommitted edits never slip into a package and
#      the source tree stays clean; the clone has the git history --version's commit comes from;
#      a fixed path, so ccache finds the last build's objects);
#   2. dpkg-buildpackage -us -uc -b there: debian/rules runs dh with its meson build system;
#   3. lintian on the .changes: any error or warning fails (debian/xttcp.lintian-overrides holds
#      the justified ones, each with its reason);
#   4. mmdebstrap makes a fresh root of this machine's Debian release (its apt sources; the
#      downloaded packages are kept in ~/.cache/xttcp/deb-root-apt for the next run), apt installs
#      the .deb there with its Depends only, then python3, then with its Recommends, then man-db
#      and bash-completion; after each, scripts/deb-root-checks.sh runs the package in that root
#      (its xttcp runs on loopback in a network namespace of their own);
#   5. on success, debian/package-checked records the hash of the package's inputs
#      (scripts/package-inputs.sh): CI builds the package only when they differ from it.
# Usage: scripts/build-deb.sh [OUT_DIR]   (default build-deb/; the .deb and the logs land there)
#        scripts/build-deb.sh --try DEB [OUT_DIR]   steps 3 and 4 only, on a .deb already built
#        (nothing recorded): how to see what a changed package would do in a fresh root
# Needs: scripts/install-deps.sh --deb (debhelper, lintian, fakeroot, mmdebstrap), root (the
# fresh root), and Debian's apt repositories. Takes minutes: a full optimised build.
set -euo pipefail
cd "$(dirname "$0")/.."
tried=
if [[ ${1:-} == --try ]]; then
  tried=$(realpath "${2:?--try needs the .deb to try}")
  shift 2
fi
out=$(realpath -m "${1:-build-deb}")
mkdir -p "$out"
for tool in dpkg-buildpackage dh lintian fakeroot mmdebstrap unshare; do
  if ! command -v "$tool" >/dev/null; then
    echo "build-deb: $tool not found (scripts/install-deps.sh --deb installs it)" >&2
    exit 1
  fi
done
if [[ $(id -u) -ne 0 ]]; then
  echo "build-deb: needs root (mmdebstrap --mode=root makes the fresh root the package is tried in)" >&2
  exit 1
fi

if [[ -z $tried ]]; then
  # The build dependencies from debian/control, installed or not: said before the long build.
  if ! dpkg-checkbuilddeps; then
    echo "build-deb: missing build dependencies (scripts/install-deps.sh installs them)" >&2
    exit 1
  fi
  source_dir=$out/source
  rm -rf "$source_dir" "$out"/xttcp_* "$out"/xttcp-dbgsym_*
  git clone --quiet --shared . "$source_dir"
  echo "build-deb: building $(git -C "$source_dir" rev-parse --short=12 HEAD) in $source_dir"
  (cd "$source_dir" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
    tail -n 40 "$out/build.log" >&2
    echo "build-deb: dpkg-buildpackage failed (whole log: $out/build.log)" >&2
    exit 1
  }
  deb=$(ls "$out"/xttcp_*.deb)
  checked=$(ls "$out"/xttcp_*.changes)
  checks=$source_dir/scripts/deb-root-checks.sh
  echo "build-deb: $deb"
else
  deb=$tried checked=$tried checks=scripts/deb-root-checks.sh
fi

# lintian: errors and warnings fail; informational tags are shown.
lintian --fail-on error,warning --display-info "$checked" | tee "$out/lintian.log"
echo "build-deb: lintian passed (no error, no warning)"

# The fresh root: this machine's release and apt sources, nothing of this machine's packages.
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:?/etc/os-release names no release}")
sources=()
for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [[ -s $file ]] && sources+=("$file")
done
cache=${XDG_CACHE_HOME:-$HOME/.cache}/xttcp/deb-root-apt
mkdir -p "$cache"
apt_in_root='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q'
# xttcp runs without a route to anywhere: a network namespace with loopback only.
checks_in_root='unshare --net sh -c '\''ip link set lo up && chroot "$1" sh /tmp/deb-root-checks.sh "$2"'\'' sh "$1"'
echo "build-deb: installing into a fresh $suite root (log: $out/root.log)"
mmdebstrap --mode=root --variant=apt --skip=essential/unlink \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
  --setup-hook="sync-in $cache /var/cache/apt/archives/" \
  --customize-hook="copy-in $deb $checks /tmp/" \
  --customize-hook="$apt_in_root --no-install-recommends /tmp/$(basename "$deb")" \
  --customize-hook="$checks_in_root bare" \
  --customize-hook="$apt_in_root --no-install-recommends python3" \
  --customize-hook="$checks_in_root python" \
  --customize-hook='chroot "$1" apt-get remove -y -q xttcp' \
  --customize-hook="$apt_in_root -o APT::Install-Recommends=true /tmp/$(basename "$deb")" \
  --customize-hook="$checks_in_root full" \
  --customize-hook="$apt_in_root --no-install-recommends man-db bash-completion" \
  --customize-hook="$checks_in_root tools" \
  --customize-hook="sync-out /var/cache/apt/archives $cache" \
  "$suite" /dev/null "${sources[@]}" >"$out/root.log" 2>&1 || {
  grep -E '^deb-root-checks|^E:|^W:' "$out/root.log" >&2 || tail -n 30 "$out/root.log" >&2
  echo "build-deb: the package failed in a fresh root (whole log: $out/root.log)" >&2
  exit 1
}
grep '^deb-root-checks' "$out/root.log"
[[ -n $tried ]] || scripts/package-inputs.sh --record "$source_dir"
echo "build-deb: installed into a fresh $suite root and ran from it: ok"
