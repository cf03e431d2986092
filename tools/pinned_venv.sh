#!/usr/bin/env bash
# Makes a venv holding pinned tools, idempotently: a stamp of the requirements skips the install
# when nothing changed. Used by the scripts in tools/envs/.
# Usage: bash tools/pinned_venv.sh VENV_DIR TOOL REQUIREMENT...   (TOOL: a command the venv's bin/ must have)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 VENV_DIR TOOL REQUIREMENT..." >&2; exit 2; }
VENV=$1 TOOL=$2
shift 2
DEPS="$*"

if [ -f "$VENV/.deps-stamp" ] && [ "$(cat "$VENV/.deps-stamp")" = "$DEPS" ] && [ -x "$VENV/bin/$TOOL" ]; then
  exit 0
fi
echo "pinned_venv: creating $VENV ($DEPS)"
rm -rf "$VENV"
python3 -m venv "$VENV"
bash tools/pip_install.sh "$VENV" "$@"
echo "$DEPS" > "$VENV/.deps-stamp"
