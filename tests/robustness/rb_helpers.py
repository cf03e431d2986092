"""Shared helpers of the robustness tests: child processes running our logger, and event counting
with both our reader and upstream TensorBoard's."""
from __future__ import annotations

import os
import subprocess
import sys  # noqa: F401 (used by tests through this module)
import textwrap
import warnings
from pathlib import Path

from tensorboard import reader

REPO = Path(__file__).resolve().parents[2]
REPO_PYTHON = str(REPO / "python")


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a child process that imports the source tree's logger."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")}
    env["PYTHONPATH"] = REPO_PYTHON
    env.update(extra)
    return env


def run_child(code: str, timeout: float = 120, **popen_kwargs) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter; waits at most `timeout` seconds (a hang fails the test)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=child_env(), capture_output=True,
                          text=True, timeout=timeout, **popen_kwargs)


def start_child(code: str, **popen_kwargs) -> subprocess.Popen:
    """Starts `code` in a fresh interpreter with stdout piped (line-buffered text)."""
    return subprocess.Popen([sys.executable, "-u", "-c", textwrap.dedent(code)], env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen_kwargs)


def event_files(logdir: str | os.PathLike) -> list[Path]:
    """Every event file below `logdir`, sorted."""
    return sorted(p for p in Path(logdir).rglob("*") if p.is_file() and "tfevents" in p.name)


def our_steps(logdir: str | os.PathLike, tag: str = "x") -> list[int]:
    """Steps of the `tag` scalars our reader finds below `logdir` (all runs, file order)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reader.TruncatedTailWarning)
        return [logged.event.step for logged in reader.read_logdir(logdir)
                for value in logged.event.summary.value if value.tag == tag]


def our_event_count(path: str | os.PathLike) -> tuple[int, int | None]:
    """(events, offset of a skipped truncated tail or None) of one file, with our reader."""
    events = reader.EventFileReader(os.fspath(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", reader.TruncatedTailWarning)
        count = sum(1 for _ in events)
    return count, events.truncated_at


def upstream_steps(view: dict, run: str = ".", tag: str = "x") -> list[int]:
    """Steps of `tag` in upstream's view of `run` (from tests/upstream.py's upstream_read)."""
    return [row[0] for row in view["runs"][run]["scalars"].get(tag, [])]
