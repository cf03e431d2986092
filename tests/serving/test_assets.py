"""The UI's static files, gzipped on first request (serving.assets): the same routes as upstream's CorePlugin,
each answering with the same status, headers and bytes, built from the same asset zip."""
from __future__ import annotations

import gzip
import importlib
import zipfile

import pytest
from werkzeug.test import Client

from tensorboard.serving import assets


def _core_plugin_module():
    from tensorboard.plugins.core import core_plugin

    return core_plugin


def _zip_provider():
    """The renderer's asset zip (upstream's tensorboard.assets)."""
    from tensorboard import assets as upstream_assets

    return upstream_assets.get_default_assets_zip_provider()


def _apps(lazy: bool) -> dict:
    """The resource apps of a CorePlugin over the renderer's own asset zip: upstream's, or ours."""
    from tensorboard.plugins import base_plugin

    module = importlib.reload(_core_plugin_module())  # a fresh, unpatched class
    if lazy:
        assets.install(module)
    context = base_plugin.TBContext(assets_zip_provider=_zip_provider())
    plugin = module.CorePlugin(context)
    return plugin.get_resource_apps()


@pytest.fixture(scope="module")
def both():
    eager, lazy = _apps(False), _apps(True)
    yield eager, lazy
    importlib.reload(_core_plugin_module())  # leave upstream's class as it was


def _get(app, query: str = ""):
    """(status, headers, body) of a GET by a browser that takes gzip; Expires keeps only its presence (a time)."""
    response = Client(app).get("/x" + query, headers={"Accept-Encoding": "gzip"})
    headers = sorted((k, "(a time)" if k == "Expires" else v) for k, v in response.headers.items())
    return response.status_code, headers, response.get_data()


def test_the_same_routes(both):
    eager, lazy = both
    assert sorted(lazy) == sorted(eager)
    assert "/index.html" in lazy and "/index.js" in lazy


@pytest.mark.parametrize("path", ["/", "/index.html", "/index.js", "/icon_bundle.svg", "/chart_worker.js"])
@pytest.mark.parametrize("query", ["", "?_file_hash=abc"])
def test_each_answer_is_upstreams(both, path, query):
    eager, lazy = both
    first = _get(lazy[path], query)
    assert first == _get(eager[path], query)
    assert _get(lazy[path], query) == first  # built once, answered again the same


def test_every_file_serves_what_the_zip_holds(both):
    _, lazy = both
    with _zip_provider()() as fp, zipfile.ZipFile(fp) as zip_:
        for name in zip_.namelist():
            if name == "index.html" or name.endswith("/"):
                continue
            status, headers, body = _get(lazy["/" + name])
            assert status == 200 and ("Content-Encoding", "gzip") in headers
            assert gzip.decompress(body) == zip_.read(name)


def test_installed_once():
    module = _core_plugin_module()
    try:
        assets.install(module)
        patched = module.CorePlugin.get_resource_apps
        assets.install(module)
        assert module.CorePlugin.get_resource_apps is patched
    finally:
        importlib.reload(module)
