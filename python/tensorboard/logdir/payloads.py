"""Payload decoding for every front door: TensorProto -> NumPy (the reader's frames and the served series
alike), PNG/JPEG/GIF -> pixels, WAV -> samples. No TensorFlow: NumPy, Pillow (images) and the standard
library (WAV)."""
from __future__ import annotations

import io
import wave

import numpy as np

# DataType enum (tensorflow/core/framework/types.proto) -> (NumPy dtype, TensorProto field of typed values)
_DTYPES = {1: (np.float32, "float_val"), 2: (np.float64, "double_val"), 3: (np.int32, "int_val"),
           4: (np.uint8, "int_val"), 5: (np.int16, "int_val"), 6: (np.int8, "int_val"), 7: (object, "string_val"),
           8: (np.complex64, "scomplex_val"), 9: (np.int64, "int64_val"), 10: (np.bool_, "bool_val"),
           17: (np.uint16, "int_val"), 18: (np.complex128, "dcomplex_val"), 19: (np.float16, "half_val"),
           22: (np.uint32, "uint32_val"), 23: (np.uint64, "uint64_val")}
_BFLOAT16 = 14  # no NumPy dtype: read as its bit patterns (uint16), widened to float32, which holds each exactly
_BFLOAT16_BITS = (np.uint16, "half_val")
# Bytes per element of packed `tensor_content`, by DataType enum.
_ITEM_BYTES = {**{enum: np.dtype(dtype).itemsize for enum, (dtype, _) in _DTYPES.items() if dtype is not object},
               _BFLOAT16: 2}
# Typed values may be fewer than the shape declares: the last one fills the rest (TensorFlow's rule). A file may
# declare at most this many elements per value present (at least one), so a few bytes can't ask for gigabytes.
SPLAT_FACTOR = 1024
_STRING = 7
# What each plugin's tensors must look like for the plugin to read them: (rule, what it says when broken).
_PLUGIN_SHAPES = {
    "scalars": (lambda shape, n, dtype: n == 1 and dtype != _STRING, "a scalar holds exactly one number"),
    "histograms": (lambda shape, n, dtype: n == 0 or len(shape) == 2 and shape[1] == 3 and dtype != _STRING,
                   "a histogram is a [buckets, 3] table of numbers"),
    "pr_curves": (lambda shape, n, dtype: len(shape) == 2 and shape[0] == 6 and dtype != _STRING,
                  "a PR curve is a [6, thresholds] table of numbers"),
    "images": (lambda shape, n, dtype: len(shape) == 1 and dtype == _STRING, "images are a list of strings"),
    "text": (lambda shape, n, dtype: dtype == _STRING, "text is a tensor of strings"),
}


class DamagedValueError(ValueError):
    """A value whose bytes can't be what its header declares, or that its plugin can't read: it is left out
    (and reported once per file and tag); the rest of the file, the run and the logdir are read as usual."""


class DamagedValueWarning(UserWarning):
    """A damaged value (DamagedValueError) was left out of what was read."""


def damaged_value_message(path: str, tag: str, reason: object) -> str:
    """The one line that reports a damaged value, in the reader's warnings and the server's log alike."""
    return f"{path}: tag {tag!r}: a damaged value is left out ({reason})"


def declared_elements(tensor) -> int:
    """How many elements a TensorProto's shape declares (Python ints: no overflow), refusing negative sizes."""
    count = 1
    for dim in tensor.tensor_shape.dim:
        if dim.size < 0:
            raise DamagedValueError(f"a dimension of size {dim.size}")
        count *= dim.size
    return count


def check_tensor(tensor, plugin: str = "") -> int:
    """The element count of `tensor`, once its bytes can hold what its shape declares and `plugin` (the tag's
    plugin name) can read its shape and dtype; else DamagedValueError, before anything is allocated. Packed
    content must be exactly count x item size; typed values may fill at most SPLAT_FACTOR times their number."""
    if tensor.dtype not in _DTYPES and tensor.dtype != _BFLOAT16:  # quantized, resource, variant, unknown
        raise DamagedValueError(f"its dtype (DataType {tensor.dtype}) holds no numbers or text a reader decodes")
    count = declared_elements(tensor)
    if tensor.tensor_content:
        item = _ITEM_BYTES.get(tensor.dtype)
        if item is not None and count * item != len(tensor.tensor_content):
            raise DamagedValueError(f"its shape declares {count} elements of {item} bytes, its content holds "
                                    f"{len(tensor.tensor_content)} bytes")
        if item is None and count > len(tensor.tensor_content):
            raise DamagedValueError(f"its shape declares {count} elements in {len(tensor.tensor_content)} bytes")
    else:
        present = len(getattr(tensor, _DTYPES.get(tensor.dtype, _BFLOAT16_BITS)[1]))
        if count > SPLAT_FACTOR * max(present, 1):
            raise DamagedValueError(f"its shape declares {count} elements for {present} values")
    rule = _PLUGIN_SHAPES.get(plugin)
    shape = [d.size for d in tensor.tensor_shape.dim]
    if rule is not None and not rule[0](shape, count, tensor.dtype):
        raise DamagedValueError(f"{rule[1]}, not shape {shape}" + (" of strings" if tensor.dtype == _STRING else ""))
    return count


