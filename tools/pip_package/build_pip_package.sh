#!/usr/bin/env bash
# Builds the ONE wheel, distribution `tensorboard` (standalone TensorBoard):
#   1. generates our protos (tools/gen_protos.sh),
#   2. fetches + verifies + unpacks the pinned renderer (tools/fetch_renderer.sh),
#   3. builds the Bazel py_binary //:tensorboard offline, then shuts Bazel down,
#   4. stages: the stub patched with tensorboard-binary.patch, a dereferenced
#      copy of its runfiles (no symlinks, no MANIFEST), our logger package,
#   5. builds the wheel with pinned setuptools/wheel, reproducibly
#      (SOURCE_DATE_EPOCH, normalized modes and mtimes, sorted entries).
# Not rebuilt when nothing changed: OUTPUT_DIR/.<wheel>.inputs records the sha256 of the build's
# inputs (tools/pip_package/inputs_hash.py) and of the wheel; both still matching = reuse.
# Needs no root: writes only inside the repository (build/, .venv-protoc, .cache/, bazel-*) and
# Bazel's output base under $HOME/.cache/bazel.
# Usage: tools/pip_package/build_pip_package.sh [OUTPUT_DIR]   (default: dist)
# Env: PYTHON (host python, default python3), SOURCE_DATE_EPOCH (default:
#      last commit time, or 1980-01-02 when there is no commit yet), TB_REBUILD_WHEEL=1 (build
#      even when the stamp says the wheel is current).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT_DIR=$(mkdir -p "${1:-dist}" && cd "${1:-dist}" && pwd)
PYTHON=${PYTHON:-python3}
STAGE=build/pip_package/staging
BUILD_VENV=build/pip_package/venv
SETUPTOOLS_PIN="setuptools==75.8.0"
WHEEL_PIN="wheel==0.45.1"

say() { echo "build_pip_package: $*"; }
die() { echo "build_pip_package: ERROR: $*" >&2; exit 1; }

export TB_EXPLICIT_SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-}
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || true)
  SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-315619200}  # 1980-01-02, zip's epoch
fi
export SOURCE_DATE_EPOCH
export PYTHONHASHSEED=0 LC_ALL=C TZ=UTC
umask 022

# One build at a time per checkout: they share build/ (staging, the renderer, the build venv) and Bazel's output.
mkdir -p build
exec 9> build/pip_package.lock
if command -v flock >/dev/null && ! flock -n 9; then
  say "waiting for another build in this checkout to finish"
  flock 9
fi

VERSION=$("$PYTHON" tools/pip_package/version.py)
[ -n "$VERSION" ] || die "no __version__ in python/tensorboard/_version.py"
WHEEL_NAME="tensorboard-${VERSION}-py3-none-any.whl"
INPUTS_STAMP="$OUT_DIR/.$WHEEL_NAME.inputs"
INPUTS_SHA=$("$PYTHON" tools/pip_package/inputs_hash.py "$ROOT") || die "could not hash the build inputs"
if [ -z "${TB_REBUILD_WHEEL:-}" ] && [ -f "$OUT_DIR/$WHEEL_NAME" ] && [ -f "$INPUTS_STAMP" ] \
   && [ "$(cat "$INPUTS_STAMP")" = "$INPUTS_SHA $(sha256sum "$OUT_DIR/$WHEEL_NAME" | cut -d' ' -f1)" ]; then
  say "$OUT_DIR/$WHEEL_NAME is current (inputs unchanged since it was built): not rebuilt"
  exit 0
fi
rm -f "$INPUTS_STAMP"

command -v bazel >/dev/null || die "bazel not found (Debian: apt-get install -y bazel-bootstrap, or run ./installer.sh)"
command -v patch >/dev/null || die "patch not found (apt-get install -y patch)"

say "generating protos"
bash tools/gen_protos.sh || die "tools/gen_protos.sh failed"
say "fetching renderer"
bash tools/fetch_renderer.sh || die "tools/fetch_renderer.sh failed"

say "bazel build //:tensorboard (offline)"
trap 'bazel shutdown >/dev/null 2>&1 9>&- || true' EXIT
bazel build --noshow_progress //:tensorboard 9>&- || die "bazel build //:tensorboard failed"
BIN=$(bazel info bazel-bin 2>/dev/null 9>&-)
STUB="$BIN/tensorboard"
RUNFILES="$BIN/tensorboard.runfiles"
[ -f "$STUB" ] && [ -d "$RUNFILES" ] || die "bazel did not produce $STUB and its runfiles"

say "staging in $STAGE"
rm -rf "$STAGE"
mkdir -p "$STAGE/scripts" "$STAGE/tensorboard_standalone_renderer"
cp tools/pip_package/setup.py tools/pip_package/MANIFEST.in tools/pip_package/README.md "$STAGE/"

# The launcher stub, patched so it works from <env>/bin after pip install.
cp "$STUB" "$STAGE/scripts/tensorboard"
chmod u+w "$STAGE/scripts/tensorboard"
patch --quiet --no-backup-if-mismatch "$STAGE/scripts/tensorboard" tensorboard-binary.patch \
  || die "tensorboard-binary.patch does not apply to $STUB (was Bazel upgraded? regenerate the patch)"

