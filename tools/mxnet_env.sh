#!/usr/bin/env bash
# Creates .venv-mxnet: MXNet 1.9.1 for the seed workflows (tests/seeds) and the graph tests.
#
# MXNet 1.9.1 still uses `np.bool`, removed in NumPy 1.24, so it runs on Python 3.11 only
# next to numpy==1.23.5; that pin would clash with the main test env, hence its own venv.
# Our logger is not installed here: callers put the source tree on PYTHONPATH=python.
# Idempotent: an env whose `import mxnet` already works is left alone.
# Usage: bash tools/mxnet_env.sh [VENV_DIR]   (default: .venv-mxnet in the repo root)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-${MXNET_VENV:-.venv-mxnet}}
PY=${PYTHON:-python3}
PACKAGES=("mxnet==1.9.1" "numpy==1.23.5" "protobuf>=6.31.1,<8" "pillow" "pytest" "scikit-learn" "matplotlib" "tensorboardX==2.6.5")

check() {
  "$VENV/bin/python" - <<'PY' 2>/dev/null
import mxnet as mx, numpy as np, google.protobuf, PIL, sklearn, matplotlib
assert mx.__version__ == "1.9.1", mx.__version__
assert np.__version__ == "1.23.5", np.__version__
mx.nd.ones((2, 2)).asnumpy()
PY
}

if [ -x "$VENV/bin/python" ] && check; then
  echo "mxnet_env: $VENV is ready"
  exit 0
fi

# libmxnet.so links against OpenMP and the GFortran runtime (its bundled OpenBLAS).
missing=()
for lib in libgomp.so.1 libquadmath.so.0 libgfortran.so.5; do
  ldconfig -p | grep -q "$lib" || missing+=("$lib")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "mxnet_env: installing system libraries for ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq libgomp1 libquadmath0 libgfortran5
fi

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
bash tools/pip_install.sh "$VENV" "${PACKAGES[@]}"
if ! check; then
  echo "mxnet_env: mxnet does not import in $VENV:" >&2
  "$VENV/bin/python" -c "import mxnet" >&2 || true
  exit 1
fi
echo "mxnet_env: $VENV ready ($("$VENV/bin/python" -c 'import mxnet; print("mxnet", mxnet.__version__)'))"
