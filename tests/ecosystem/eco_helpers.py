"""Runs scripts in .venv-ecosystem (tools/test_envs.sh): our installed wheel as the `tensorboard`
distribution under torch, Lightning, transformers, accelerate, tbparse and IPython.

The source tree is never on their path: they see what a user who installed the wheel sees.
Nothing is downloaded at run time (Hugging Face offline; models are built from configs).
"""
from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ECO_VENV = REPO / ".venv-ecosystem"


def eco_python() -> str:
    """The ecosystem venv's interpreter; missing is a failure (tools/test_envs.sh makes it)."""
    python = ECO_VENV / "bin" / "python"
    if not python.exists():
        raise AssertionError(f"{python} is missing: run `bash tools/test_envs.sh`")
    return str(python)


def eco_env(**extra: str | None) -> dict:
    """No virtualenv activation, no PYTHONPATH, offline hubs, few threads; the venv's bin first on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p]
    env.update(PATH=os.pathsep.join([str(ECO_VENV / "bin"), *path]), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_DATASETS_OFFLINE="1", OMP_NUM_THREADS="2", TOKENIZERS_PARALLELISM="false",
               PYTHONWARNINGS="ignore::DeprecationWarning")
    env.update(extra)
    for name in [name for name, value in extra.items() if value is None]:  # None: not set at all
        env.pop(name)
    return env


def run_eco(code: str, cwd: str | os.PathLike, timeout: float = 900, **env: str | None) -> dict:
    """Runs `code` in the ecosystem venv; returns the JSON object its last stdout line prints."""
    result = subprocess.run([eco_python(), "-c", textwrap.dedent(code)], cwd=str(cwd), env=eco_env(**env),
                            capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"ecosystem script failed ({result.returncode}):\n{result.stdout[-3000:]}\n"
                             f"{result.stderr[-6000:]}")
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {}
