"""Upstream modules that get one of ours wired in when they are imported through our package.

`tensorboard.program` (upstream's, for embedding a server in a program or a notebook) builds every server behind
`tensorboard.serving.access` (the Host rule, tokens, HTTPS), as the `tensorboard` command's servers are. A meta
path finder answers only for the names in HOOKS, lets the usual path finder find the module, and runs the hook
once the module has run; it imports nothing until one of those modules is imported.
"""
from __future__ import annotations

import importlib
import sys

HOOKS = {"tensorboard.program": "tensorboard.serving.access"}  # module -> ours whose install(module) it gets


class _HookingLoader:
    """Runs the module with its own loader, then the hook (importlib's Loader protocol)."""

    def __init__(self, loader, hook: str):
        self._loader, self._hook = loader, hook

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        importlib.import_module(self._hook).install(module)


class _HookFinder:
    """Finds the modules of HOOKS as the path finder does, with the hook added (importlib's MetaPathFinder)."""

    def find_spec(self, fullname: str, path=None, target=None):
        hook = HOOKS.get(fullname)
        if hook is None:
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _HookingLoader(spec.loader, hook)
        return spec

    def invalidate_caches(self) -> None:
        """Nothing cached."""


def install() -> None:
    """Puts the finder first on sys.meta_path, once per interpreter."""
    if not any(isinstance(finder, _HookFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _HookFinder())
