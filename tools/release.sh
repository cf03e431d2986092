#!/usr/bin/env bash
# `make release`: the wheel (tools/pip_package/build_pip_package.sh, reused when its inputs are
# unchanged) and dist/SHA256SUMS for it, in `sha256sum` format (check: cd dist && sha256sum -c SHA256SUMS).
# Usage: tools/release.sh [OUTPUT_DIR]   (default: dist)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-dist}

die() { echo "release: ERROR: $*" >&2; exit 1; }

bash tools/pip_package/build_pip_package.sh "$OUT_DIR" || die "wheel build failed"
VERSION=$(python3 tools/pip_package/version.py)
WHEEL="tensorboard-${VERSION}-py3-none-any.whl"
[ -f "$OUT_DIR/$WHEEL" ] || die "expected $OUT_DIR/$WHEEL"
(cd "$OUT_DIR" && sha256sum "$WHEEL" > SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS \
  && sha256sum --quiet -c SHA256SUMS) || die "could not write or verify $OUT_DIR/SHA256SUMS"
echo "release: $OUT_DIR/$WHEEL"
echo "release: $OUT_DIR/SHA256SUMS: $(cat "$OUT_DIR/SHA256SUMS")"
