"""Scalar summaries: one float per step, stored as the legacy `simple_value` (float32)."""
from __future__ import annotations

from typing import Any, Optional

from tensorboard.convert import to_float
from tensorboard.src import summary_pb2
from tensorboard.summary._common import check_tag


def scalar(tag: str, value: Any, display_name: Optional[str] = None,
           description: Optional[str] = None) -> summary_pb2.Summary:
    """A `simple_value` summary; upstream migrates it to the scalars plugin. NaN/Inf are kept."""
    check_tag(tag)
    number = to_float(value, "value")
    entry = summary_pb2.Summary.Value(tag=tag, simple_value=number)
    if display_name or description:
        entry.metadata.display_name = display_name or ""
        entry.metadata.summary_description = description or ""
    return summary_pb2.Summary(value=[entry])
