#!/usr/bin/env bash
# Dense indexing before and after issue 16's provider work, on this repository's index at the data/gold
# commit: bench/repo-dense-index.ts of the old code (default 78c7cc9: padded batches, onnxruntime's spinning
# threads) and of this checkout, run alternately in the same window (load moves; compare within one run),
# each printing chunks/s, CPU time and tokens fed for `full` and head:128 over the same sampled chunks.
# The old code runs from a detached worktree under $TMPDIR with this checkout's node_modules and models.
#
#   bash bench/dense-before-after.sh [old-commit] [chunks] [rounds]      # defaults: 78c7cc9 350 2
set -euo pipefail
OLD=${1:-78c7cc9}
LIMIT=${2:-350}
ROUNDS=${3:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
old="${TMPDIR:-/tmp}/execretrieval-old-$OLD"
if [ ! -d "$old" ]; then git -C "$root" worktree add --quiet --detach "$old" "$OLD"; fi
ln -sfn "$(readlink -f "$root/node_modules")" "$old/node_modules"
# Both read the same models; each bench run makes its own fresh embedding cache.
export EXECRETRIEVAL_STATE_DIR="$root/.execretrieval"
for round in $(seq 1 "$ROUNDS"); do
  for side in old new; do
    dir=$root; [ "$side" = old ] && dir=$old
    echo "== round $round, $side ($(git -C "$dir" rev-parse --short HEAD)), $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
    (cd "$dir" && node --import tsx bench/repo-dense-index.ts --limit "$LIMIT" --heads 128 --reps 1)
  done
done
echo "== done $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg); remove the old worktree with: git worktree remove $old"
