#!/usr/bin/env bash
# Runs last of tools/envs/*.sh (alphabetically), after every test environment exists: regenerates
# docs/compatibility.md from the versions those environments report (tools/compat_table.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 tools/compat_table.py
