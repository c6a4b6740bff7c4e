#!/bin/sh
# Text recall of the HWPX reader on every corpus document, against the other
# readers' consensus (tools/recall.py), plus the code each bad/*.hwpx gets.
#   rhwp_core/reader/scripts/hwpx_recall.sh [CORPUS_DIR]   (default /work/shared/corpus)
set -eu
corpus=${1:-${RHWP_CORPUS:-/work/shared/corpus}}
tools=$(dirname "$corpus")/tools
here=$(cd "$(dirname "$0")/.." && pwd)
cargo build -q --release --manifest-path "$here/Cargo.toml" --example dump_hwpx
dump=$(cd "$here" && cargo metadata -q --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/examples/dump_hwpx
out=$(mktemp -d)
for f in "$corpus"/hwpx/*.hwpx; do
    n=$(basename "$f")
    "$dump" "$f" > "$out/$n.txt" 2>/dev/null || true
    printf '%s ' "$n"
    python3 "$tools/recall.py" "hwpx/$n" "$out/$n.txt" | head -1
done
for f in "$corpus"/bad/*.hwpx; do
    printf '%s: ' "$(basename "$f")"
    "$dump" "$f" | sed -n 1p || true
done
rm -rf "$out"
