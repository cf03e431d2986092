#!/usr/bin/env bash
# Builds the documentation site into site/ (or $1) with MkDocs + Material + mkdocstrings, strictly:
# a broken link or anchor, or any other warning, fails the build. The toolchain lives in .venv-docs
# (tools/envs/docs.sh, made here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
SITE_DIR=${1:-site}

bash tools/envs/docs.sh
# Material's notice about MkDocs 2 is advice to the maintainers, not a problem of this build.
export NO_MKDOCS_2_WARNING=1
exec .venv-docs/bin/mkdocs build --strict --clean --site-dir "$SITE_DIR"
