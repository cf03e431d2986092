"""Builds the documentation site once per test session, as `make docs` does (tools/build_docs.sh).

Shared by tests/docs/ and tests/test_api_reference.py. The site goes to a temporary directory, so a
`make docs` running at the same time keeps its own site/.
"""
from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import tempfile
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS_VENV = REPO / ".venv-docs"


@functools.cache
def build_site() -> tuple[Path, str]:
    """(site directory, build log) of `tools/build_docs.sh`; a failed build fails with its log."""
    site = Path(tempfile.mkdtemp(prefix="tb-docs-site-"))
    atexit.register(shutil.rmtree, site, True)
    return site, run_build(site)


def run_build(site: Path, **env: str) -> str:
    """Runs tools/build_docs.sh into `site`; returns its log, raising AssertionError if it failed."""
    if not (DOCS_VENV / "bin" / "mkdocs").exists():
        raise AssertionError(f"{DOCS_VENV} is missing: run `bash tools/envs/docs.sh` (tools/test_envs.sh does)")
    result = subprocess.run(["bash", str(REPO / "tools" / "build_docs.sh"), str(site)], cwd=REPO,
                            env={**os.environ, **env}, capture_output=True, text=True, timeout=900)
    log = result.stdout + result.stderr
    assert result.returncode == 0, f"the docs build failed:\n{log[-6000:]}"
    return log


def inventory(site: Path) -> set[str]:
    """The names of every object mkdocstrings rendered (the site's Sphinx-style objects.inv)."""
    header_lines = 4  # "# Sphinx inventory version 2", project, version, compression note
    data = (site / "objects.inv").read_bytes().split(b"\n", header_lines)[header_lines]
    return {line.split(" ", 1)[0] for line in zlib.decompress(data).decode().splitlines() if line}
