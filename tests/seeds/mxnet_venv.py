"""Runs scripts in the MXNet 1.9.1 virtualenv (.venv-mxnet, made by tools/mxnet_env.sh)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def mxnet_python() -> str:
    """The MXNet venv's interpreter; skips (or fails with REQUIRE_MXNET=1) when it is missing."""
    explicit = os.environ.get("MXNET_PYTHON")
    candidate = Path(explicit) if explicit else REPO / ".venv-mxnet" / "bin" / "python"
    if not candidate.exists():
        message = f"{candidate} is missing: run `bash tools/mxnet_env.sh`"
        if os.environ.get("REQUIRE_MXNET") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return str(candidate)


def run_mxnet(args: list[str], cwd: str | os.PathLike) -> subprocess.CompletedProcess:
    """Runs `python args...` in the MXNet venv with our logger (python/) on PYTHONPATH."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "python"),
           "OMP_NUM_THREADS": "2", "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([mxnet_python(), *args], cwd=str(cwd), env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout[-3000:]}\n"
                             f"{result.stderr[-6000:]}")
    return result
