"""Reads logdirs with upstream TensorBoard's reader, in its own interpreter.

Our logger and upstream TensorBoard share the import name `tensorboard`, so upstream
runs in the venv made by tools/test_envs.sh (`.venv-upstream`) and answers in JSON.
"""
from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DUMP_SCRIPT = REPO / "tests" / "tools" / "upstream_dump.py"


def upstream_python() -> str:
    """The interpreter that has upstream `tensorboard==2.21.0` installed."""
    explicit = os.environ.get("UPSTREAM_PYTHON")
    if explicit:
        return explicit
    candidate = REPO / ".venv-upstream" / "bin" / "python"
    if not candidate.exists():
        raise RuntimeError(f"{candidate} is missing: run `bash tools/test_envs.sh` first")
    return str(candidate)


def upstream_read(logdir: str | os.PathLike) -> dict:
    """Everything upstream's readers see in `logdir`: {"runs": {run: {...}}}."""
    result = subprocess.run([upstream_python(), str(DUMP_SCRIPT), str(logdir)], capture_output=True,
                            text=True, timeout=600, env={**os.environ, "PYTHONPATH": ""})
    if result.returncode != 0:
        raise AssertionError(f"upstream reader failed on {logdir}:\n{result.stderr}")
    return json.loads(result.stdout)


def upstream_run(logdir: str | os.PathLike, run: str = ".") -> dict:
    """The upstream view of one run (default: the logdir itself)."""
    runs = upstream_read(logdir)["runs"]
    if run not in runs:
        raise AssertionError(f"upstream saw no run {run!r} in {logdir}; runs: {sorted(runs)}")
    return runs[run]


def as_array(encoded: dict) -> np.ndarray:
    """Turns an array from upstream_dump back into NumPy."""
    if encoded["dtype"] == "str":
        return np.array(encoded["values"], dtype=object).reshape(encoded["shape"])
    data = np.frombuffer(base64.b64decode(encoded["b64"]), dtype=encoded["dtype"])
    return data.reshape(encoded["shape"])


def plugin_content(run_view: dict, tag: str) -> bytes:
    """The SummaryMetadata.plugin_data.content upstream recorded for `tag`."""
    return base64.b64decode(run_view["metadata"][tag]["content"])


def metadata_fields(run_view: dict) -> dict:
    """The run metadata fields (tensorboard.system's) that upstream's reader saw in a run, parsed from
    the text value `run/metadata_fields` (a fenced JSON block)."""
    (text,) = run_view["tensors"]["run/metadata_fields"][0][2]["values"]
    assert run_view["metadata"]["run/metadata_fields"]["plugin_name"] == "text"
    return json.loads(text.removeprefix("```json\n").removesuffix("\n```"))
