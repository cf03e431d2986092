"""Turns framework values (Python, NumPy, PyTorch, MXNet, JAX, TensorFlow, CuPy) into NumPy.

No framework is ever imported: values are recognised by duck typing and by the module
their type comes from, so logging never pays a framework import or pins a version.
"""
from __future__ import annotations

import numbers
import sys
from typing import Any, Optional

import numpy as np

from tensorboard.values.args import FLOAT32_MAX

__all__ = ["to_numpy", "to_numpy_bits16", "to_float", "check_numeric"]

# NumPy dtypes from ml_dtypes (JAX/TF bfloat16, float8...) that most NumPy code can't use.
_EXOTIC_FLOAT_PREFIXES = ("bfloat16", "float8_", "float6_", "float4_")


def _torch_to_numpy(value: Any) -> np.ndarray:
    """detach -> cpu -> numpy, widening dtypes NumPy lacks (bfloat16, float8) to float32."""
    tensor = value.detach()
    if getattr(tensor, "is_sparse", False):
        tensor = tensor.to_dense()
    if str(tensor.dtype).startswith(("torch.bfloat16", "torch.float8", "torch.float4")):
        tensor = tensor.float()
    if getattr(tensor, "is_conj", None) is not None and tensor.is_conj():
        tensor = tensor.resolve_conj()
    if tensor.device.type != "cpu":
        tensor = tensor.cpu()
    return tensor.numpy()


def to_numpy(value: Any, name: str = "value") -> np.ndarray:
    """Returns `value` as a NumPy array (a view where possible; never a framework object).

    Args:
        value: Python numbers and (nested) lists, NumPy arrays and scalars, PyTorch tensors on
            any device (detached; bfloat16 widened to float32), MXNet NDArrays, TensorFlow eager
            tensors, JAX and CuPy arrays, or anything implementing `__array__`.
        name: The argument's name in error messages.

    Returns:
        A NumPy array in native byte order (ml_dtypes' bfloat16 and float8 widened to float32).

    Raises:
        TypeError: None, a str or bytes, or a value that cannot be converted.

    Examples:
        >>> to_numpy(torch.ones(2, 3, dtype=torch.bfloat16)).dtype
        dtype('float32')
    """
    return _widen_exotic(_as_array(value, name))


def to_numpy_bits16(value: Any, name: str = "value") -> tuple[np.ndarray, Optional[str]]:
    """16-bit float input as its bit patterns, other input as `to_numpy` returns it.

    Lets an encoder work on the 65,536 possible values of a 16-bit float instead of widening
    every element to float32 first (PyTorch bfloat16 tensors are reinterpreted, not converted).

    Args:
        value: As `to_numpy` takes it.
        name: The argument's name in error messages.

    Returns:
        (bit patterns as uint16, "float16" or "bfloat16") for 16-bit floats, else (`to_numpy(value)`, None).
    """
    module = type(value).__module__ or ""
    if module.startswith("torch") and hasattr(value, "detach") and str(getattr(value, "dtype", "")) in _TORCH_16:
        torch = sys.modules["torch"]  # loaded: `value` is one of its tensors
        tensor = value.detach()
        if getattr(tensor, "is_sparse", False):
            tensor = tensor.to_dense()
        if tensor.device.type != "cpu":
            tensor = tensor.cpu()
        return tensor.view(torch.int16).numpy().view(np.uint16), _TORCH_16[str(tensor.dtype)]
    array = _as_array(value, name)
    if array.dtype == np.float16:
        return array.view(np.uint16), "float16"
    if array.dtype.kind == "V" and array.dtype.name == "bfloat16":  # ml_dtypes (JAX, TensorFlow)
        return array.view(np.uint16), "bfloat16"
    return _widen_exotic(array), None


_TORCH_16 = {"torch.float16": "float16", "torch.bfloat16": "bfloat16"}


def is_exotic_float(dtype: np.dtype) -> bool:
    """Whether `dtype` is one of ml_dtypes' floats (JAX's bfloat16, float8...): NumPy kind 'V'.

    Args:
        dtype: A NumPy dtype.
    """
    return dtype.kind == "V" and dtype.name.startswith(_EXOTIC_FLOAT_PREFIXES)  # kind first: dtype.name is slow


