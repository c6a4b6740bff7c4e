#!/usr/bin/env bash
# Byte-identical output check for HWPX reader changes (performance work must
# not change what is read).
#
#   scripts/hwpx_golden_check.sh record [DIR]   # write DIR/<name>.json for every corpus .hwpx
#   scripts/hwpx_golden_check.sh check  [DIR]   # compare against DIR, list files that differ
#
# Each file's output is `dump_hwpx --json` (the model as JSON, or the error
# line), plus its stderr (warnings), so errors and warnings are compared too.
# Environment: HWPX_CORPUS (folders, default the corpus's hwpx/ and the
# hostile/damaged .hwpx of bad/), DUMP_HWPX (a prebuilt binary; default:
# build the release example).
set -euo pipefail
mode=${1:-check}
dir=${2:-/tmp/hwpx_golden}
corpus=${HWPX_CORPUS:-/work/shared/corpus/hwpx /work/shared/corpus/bad}
here=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z "${DUMP_HWPX:-}" ]]; then
  (cd "$here" && cargo build --quiet --release -p rhwp-reader --example dump_hwpx)
  DUMP_HWPX=$(cd "$here" && cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/examples/dump_hwpx
fi
case "$mode" in
  record) mkdir -p "$dir" ;;
  check) [[ -d "$dir" ]] || { echo "no golden in $dir (run: $0 record $dir)"; exit 2; } ;;
  *) echo "usage: $0 record|check [DIR]"; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0; bad=0
for f in $(for d in $corpus; do ls "$d"/*.hwpx; done); do
  name=$(basename "$(dirname "$f")")-$(basename "$f" .hwpx)
  out="$tmp/$name.json"
  "$DUMP_HWPX" "$f" --json >"$out" 2>"$tmp/$name.err" || true
  cat "$tmp/$name.err" >>"$out"
  n=$((n + 1))
  if [[ "$mode" == record ]]; then
    cp "$out" "$dir/$name.json"
  elif ! cmp -s "$out" "$dir/$name.json"; then
    echo "DIFFERS: $name"
    bad=$((bad + 1))
  fi
done
if [[ "$mode" == record ]]; then
  echo "recorded $n files into $dir"
else
  echo "$n files, $bad differ"
  [[ $bad -eq 0 ]]
fi
