#!/usr/bin/env bash
# The reader benchmark in one command: set up the other readers' venv if missing, build ours in
# release into the project's .venv, build the raw floor, run everything, write benches/results/.
#   bash benches/run.sh [bench_readers.py options...]      e.g. --formats hwp --no-markdown
# Env: RHWP_CORPUS (default /work/shared/corpus), RHWP_PYTHON / RHWP_OTHERS_PYTHON (interpreters),
#      SKIP_BUILD=1 (use the rhwp_core already installed in .venv), SKIP_FLOOR=1.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
cd "$repo"

[ -x "$here/.venv-others/bin/python" ] || bash "$here/setup_others.sh"

ours_python="${RHWP_PYTHON:-$repo/.venv/bin/python}"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  [ -x "$ours_python" ] || python3 -m venv "$repo/.venv"
  # pip builds the maturin wheel in release mode; --force-reinstall so an edited checkout is measured.
  "$ours_python" -m pip install -q --force-reinstall --no-deps ./rhwp_core
  "$ours_python" -m pip install -q ./rhwp_core   # dependencies, if any are missing
fi

floor_args=()
if [ "${SKIP_FLOOR:-0}" != 1 ]; then
  if [ -f rhwp_core/reader/examples/floor.rs ]; then
    cargo build --quiet --release -p rhwp-reader --example floor
    floor_args=(--floor "$repo/target/release/examples/floor")
  else
    echo "run.sh: rhwp_core/reader/examples/floor.rs missing; no floor row" >&2
  fi
fi

exec python3 "$here/bench_readers.py" --python ours="$ours_python" "${floor_args[@]}" "$@"
