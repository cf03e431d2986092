"""Text summaries: a DT_STRING tensor read by the text plugin (markdown; 2-d arrays as tables)."""
from __future__ import annotations

from typing import Any

import numpy as np

from tensorboard.src import plugin_data_pb2, summary_pb2
from tensorboard.summary._common import check_tag, make_metadata, make_string_tensor

__all__ = ["text"]


def text(tag: str, text: Any) -> summary_pb2.Summary:
    """A text summary of a str (a scalar string tensor) or a nested list / array of strings."""
    check_tag(tag)
    if isinstance(text, (str, bytes)):
        strings, shape = [text], []
    else:
        array = np.asarray(text, dtype=object)
        if array.size == 0:
            raise ValueError("text: expected a string or a non-empty array of strings")
        flat = array.reshape(-1).tolist()
        bad = [s for s in flat if not isinstance(s, (str, bytes))][:1]
        if bad:
            bad = bad[0]
            raise TypeError(f"text: expected str items, got {type(bad).__name__} {bad!r:.40}")
        strings, shape = flat, array.shape
    for index, item in enumerate(strings):
        if isinstance(item, bytes):
            try:
                item.decode("utf-8")
            except UnicodeDecodeError as err:  # the text plugin decodes every string of the tag as UTF-8
                where = "" if not shape else f" (item {index})"
                raise ValueError(f"text: bytes that are not UTF-8{where}: {err.reason} at byte {err.start}; "
                                 "the text dashboard could not show any step of the tag") from None
    content = plugin_data_pb2.TextPluginData(version=0).SerializeToString()
    metadata = make_metadata("text", content, data_class=summary_pb2.DATA_CLASS_TENSOR)
    value = summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=make_string_tensor(strings, shape))
    return summary_pb2.Summary(value=[value])
