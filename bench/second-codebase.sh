#!/usr/bin/env bash
# A second real codebase for the repository evaluation: a pinned PyPI source distribution that ships its
# sources and tests (requests 2.32.3 by default), fetched with pip, checked against its sha256, unpacked
# and committed into a scratch git repository under .scratch/ (git-ignored: never into this repository),
# then indexed with `repo index`, which prints its coverage (non-blank lines in no chunk) and largest chunk.
#
#   bash bench/second-codebase.sh [package version sha256]
set -euo pipefail
PKG=${1:-requests}
VER=${2:-2.32.3}
SHA=${3:-55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760}
root=$(cd "$(dirname "$0")/.." && pwd)
scratch="$root/.scratch"
dl="$scratch/dl"
repo="$scratch/$PKG-$VER"
mkdir -p "$dl"
"$root/.venv/bin/python" -m pip download --quiet --no-deps --no-binary :all: "$PKG==$VER" -d "$dl"
sdist="$dl/$PKG-$VER.tar.gz"
echo "$SHA  $sdist" | sha256sum --check --quiet
rm -rf "$repo"
mkdir -p "$repo"
tar -xzf "$sdist" -C "$repo" --strip-components=1
# A fixed author, committer and date: the same sdist gives the same commit id on every machine.
export GIT_AUTHOR_NAME=scratch GIT_AUTHOR_EMAIL=scratch@example.invalid GIT_COMMITTER_NAME=scratch GIT_COMMITTER_EMAIL=scratch@example.invalid
export GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z GIT_CONFIG_NOSYSTEM=1
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" commit -q -m "$PKG $VER sdist (sha256 $SHA)"
echo "scratch repository $repo at $(git -C "$repo" rev-parse HEAD)"
node "$root/bin/execretrieval.js" repo index --repo "$repo" --rev HEAD --out "$scratch/$PKG-$VER-index"
