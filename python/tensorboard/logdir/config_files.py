"""Configuration files as flat hyperparameters: JSON, YAML and TOML text (untrusted: bounded in size,
depth and key count, YAML read without constructing objects) parsed into {dotted key: value}, each
value a number, bool or string. No I/O here: callers hand over the bytes they read (at most
MAX_CONFIG_BYTES of them)."""
from __future__ import annotations

import json
import math
import re
from typing import Literal, Union

MAX_CONFIG_BYTES = 1 << 20  # a configuration file is small; a larger one is not read (with a warning)
MAX_KEYS = 10_000  # flattened keys per file: YAML aliases can make a small file expand exponentially
MAX_DEPTH = 64

Format = Literal["json", "yaml", "toml"]
Scalar = Union[bool, int, float, str]
SUFFIXES: dict[str, Format] = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml"}


class ConfigError(ValueError):
    """A configuration file that can't be used: its path, the line (1-based, None when unknown) and why."""

    def __init__(self, path: str, line: int | None, reason: str):
        self.path, self.line, self.reason = path, line, reason
        where = f"{path}, line {line}" if line is not None else path
        super().__init__(f"{where}: {reason}")


def format_of(name: str) -> Format | None:
    """The format a file name's suffix says (.json, .yaml, .yml, .toml), or None."""
    lower = name.lower()
    for suffix, fmt in SUFFIXES.items():
        if lower.endswith(suffix):
            return fmt
    return None


def parse_config(data: bytes, path: str, fmt: Format):
    """The document of one configuration file (a dict, list or scalar as the format gives it).

    Raises:
        ConfigError: Not UTF-8, too large, malformed (with its line), or a YAML/TOML reader missing.
    """
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(path, None, f"larger than {MAX_CONFIG_BYTES} bytes; not read")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ConfigError(path, data.count(b"\n", 0, err.start) + 1, "not UTF-8 text") from None
    try:
        if fmt == "json":
            return _json(text, path)
        if fmt == "yaml":
            return _yaml(text, path)
        return _toml(text, path)
    except RecursionError:
        raise ConfigError(path, None, f"nested too deeply (more than {MAX_DEPTH} levels)") from None


def _json(text: str, path: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ConfigError(path, err.lineno, f"malformed JSON: {err.msg}") from None


def _yaml(text: str, path: str):
    simple = simple_yaml(text)
    if simple is not None:
        return simple
    try:
        import yaml
    except ImportError:
        raise ConfigError(path, None, "reading YAML needs PyYAML: pip install pyyaml") from None
    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # safe: no objects built
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        reason = " ".join(part for part in (err.context, err.problem) if part) or "malformed"
        if "python/" in reason:
            reason += " (a Python object tag; only plain YAML is read)"
        raise ConfigError(path, mark.line + 1 if mark is not None else None, f"malformed YAML: {reason}") from None
    except yaml.YAMLError as err:
        raise ConfigError(path, None, f"malformed YAML: {err}") from None


# The YAML most sweep tools write (Lightning's hparams.yaml, Hydra's config.yaml) is block mappings of
# plain scalars. PyYAML's safe loader builds those at ~0.15 ms a file even with libyaml (its constructor
# is Python), as long as a first load of 10,000 runs' event files; `simple_yaml` reads that subset
# directly, giving exactly what PyYAML gives (tests/logdir/test_config_files.py compares them), and
# hands anything else (lists, quotes, comments, anchors, tags, other scalars) to PyYAML.
_YAML_KEY = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_.\-]*):(?: +(.*?))? *\Z")
_YAML_INT = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")
_YAML_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+(?:[eE][-+][0-9]+)?\Z")
_YAML_WORD = re.compile(r"[A-Za-z_/][A-Za-z0-9_./\-]*\Z")
_YAML_SPECIAL = {"yes", "no", "on", "off", "true", "false", "null", "y", "n"}  # resolved, or best left to PyYAML
_YAML_CONSTANTS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False,
                   "null": None, "Null": None, "NULL": None, "~": None}
_NO_VALUE = object()


