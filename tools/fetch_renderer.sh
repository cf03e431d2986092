#!/usr/bin/env bash
# Downloads the pinned upstream TensorBoard wheel (tools/renderer.pin), checks
# its sha256 and unpacks it into build/renderer/unpacked, the directory the
# Bazel workspace mounts as @tensorboard_renderer. Nothing from upstream is
# committed: the wheel is cached in .cache/renderer/, both dirs are git-ignored.
# Re-running is cheap: an already verified, already unpacked pin is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

read -r REQ SHA256 < <(grep -v '^[[:space:]]*#' tools/renderer.pin | grep -v '^[[:space:]]*$' | head -n1)
NAME=${REQ%%==*}
VERSION=${REQ##*==}
WHEEL="${NAME}-${VERSION}-py3-none-any.whl"
DL_DIR=.cache/renderer
OUT=build/renderer/unpacked
STAMP="$OUT/.pin"

die() { echo "fetch_renderer: ERROR: $*" >&2; exit 1; }

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$REQ $SHA256" ]; then
  echo "fetch_renderer: $REQ already unpacked in $OUT"
  exit 0
fi

mkdir -p "$DL_DIR"
if [ ! -f "$DL_DIR/$WHEEL" ] || [ "$(sha256sum "$DL_DIR/$WHEEL" | cut -d' ' -f1)" != "$SHA256" ]; then
  rm -f "$DL_DIR/$WHEEL"
  echo "fetch_renderer: pip download --no-deps $REQ -> $DL_DIR/"
  "$PYTHON" -m pip download -q --no-deps --only-binary=:all: -d "$DL_DIR" "$REQ" \
    || die "could not download $REQ from PyPI"
fi
[ -f "$DL_DIR/$WHEEL" ] || die "pip did not produce $DL_DIR/$WHEEL"

GOT=$(sha256sum "$DL_DIR/$WHEEL" | cut -d' ' -f1)
if [ "$GOT" != "$SHA256" ]; then
  die "sha256 mismatch for $WHEEL
  expected (tools/renderer.pin): $SHA256
  downloaded:                    $GOT
The file on PyPI is not the one this build was pinned to. Refusing to build.
If the upstream release really changed, update tools/renderer.pin."
fi
echo "fetch_renderer: sha256 OK ($SHA256)"

rm -rf "$OUT" "$OUT.tmp"
mkdir -p "$OUT.tmp"
"$PYTHON" - "$DL_DIR/$WHEEL" "$OUT.tmp" <<'PY'
"""Unpack a wheel (a zip) without needing the `unzip` tool."""
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as zf:
    zf.extractall(sys.argv[2])
PY
echo "$REQ $SHA256" > "$OUT.tmp/.pin"
mv "$OUT.tmp" "$OUT"
echo "fetch_renderer: unpacked $REQ into $OUT"
