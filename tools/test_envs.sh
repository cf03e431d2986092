#!/usr/bin/env bash
# Prepares the environments the test suite and benchmarks use (idempotent):
#   .venv          our installed wheel (made by installer.sh) + test dependencies
#   .venv-upstream upstream tensorboard==2.21.0 (its reader checks every file we write),
#                  tensorboardX and torch for the side-by-side benchmarks
#   .venv-protobuf-floor  protobuf at the floor of our declared range (6.31.1)
#   .venv-mxnet    MXNet 1.9.1 with numpy 1.23.5 (tools/mxnet_env.sh)
# PyTorch always comes from the CPU wheel in /opt/wheels, never from PyPI (CUDA builds).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "test_envs: $*"; }
die() { echo "test_envs: ERROR: $*" >&2; exit 1; }

TORCH_WHEEL=$(ls /opt/wheels/torch-2.13.0+cpu-*.whl 2>/dev/null | head -n1 || true)
[ -n "$TORCH_WHEEL" ] || die "no CPU torch wheel in /opt/wheels (expected torch-2.13.0+cpu-*.whl)"
# The renderer pin (tools/renderer.pin: "<requirement> <sha256>") names the upstream release we read back with.
RENDERER_REQUIREMENT=$(awk '!/^#/ && NF {print $1; exit}' tools/renderer.pin)
[ -n "$RENDERER_REQUIREMENT" ] || die "tools/renderer.pin names no renderer"

stamp_ok() { [ -f "$1/.deps-stamp" ] && [ "$(cat "$1/.deps-stamp")" = "$2" ]; }
stamp() { echo "$2" > "$1/.deps-stamp"; }

# -- main env ------------------------------------------------------------------------------------
[ -x .venv/bin/python ] || die ".venv is missing: run 'make install' (installer.sh) first"
MAIN_DEPS="pytest pytest-timeout hypothesis crc32c numpy pillow matplotlib scikit-learn jax jaxlib onnx \
moto[server] s3fs fsspec boto3 playwright requests psutil"
if ! stamp_ok .venv "$MAIN_DEPS $TORCH_WHEEL"; then
  log "installing test dependencies into .venv"
  .venv/bin/pip install -q "$TORCH_WHEEL" $MAIN_DEPS
  stamp .venv "$MAIN_DEPS $TORCH_WHEEL"
fi

# -- upstream reader + competitors ---------------------------------------------------------------
UP_DEPS="$RENDERER_REQUIREMENT tensorboardX==2.6.5 crc32c numpy pillow psutil boto3"
if ! stamp_ok .venv-upstream "$UP_DEPS $TORCH_WHEEL"; then
  log "creating .venv-upstream ($UP_DEPS, torch from $TORCH_WHEEL)"
  [ -L .venv-upstream ] && rm -f .venv-upstream
  python3 -m venv .venv-upstream
  .venv-upstream/bin/pip install -q "$TORCH_WHEEL" $UP_DEPS
  stamp .venv-upstream "$UP_DEPS $TORCH_WHEEL"
fi

# -- reading logs back (issue 9): the [data] extra + DuckDB in .venv; tbparse, the reference reader,
#    in .venv-upstream (it depends on the PyPI `tensorboard` distribution, so never into .venv) -----
DATA_DEPS="pandas pyarrow duckdb"
if ! .venv/bin/python -c "import pandas, pyarrow, duckdb" 2>/dev/null; then
  log "installing $DATA_DEPS into .venv"
  .venv/bin/pip install -q $DATA_DEPS
fi
TBPARSE_DEPS="tbparse pandas"
if ! .venv-upstream/bin/python -c "import tbparse, pandas" 2>/dev/null; then
  log "installing $TBPARSE_DEPS into .venv-upstream"
  .venv-upstream/bin/pip install -q $TBPARSE_DEPS
fi

# -- protobuf floor --------------------------------------------------------------------------------
FLOOR_DEPS="protobuf==6.31.1 numpy pillow crc32c"
if ! stamp_ok .venv-protobuf-floor "$FLOOR_DEPS"; then
  log "creating .venv-protobuf-floor ($FLOOR_DEPS)"
  python3 -m venv .venv-protobuf-floor
  .venv-protobuf-floor/bin/pip install -q $FLOOR_DEPS
  stamp .venv-protobuf-floor "$FLOOR_DEPS"
fi

# -- MXNet ---------------------------------------------------------------------------------------
bash tools/mxnet_env.sh
log "ready"
