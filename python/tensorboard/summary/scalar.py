"""Scalar summaries: one number per step, as the legacy `simple_value` (float32), or as a tensor for
the scalars plugin (`new_style`, float32; `double_precision`, float64)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tensorboard.src import summary_pb2
from tensorboard.summary._common import check_optional_text, check_tag, make_metadata, make_tensor
from tensorboard.values.args import check_float32
from tensorboard.values.convert import to_float


def scalar(tag: str, value: Any, display_name: Optional[str] = None, description: Optional[str] = None, *,
           new_style: bool = False, double_precision: bool = False) -> summary_pb2.Summary:
    """A scalar summary; NaN and ±inf are kept.

    A finite value beyond float32 becomes ±inf with a warning unless `double_precision`.

    Args:
        tag: The curve's name, a non-empty str.
        value: A real number, or a one-element array or tensor.
        display_name: The name the dashboard shows for the tag.
        description: The tag's description.
        new_style: Write a 0-d float32 tensor with scalars-plugin metadata instead of the legacy
            `simple_value` (which upstream migrates to the scalars plugin).
        double_precision: Write a float64 tensor; implies `new_style` (torch ignores it without).

    Returns:
        A Summary proto with one value.

    Raises:
        TypeError: A tag that is not a str, or a value that is not one real number.
        ValueError: An empty tag.

    Examples:
        >>> file_writer.add_summary(tensorboard.summary.scalar("loss", 0.5), global_step=1)
    """
    check_tag(tag)
    display_name = check_optional_text(display_name, "display_name")
    description = check_optional_text(description, "summary_description")
    number = to_float(value, "value")
    if double_precision or new_style:
        if not double_precision:
            number = check_float32(number, "value", tag)
        metadata = make_metadata("scalars", b"", display_name, description, data_class=summary_pb2.DATA_CLASS_SCALAR)
        tensor = make_tensor(np.asarray(number, np.float64 if double_precision else np.float32))
        return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=tensor)])
    entry = summary_pb2.Summary.Value(tag=tag, simple_value=check_float32(number, "value", tag))
    if display_name or description:
        entry.metadata.display_name = display_name or ""
        entry.metadata.summary_description = description or ""
    return summary_pb2.Summary(value=[entry])
