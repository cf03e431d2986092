"""The tests' harness for waiting, ports and child interpreters: one polling loop (`poll`, and `eventually` on
it), one free port, a Python snippet run against the source tree, loading a module from a file path, and
stopping a server's process group (`stop_group`; bench/ uses this harness too).
Every wait is on a condition, bounded only against a hang."""
from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")
POLL_SECONDS = 30.0  # liveness bound for "eventually", not a speed limit
REPO_PYTHON = str(Path(__file__).resolve().parent.parent / "python")  # the source tree's package


def poll(predicate: Callable[[], T], seconds: float = POLL_SECONDS, every: float = 0.01) -> T:
    """Calls `predicate` every `every` seconds until it returns a true value, or `seconds` pass;
    returns its last answer."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    return predicate()


def eventually(predicate, seconds: float = POLL_SECONDS) -> bool:
    """Polls `predicate` until it holds (True) or `seconds` pass (its last answer)."""
    return bool(poll(predicate, seconds))


def free_port() -> int:
    """A TCP port that is free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop_group(proc: subprocess.Popen) -> None:
    """Stops a process started with start_new_session=True and everything it started: SIGTERM to its process
    group, SIGKILL after 30 s, then SIGKILL to what is left of the group (such as upstream's Rust data server)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run_python(code: str, cwd, **env: str) -> subprocess.CompletedProcess:
    """Runs the (dedented) snippet `code` in a new interpreter on the source tree's package, in `cwd`, with
    `env` added to the environment; its output captured. 120 s guard a hang only."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": REPO_PYTHON, **env})


def module_from_file(name: str, path) -> object:
    """Executes the Python file `path` as a new module called `name` (not put in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
