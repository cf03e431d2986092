#!/usr/bin/env bash
# Installs standalone TensorBoard from this repository on a Debian/Ubuntu box:
#   1. apt packages the build needs (bazel-bootstrap, patch, python3-venv, ...); it first says
#      which ones and why,
#   2. the target virtualenv ($TB_VENV, else the active $VIRTUAL_ENV, else
#      ./.venv); an upstream `tensorboard` there is replaced by ours (we are
#      the `tensorboard` distribution, a superset of upstream), and it says so,
#   3. the wheel (tools/pip_package/build_pip_package.sh -> dist/), reused when its inputs are unchanged,
#   4. pip install of that wheel into the virtualenv, skipped when it already holds that exact wheel.
# Idempotent: present packages / envs / wheels are reused.
# Options: --with-browser   also apt-install chromium (for tests/e2e browser tests)
#          --with-tex       also apt-install TeX for pdflatex (for the tests that compile `tensorboard plot`'s PGF)
# Env: TB_VENV (target venv), TB_PORT or DEMO_PORT (the port the closing hint names; default 6006).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")" && pwd)
cd "$ROOT"

WITH_BROWSER=0
WITH_TEX=0
for arg in "$@"; do
  case "$arg" in
    --with-browser) WITH_BROWSER=1 ;;
    --with-tex) WITH_TEX=1 ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 0 ;;
    *) echo "installer: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

step() { echo "==> installer: $*"; }
die() { echo "installer: ERROR: $*" >&2; exit 1; }

# --- 1. system packages -----------------------------------------------------
# One group per reason; the installer names the missing ones and why before installing them.
APT_GROUPS=(
  "bazel-bootstrap patch|to build the renderer launcher with Bazel and patch its stub"
  "python3 python3-venv python3-pip|to create the virtualenv and install the wheel into it"
  "git make ca-certificates|to read the source tree's version, run the make targets and download from PyPI over HTTPS"
)
[ "$WITH_BROWSER" = 1 ] && APT_GROUPS+=("chromium|for the browser tests (--with-browser)")
[ "$WITH_TEX" = 1 ] && APT_GROUPS+=("texlive-latex-base texlive-pictures lmodern|for pdflatex, which compiles \
the PGF figures of tensorboard plot in the tests (--with-tex)")
# A python3 from elsewhere (pyenv, ...) brings its own venv and pip.
OWN_PYTHON=0
if command -v python3 >/dev/null && [ "$(command -v python3)" != /usr/bin/python3 ]; then OWN_PYTHON=1; fi
missing=()
reasons=()
for group in "${APT_GROUPS[@]}"; do
  group_missing=()
  for p in ${group%%|*}; do
    case "$p" in python3|python3-venv|python3-pip) [ "$OWN_PYTHON" = 1 ] && continue ;; esac
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || group_missing+=("$p")
  done
  if [ "${#group_missing[@]}" -gt 0 ]; then
    missing+=("${group_missing[@]}")
    reasons+=("${group_missing[*]}: ${group#*|}")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get: install them by hand"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "need root (or sudo) to apt-get install ${missing[*]}"
    SUDO=sudo
  fi
  step "apt-get will install:"
  for reason in "${reasons[@]}"; do step "  $reason"; done
  $SUDO apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
else
  step "system packages present (${APT_GROUPS[*]%%|*})"
fi
command -v bazel >/dev/null || die "bazel still not on PATH after installing bazel-bootstrap"

# --- 2. target virtualenv ---------------------------------------------------
VENV=${TB_VENV:-${VIRTUAL_ENV:-$ROOT/.venv}}
if [ ! -x "$VENV/bin/python" ]; then
  step "creating virtualenv $VENV"
  python3 -m venv "$VENV" || die "python3 -m venv $VENV failed"
else
  step "using virtualenv $VENV"
