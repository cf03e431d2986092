"""Checks and normalizes the arguments every writer method shares (tags, steps, wall times)."""
from __future__ import annotations

import math
import numbers
import time


def check_tag(tag, name: str = "tag") -> str:
    """A non-empty str tag that UTF-8 can encode (event files store tags as UTF-8)."""
    if not isinstance(tag, str):
        raise TypeError(f"{name}: expected str, got {type(tag).__name__}: {tag!r:.80}")
    if not tag:
        raise ValueError(f"{name}: must not be empty")
    try:
        tag.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"{name}: not valid Unicode text ({err.reason} at index {err.start}): {tag!r:.80}") from None
    return tag


def check_step(global_step, name: str = "global_step") -> int:
    """An int step (None means 0); accepts NumPy ints, integral floats and 0-d/1-element tensors."""
    if global_step is None:
        return 0
    if type(global_step) is int:
        return global_step
    if isinstance(global_step, bool):
        raise TypeError(f"{name} must be an int, got bool")
    if isinstance(global_step, numbers.Integral):
        return int(global_step)
    if isinstance(global_step, numbers.Real):
        value = float(global_step)
        if math.isfinite(value) and value.is_integer():
            return int(value)
        raise ValueError(f"{name} must be a whole number, got {global_step!r}")
    item = getattr(global_step, "item", None)
    if item is not None:
        try:
            return check_step(item(), name)
        except (TypeError, ValueError, RuntimeError):
            pass
    raise TypeError(f"{name} must be an int, got {type(global_step).__name__}: {global_step!r:.80}")


def check_walltime(walltime, name: str = "walltime") -> float:
    """Seconds since the epoch (None means now)."""
    if walltime is None:
        return time.time()
    if isinstance(walltime, bool) or not isinstance(walltime, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds, got {type(walltime).__name__}")
    value = float(walltime)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {walltime!r}")
    return value


def pick(name: str, value, alias_name: str, alias_value, default=None):
    """Merges an argument with its tensorboardX/torch keyword alias; giving both is an error."""
    if alias_value is not None:
        if value is not None:
            raise TypeError(f"got both {name!r} and its alias {alias_name!r}")
        return alias_value
    return default if value is None else value


def require(name: str, value):
    """Raises a TypeError naming a required argument that was not given."""
    if value is None:
        raise TypeError(f"missing required argument {name!r}")
    return value