def check_plugin_content(plugin: str, content: bytes) -> None:
    """DamagedValueError when a plugin's content that we decode (hparams) does not decode."""
    if plugin == "hparams" and content:
        from tensorboard.src import hparams_pb2

        try:
            hparams_pb2.HParamsPluginData.FromString(content)
        except Exception as err:  # protobuf's DecodeError
            raise DamagedValueError(f"hparams content that does not decode ({err})") from None


def tensor_to_numpy(tensor) -> np.ndarray:
    """The array a TensorProto holds (packed `tensor_content` or typed values, the last repeated to fill, zeros
    when there are none: TensorFlow's rules; bfloat16 widened to float32). The one decoder of both front doors:
    the reader's frames and the served series (upstream's `make_ndarray` refuses what TensorFlow reads: typed
    values fewer than the shape, unsigned 32/64-bit, bfloat16). DamagedValueError when its bytes can't hold what
    its shape declares, or its dtype is none of those (check_tensor)."""
    size = check_tensor(tensor)
    shape = [d.size for d in tensor.tensor_shape.dim]
    if tensor.dtype == _BFLOAT16:
        bits = _typed_array(tensor, *_BFLOAT16_BITS, shape, size)
        return (bits.astype(np.uint32) << 16).view(np.float32)
    return _typed_array(tensor, *_DTYPES[tensor.dtype], shape, size)


def _typed_array(tensor, dtype, field_name: str, shape: list[int], size: int) -> np.ndarray:
    """`tensor`'s `size` elements as `dtype`, shaped: its packed content, or its typed values filled out."""
    if tensor.tensor_content:
        little_endian = np.dtype(dtype).newbyteorder("<")
        return np.frombuffer(tensor.tensor_content, dtype=little_endian).astype(dtype).reshape(shape)
    values = list(getattr(tensor, field_name))
    if dtype is object:
        array = np.array(values, dtype=object)
    elif field_name == "half_val":  # 16-bit patterns, each held in an int32
        array = np.array(values, dtype=np.uint16).view(dtype)
    elif dtype in (np.complex64, np.complex128):
        array = np.array(values[0::2], dtype=dtype) + 1j * np.array(values[1::2], dtype=dtype)
    else:
        array = np.array(values, dtype=dtype)
    if array.size == size:
        return array.reshape(shape)
    if array.size == 0:
        return np.zeros(shape, dtype=dtype) if dtype is not object else np.full(shape, b"", dtype=object)
    return np.concatenate([array, np.repeat(array[-1:], size - array.size)]).reshape(shape)


def decode_image(encoded: bytes) -> np.ndarray:
    """Pixels as TensorFlow's decode_image gives them (what tbparse returns): (height, width, channels)
    of a PNG/JPEG/BMP, channels as stored (1 grey, 3 RGB, 4 RGBA), 16-bit grey scaled to 8 bits;
    (frames, height, width, 3) of a GIF, every frame (an `add_video` clip)."""
    try:
        from PIL import Image, ImageSequence
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("decoding images needs Pillow: pip install pandas pyarrow pillow "
                          "(the wheel's [data] extra)") from err
    with Image.open(io.BytesIO(encoded)) as image:
        if image.format == "GIF":
            return np.stack([np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(image)])
        if image.mode in ("I;16", "I;16B", "I;16L", "I"):  # 16-bit grey: the high byte, one channel
            return (np.asarray(image).astype(np.uint32) >> 8).astype(np.uint8)[:, :, None]
        if image.mode == "P":
            image = image.convert("RGBA" if "transparency" in image.info else "RGB")
        elif image.mode not in ("L", "LA", "RGB", "RGBA"):
            image = image.convert("RGB")
        pixels = np.asarray(image)
    return pixels[:, :, None] if pixels.ndim == 2 else pixels


def decode_wav(encoded: bytes) -> np.ndarray:
    """float32 samples (frames, channels) in [-1, 1) of a 16-bit PCM WAV, as TensorFlow's decode_wav gives."""
    with wave.open(io.BytesIO(encoded)) as wav:
        width, channels, frames = wav.getsampwidth(), wav.getnchannels(), wav.readframes(wav.getnframes())
    if width != 2:
        raise ValueError(f"only 16-bit PCM WAV audio is supported, not {8 * width}-bit")
    return (np.frombuffer(frames, "<i2").astype(np.float32) / 32768.0).reshape(-1, channels)
