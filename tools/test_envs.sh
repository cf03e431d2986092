#!/usr/bin/env bash
# Prepares the environments the test suite and benchmarks use (idempotent):
#   .venv          our installed wheel (made by installer.sh) + test dependencies
#   .venv-upstream upstream tensorboard==2.21.0 (its reader checks every file we write),
#                  tensorboardX and torch for the side-by-side benchmarks
#   .venv-protobuf-floor  protobuf at the floor of our declared range (6.31.1)
#   .venv-mxnet    MXNet 1.9.1 with numpy 1.23.5 (tools/mxnet_env.sh)
#   .venv-ecosystem our wheel under torch.utils.tensorboard, Lightning, transformers, accelerate, tbparse, IPython,
#                  and the profile plugin (tensorboard-plugin-profile / xprof)
# PyTorch is always the CPU build (tools/torch_wheel.sh: /opt/wheels, else PyTorch's CPU index), never PyPI's CUDA one.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "test_envs: $*"; }
die() { echo "test_envs: ERROR: $*" >&2; exit 1; }

TORCH_WHEEL=$(bash tools/torch_wheel.sh) || die "no CPU torch wheel (tools/torch_wheel.sh)"
# The renderer pin (tools/renderer.pin: "<requirement> <sha256>") names the upstream release we read back with.
RENDERER_REQUIREMENT=$(awk '!/^#/ && NF {print $1; exit}' tools/renderer.pin)
[ -n "$RENDERER_REQUIREMENT" ] || die "tools/renderer.pin names no renderer"

# docs/compatibility.md lists the versions each environment is tested with; they are installed as pip
# constraints (pins ENV prints the file), so a new machine builds the environments the page states.
pins() { mkdir -p "$1" && python3 tools/compat_table.py constraints "$1" > "$1/pins.txt" && echo "$1/pins.txt"; }
stamp_ok() { [ -f "$1/.deps-stamp" ] && [ "$(cat "$1/.deps-stamp")" = "$2" ]; }
stamp() { echo "$2" > "$1/.deps-stamp"; }

# -- system tools the tests run: Debian's nginx (the reverse proxy in front of the server in
#    tests/serving/test_proxy.py) and openssl (the self-signed certificate of the HTTPS test) ---------
SYSTEM_TOOLS=()
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || SYSTEM_TOOLS+=(nginx-light)
command -v openssl >/dev/null || SYSTEM_TOOLS+=(openssl)
if [ "${#SYSTEM_TOOLS[@]}" -gt 0 ]; then
  log "apt-get install ${SYSTEM_TOOLS[*]} (the tests' reverse proxy and certificates)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${SYSTEM_TOOLS[@]}" >/dev/null \
    || die "apt-get install ${SYSTEM_TOOLS[*]} failed"
fi

# -- main env ------------------------------------------------------------------------------------
[ -x .venv/bin/python ] || die ".venv is missing: run 'make install' (installer.sh) first"
MAIN_DEPS="pytest pytest-timeout hypothesis crc32c numpy pillow matplotlib scikit-learn jax jaxlib flax onnx \
moto[server] waitress s3fs fsspec boto3 obstore==0.12.1 playwright requests psutil nvidia-ml-py keras dask[dataframe] distributed ruff \
ipykernel nbclient nbformat hydra-core>=1.3,<1.4"
if ! stamp_ok .venv "$MAIN_DEPS $TORCH_WHEEL"; then
  log "installing test dependencies into .venv"
  bash tools/pip_install.sh .venv -c "$(pins .venv)" "$TORCH_WHEEL" $MAIN_DEPS
  stamp .venv "$MAIN_DEPS $TORCH_WHEEL"
fi

# -- upstream reader + competitors ---------------------------------------------------------------
UP_DEPS="$RENDERER_REQUIREMENT tensorboardX==2.6.5 crc32c numpy pillow psutil boto3 jax[cpu]"
if ! stamp_ok .venv-upstream "$UP_DEPS $TORCH_WHEEL"; then
  log "creating .venv-upstream ($UP_DEPS, torch from $TORCH_WHEEL)"
  [ -L .venv-upstream ] && rm -f .venv-upstream
  python3 -m venv .venv-upstream
  bash tools/pip_install.sh .venv-upstream -c "$(pins .venv-upstream)" "$TORCH_WHEEL" $UP_DEPS
  stamp .venv-upstream "$UP_DEPS $TORCH_WHEEL"
fi

# -- reading logs back (issue 9): the [data] extra + DuckDB in .venv; tbparse, the reference reader,
#    in .venv-upstream (it depends on the PyPI `tensorboard` distribution, so never into .venv) -----
DATA_DEPS="pandas pyarrow duckdb"
if ! .venv/bin/python -c "import pandas, pyarrow, duckdb" 2>/dev/null; then
  log "installing $DATA_DEPS into .venv"
  bash tools/pip_install.sh .venv $DATA_DEPS
fi
TBPARSE_DEPS="tbparse pandas"
if ! .venv-upstream/bin/python -c "import tbparse, pandas" 2>/dev/null; then
  log "installing $TBPARSE_DEPS into .venv-upstream"
  bash tools/pip_install.sh .venv-upstream $TBPARSE_DEPS
