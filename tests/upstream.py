"""Reads logdirs with upstream TensorBoard's reader, in its own interpreter.

Our logger and upstream TensorBoard share the import name `tensorboard`, so upstream
runs in the venv made by tools/test_envs.sh (`.venv-upstream`) and answers in JSON.
"""
from __future__ import annotations

import atexit
import base64
import json
import os
import subprocess
import threading
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


class _UpstreamReader:
    """One upstream interpreter (upstream_dump.py --serve) that reads every logdir this process asks about:
    starting one per read cost a second or two of imports, about 150 times a suite. Started on first use,
    stopped at exit (stdin closed, then waited for)."""

    def __init__(self):
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()
        atexit.register(self.stop)

    def read(self, logdir: str) -> dict:
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._process = subprocess.Popen(
                    [upstream_python(), str(DUMP_SCRIPT), "--serve"], text=True, stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": ""})
            self._process.stdin.write(logdir + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        if not line:
            raise AssertionError(f"upstream reader exited ({self._process.poll()}) reading {logdir}")
        answer = json.loads(line)
        if "error" in answer:
            raise AssertionError(f"upstream reader failed on {logdir}:\n{answer['error']}")
        return answer

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.stdin.close()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


_READER = _UpstreamReader()


def upstream_read(logdir: str | os.PathLike) -> dict:
    """Everything upstream's readers see in `logdir`: {"runs": {run: {...}}}."""
    return _READER.read(os.path.abspath(os.fspath(logdir)))  # the reader keeps the cwd it started in


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
