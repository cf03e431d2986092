"""Payload decoding for the DataFrames: TensorProto -> NumPy, PNG/JPEG/GIF -> pixels, WAV -> samples.
No TensorFlow: NumPy, Pillow (images) and the standard library (WAV)."""
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


def tensor_to_numpy(tensor) -> np.ndarray:
    """The array a TensorProto holds (packed `tensor_content` or typed values, the last repeated to fill)."""
    if tensor.dtype not in _DTYPES:
        raise ValueError(f"unsupported tensor dtype enum {tensor.dtype}")
    dtype, field_name = _DTYPES[tensor.dtype]
    shape = [d.size for d in tensor.tensor_shape.dim]
    size = int(np.prod(shape, dtype=np.int64))
    if tensor.tensor_content:
        little_endian = np.dtype(dtype).newbyteorder("<")
        return np.frombuffer(tensor.tensor_content, dtype=little_endian).astype(dtype).reshape(shape)
    values = list(getattr(tensor, field_name))
    if dtype is object:
        array = np.array(values, dtype=object)
    elif field_name == "half_val":
        array = np.array(values, dtype=np.uint16).view(np.float16)
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
