"""Writer-agnostic logging: works with a `SummaryWriter` or a low-level `FileWriter`."""
from __future__ import annotations

from typing import Any

from tensorboard.values.convert import to_float, to_numpy

__all__ = ["log_histogram", "log_scalar"]


def log_scalar(writer: Any, tag: str, value: Any, step: int | None) -> None:
    """`add_scalar` on a SummaryWriter, `add_summary(summary.scalar(...))` on a FileWriter."""
    number = to_float(value, f"value of {tag!r}")
    if hasattr(writer, "add_scalar"):
        writer.add_scalar(tag, number, global_step=step)
    else:
        from tensorboard import summary

        writer.add_summary(summary.scalar(tag, number), global_step=step)


def log_histogram(writer: Any, tag: str, values: Any, step: int | None, bins: Any = "tensorflow") -> None:
    """`add_histogram` on a SummaryWriter, `add_summary(summary.histogram(...))` on a FileWriter."""
    array = to_numpy(values, f"values of {tag!r}").reshape(-1)
    if hasattr(writer, "add_histogram"):
        writer.add_histogram(tag, array, global_step=step, bins=bins)
    else:
        from tensorboard import summary

        writer.add_summary(summary.histogram(tag, array, bins=bins), global_step=step)