fi
# Our wheel IS the `tensorboard` distribution (upstream's version plus a local label), so pip
# replaces upstream's with it; say so, and how to go back. A pre-2.21 build of ours was named
# `tensorboard-standalone`: remove it first, or both would own the same files.
PRESENT=$("$VENV/bin/python" - <<'PY'
"""Print `name version` of the installed `tensorboard` / `tensorboard-standalone` distributions."""
import re
from importlib import metadata
for dist in metadata.distributions():
    name = re.sub(r"[-_.]+", "-", (dist.metadata["Name"] or "")).lower()
    if name in ("tensorboard", "tensorboard-standalone"):
        print(name, dist.version)
PY
) || die "could not list the distributions in $VENV"
while read -r name version; do
  [ -n "$name" ] || continue
  if [ "$name" = tensorboard-standalone ]; then
    step "removing the old tensorboard-standalone $version (now distributed as 'tensorboard')"
    "$VENV/bin/python" -m pip uninstall -q -y tensorboard-standalone || die "pip uninstall tensorboard-standalone failed"
  elif [[ "$version" != *+standalone* ]]; then
    step "replacing upstream tensorboard $version in $VENV with ours (same import name and API, plus our logger);"
    step "  to go back later: $VENV/bin/pip install --force-reinstall --no-deps tensorboard==$version"
  fi
done <<< "$PRESENT"

# --- 3. the wheel (rebuilt only when its inputs changed) ----------------------
step "the wheel (tools/pip_package/build_pip_package.sh dist)"
bash tools/pip_package/build_pip_package.sh dist || die "wheel build failed"
VERSION=$(python3 tools/pip_package/version.py)
WHEEL="dist/tensorboard-${VERSION}-py3-none-any.whl"
[ -f "$WHEEL" ] || die "expected $WHEEL"
WHEEL_SHA=$(sha256sum "$WHEEL" | cut -d' ' -f1)

# --- 4. install (skipped when the venv already holds this exact wheel) ---------
# $VENV/.tensorboard-wheel-stamp = this wheel's sha256 + the sha256 of the RECORD pip wrote when it
# installed it: any other (re)install of `tensorboard` rewrites RECORD and so voids the stamp.
STAMP="$VENV/.tensorboard-wheel-stamp"
installed_record_sha() {  # sha256 of the installed `tensorboard` $VERSION's RECORD, else nothing
  "$VENV/bin/python" - "$VERSION" <<'PY'
"""Print the sha256 of the installed `tensorboard` distribution's RECORD if its version is VERSION."""
import hashlib
import sys
from importlib import metadata
try:
    dist = metadata.distribution("tensorboard")
except metadata.PackageNotFoundError:
    sys.exit(0)
record = next((f for f in dist.files or () if f.name == "RECORD" and f.parent.name.endswith(".dist-info")), None)
if dist.version == sys.argv[1] and record is not None:
    print(hashlib.sha256(dist.locate_file(record).read_bytes()).hexdigest())
PY
}
RECORD_SHA=$(installed_record_sha) || die "could not inspect $VENV"
if [ -n "$RECORD_SHA" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WHEEL_SHA $RECORD_SHA" ]; then
  step "$VENV already holds $WHEEL (sha256 $WHEEL_SHA): not reinstalled"
else
  step "pip install $WHEEL into $VENV"
  "$VENV/bin/python" -m pip install -q "$WHEEL" || die "pip install (dependencies) failed"
  "$VENV/bin/python" -m pip install -q --force-reinstall --no-deps "$WHEEL" || die "pip install $WHEEL failed"
  RECORD_SHA=$(installed_record_sha) && [ -n "$RECORD_SHA" ] || die "pip did not install tensorboard $VERSION into $VENV"
  echo "$WHEEL_SHA $RECORD_SHA" > "$STAMP"
fi
PORT=${TB_PORT:-${DEMO_PORT:-6006}}
step "done: tensorboard $("$VENV/bin/tensorboard" --version) in $VENV"
step "run: $VENV/bin/tensorboard --logdir runs --port $PORT   (then open http://127.0.0.1:$PORT/)"
