"""Where a run's metadata lives in an event file, and how its fields are encoded.

One event at the run's start holds two text values (plugin "text"), so every reader keeps them as
text (tbparse's and ours: the `text` frame) and the Text dashboard shows them:
- `run/metadata`: a Markdown table of the fields, to read;
- `run/metadata_fields`: the same fields as one JSON object in a fenced code block, to parse
  (`SummaryReader(...).metadata`), with their types (the dirty flag is a bool).
"""
from __future__ import annotations

import json
from typing import Any

from tensorboard.src import summary_pb2, tensor_pb2, types_pb2

TEXT_TAG = "run/metadata"
FIELDS_TAG = "run/metadata_fields"
PLUGIN = "text"
_FENCE_OPEN, _FENCE_CLOSE = "```json\n", "\n```"


def text_value(tag: str, text: str) -> summary_pb2.Summary.Value:
    """A Summary value of the text plugin holding one UTF-8 string (a rank-0 string tensor)."""
    value = summary_pb2.Summary.Value(tag=tag)
    value.metadata.plugin_data.plugin_name = PLUGIN
    value.tensor.CopyFrom(tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[text.encode("utf-8")]))
    return value


def encode_fields(fields: dict[str, Any]) -> str:
    """The fields as the text stored under FIELDS_TAG: a fenced JSON block (keys in the order given)."""
    return _FENCE_OPEN + json.dumps(fields, ensure_ascii=False, indent=1, default=str) + _FENCE_CLOSE


def decode_fields(tensor: tensor_pb2.TensorProto) -> dict[str, Any] | None:
    """The fields of a FIELDS_TAG tensor; None when it does not hold one fenced JSON object (damaged)."""
    if tensor.dtype != types_pb2.DT_STRING or len(tensor.string_val) != 1:
        return None
    try:
        text = tensor.string_val[0].decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not (text.startswith(_FENCE_OPEN) and text.endswith(_FENCE_CLOSE)):
        return None
    try:
        fields = json.loads(text[len(_FENCE_OPEN):-len(_FENCE_CLOSE)])
    except ValueError:
        return None
    return fields if isinstance(fields, dict) else None
