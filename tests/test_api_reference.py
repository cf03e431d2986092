"""The API reference pages (docs/api/, rendered by mkdocstrings from the docstrings) cover the public API.

Every public name of the listed modules, and every public method and property of the writers, is an
object of the built site (its objects.inv) or is named by a `:::` directive of docs/api/. Signatures and
docstrings come from the code itself, so they cannot drift from it.
"""
from __future__ import annotations

import importlib
import inspect
import os
import re

import pytest
from docs_site import REPO, build_site, inventory

import tensorboard

API_PAGES = REPO / "docs" / "api"
MODULES = ["mxboard", "summary", "reader", "reader.export", "projector", "graph", "graph.pytorch", "graph.mxnet",
           "graph.onnx", "graph.jax", "integrations.pytorch", "integrations.mxnet", "integrations.keras", "distributed",
           "summary.writer.event_file_writer", "event_file", "convert"]
WRITERS = ["SummaryWriter", "FileWriter", "GlobalSummaryWriter"]
# Names a module re-exports from private modules, which users meet (raised, warned, called).
RE_EXPORTED = {"event_file": ["EventWriteWarning", "flush_open_writers", "WriterClosedError"]}


def _directives() -> set[str]:
    """The objects named by `::: dotted.path` directives on the API pages."""
    return {m for page in API_PAGES.glob("*.md") for m in re.findall(r"^::: ([\w.]+)\s*$", page.read_text(), re.M)}


@pytest.fixture(scope="module")
def documented() -> set[str]:
    return inventory(build_site()[0]) | _directives()


def _covered(documented: set[str], module: str, name: str) -> bool:
    """`module.name` is documented under that name, or, when re-exported, from the module that defines it."""
    full = f"{module}.{name}"
    return full in documented or any(d.startswith(module + ".") and d.endswith("." + name) for d in documented)


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items()
                 if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
                 and getattr(v, "__module__", None) == module.__name__]
    return list(names)


def _import(module: str, monkeypatch):
    if module == "integrations.keras":
        # Keras defaults to the TensorFlow backend, which is not installed: pick one that is.
        monkeypatch.setenv("KERAS_BACKEND", os.environ.get("KERAS_BACKEND", "numpy"))
        pytest.importorskip("keras")
    return importlib.import_module(f"tensorboard.{module}")


@pytest.mark.parametrize("module", MODULES)
def test_every_public_name_of_the_module_is_documented(module, documented, monkeypatch):
    mod = _import(module, monkeypatch)
    names = _public_names(mod) + RE_EXPORTED.get(module, [])
    assert names, f"tensorboard.{module} has no public names"
    missing = [n for n in names if not _covered(documented, mod.__name__, n)]
    assert not missing, f"tensorboard.{module}: {missing} are not in the API reference"


@pytest.mark.parametrize("cls", WRITERS)
def test_every_writer_method_and_property_is_documented(cls, documented):
    writer = getattr(tensorboard, cls)
    members = [n for n in dir(writer) if not n.startswith("_")]
    assert len(members) >= 5, members
    missing = [n for n in members if f"tensorboard.{cls}.{n}" not in documented]
    assert not missing, f"tensorboard.{cls}: {missing} are not in the API reference"


def test_package_exports_are_documented(documented):
    """`tensorboard.__all__`'s own names: the writers have pages; upstream's modules are named on the overview."""
    overview = (API_PAGES / "index.md").read_text()
    for name in tensorboard.__all__:
        if name in WRITERS:
            assert f"tensorboard.{name}" in documented, name
        elif name != "__version__" and f"tensorboard.{name}" not in documented:
            assert f"`tensorboard.{name}`" in overview, f"tensorboard.{name} is not named on docs/api/index.md"


def test_every_api_page_is_in_the_nav():
    nav = (REPO / "mkdocs.yml").read_text()
    for page in API_PAGES.glob("*.md"):
        assert f"api/{page.name}" in nav, page.name
