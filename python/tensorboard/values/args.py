"""Checks and normalizes the arguments every writer method shares (tags, steps, wall times)."""
from __future__ import annotations

import math
import numbers
import os
import time
import warnings


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


def check_run_name(run, name: str) -> str:
    """A sub-run name: a tag (`check_tag`) that names a directory inside the logdir, "/"-separated.

    Refuses absolute names and ".." parts (they leave the logdir), empty and "." parts ("./x", "x/"
    and "x" are one directory, so two names would share a run) and NUL, which no directory name holds.
    """
    text = check_tag(run, name)
    parts = text.replace(os.sep, "/").split("/")
    if text.startswith(("/", os.sep)) or ".." in parts or (os.altsep and os.altsep in text):
        raise ValueError(f"{name} {text!r} would name a run outside the logdir")
    if "" in parts or "." in parts:
        raise ValueError(f"{name} {text!r} has an empty or '.' path part, so its run would be another's")
    if "\0" in text:
        raise ValueError(f"{name} {text!r} holds a NUL character, which no directory name can")
    return text


INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def check_step(global_step, name: str = "global_step") -> int:
    """An int64 step (None means 0); accepts NumPy ints, floats and 0-d/1-element tensors.

    Floats are rounded when within a relative 1e-9 of a whole number (0.07 * 100 is
    7.000000000000001), but never by more than 0.001 or two float steps, so a large step's real
    fraction (2500000001.5) is not rounded away; otherwise they are truncated with a warning, as
    MXBoard, tensorboardX and torch truncate with int().
    Steps outside int64 raise instead of wrapping around in the encoding.
    """
    if global_step is None:
        return 0
    if type(global_step) is int:
        if INT64_MIN <= global_step <= INT64_MAX:
            return global_step
        raise _out_of_range(name, global_step)
    if isinstance(global_step, bool):
        raise TypeError(f"{name} must be an int, got bool")
    if isinstance(global_step, numbers.Integral):
        return check_step(int(global_step), name)
    if isinstance(global_step, numbers.Real):
        value = float(global_step)
        if not math.isfinite(value):
            raise ValueError(f"{name} must be a whole number, got {global_step!r}")
        nearest = round(value)
        if abs(value - nearest) <= min(1e-9 * max(1.0, abs(value)), max(1e-3, 2 * math.ulp(value))):
            return check_step(int(nearest), name)
        truncated = int(value)
        warnings.warn(f"{name} {global_step!r} is not a whole number: logged at step {truncated} (truncated, "
                      "as MXBoard, tensorboardX and torch do)", stacklevel=3)
        return check_step(truncated, name)
    item = getattr(global_step, "item", None)
    if item is not None:
        try:
            scalar = item()
        except (TypeError, ValueError, RuntimeError):
            scalar = None
        if scalar is not None and not hasattr(scalar, "item"):
            return check_step(scalar, name)
    raise TypeError(f"{name} must be an int, got {type(global_step).__name__}: {global_step!r:.80}")


def _out_of_range(name: str, value: int) -> ValueError:
    return ValueError(f"{name} {value} is outside int64 [{INT64_MIN}, {INT64_MAX}], the range event files store")


FLOAT32_MAX = 3.4028234663852886e38


def check_float32(value: float, name: str = "value", tag: str | None = None) -> float:
    """`value` if float32 can hold it (NaN and ±inf included); a finite value beyond float32's range
    becomes ±inf with a warning, instead of silently (use double_precision=True to keep it)."""
    if -FLOAT32_MAX <= value <= FLOAT32_MAX or value != value or math.isinf(value):
        return value
    where = f" (tag {tag!r})" if tag is not None else ""
    warnings.warn(f"{name} {value!r}{where} is beyond float32's range and is logged as "
                  f"{'-' if value < 0 else ''}inf; pass double_precision=True to log it exactly", stacklevel=3)
    return math.copysign(math.inf, value)


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
