"""Optional packages upstream's renderer imports at start-up only to learn that they are installed, each
imported when it is first used instead.

Upstream's file layer (tensorflow_stub's gfile) runs `import boto3` (its S3 files) and `import fsspec`
(other URLs) as it is imported, a fifth of a second together, before the server answers or preload's
workers fork; a local logdir never uses either. `defer(name)` puts a DeferredModule in `sys.modules`
for an installed package: the `import` statements succeed as they would (gfile still finds S3 and fsspec
enabled), and the first attribute asked of the module imports the package, which then takes its place.
A package that is not installed is left alone: its import fails as before.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types

RENDERER_OPTIONAL = ("boto3", "fsspec")  # what upstream's gfile imports only to know it can
_LOCK = threading.RLock()  # one import at a time: two threads' first uses import the package once


class DeferredModule(types.ModuleType):
    """Stands in `sys.modules` for an installed package not imported yet; any attribute (a function, a
    submodule's parent path) imports it and is answered by it."""

    def __getattr__(self, attr: str):  # only for attributes the stand-in lacks: everything but its spec
        return getattr(self.deferred_module(), attr)

    def __dir__(self):
        return dir(self.deferred_module())

    def deferred_module(self) -> types.ModuleType:
        """The package itself, imported on the first call (it replaces this stand-in in `sys.modules`)."""
        with _LOCK:
            real = self.__dict__.get("_deferred_real")
            if real is None:
                name = self.__name__
                if sys.modules.get(name) is self:
                    del sys.modules[name]
                real = importlib.import_module(name)
                self.__dict__["_deferred_real"] = real
            return real


def defer(name: str) -> bool:
    """Puts a DeferredModule for the top-level package `name` in `sys.modules`; False (nothing done) when
    it is imported already or not installed."""
    if name in sys.modules or "." in name:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None:
        return False
    module = DeferredModule(name)
    module.__spec__ = spec  # what the import system asks of a module it finds in sys.modules
    sys.modules[name] = module
    return True


def defer_renderer_optional() -> None:
    """Defers the packages upstream's renderer imports only to know they are there (RENDERER_OPTIONAL)."""
    for name in RENDERER_OPTIONAL:
        defer(name)
