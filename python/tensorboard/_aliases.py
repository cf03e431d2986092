"""Module paths from before the package was grouped into layers keep importing: `tensorboard.event_file`
is `tensorboard.events.event_file` (the same module object, so a patch through either name applies).

A meta path finder answers only for the names in FORMER_PATHS and loads nothing until one is imported
(it imports nothing itself at start-up, to keep `import tensorboard` as light as upstream's).
"""
from __future__ import annotations

import sys

FORMER_PATHS = {
    "tensorboard.crc32c": "tensorboard.events.crc32c",
    "tensorboard.record": "tensorboard.events.record",
    "tensorboard.event_file": "tensorboard.events.event_file",
    "tensorboard.event_file_names": "tensorboard.events.file_names",
    "tensorboard.storage": "tensorboard.events.storage",
    "tensorboard.wire": "tensorboard.events.wire",
    "tensorboard.convert": "tensorboard.values.convert",
    "tensorboard.file_writer": "tensorboard.writers.file_writer",
    "tensorboard.summary_writer": "tensorboard.writers.summary_writer",
    "tensorboard.global_writer": "tensorboard.writers.global_writer",
}


class _AliasLoader:
    """Loads a former path as the module that now lives at its new path (importlib's Loader protocol)."""

    def __init__(self, target: str):
        self._target = target

    def create_module(self, spec):
        import importlib

        return importlib.import_module(self._target)

    def exec_module(self, module) -> None:
        """The target module ran already when create_module imported it."""


class _FormerPathFinder:
    """Finds the former module paths of FORMER_PATHS; every other name is left to the usual finders
    (importlib's MetaPathFinder protocol)."""

    def find_spec(self, fullname: str, path=None, target=None):
        new = FORMER_PATHS.get(fullname)
        if new is None:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(fullname, _AliasLoader(new))

    def invalidate_caches(self) -> None:
        """Nothing cached."""


def install() -> None:
    """Puts the finder first on sys.meta_path, once per interpreter."""
    if not any(isinstance(finder, _FormerPathFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _FormerPathFinder())
