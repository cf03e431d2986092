"""Values that may still be computing (JAX arrays, MXNet NDArrays, torch CUDA tensors) are not
converted at the add_* call: the call takes a device-side snapshot, which returns at once; an
idle-priority background thread converts it to NumPy and encodes the event, and the writer thread
writes it in order (see `background` and tensorboard.events.deferred_event).

The snapshot is a device copy queued behind the computation, so a later in-place update (an
optimizer step, an MXNet in-place op) or a donated JAX buffer cannot change the logged value.
Shapes and dtypes are metadata the frameworks know before the value exists, so argument errors
are still raised at the call; only the value's own problems (say a NaN in a histogram) surface
at the next call, naming the tag.
"""
from __future__ import annotations

from typing import Any

# The queued item, its error and the writer's snapshot memory bound are the event writer's (re-exported).
from tensorboard.events.deferred_event import DEFAULT_MAX_PENDING_SNAPSHOT_BYTES, Deferred, DeferredValueError  # noqa: F401


def framework_of(value: Any) -> str | None:
    """'jax', 'mxnet' or 'torch-device' for values worth deferring; None for everything else."""
    module = type(value).__module__ or ""
    root = module.split(".", 1)[0]
    if root in ("jax", "jaxlib") and hasattr(value, "block_until_ready"):
        return "jax"
    if root == "mxnet" and hasattr(value, "asnumpy") and hasattr(value, "wait_to_read"):
        return "mxnet"
    if root == "torch" and getattr(getattr(value, "device", None), "type", "cpu") not in ("cpu", "meta"):
        return "torch-device"
    return None


def shape_of(value: Any) -> tuple[int, ...]:
    """The shape, known without waiting for the value."""
    return tuple(int(d) for d in value.shape)


_NUMERIC_KINDS = frozenset("biuf")


def nonnumeric_dtype(value: Any, kind: str) -> str | None:
    """The dtype of a pending `value` of framework `kind` if the encoders would refuse it (complex,
    strings, ...), else None: known without waiting for the value, like its shape."""
    dtype = value.dtype
    if kind == "torch-device":  # torch.dtype: every real dtype converts
        return None if not dtype.is_complex else str(dtype)
    if kind == "mxnet":  # a NumPy scalar type such as numpy.float32
        import numpy as np

        dtype = np.dtype(dtype)
    code = getattr(dtype, "kind", None)  # JAX's extended dtypes (PRNG keys) have none
    if code in _NUMERIC_KINDS:
        return None
    from tensorboard.values.convert import is_exotic_float  # numpy is loaded: the framework's values use it

    return None if code == "V" and is_exotic_float(dtype) else str(dtype)


_jax_copy = None


def _jax_copy_function():
    """How this JAX copies an array into a new buffer without compiling anything per shape or dtype.

    `jax.device_put(x, may_alias=False)` enqueues a buffer copy behind the computation of `x` and
    returns at once, compiling nothing; a jitted `jnp.copy` would compile once per shape and dtype in
    the caller's thread (15-60 ms each). A JAX whose device_put has no may_alias gets the jitted copy.
    """
    global _jax_copy
    if _jax_copy is None:
        import inspect

        import jax

        if "may_alias" in inspect.signature(jax.device_put).parameters:
            _jax_copy = _device_put_copy
        else:  # pragma: no cover - older JAX
            import jax.numpy as jnp

            _jax_copy = jax.jit(jnp.copy)
    return _jax_copy


def prepare_loaded_frameworks() -> None:
    """Does now, when a writer is created, what the first snapshot of a JAX value would otherwise do in
    the training loop: pick the copy function, and load the module JAX's device_put imports on its
    first call (jax.experimental.multihost_utils, 1-15 ms from disk). Only if JAX is already loaded."""
    import sys

    if "jax" not in sys.modules:
        return
    _jax_copy_function()
    try:
        import jax.experimental.multihost_utils  # noqa: F401
    except ImportError:  # pragma: no cover - a JAX without it imports nothing there
        pass


def _device_put_copy(value: Any) -> Any:
    import jax  # loaded: `value` is one of its arrays

    return jax.device_put(value, may_alias=False)


def snapshot(value: Any, kind: str) -> Any:
    """A device-side copy of `value`, enqueued behind whatever computes it; never waits, never compiles."""
    if kind == "jax":
        return _jax_copy_function()(value)  # a new buffer: survives donation or deletion of `value`
    if kind == "mxnet":
        if value.shape == () and not _mxnet_np_shape():  # legacy 0-d arrays take no ops: read it now
            return value.asnumpy()
        return value.copy()  # an engine op ordered before later writes to `value`
    return value.detach().clone()  # torch on a device: a copy on the current stream


def _mxnet_np_shape() -> bool:
    """MXNet's NumPy shape semantics (`npx.set_np()`), under which a 0-d array is a scalar ops accept."""
    import mxnet

    return bool(mxnet.util.is_np_shape())


def dtype_name(value: Any, kind: str) -> str:
    """NumPy's name of a pending numeric `value`'s dtype ("int64", "bfloat16", ...), without waiting."""
    dtype = value.dtype
    if kind == "torch-device":
        return str(dtype).removeprefix("torch.")
    if kind == "mxnet":
        import numpy as np

        return np.dtype(dtype).name
    return str(dtype)


def nbytes_of(value: Any) -> int:
    size = 1
    for dim in shape_of(value):
        size *= dim
    itemsize = getattr(getattr(value, "dtype", None), "itemsize", None)
    if not isinstance(itemsize, int):
        itemsize = getattr(value, "element_size", lambda: 4)() if callable(getattr(value, "element_size", None)) \
            else 4
    return size * itemsize