def _yaml_scalar(text: str):
    """A plain scalar of the subset as PyYAML resolves it, or _NO_VALUE for anything else."""
    if text in _YAML_CONSTANTS:
        return _YAML_CONSTANTS[text]
    if _YAML_INT.match(text):
        return int(text)
    if _YAML_FLOAT.match(text):
        return float(text)
    if _YAML_WORD.match(text) and text.lower() not in _YAML_SPECIAL:
        return text
    return _NO_VALUE


def simple_yaml(text: str) -> dict | None:
    """`text` as PyYAML's safe loader reads it, when it is block mappings of plain scalars; else None."""
    if "#" in text or "\t" in text or text.lstrip().startswith("---"):
        return None
    root: dict = {}
    stack = [(0, root)]  # (indent of the keys, mapping) of the open mappings
    pending = None  # (indent, mapping, key) of a key without a value: a nested mapping or null
    for line in text.splitlines():
        if not line.strip():
            continue
        found = _YAML_KEY.match(line)
        if found is None or found.group(2).lower() in _YAML_SPECIAL:
            return None
        indent, key, value = len(found.group(1)), found.group(2), found.group(3)
        if pending is not None and indent > pending[0]:
            child: dict = {}
            pending[1][pending[2]] = child
            stack.append((indent, child))
        pending = None
        while indent < stack[-1][0]:
            stack.pop()
        if indent != stack[-1][0]:
            return None
        mapping = stack[-1][1]
        if not value:
            mapping[key] = None
            pending = (indent, mapping, key)
            continue
        scalar = _yaml_scalar(value)
        if scalar is _NO_VALUE:
            return None
        mapping[key] = scalar
    return root if root else None


def _toml(text: str, path: str):
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        try:
            import tomli as tomllib  # the same reader, from PyPI, for Python 3.10
        except ImportError:
            raise ConfigError(path, None, "reading TOML on Python 3.10 needs tomli: pip install tomli") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found = re.search(r"line (\d+)", str(err))
        raise ConfigError(path, int(found.group(1)) if found else None, f"malformed TOML: {err}") from None


def flatten(document, path: str) -> dict[str, Scalar]:
    """{dotted key: value} of a mapping document: nested mappings join their keys with ".", a list
    becomes its JSON text, a date or other YAML scalar its text, null is left out.

    Raises:
        ConfigError: The document is not a mapping, or holds more than MAX_KEYS keys or MAX_DEPTH levels.
    """
    if not isinstance(document, dict):
        raise ConfigError(path, None, f"expected a mapping of names to values, found {_kind(document)}")
    out: dict[str, Scalar] = {}
    stack = [("", document, 0)]
    while stack:
        prefix, mapping, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ConfigError(path, None, f"nested too deeply (more than {MAX_DEPTH} levels)")
        for key, value in mapping.items():
            name = f"{prefix}{key}"
            if isinstance(value, dict) and value:
                stack.append((name + ".", value, depth + 1))
                continue
            scalar = plain_value(value)
            if scalar is not None:
                out[name] = scalar
            if len(out) + len(stack) > MAX_KEYS:
                raise ConfigError(path, None, f"more than {MAX_KEYS} keys")
    return dict(sorted(out.items()))


def plain_value(value) -> Scalar | None:
    """A document value as a number, bool or string (a list or empty mapping as its JSON text); None for null."""
    if value is None:
        return None
    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, (list, tuple, dict)):
        try:
            text = json.dumps(value, default=str, sort_keys=True)
        except (ValueError, RecursionError):
            text = "[...]"
        return text if len(text) <= 1000 else text[:997] + "..."
    return str(value)


_INT = re.compile(r"[+-]?\d+\Z")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?\Z")


def typed_text(text: str) -> Scalar:
    """A value written as text (a directory name's `lr=0.01`, a Hydra override) with its type: an int,
    a float, true/false as a bool (any case), a quoted string without its quotes, else the text."""
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        number = float(text)
        return number if math.isfinite(number) else text
    lower = text.lower()
    if lower in ("true", "false"):
        return lower == "true"
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _kind(document) -> str:
    if document is None:
        return "an empty file"
    return {list: "a list", str: "text"}.get(type(document), type(document).__name__)
