#!/bin/sh
# Text recall of the HWP 5.0 reader on every corpus .hwp, and the codes of bad/*.hwp.
# Usage: scripts/hwp5_recall.sh [CORPUS_DIR]   (default /work/shared/corpus)
set -u
corpus=${1:-${RHWP_CORPUS:-/work/shared/corpus}}
tools=$(dirname "$corpus")/tools
here=$(cd "$(dirname "$0")/.." && pwd)
cargo build -q --release --example dump --manifest-path "$here/Cargo.toml" || exit 1
dump="$here/../../target/release/examples/dump"
out=$(mktemp -d)
for f in "$corpus"/hwp/*.hwp; do
    name=$(basename "$f")
    "$dump" "$f" > "$out/$name.txt" 2>/dev/null
    r=$(cd "$corpus/.." && python3 "$tools/recall.py" "hwp/$name" "$out/$name.txt" 2>&1 | head -3 | tr '\n' ' ')
    echo "$name: $r"
done
for f in "$corpus"/bad/*.hwp; do
    echo "bad/$(basename "$f"): $("$dump" "$f" 2>&1 | head -1 | cut -c1-120)"
done
rm -rf "$out"
