"""The README's `## API reference` section covers the real public API.

Every public method/property of SummaryWriter and FileWriter and every function exported by
`tensorboard.summary` must be documented with a signature whose parameter names (and defaults)
match `inspect.signature` of the code, so the reference cannot silently drift from the code.
"""
import importlib
import inspect
import os
import re
from pathlib import Path

import pytest

import tensorboard
from tensorboard import distributed, summary

REPO = Path(__file__).resolve().parent.parent
HEADING = "## API reference"


def _reference_text() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def _section() -> str:
    """From the `## API reference` heading to the next level-2 (or level-1) heading."""
    text = _reference_text()
    match = re.search(rf"^{re.escape(HEADING)}\s*$", text, flags=re.M)
    assert match, f"no {HEADING!r} heading in README.md"
    rest = text[match.end():]
    end = re.search(r"^#{1,2} ", rest, flags=re.M)
    return rest[:end.start()] if end else rest


SECTION = _section()


def _subsection(pattern: str) -> str:
    """The text of the `###` subsection whose heading matches `pattern` (a regex)."""
    parts = re.split(r"^(### .*)$", SECTION, flags=re.M)
    for heading, body in zip(parts[1::2], parts[2::2]):
        if re.search(pattern, heading):
            return body
    pytest.fail(f"no '### ...' subsection matching {pattern!r} in the API reference")


def _code_spans(text: str) -> list[str]:
    return [span.replace("\\|", "|") for span in re.findall(r"`([^`\n]+)`", text)]


def _signature_spans(text: str, name: str) -> str:
    """All code spans of `text` that are a call signature of `name` (`name(...)` or `x.name(...)`)."""
    spans = [s for s in _code_spans(text) if re.match(rf"(?:[\w.]+\.)?{re.escape(name)}\(", s)]
    return "\n".join(spans)


def _default_text(value) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _check_signature(text: str, label: str, name: str, func) -> list[str]:
    """Problems with how `func`'s real signature is documented in `text` under `name`."""
    spans = _signature_spans(text, name)
    if not spans:
        return [f"{label}: no signature `{name}(...)` documented"]
    problems = []
    for param in inspect.signature(func).parameters.values():
        if param.name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if not re.search(rf"\b{re.escape(param.name)}\b", spans):
            problems.append(f"{label}: parameter {param.name!r} missing from the documented signature")
        elif param.default is not param.empty:
            documented = f"{param.name}={_default_text(param.default)}"
            if documented not in spans:
                problems.append(f"{label}: expected {documented!r} in the documented signature")
    return problems


def _public_members(cls) -> list[str]:
    return sorted(name for name in dir(cls) if not name.startswith("_"))


def test_section_layout():
    assert SECTION.strip(), "the API reference section is empty"
    assert re.search(r"^### ", SECTION, flags=re.M), "the API reference has no ### subsections"


@pytest.mark.parametrize("cls, heading", [(tensorboard.SummaryWriter, r"\bSummaryWriter\b"),
                                          (tensorboard.FileWriter, r"\bFileWriter\b")])
def test_writer_members_documented(cls, heading):
    text = _subsection(heading)
    spans = "\n".join(_code_spans(text))
    problems = []
    for name in _public_members(cls):
        member = inspect.getattr_static(cls, name)
        if isinstance(member, property):
            if not re.search(rf"\b{re.escape(name)}\b", spans):
                problems.append(f"{cls.__name__}.{name}: property not documented")
        else:
            problems += _check_signature(text, f"{cls.__name__}.{name}", name, getattr(cls, name))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("cls, heading", [(tensorboard.SummaryWriter, r"\bSummaryWriter\b"),
                                          (tensorboard.FileWriter, r"\bFileWriter\b")])
def test_writer_constructor_documented(cls, heading):
    problems = _check_signature(_subsection(heading), f"{cls.__name__}()", cls.__name__, cls)
    assert not problems, "\n".join(problems)


def test_summary_writer_add_methods_list_every_parameter():
    """Explicitly: every parameter of every SummaryWriter.add_* (not *args/**kwargs) is in the reference."""
    methods = [n for n in _public_members(tensorboard.SummaryWriter) if n.startswith("add_")]
    assert len(methods) >= 20, methods
    text = _subsection(r"\bSummaryWriter\b")
    problems = []
    for name in methods:
        for param in inspect.signature(getattr(tensorboard.SummaryWriter, name)).parameters.values():
            if param.name == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            if not re.search(rf"\b{re.escape(param.name)}\b", SECTION):
                problems.append(f"SummaryWriter.{name}: {param.name!r} not in the API reference")
        problems += _check_signature(text, f"SummaryWriter.{name}", name, getattr(tensorboard.SummaryWriter, name))
    assert not problems, "\n".join(problems)


def test_summary_functions_documented():
    exported = getattr(summary, "__all__", None) or [
        n for n, v in vars(summary).items() if not n.startswith("_") and callable(v)]
    text = _subsection(r"tensorboard\.summary\b")
    problems = []
    for name in exported:
        problems += _check_signature(text, f"summary.{name}", name, getattr(summary, name))
    assert not problems, "\n".join(problems)


def test_package_exports_documented():
    names = [n for n in tensorboard.__all__ if n != "summary"]
    missing = [n for n in names if not re.search(rf"\b{re.escape(n)}\b", SECTION)]
    assert not missing, f"tensorboard exports missing from the API reference: {missing}"


@pytest.mark.parametrize("module", ["summary", "reader", "projector", "graph", "integrations.mxnet",
                                    "integrations.pytorch", "integrations.keras", "distributed", "convert"])
def test_modules_have_subsections_listing_their_exports(module, monkeypatch):
    text = _subsection(rf"tensorboard\.{re.escape(module)}\b")
    if module == "integrations.keras":
        _import_keras(monkeypatch)
    mod = importlib.import_module(f"tensorboard.{module}")
    names = getattr(mod, "__all__", None) or [
        n for n, v in vars(mod).items()
        if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
        and getattr(v, "__module__", None) == mod.__name__]
    missing = [n for n in names if not re.search(rf"\b{re.escape(n)}\b", text)]
    assert not missing, f"tensorboard.{module}: {missing} not in its API reference subsection"


def test_distributed_options_match_code():
    text = _subsection(r"tensorboard\.distributed\b")
    for name in (*distributed.RANK_VARIABLES, *distributed.WORLD_SIZE_VARIABLES):
        assert name in text, f"environment variable {name} not documented"
    for func in (distributed.detect_rank, distributed.resolve, distributed.check_write_ranks):
        problems = _check_signature(text, f"distributed.{func.__name__}", func.__name__, func)
        assert not problems, "\n".join(problems)


def _import_keras(monkeypatch) -> None:
    """Keras defaults to the TensorFlow backend, which is not installed: pick one that is."""
    monkeypatch.setenv("KERAS_BACKEND", os.environ.get("KERAS_BACKEND", "numpy"))
    pytest.importorskip("keras")


def test_keras_callback_signature_documented(monkeypatch):
    _import_keras(monkeypatch)
    from tensorboard.integrations.keras import TensorBoard

    problems = _check_signature(_subsection(r"tensorboard\.integrations\.keras\b"), "keras.TensorBoard()",
                                "TensorBoard", TensorBoard.__init__)
    assert not problems, "\n".join(problems)
