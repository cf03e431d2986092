"""Text summaries: a DT_STRING tensor read by the text plugin (markdown; 2-d arrays as tables)."""
from __future__ import annotations

from typing import Any

import numpy as np

from tensorboard.src import plugin_data_pb2, summary_pb2
from tensorboard.summary._common import check_tag, make_metadata, make_string_tensor

__all__ = ["text", "MAX_TEXT_BYTES"]

MAX_TEXT_BYTES = 16 << 20  # UTF-8 bytes per call: 16 MiB (a browser will not render more in one card)


def text(tag: str, text: Any) -> summary_pb2.Summary:
    """A text summary, rendered as markdown by the Text dashboard.

    Args:
        tag: The text's name, a non-empty str.
        text: A str (or UTF-8 bytes), or a nested list or array of them (a 2-D one shows as a table).

    Returns:
        A Summary proto with one string tensor.

    Raises:
        TypeError: Items that are not str or bytes.
        ValueError: An empty array, text that is not valid Unicode or UTF-8, or more than 16 MiB of
            UTF-8 in one call.
    """
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
    size = 0
    for index, item in enumerate(strings):
        where = "" if not shape else f" (item {index})"
        size += len(item)  # a str's UTF-8 is at least as long: refused before it is encoded
        if size > MAX_TEXT_BYTES:
            raise ValueError(f"text: more than {MAX_TEXT_BYTES} bytes of UTF-8 in one call; split it over "
                             "several tags or steps")
        if isinstance(item, str):
            try:
                encoded = item.encode("utf-8")
            except UnicodeEncodeError as err:  # a lone surrogate: text UTF-8 (and so TensorBoard) cannot hold
                raise ValueError(f"text: not valid Unicode{where}: {err.reason} at index {err.start} "
                                 f"({item[err.start:err.end]!r})") from None
            size += len(encoded) - len(item)
            strings[index] = encoded
            continue
        try:
            item.decode("utf-8")
        except UnicodeDecodeError as err:  # the text plugin decodes every string of the tag as UTF-8
            raise ValueError(f"text: bytes that are not UTF-8{where}: {err.reason} at byte {err.start}; "
                             "the text dashboard could not show any step of the tag") from None
    if size > MAX_TEXT_BYTES:
        raise ValueError(f"text: more than {MAX_TEXT_BYTES} bytes of UTF-8 in one call; split it over "
                         "several tags or steps")
    content = plugin_data_pb2.TextPluginData(version=0).SerializeToString()
    metadata = make_metadata("text", content, data_class=summary_pb2.DATA_CLASS_TENSOR)
    value = summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=make_string_tensor(strings, shape))
    return summary_pb2.Summary(value=[value])
