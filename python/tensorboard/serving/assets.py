"""The web UI's static files, each read from upstream's asset zip and gzipped when it is first asked for.

Upstream's CorePlugin decompresses and gzips all of them (15 MB: the UI's bundle, a code editor only one
dashboard uses, fonts) while the server is built, before it answers anything: about a quarter of the
renderer's own start-up. Here the server's routes are the same, and each answers with the same bytes,
made by upstream's own `_gzip` from the same zip entry, once, on its first request; files never asked
for are never gzipped nor kept.
"""
from __future__ import annotations

import functools
import threading
import zipfile


class LazyAsset:
    """A WSGI app serving one entry of the asset zip as upstream's CorePlugin serves it, built on first call."""

    def __init__(self, plugin, path: str, gzip):
        self._plugin, self._path, self._gzip = plugin, path, gzip
        self._app = None
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        app = self._app
        if app is None:
            with self._lock:
                if self._app is None:
                    self._app = self._build()
                app = self._app
        return app(environ, start_response)

    def _build(self):
        plugin = self._plugin
        with plugin._assets_zip_provider() as fp, zipfile.ZipFile(fp) as zip_:  # pylint: disable=protected-access
            content = zip_.read(self._path)
        if self._path == "index.html":  # upstream serves it as is, after a preamble
            return functools.partial(plugin._serve_index, content)  # pylint: disable=protected-access
        return functools.partial(plugin._serve_asset, self._path, self._gzip(content))  # pylint: disable=protected-access


def install(core_plugin) -> None:
    """Makes upstream's `core_plugin.CorePlugin` route its static files to LazyAssets (once per module)."""
    plugin_class = core_plugin.CorePlugin
    if getattr(plugin_class, "_lazy_assets", False):
        return

    def get_resource_apps(self):
        apps = {}
        if not self._assets_zip_provider:  # pylint: disable=protected-access
            return apps
        with self._assets_zip_provider() as fp, zipfile.ZipFile(fp) as zip_:  # pylint: disable=protected-access
            names = zip_.namelist()
        gzip = core_plugin._gzip  # pylint: disable=protected-access  (upstream's, so the bytes are its own)
        for path in names:
            apps["/" + path] = LazyAsset(self, path, gzip)
        apps["/"] = apps["/index.html"]
        return apps

    plugin_class.get_resource_apps = get_resource_apps
    plugin_class._lazy_assets = True  # pylint: disable=protected-access
