"""Where a run came from: the command line, the code's git commit, the machine, Python and the
libraries, the start time. Collected once when a run's writer opens; written by `metadata_event`
as the values `tensorboard.src.run_metadata` places (a Markdown table for the Text dashboard, and
the same fields as JSON for readers).

Secrets never enter it: no environment variable is read into it, and the command line goes through
`tensorboard.system.secrets.redact_argv`.
"""
from __future__ import annotations

import functools
import os
import platform
import shlex
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Sequence

from tensorboard.events import wire
from tensorboard.src import run_metadata, summary_pb2
from tensorboard.system.secrets import redact_argv

LIBRARIES = ("torch", "jax", "tensorflow", "keras", "mxnet", "numpy", "lightning", "transformers")  # when imported
GIT_TIMEOUT = 5.0  # seconds a git command may take (a repository on a slow network file system)


@dataclass(frozen=True)
class GitState:
    """The commit of the repository that holds the script, and whether its tracked files differ from it."""

    commit: str
    dirty: bool


@dataclass(frozen=True)
class RunMetadata:
    """The fields written once per run (`fields()` gives them flat, as readers get them back).

    Args:
        command: The command line, secrets already removed.
        git: The script's repository state, or None outside one.
        host: The host name.
        python: The Python version.
        versions: {library: version} of the libraries the process imported.
        start_time: When the run's writer opened, ISO 8601 in UTC.
    """

    command: list[str]
    git: GitState | None
    host: str
    python: str
    versions: dict[str, str] = field(default_factory=dict)
    start_time: str = ""  # ISO 8601, UTC

    def fields(self) -> dict[str, Any]:
        """Flat fields, dotted for the nested ones: command, git.commit, git.dirty, host, python,
        versions.<library>, start_time. A missing git state leaves its fields out."""
        fields: dict[str, Any] = {"command": shlex.join(self.command)}
        if self.git is not None:
            fields.update({"git.commit": self.git.commit, "git.dirty": self.git.dirty})
        fields.update(host=self.host, python=self.python)
        fields.update({f"versions.{name}": version for name, version in self.versions.items()})
        fields["start_time"] = self.start_time
        return fields

    def markdown(self) -> str:
        """The fields as a two-column Markdown table (the Text dashboard renders it)."""
        rows = ["| field | value |", "| --- | --- |"]
        for name, value in self.fields().items():
            text = str(value).replace("|", "\\|").replace("\n", " ")
            rows.append(f"| {name} | `{text}` |" if name in ("command", "git.commit") else f"| {name} | {text} |")
        return "\n".join(rows)


@functools.lru_cache(maxsize=16)
def git_state(directory: str) -> GitState | None:
    """The git commit and dirty flag of the repository holding `directory`; None outside one, or
    without git. Untracked files don't count as dirty; git takes no lock (GIT_OPTIONAL_LOCKS=0).
    Asked once per directory and process: a sweep that opens a thousand writers runs git twice."""
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        head = subprocess.run(["git", "-C", directory, "rev-parse", "--verify", "HEAD"], capture_output=True,
                              text=True, timeout=GIT_TIMEOUT, env=env, check=False)
        if head.returncode != 0:
            return None
        status = subprocess.run(["git", "-C", directory, "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=GIT_TIMEOUT, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return GitState(head.stdout.strip(), bool(status.stdout.strip()) if status.returncode == 0 else True)


def script_directory(argv: Sequence[str]) -> str:
    """The directory of the script that runs (`argv[0]` when it names a file), else the working directory."""
    script = argv[0] if argv else ""
    if script and os.path.isfile(script):
        return os.path.dirname(os.path.abspath(script))
    return os.getcwd()


def library_versions() -> dict[str, str]:
    """The versions of the LIBRARIES this process has imported, and ours (the installed distribution's)."""
    from importlib import metadata

    versions = {}
    for name in LIBRARIES:
        module = sys.modules.get(name)
        version = getattr(module, "__version__", None) if module is not None else None
        if isinstance(version, str):
            versions[name] = version
    try:
        versions["tensorboard"] = metadata.version("tensorboard")
    except metadata.PackageNotFoundError:  # a source tree on sys.path, never installed
        pass
    return versions


def collect(argv: Sequence[str] | None = None) -> RunMetadata:
    """This process's run metadata, now.

    Args:
        argv: The command line (default `sys.argv`, with the interpreter first as a user typed it).
    """
    argv = list(sys.argv if argv is None else argv)
    interpreter = os.path.basename(sys.executable) or "python"
    command = [interpreter, *argv] if argv and (argv[0].endswith(".py") or argv[0] == "-c") else argv
    return RunMetadata(
        command=redact_argv(command) if command else [],
        git=git_state(script_directory(argv)),
        host=socket.gethostname(),
        python=platform.python_version(),
        versions=library_versions(),
        start_time=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


def metadata_event(metadata: RunMetadata, wall_time: float | None = None) -> bytes:
    """The serialized Event (step 0) that holds a run's metadata: the Markdown table and the JSON fields."""
    summary = summary_pb2.Summary(value=[
        run_metadata.text_value(run_metadata.TEXT_TAG, metadata.markdown()),
        run_metadata.text_value(run_metadata.FIELDS_TAG, run_metadata.encode_fields(metadata.fields())),
    ])
    return wire.summary_event(summary.SerializeToString(), 0, time.time() if wall_time is None else wall_time)
