"""Finds upstream TensorBoard's Python package that ships inside our wheel.

The renderer's runfiles (`tensorboard_standalone_renderer/tensorboard.runfiles/
tensorboard_renderer/tensorboard`) hold upstream's complete package. Appending its
directories to our packages' `__path__` makes every upstream module importable under
its usual name (`tensorboard.notebook`, `tensorboard.compat.proto.event_pb2`, ...)
without a second copy and without importing anything until a module is asked for.
"""
from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Iterator

RENDERER_PACKAGE = "tensorboard_standalone_renderer"
_RUNFILES_TAIL = ("tensorboard.runfiles", "tensorboard_renderer", "tensorboard")
_ENV_OVERRIDE = "TENSORBOARD_UPSTREAM_DIR"
_cached: list[str | None] = []


def _candidates() -> Iterator[str]:
    """Where upstream's package may be: an explicit override, then next to ours, then on sys.path."""
    explicit = os.environ.get(_ENV_OVERRIDE)
    if explicit:
        yield explicit
    ours = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(os.path.dirname(ours), RENDERER_PACKAGE, *_RUNFILES_TAIL)
    import importlib.util

    spec = importlib.util.find_spec(RENDERER_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            yield os.path.join(location, *_RUNFILES_TAIL)


def upstream_dir() -> str | None:
    """The directory of upstream's `tensorboard` package, or None when it is not installed."""
    if not _cached:
        _cached.append(next((d for d in _candidates() if os.path.isfile(os.path.join(d, "version.py"))), None))
    return _cached[0]


def extend_path(path: list[str], *subpackage: str) -> list[str]:
    """`path` (a package's `__path__`) plus upstream's directory of the same (sub)package, if any."""
    root = upstream_dir()
    if root is None:
        return path
    extra = os.path.join(root, *subpackage)
    if os.path.isdir(extra) and extra not in path:
        path.append(extra)
    return path
