"""Reads logdirs with upstream TensorBoard's reader, in its own interpreter.

Our logger and upstream TensorBoard share the import name `tensorboard`, so upstream
runs in the venv made by tools/test_envs.sh (`.venv-upstream`) and answers in JSON.
"""
from __future__ import annotations

import atexit
import base64
import json
import os
import select
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Literal, get_args

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DUMP_SCRIPT = REPO / "tests" / "tools" / "upstream_dump.py"
Part = Literal["files", "classic", "tensors", "projector"]  # what upstream_dump.py can read (its PARTS)
PARTS: tuple[Part, ...] = get_args(Part)
CLASSIC: tuple[Part, ...] = ("classic",)  # the EventAccumulator's view alone: for steps and scalars of large logdirs


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
    starting one per read cost a second or two of imports, about 150 times a suite.

    Started on first use (in each process: a forked child starts its own), stopped at exit (stdin closed,
    then waited for). Every request reads the logdir afresh from disk (new accumulators, nothing cached, its
    files closed before the answer). A server that died is started again and asked once more; one that dies on
    the same request again, or hangs, fails the read with its exit status and the end of its stderr. It runs
    with the environment of its start (PYTHONPATH cleared): it reads local paths only."""

    ANSWER_SECONDS = 600.0  # guards a hang only, as the one-shot reader's timeout did

    def __init__(self):
        self._process: subprocess.Popen | None = None
        self._owner = os.getpid()
        self._stderr = None
        self._lock = threading.Lock()
        atexit.register(self.stop)

    def read(self, logdir: str, parts: tuple[Part, ...] = PARTS) -> dict:
        request = json.dumps({"logdir": logdir, "parts": list(parts)})  # one line whatever the path holds
        with self._lock:
            line = self._ask(request, logdir) or self._ask(request, logdir)  # a server that died gets one fresh start
            if not line:
                raise AssertionError(f"upstream reader exited ({self._process.poll()}) reading {logdir}; "
                                     f"its stderr ends:\n{self._stderr_tail()}")
        answer = json.loads(line)
        if "error" in answer:
            raise AssertionError(f"upstream reader failed on {logdir}:\n{answer['error']}")
        return answer

    def _ask(self, request: str, logdir: str) -> str:
        """Sends one request to a live server (started if need be); its answer line, "" if it died."""
        if self._owner != os.getpid():  # a forked child: the parent's server stays the parent's
            self._process, self._owner = None, os.getpid()
        if self._process is None or self._process.poll() is not None:
            self._start()
        try:
            self._process.stdin.write(request + "\n")
            self._process.stdin.flush()
        except BrokenPipeError:
            return self._ended()
        ready, _, _ = select.select([self._process.stdout], [], [], self.ANSWER_SECONDS)
        if not ready:
            self._ended()
            raise AssertionError(f"upstream reader gave no answer for {logdir} in {self.ANSWER_SECONDS:.0f} s; "
                                 f"its stderr ends:\n{self._stderr_tail()}")
        return self._process.stdout.readline() or self._ended()

    def _ended(self) -> str:
        """Ends a server that can no longer answer (its exit may lag its closed pipes); "" for no answer."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        return ""

    def _start(self) -> None:
        if self._stderr is not None:
            self._stderr.close()
        self._stderr = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            [upstream_python(), str(DUMP_SCRIPT), "--serve"], text=True, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._stderr, env={**os.environ, "PYTHONPATH": ""})

    def _stderr_tail(self, size: int = 4000) -> str:
        self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, self._stderr.tell() - size))
        return self._stderr.read().decode("utf-8", "replace")

    def pid(self) -> int | None:
        """The server's process id, while one runs (the helper's own test looks at its open files)."""
        return self._process.pid if self._process is not None and self._process.poll() is None else None

    def stop(self) -> None:
        if self._owner != os.getpid():
            return
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.stdin.close()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process is not None:
            process.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


_READER = _UpstreamReader()


def upstream_read(logdir: str | os.PathLike, parts: tuple[Part, ...] = PARTS) -> dict:
    """What upstream's readers see in the local directory `logdir`: {"runs": {run: {...}}}, with the `parts`
    asked for (all by default): "files" (events per file), "classic" (scalars, histograms, images, audio,
    graph: upstream's EventAccumulator), "tensors" (tensors, metadata, image_samples: the renderer's migrated
    data path, the slowest), "projector". A test that checks only steps and scalars of a large logdir asks
    for ("classic",)."""
    path = os.fspath(logdir)
    if "://" in path:
        raise ValueError(f"upstream_read reads local directories only, not {path!r}")
    return _READER.read(os.path.abspath(path), tuple(parts))  # the reader keeps the cwd it started in


def upstream_run(logdir: str | os.PathLike, run: str = ".", parts: tuple[Part, ...] = PARTS) -> dict:
    """The upstream view of one run (default: the logdir itself), with the `parts` of upstream_read."""
    runs = upstream_read(logdir, parts)["runs"]
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
