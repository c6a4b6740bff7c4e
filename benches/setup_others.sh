#!/usr/bin/env bash
# Create benches/.venv-others with the other HWP readers (requirements-others.txt), apart from the
# project's own .venv so their dependencies never mix with ours, then check each one reads a file.
#   bash benches/setup_others.sh          # create if missing, install, verify
#   FORCE=1 bash benches/setup_others.sh  # recreate from scratch
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${RHWP_OTHERS_VENV:-$here/.venv-others}"
python="${PYTHON:-python3}"

if [ "${FORCE:-0}" = 1 ]; then rm -rf "$venv"; fi
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
fi
"$venv/bin/python" -m pip install -q -r "$here/requirements-others.txt"

# rhwp-python's wheel links a bundled libfreetype that lacks FT_Palette_Data_Get on Debian 12;
# preloading the system one resolves the symbol. bench_readers.py finds it the same way.
freetype="${RHWP_FREETYPE:-}"
if [ -z "$freetype" ]; then
  for candidate in /usr/lib/x86_64-linux-gnu/libfreetype.so.6 /usr/lib/aarch64-linux-gnu/libfreetype.so.6 \
                   /usr/lib64/libfreetype.so.6 /usr/lib/libfreetype.so.6; do
    if [ -e "$candidate" ]; then freetype="$candidate"; break; fi
  done
fi

# Verify: each reader parses one HWP and one HWPX (where it claims the format) and returns text.
corpus="${RHWP_CORPUS:-/work/shared/corpus}"
hwp="${1:-$corpus/hwp/hwplib-etc.hwp}"
hwpx="${2:-$corpus/hwpx/hwpxlib-MultiColumn.hwpx}"
hwp_more="${3:-$corpus/hwp/rhwp-nested-cell-pagination.hwp}"   # pyhwp refuses hwplib-etc.hwp (no summary stream)
if [ -e "$hwp" ] && [ -e "$hwpx" ]; then
  for reader in rhwp-python unhwp pyhwp kreuzberg; do
    env ${freetype:+LD_PRELOAD="$freetype"} "$venv/bin/python" "$here/bench_readers.py" --probe "$reader" "$hwp" "$hwpx" "$hwp_more" \
      || echo "setup_others: $reader read none of the check files (see above)" >&2
  done
else
  echo "setup_others: corpus not found at $corpus; skipped the check" >&2
fi
echo "setup_others: ready at $venv"
