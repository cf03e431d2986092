"""Runs tbparse's whole public API (in .venv-upstream) and prints it as JSON:
`tbparse_api_dump.py surface` or `tbparse_api_dump.py tree LOGDIR KWARGS_JSON` or
`tbparse_api_dump.py static INPUT_JSON`.

`normalized()` turns what the API returns (namedtuples of upstream's EventAccumulator, protos,
bytes, NumPy values) into JSON; the tests apply the same function to our reader's answers.
"""
from __future__ import annotations

import dataclasses
import inspect
import json
import math
import sys


def normalized(value):
    """A JSON-able, exact rendering: floats as repr (NaN equal to NaN), bytes and protos as hex."""
    import numpy as np

    if hasattr(value, "_fields"):  # a namedtuple (ScalarEvent, TensorEvent, ...)
        return [type(value).__name__, {f: normalized(getattr(value, f)) for f in value._fields}]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # HistogramEvent, HistogramValue
        return [type(value).__name__, {f.name: normalized(getattr(value, f.name)) for f in dataclasses.fields(value)}]
    if hasattr(value, "SerializeToString") and hasattr(value, "DESCRIPTOR"):
        return ["proto", value.DESCRIPTOR.full_name, value.SerializeToString(deterministic=True).hex()]
    if isinstance(value, (bytes, bytearray)):
        return ["bytes", bytes(value).hex()]
    if isinstance(value, dict):
        return {str(k): normalized(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalized(v) for v in value]
    if isinstance(value, np.ndarray):
        return ["ndarray", str(value.dtype), list(value.shape), normalized(value.tolist())]
    if isinstance(value, np.generic):
        return ["np", type(value).__name__, normalized(value.item())]
    if isinstance(value, float):
        return ["float", "nan" if math.isnan(value) else repr(value)]
    return value


def surface(cls) -> dict:
    """{public member: description} of a class: properties, static methods and methods with their signatures."""
    out = {}
    for name in sorted(dir(cls)):
        if name.startswith("_") and name not in ("__init__", "__getitem__", "__repr__"):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, property):
            out[name] = ["property"]
        elif isinstance(raw, staticmethod):
            out[name] = ["staticmethod", _parameters(raw.__func__)]
        elif callable(raw):
            out[name] = ["method", _parameters(raw)]
        else:
            out[name] = ["attribute"]
    return out


def _parameters(func) -> list:
    return [[p.name, p.kind.name, repr(p.default) if p.default is not p.empty else None]
            for p in inspect.signature(func).parameters.values()]


def tree(reader, kinds) -> dict:
    """Everything one reader node answers, then its children's, recursively."""
    node = {"repr": repr(reader).replace(reader.log_path, "<log_path>"), "tags": reader.tags,
            "get_tags": {kind: reader.get_tags(kind) for kind in kinds},
            "children": {name: tree(child, kinds) for name, child in reader.children.items()}}
    try:
        node["raw_tags"] = reader.raw_tags
        node["raw_events"] = normalized(reader.raw_events)
        node["get_raw_tags"] = {t: reader.get_raw_tags(t) for t in ("scalars", "tensors", "graph", "hparams", "text")}
        node["get_raw_events"] = {kind: normalized({tag: reader.get_raw_events(kind, tag)
                                                    for tag in reader.get_raw_tags(kind)}) for kind in kinds}
    except ValueError as err:
        node["raw_error"] = f"{type(err).__name__}: {err}".replace(reader.log_path, "<log_path>")
    return node


def static(cls, cases: dict) -> dict:
    import numpy as np

    out = {}
    for key, (name, args) in cases.items():
        try:
            out[key] = normalized(getattr(cls, name)(*[np.asarray(a) if isinstance(a, list) else a for a in args]))
        except Exception as err:  # recorded: the tests compare that both refuse the input
            out[key] = ["error", type(err).__name__]
    return out


def main() -> None:
    from tbparse import SummaryReader

    mode = sys.argv[1]
    if mode == "surface":
        result = surface(SummaryReader)
    elif mode == "tree":
        kwargs = {k: set(v) if isinstance(v, list) else v for k, v in json.loads(sys.argv[3]).items()}
        result = tree(SummaryReader(sys.argv[2], **kwargs), sorted(kwargs.get("event_types", ())))
    else:
        with open(sys.argv[2]) as f:
            result = static(SummaryReader, json.load(f))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
