#!/usr/bin/env bash
# The release-install tests' tools (tests/e2e/test_release.py) in their own venv, .venv-release-tools:
# uv from PyPI, for `uv venv`, `uv pip install` and `uv tool install` of the release wheel
# (idempotent: a stamp of the pinned requirement skips the install when nothing changed).
set -euo pipefail
cd "$(dirname "$0")/../.."

TOOLS_VENV=.venv-release-tools
TOOLS_DEPS="uv==0.13.9"

if [ -f "$TOOLS_VENV/.deps-stamp" ] && [ "$(cat "$TOOLS_VENV/.deps-stamp")" = "$TOOLS_DEPS" ] \
    && [ -x "$TOOLS_VENV/bin/uv" ]; then
  exit 0
fi
echo "envs/release: creating $TOOLS_VENV ($TOOLS_DEPS)"
rm -rf "$TOOLS_VENV"
python3 -m venv "$TOOLS_VENV"
"$TOOLS_VENV/bin/pip" install -q $TOOLS_DEPS 2> >(grep -v "is ignored: it is neither" >&2)
echo "$TOOLS_DEPS" > "$TOOLS_VENV/.deps-stamp"
