#!/usr/bin/env bash
# The Python matrix (idempotent): a venv per supported Python other than .venv's, each holding our wheel
# and the core suite's dependencies (no frameworks: torch's CPU wheel exists for one Python only).
# tools/test_pythons.py runs the core suite in each. An interpreter comes from the PATH (python3.X) or
# pyenv; a version neither provides is left out, in one line. `make test` runs this beside
# tools/test_envs.sh, on the other core, before the matrix itself; the matrix then checks that each venv
# holds the versions docs/compatibility.md states (tools/test_pythons.py), as the main suite checks them
# for the other venvs.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "pythons: $*"; }

MATRIX_DEPS="pytest pytest-timeout hypothesis crc32c numpy pillow matplotlib ml_dtypes moto[server] waitress s3fs \
fsspec boto3 obstore==0.12.1;python_version>='3.11' playwright requests psutil pandas pyarrow duckdb dask[dataframe] distributed \
ipykernel nbclient nbformat hydra-core>=1.3,<1.4"
OUR_WHEEL=$(ls -t dist/tensorboard-*+standalone*.whl 2>/dev/null | head -n1 || true)
[ -n "$OUR_WHEEL" ] || { echo "pythons: ERROR: no dist/tensorboard-*+standalone*.whl: run 'make install' first" >&2; exit 1; }

for version in $(python3 tools/test_pythons.py versions); do
  venv=".venv-py$version"
  interpreter=$(python3 tools/test_pythons.py interpreter "$version" || true)
  if [ -z "$interpreter" ]; then
    log "no Python $version on this machine (PATH or pyenv): its column stays out of this run"
    continue
  fi
  stamp="$interpreter $MATRIX_DEPS"
  if ! { [ -f "$venv/.deps-stamp" ] && [ "$(cat "$venv/.deps-stamp")" = "$stamp" ]; }; then
    log "creating $venv ($interpreter, the core suite's dependencies)"
    rm -rf "$venv"
    "$interpreter" -m venv "$venv"
    python3 tools/compat_table.py constraints "$venv" > "$venv/constraints.txt"
    bash tools/pip_install.sh "$venv" -c "$venv/constraints.txt" "$OUR_WHEEL" $MATRIX_DEPS
    echo "$stamp" > "$venv/.deps-stamp"
    rm -f "$venv/.wheel-stamp"
  fi
  wheel_sha=$(sha256sum "$OUR_WHEEL" | cut -d' ' -f1)
  if [ "$(cat "$venv/.wheel-stamp" 2>/dev/null)" != "$wheel_sha" ]; then
    log "installing $OUR_WHEEL into $venv"
    bash tools/pip_install.sh "$venv" -c "$venv/constraints.txt" "$OUR_WHEEL"
    bash tools/pip_install.sh "$venv" --reinstall --no-deps "$OUR_WHEEL"
    echo "$wheel_sha" > "$venv/.wheel-stamp"
  fi
done