def _widen_exotic(array: np.ndarray) -> np.ndarray:
    """float32 copies of arrays whose dtype most NumPy code can't use (ml_dtypes' bfloat16, float8...)."""
    if is_exotic_float(array.dtype):
        return array.astype(np.float32)
    return array


def _native(array: np.ndarray) -> np.ndarray:
    """`array` in the machine's byte order: encoders compare dtypes, view bit patterns and write
    tensor_content as native little-endian; a big-endian array ('>u2' from a file) would be misread."""
    return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))


def _as_array(value: Any, name: str) -> np.ndarray:
    """`value` as a NumPy array in native byte order, keeping NumPy-extension dtypes (ml_dtypes' bfloat16...)."""
    if isinstance(value, np.ndarray):
        return _native(value)
    if value is None:
        raise TypeError(f"{name}: expected an array-like value, got None")
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name}: expected numbers, got {type(value).__name__} {value!r:.40}")
    module = type(value).__module__ or ""
    if module.startswith("torch") and hasattr(value, "detach"):
        return _torch_to_numpy(value)
    if module.startswith("cupy") and hasattr(value, "get"):
        return np.asarray(value.get())
    if hasattr(value, "asnumpy"):  # MXNet NDArray
        return np.asarray(value.asnumpy())
    if module.startswith("tensorflow") and hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    try:  # NumPy scalars, lists, JAX arrays, anything with __array__
        return _native(np.asarray(value))
    except Exception as exc:  # pragma: no cover - depends on the foreign type
        raise TypeError(f"{name}: cannot convert {type(value).__name__} to an array: {exc}") from exc


def check_numeric(array: np.ndarray, name: str) -> np.ndarray:
    """Checks that `array` holds bools, integers or real floats.

    Args:
        array: A NumPy array.
        name: The argument's name in error messages.

    Returns:
        `array` itself.

    Raises:
        TypeError: Another dtype (complex, strings, objects).
    """
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected numeric values, got dtype {array.dtype}")
    return array


def count_beyond_float32(array: np.ndarray) -> int:
    """How many finite values of a wider float array float32 cannot hold: a cast to float32 would
    write them as ±inf.

    Args:
        array: A NumPy array (0 for anything but floats wider than float32).
    """
    if array.dtype.kind != "f" or array.dtype.itemsize <= 4:
        return 0
    with np.errstate(invalid="ignore"):
        return int(np.count_nonzero((np.abs(array) > FLOAT32_MAX) & np.isfinite(array)))


def to_float(value: Any, name: str = "value") -> float:
    """Returns a scalar as a Python float; NaN and ±Inf pass through unchanged.

    Fast for Python floats (the common add_scalar case).

    Args:
        value: An int, bool, float, NumPy scalar, or a 0-d or one-element array or tensor.
        name: The argument's name in error messages.

    Returns:
        A float.

    Raises:
        TypeError: None, a str, a complex number, or more than one element.
    """
    kind = type(value)
    if kind is float:
        return value
    if kind is int or kind is bool:
        return float(value)
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return float(value)
    if value is None or isinstance(value, (str, bytes, complex, np.complexfloating)):
        raise TypeError(f"{name}: expected a real number, got {kind.__name__} {value!r:.40}")
    if isinstance(value, numbers.Real):  # fractions, decimals, custom number types
        return float(value)
    module = kind.__module__ or ""
    if module.startswith("torch") and hasattr(value, "numel"):
        if value.numel() != 1:
            raise TypeError(f"{name}: expected a single number, got a tensor of shape {tuple(value.shape)}")
        if value.is_complex():
            raise TypeError(f"{name}: expected a real number, got dtype {value.dtype}")
        return float(value.item())
    array = to_numpy(value, name)
    if array.size != 1:
        raise TypeError(f"{name}: expected a single number, got an array of shape {array.shape}")
    check_numeric(array, name)
    return float(array.reshape(-1)[0])
