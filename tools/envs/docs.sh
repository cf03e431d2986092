#!/usr/bin/env bash
# The documentation toolchain (`make docs`, tests/docs/) in its own venv, .venv-docs (idempotent).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec bash tools/pinned_venv.sh .venv-docs mkdocs \
  mkdocs==1.6.1 mkdocs-material==9.8.2 mkdocstrings==1.0.8 mkdocstrings-python==2.0.11 ruff==0.17.6
