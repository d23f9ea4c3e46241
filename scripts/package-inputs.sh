#!/usr/bin/env bash
# The Debian package's inputs: the committed files whose change can break the package as
# scripts/build-deb.sh proves it (its control and rules, meson's install rules, what `xttcp
# report` runs, the man page and completion generators, the scripts that build and try it).
# Their hash, recorded in debian/package-checked when build-deb.sh passed, tells CI whether the
# package must be built again (docs/building-and-testing.md, "The Debian package").
# Usage: scripts/package-inputs.sh                 the hash of HEAD's package inputs
#        scripts/package-inputs.sh --changed       exit 0 (and say which) when HEAD's inputs
#                                                  differ from debian/package-checked, 1 if not
#        scripts/package-inputs.sh --record TREE   write TREE's HEAD hash to debian/package-checked
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=debian/package-checked
# Paths, as extended regular expressions on the committed tree's file names.
inputs='^debian/|(^|/)meson[.]build$|^meson_options[.]txt$|^tools/(report|docgen)/'
inputs+='|^scripts/(build-deb|deb-root-checks|package-inputs|install-deps)[.]sh$'

# A hash of the committed inputs (git's object ids and modes): uncommitted edits never count,
# as build-deb.sh never packages them. The record itself is not an input.
inputs_hash() {
  local listed
  listed=$(git -C "$1" ls-tree -r HEAD)
  awk -F'\t' -v inputs="$inputs" '$2 ~ inputs && $2 != "debian/package-checked"' <<<"$listed" |
    sha256sum | cut -d' ' -f1
}

case ${1:-} in
  '')
    inputs_hash .
    ;;
  --changed)
    now=$(inputs_hash .)
    recorded=$(grep -v '^#' "$stamp" 2>/dev/null | head -n 1 || true)
    if [[ $now == "$recorded" ]]; then
      echo "package inputs unchanged since the package was last proven ($stamp)"
      exit 1
    fi
    echo "package inputs changed since the package was last proven ($stamp: ${recorded:-none}, now $now)"
    exit 0
    ;;
  --record)
    tree=${2:?--record needs the tree the package was built from}
    {
      echo "# scripts/build-deb.sh passed on the package inputs with this hash"
      echo "# (scripts/package-inputs.sh); CI builds the package whenever they differ. Commit it."
      inputs_hash "$tree"
    } >"$stamp.tmp"
    mv "$stamp.tmp" "$stamp"
    echo "build-deb: recorded the package inputs' hash in $stamp (commit it)"
    ;;
  *)
    echo "package-inputs: unknown argument '$1' (known: --changed, --record TREE)" >&2
    exit 2
    ;;
esac
