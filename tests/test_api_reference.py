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
MODULES = ["mxboard", "summary", "reader", "reader.export", "report", "projector", "graph", "graph.pytorch",
           "graph.mxnet", "graph.onnx", "graph.jax", "integrations.pytorch", "integrations.mxnet", "integrations.keras",
           "distributed", "summary.writer.event_file_writer", "event_file", "convert"]
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


def _shown_objects() -> list[str]:
    """Every object the API pages show, by its anchor (`tensorboard.reader.read_scalars`, ...)."""
    site = build_site()[0]
    return [name for page in sorted((site / "api").glob("*/index.html"))
            for name in re.findall(r'<h\d id="(tensorboard[\w.]*)" class="doc doc-heading"', page.read_text())]


def _resolve(name: str):
    """The object named `tensorboard.module.Class.member` (None for an instance attribute)."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            obj = inspect.getattr_static(obj, part, None) if inspect.isclass(obj) else getattr(obj, part, None)
        return obj.__func__ if isinstance(obj, (staticmethod, classmethod)) else obj
    return None


def _needs_args_section(obj) -> bool:
    """Whether a function or class shown in the reference takes arguments but documents none under `Args:`.

    A class's arguments are its constructor's, documented in the class or `__init__` docstring (the
    reference merges them); docstrings are the object's own, as the reference shows them (not inherited)."""
    if inspect.isclass(obj):
        if issubclass(obj, BaseException) or obj.__init__ is object.__init__:
            return False
        function, doc = obj.__init__, (obj.__doc__ or "") + (obj.__init__.__doc__ or "")
    elif inspect.isfunction(obj):
        function, doc = obj, obj.__doc__ or ""
    else:
        return False
    params = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    return bool(params) and not re.search(r"^\s*Args:\s*$", doc, re.M)


def test_every_callable_in_the_reference_documents_its_arguments(monkeypatch):
    """A function, method or class on the API pages that takes arguments has an `Args:` section."""
    monkeypatch.setenv("KERAS_BACKEND", os.environ.get("KERAS_BACKEND", "numpy"))
    shown = _shown_objects()
    assert "tensorboard.SummaryWriter.add_scalar" in shown and "tensorboard.report.export_report" in shown
    offenders = [name for name in shown if _needs_args_section(_resolve(name))]
    assert not offenders, f"no Args: section, though they take arguments: {offenders}"
