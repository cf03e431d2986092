#!/usr/bin/env bash
# Prints the path of the CPU PyTorch wheel the test environments install (never a CUDA build), and says
# on stderr, in one line, where it came from:
#   1. $TORCH_WHEEL_DIR (default /opt/wheels), when it holds torch-$TORCH_VERSION+cpu for this python3;
#   2. otherwise PyTorch's CPU index, the way pytorch.org documents CPU installs ($TORCH_INDEX_URL,
#      default https://download.pytorch.org/whl/cpu), downloaded once into .cache/wheels/.
set -euo pipefail
cd "$(dirname "$0")/.."
TORCH_VERSION=${TORCH_VERSION:-2.13.0}
TORCH_WHEEL_DIR=${TORCH_WHEEL_DIR:-/opt/wheels}
TORCH_INDEX_URL=${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}
CACHE=${TORCH_CACHE:-.cache/wheels}
tag=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
pattern="torch-$TORCH_VERSION+cpu-$tag-$tag-*.whl"

found=$(ls "$TORCH_WHEEL_DIR"/$pattern 2>/dev/null | head -n1 || true)
if [ -n "$found" ]; then
  echo "torch_wheel: CPU torch $TORCH_VERSION from $TORCH_WHEEL_DIR" >&2
  echo "$found"; exit 0
fi
found=$(ls "$CACHE"/$pattern 2>/dev/null | head -n1 || true)
if [ -z "$found" ]; then
  mkdir -p "$CACHE"
  log=$(mktemp)
  python3 -m pip download -q --no-deps --only-binary=:all: --index-url "$TORCH_INDEX_URL" -d "$CACHE" \
    "torch==$TORCH_VERSION+cpu" > "$log" 2>&1 \
    || { cat "$log" >&2; rm -f "$log"
         echo "torch_wheel: ERROR: no $pattern in $TORCH_WHEEL_DIR, and $TORCH_INDEX_URL did not serve it" >&2; exit 1; }
  rm -f "$log"
  found=$(ls "$CACHE"/$pattern 2>/dev/null | head -n1 || true)
  [ -n "$found" ] || { echo "torch_wheel: ERROR: $TORCH_INDEX_URL served no $pattern" >&2; exit 1; }
fi
echo "torch_wheel: CPU torch $TORCH_VERSION from $TORCH_INDEX_URL (cached in $CACHE)" >&2
echo "$found"
