#!/usr/bin/env bash
# Installs standalone TensorBoard from this repository on a Debian/Ubuntu box:
#   1. apt packages the build needs (bazel-bootstrap, patch, python3-venv, ...),
#   2. the target virtualenv ($TB_VENV, else the active $VIRTUAL_ENV, else
#      ./.venv); an upstream `tensorboard` there is replaced by ours (we are
#      the `tensorboard` distribution, a superset of upstream), and it says so,
#   3. the wheel (tools/pip_package/build_pip_package.sh -> dist/),
#   4. pip install of that wheel into the virtualenv.
# Idempotent: present packages / envs are reused; the wheel is rebuilt and
# reinstalled every run (a few seconds when nothing changed).
# Options: --with-browser   also apt-install chromium (for tests/e2e browser tests)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")" && pwd)
cd "$ROOT"

WITH_BROWSER=0
for arg in "$@"; do
  case "$arg" in
    --with-browser) WITH_BROWSER=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "installer: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

step() { echo "==> installer: $*"; }
die() { echo "installer: ERROR: $*" >&2; exit 1; }

# --- 1. system packages -----------------------------------------------------
APT_PKGS=(bazel-bootstrap patch git make python3 python3-venv python3-pip ca-certificates)
[ "$WITH_BROWSER" = 1 ] && APT_PKGS+=(chromium)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A python3 from elsewhere (pyenv, ...) brings its own venv and pip.
if command -v python3 >/dev/null && [ "$(command -v python3)" != /usr/bin/python3 ]; then
  missing=($(printf '%s\n' "${missing[@]}" | grep -v -x -e python3 -e python3-venv -e python3-pip || true))
fi
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get: install them by hand"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "need root (or sudo) to apt-get install ${missing[*]}"
    SUDO=sudo
  fi
  step "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
else
  step "system packages present (${APT_PKGS[*]})"
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
    step "  to go back later: $VENV/bin/pip install --force-reinstall tensorboard==$version"
  fi
done <<< "$PRESENT"

# --- 3. the wheel -----------------------------------------------------------
step "building the wheel (tools/pip_package/build_pip_package.sh dist)"
bash tools/pip_package/build_pip_package.sh dist || die "wheel build failed"
VERSION=$(sed -n 's/^__version__ *= *["'"'"']\([^"'"'"']*\)["'"'"'].*/\1/p' python/tensorboard/_version.py)
WHEEL="dist/tensorboard-${VERSION}-py3-none-any.whl"
[ -f "$WHEEL" ] || die "expected $WHEEL"

# --- 4. install -------------------------------------------------------------
step "pip install $WHEEL into $VENV"
"$VENV/bin/python" -m pip install -q "$WHEEL" || die "pip install (dependencies) failed"
"$VENV/bin/python" -m pip install -q --force-reinstall --no-deps "$WHEEL" || die "pip install $WHEEL failed"
step "done: $("$VENV/bin/tensorboard" --version | tr '\n' ' ')"
step "run: $VENV/bin/tensorboard --logdir DIR   (serves http://127.0.0.1:6006)"