fi
# tensorboard-reducer, the reference for `tensorboard reduce` (it depends on upstream's `tensorboard`)
REDUCER_DEPS="tensorboard-reducer==0.4.0"
if ! .venv-upstream/bin/python -c "import tensorboard_reducer" 2>/dev/null; then
  log "installing $REDUCER_DEPS into .venv-upstream"
  bash tools/pip_install.sh .venv-upstream $REDUCER_DEPS
fi

# -- protobuf floor --------------------------------------------------------------------------------
FLOOR_DEPS="protobuf==6.31.1 numpy pillow crc32c"
if ! stamp_ok .venv-protobuf-floor "$FLOOR_DEPS"; then
  log "creating .venv-protobuf-floor ($FLOOR_DEPS)"
  python3 -m venv .venv-protobuf-floor
  bash tools/pip_install.sh .venv-protobuf-floor $FLOOR_DEPS
  stamp .venv-protobuf-floor "$FLOOR_DEPS"
fi

# -- ecosystem: the libraries that use upstream's `tensorboard`, on our wheel ---------------------
# .venv-ecosystem: CPU torch first (a constraint keeps every later install on it), then OUR wheel as
# the `tensorboard` distribution, then Lightning, transformers, accelerate, tbparse and IPython from
# PyPI, which must keep our wheel (they depend on `tensorboard`). Restamped when the wheel changes.
ECO_DEPS="lightning==2.6.* transformers==5.* accelerate==1.* tbparse==0.0.9 ipython==9.* ipykernel nbclient nbformat pandas moviepy==1.0.3 matplotlib"
OUR_WHEEL=$(ls -t dist/tensorboard-*+standalone*.whl 2>/dev/null | head -n1 || true)
[ -n "$OUR_WHEEL" ] || die "no dist/tensorboard-*+standalone*.whl: run 'make install' first"
ECO_STAMP="$ECO_DEPS $TORCH_WHEEL $(sha256sum "$OUR_WHEEL" | cut -d' ' -f1)"
if ! stamp_ok .venv-ecosystem "$ECO_STAMP"; then
  log "creating .venv-ecosystem (torch from $TORCH_WHEEL, $OUR_WHEEL, $ECO_DEPS)"
  rm -rf .venv-ecosystem
  python3 -m venv .venv-ecosystem
  echo "torch==$(basename "$TORCH_WHEEL" | cut -d- -f2)" > .venv-ecosystem/constraints.txt
  bash tools/pip_install.sh .venv-ecosystem "$TORCH_WHEEL"
  bash tools/pip_install.sh .venv-ecosystem "$OUR_WHEEL"
  bash tools/pip_install.sh .venv-ecosystem -c .venv-ecosystem/constraints.txt -c "$(pins .venv-ecosystem)" $ECO_DEPS
  ours=$(.venv-ecosystem/bin/python -c 'from importlib.metadata import version; print(version("tensorboard"))')
  [[ "$ours" == *+standalone* ]] || die ".venv-ecosystem: pip replaced our tensorboard with $ours"
  stamp .venv-ecosystem "$ECO_STAMP"
fi
# The profile plugin (tensorboard-plugin-profile, which installs xprof) beside our wheel, for
# tests/integrations/test_profile_plugin.py. It doesn't depend on `tensorboard`, but torch, the page's pins and
# our wheel's exact version are constraints all the same. Stamped with the ecosystem venv's own stamp: a rebuilt
# venv gets it again.
PROFILE_DEPS="tensorboard-plugin-profile==2.24.*"
PROFILE_STAMP="$PROFILE_DEPS $(cat .venv-ecosystem/.deps-stamp)"
if ! { [ -f .venv-ecosystem/.profile-stamp ] && [ "$(cat .venv-ecosystem/.profile-stamp)" = "$PROFILE_STAMP" ] \
       && .venv-ecosystem/bin/python -c "import xprof.profile_plugin_loader" 2>/dev/null; }; then
  log "installing $PROFILE_DEPS into .venv-ecosystem"
  ours=$(.venv-ecosystem/bin/python -c 'from importlib.metadata import version; print(version("tensorboard"))')
  echo "tensorboard==$ours" > .venv-ecosystem/profile-constraints.txt
  bash tools/pip_install.sh .venv-ecosystem -c .venv-ecosystem/constraints.txt -c "$(pins .venv-ecosystem)" \
    -c .venv-ecosystem/profile-constraints.txt $PROFILE_DEPS
  after=$(.venv-ecosystem/bin/python -c 'from importlib.metadata import version; print(version("tensorboard"))')
  [ "$after" = "$ours" ] || die ".venv-ecosystem: pip replaced our tensorboard ($ours) with $after"
  echo "$PROFILE_STAMP" > .venv-ecosystem/.profile-stamp
fi

# -- MXNet ---------------------------------------------------------------------------------------
bash tools/mxnet_env.sh

# -- further environments: one idempotent script each (docs, release installs, ...) --------------
for env_script in tools/envs/*.sh; do
  [ -e "$env_script" ] || continue
  bash "$env_script"
done
log "ready"
