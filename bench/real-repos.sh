#!/usr/bin/env bash
# Repository evaluation on a real Go module and a real Rust crate (issue 34): each fetched through its
# language's registry (the Go module proxy with `go mod download -json`; the crate registry through a
# scratch Cargo project that depends on the exact version and `cargo fetch`), checked against a pinned
# sha256 of the downloaded archive, copied into a scratch git repository under .scratch/ (git-ignored)
# with a fixed author and date (so the commit id, which the gold cases pin, is the same on every machine),
# then indexed and evaluated with every lexical retriever and variant against the gold cases in
# data/real-repos/ (written by reading the code, before any run).
#
#   bash bench/real-repos.sh            # both
#   bash bench/real-repos.sh go|rust    # one
#   EMBEDDER= bash bench/real-repos.sh  # lexical retrievers only (no embedding model)
set -euo pipefail
EMBEDDER=${EMBEDDER-local-all-minilm-l6-v2}
GO_MOD=github.com/google/uuid
GO_VER=v1.6.0
GO_ZIP_SHA=d0f02f377217f42702e259684e06441edbf5140dddcc34ba9bea56038b38a6ed
CRATE=semver
CRATE_VER=1.0.23
CRATE_SHA=61697e0a1c7e512e84a621326239844a24d8207b4669b41bc18b32ea5cbf988b
root=$(cd "$(dirname "$0")/.." && pwd)
scratch="$root/.scratch/real-repos"
mkdir -p "$scratch"
export GIT_AUTHOR_NAME=scratch GIT_AUTHOR_EMAIL=scratch@example.invalid GIT_COMMITTER_NAME=scratch GIT_COMMITTER_EMAIL=scratch@example.invalid
export GIT_AUTHOR_DATE=2025-01-01T00:00:00Z GIT_COMMITTER_DATE=2025-01-01T00:00:00Z GIT_CONFIG_NOSYSTEM=1

commit_tree() { # src dir, repo dir, message
  rm -rf "$2"
  mkdir -p "$2"
  cp -R "$1"/. "$2"/
  chmod -R u+w "$2"
  git -C "$2" init -q -b main
  git -C "$2" add -A
  git -C "$2" commit -q -m "$3"
  echo "scratch repository $2 at $(git -C "$2" rev-parse HEAD)"
}

evaluate() { # name, repo dir, cases
  local index="$scratch/$1-index" run="$scratch/$1-run"
  local embed=() retrievers=bm25,symbol,hybrid_rrf,hybrid_weighted
  if [ -n "$EMBEDDER" ]; then embed=(--embedder "$EMBEDDER"); retrievers=bm25,symbol,dense,hybrid_rrf,hybrid_weighted; fi
  node "$root/bin/execretrieval.js" repo index --repo "$2" --rev HEAD --out "$index" "${embed[@]}"
  node "$root/bin/execretrieval.js" repo eval --index "$index" --cases "$3" --retrievers "$retrievers" --variants plain,ctx+rerank --out "$run" || true
  node "$root/bin/execretrieval.js" repo gate --run "$run" --retriever bm25+ctx+rerank --min-evidence 0.5 || true
}

if [ "${1:-go}" = go ] || [ -z "${1:-}" ]; then
  gopath="$scratch/gopath"
  json=$(cd "$scratch" && GOPATH="$gopath" GOMODCACHE="$gopath/pkg/mod" GOFLAGS=-mod=mod GO111MODULE=on go mod download -json "$GO_MOD@$GO_VER")
  zip=$(node -e 'console.log(JSON.parse(process.argv[1]).Zip)' "$json")
  dir=$(node -e 'console.log(JSON.parse(process.argv[1]).Dir)' "$json")
  echo "$GO_ZIP_SHA  $zip" | sha256sum --check --quiet
  commit_tree "$dir" "$scratch/uuid-$GO_VER" "$GO_MOD $GO_VER (module zip sha256 $GO_ZIP_SHA)"
  evaluate "uuid-$GO_VER" "$scratch/uuid-$GO_VER" "$root/data/real-repos/uuid-$GO_VER.jsonl"
fi

if [ "${1:-rust}" = rust ] || [ -z "${1:-}" ]; then
  proj="$scratch/cargo-scratch"
  mkdir -p "$proj/src"
  printf '[package]\nname = "scratch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n%s = "=%s"\n' "$CRATE" "$CRATE_VER" > "$proj/Cargo.toml"
  echo 'fn main() {}' > "$proj/src/main.rs"
  (cd "$proj" && cargo fetch --quiet)
  crate=$(ls "$HOME"/.cargo/registry/cache/*/"$CRATE-$CRATE_VER.crate" | head -1)
  echo "$CRATE_SHA  $crate" | sha256sum --check --quiet
  src=$(ls -d "$HOME"/.cargo/registry/src/*/"$CRATE-$CRATE_VER" | head -1)
  commit_tree "$src" "$scratch/$CRATE-$CRATE_VER" "$CRATE $CRATE_VER (crate sha256 $CRATE_SHA)"
  evaluate "$CRATE-$CRATE_VER" "$scratch/$CRATE-$CRATE_VER" "$root/data/real-repos/$CRATE-$CRATE_VER.jsonl"
fi
