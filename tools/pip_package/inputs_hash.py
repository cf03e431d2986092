"""Prints one sha256 over every input of the wheel build, so an unchanged tree reuses its wheel.

Inputs: the logger package (python/, without caches and the protos generated from tensorboard/src),
the .proto sources, the packaging and launcher code, the Bazel files and patch, the proto and renderer
scripts, the renderer pin (the version lives in python/tensorboard/_version.py). Each file counts by
its path, mode bit x and content. Usage: inputs_hash.py REPO_ROOT.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

INPUT_DIRS = ("python", "tensorboard/src", "tools/pip_package", "tools/launcher", "tools/bazel")
INPUT_FILES = ("BUILD", "WORKSPACE", "tensorboard-binary.patch", "tools/renderer.pin",
               "tools/gen_protos.sh", "tools/fetch_renderer.sh")
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache"}
SKIP_SUFFIXES = (".pyc", "_pb2.py", "_pb2.pyi")


def input_files(root: Path) -> list[Path]:
    """Every input file under `root`, relative, sorted."""
    found = [Path(name) for name in INPUT_FILES if (root / name).is_file()]
    for top in INPUT_DIRS:
        for folder, dirs, files in os.walk(root / top):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
            found += [Path(folder, f).relative_to(root) for f in files if not f.endswith(SKIP_SUFFIXES)]
    return sorted(found)


def inputs_hash(root: Path) -> str:
    """sha256 over (path, executable bit, content) of each input file."""
    digest = hashlib.sha256()
    for rel in input_files(root):
        path = root / rel
        digest.update(b"%s\0%d\0" % (rel.as_posix().encode(), os.access(path, os.X_OK)))
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    explicit_epoch = os.environ.get("TB_EXPLICIT_SOURCE_DATE_EPOCH", "")
    digest.update(b"epoch\0" + explicit_epoch.encode())
    return digest.hexdigest()


if __name__ == "__main__":
    print(inputs_hash(Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))
