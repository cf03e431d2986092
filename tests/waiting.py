"""Test helpers: waiting for what a background thread does, and loading a module from a file path."""
from __future__ import annotations

import importlib.util
import time

POLL_SECONDS = 30.0  # liveness bound for "eventually", not a speed limit


def eventually(predicate, seconds: float = POLL_SECONDS) -> bool:
    """Polls `predicate` until it holds (True) or `seconds` pass (its last answer)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


def module_from_file(name: str, path) -> object:
    """Executes the Python file `path` as a new module called `name` (not put in sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