# Dereferenced runfiles: real files only. Left out: Bazel's MANIFEST, the
# stub's own link (it is the script above) and bazel_tools' py3wrapper (the
# patched stub runs the interpreter it was started with).
WS=$(ls "$RUNFILES" | grep -v -e '^MANIFEST$' -e '^bazel_tools$' -e '^tensorboard_renderer$')
[ "$(echo "$WS" | wc -l)" = 1 ] || die "unexpected runfiles layout: $(ls "$RUNFILES")"
DEST="$STAGE/tensorboard_standalone_renderer/tensorboard.runfiles"
mkdir -p "$DEST"
cp -rL "$RUNFILES/tensorboard_renderer" "$DEST/"
cp -rL "$RUNFILES/$WS" "$DEST/"
rm -f "$DEST/$WS/tensorboard"
find "$DEST" \( -name MANIFEST -o -name '__pycache__' -o -name '*.pyc' \) -prune -exec rm -rf {} +

cat > "$STAGE/tensorboard_standalone_renderer/__init__.py" <<'PY'
"""Holds the isolated upstream TensorBoard renderer used by the `tensorboard`
command (in tensorboard.runfiles/). Not meant to be imported."""
PY

# Our logger package (with the protos generated above).
cp -r python/tensorboard "$STAGE/tensorboard"
find "$STAGE/tensorboard" \( -name '__pycache__' -o -name '*.pyc' -o -name '*.egg-info' \) -prune -exec rm -rf {} +
# The build's version (a development label unless HEAD is the release tag) in both copies of _version.py:
# the package's (`tensorboard.__version__`) and the runfiles' (the launcher's `tensorboard info`).
"$PYTHON" tools/pip_package/version.py --stamp "$STAGE/tensorboard/_version.py" "$DEST/$WS/python/tensorboard/_version.py" \
  || die "could not stamp the version $VERSION"
grep -q "^__version__ = \"$VERSION\"$" "$STAGE/tensorboard/_version.py" || die "staged _version.py does not say $VERSION"

# Reproducibility: no symlinks, fixed modes and mtimes.
if [ -n "$(find "$STAGE" -type l)" ]; then die "symlinks left in staging: $(find "$STAGE" -type l | head)"; fi
find "$STAGE" -type d -exec chmod 755 {} +
find "$STAGE" -type f -exec chmod 644 {} +
chmod 755 "$STAGE/scripts/tensorboard"
find "$STAGE" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

if [ ! -x "$BUILD_VENV/bin/python" ] || ! "$BUILD_VENV/bin/python" -m pip show -q setuptools wheel >/dev/null 2>&1 \
   || [ "$("$BUILD_VENV/bin/python" -c 'import setuptools, wheel; print(setuptools.__version__, wheel.__version__)')" != "${SETUPTOOLS_PIN#*==} ${WHEEL_PIN#*==}" ]; then
  say "creating build venv $BUILD_VENV ($SETUPTOOLS_PIN $WHEEL_PIN)"
  rm -rf "$BUILD_VENV"
  "$PYTHON" -m venv "$BUILD_VENV" || die "could not create $BUILD_VENV"
  "$BUILD_VENV/bin/python" -m pip install -q "$SETUPTOOLS_PIN" "$WHEEL_PIN" || die "could not install $SETUPTOOLS_PIN $WHEEL_PIN"
fi

say "building wheel (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
rm -f "$OUT_DIR/$WHEEL_NAME"
(cd "$STAGE" && "$ROOT/$BUILD_VENV/bin/python" setup.py -q bdist_wheel -d "$OUT_DIR" > ../setup.log 2>&1) \
  || { cat build/pip_package/setup.log >&2; die "setup.py bdist_wheel failed"; }
[ -f "$OUT_DIR/$WHEEL_NAME" ] || die "expected $OUT_DIR/$WHEEL_NAME"

# The wheel must hold no symlinks and no Bazel MANIFEST.
"$PYTHON" - "$OUT_DIR/$WHEEL_NAME" <<'PY' || die "wheel check failed"
"""Fail if the wheel has symlink entries or Bazel MANIFEST files."""
import stat, sys, zipfile
bad = []
with zipfile.ZipFile(sys.argv[1]) as zf:
    for info in zf.infolist():
        if stat.S_ISLNK(info.external_attr >> 16) or info.filename.rsplit("/", 1)[-1] == "MANIFEST":
            bad.append(info.filename)
if bad:
    sys.exit("bad entries: %s" % bad[:5])
PY
echo "$INPUTS_SHA $(sha256sum "$OUT_DIR/$WHEEL_NAME" | cut -d' ' -f1)" > "$INPUTS_STAMP"
say "wrote $OUT_DIR/$WHEEL_NAME ($(du -h "$OUT_DIR/$WHEEL_NAME" | cut -f1)) sha256 $(sha256sum "$OUT_DIR/$WHEEL_NAME" | cut -d' ' -f1)"
