"""Audio summaries: samples -> 16-bit PCM WAV in the legacy `Summary.Audio`.

Sample rule (by dtype, never by the data, like images' pixel rule):
  float              [-1, 1] -> -32767..32767 (rounded; clipped; NaN -> 0)
  int16              as is
  int8, int32        their full signed range, scaled to 16 bits (int32: rounded)
  uint8, uint16      their full range around the midpoint (uint8 is WAV's 8-bit format)
  uint32             likewise, rounded to 16 bits
Other dtypes (bool, int64, uint64) have no PCM scale: they raise rather than be clipped.
"""
from __future__ import annotations

import numbers
import struct
import warnings
from typing import Any, Sequence

import numpy as np

from tensorboard.src import summary_pb2
from tensorboard.summary._clipping import check_audio_range
from tensorboard.summary._common import check_tag
from tensorboard.values.convert import check_numeric, to_numpy

__all__ = ["audio", "encode_wav", "check_audio_args", "check_audio_dtype", "clip_shape", "as_frames_by_channels"]


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """WAV bytes (PCM, 16-bit little-endian) of int16 samples.

    Args:
        samples: An int16 array shaped (frames, channels).
        sample_rate: Samples per second.

    Returns:
        The WAV file's bytes.
    """
    frames, channels = samples.shape
    data = np.ascontiguousarray(samples, dtype="<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16, 1, channels,
                         sample_rate, sample_rate * channels * 2, channels * 2, 16, b"data", len(data))
    return header + data


_PCM_SHIFT = {"int8": (0, -8), "uint8": (128, -8), "uint16": (32768, 0), "int32": (0, 16), "uint32": (1 << 31, 16)}


def check_audio_dtype(dtype_name: str, name: str = "tensor") -> None:
    """Raises, naming the argument, unless samples of this dtype (a NumPy name) have a PCM scale."""
    if dtype_name in _PCM_SHIFT or dtype_name == "int16" or not dtype_name.startswith(("int", "uint", "bool")):
        return
    raise TypeError(f"{name}: {dtype_name} samples have no PCM scale; pass floats in [-1, 1] or "
                    f"int8/int16/int32 (or uint8/uint16/uint32) PCM samples")


def _to_pcm16(array: np.ndarray, name: str = "tensor") -> np.ndarray:
    """Samples as int16 following the module's sample rule (their dtype passed `check_audio_dtype`)."""
    if array.dtype == np.int16:
        return array
    if array.dtype.kind in "biu":
        offset, shift = _PCM_SHIFT[array.dtype.name]
        wide = array.astype(np.int64) - offset
        if shift == 16 and wide.size and np.abs(wide).max() < 1 << 15:
            warnings.warn(f"{name}: {array.dtype.name} samples are 32-bit PCM, and these peak below 2**15, "
                          f"so they are near silence at 16 bits; pass int16 for 16-bit PCM", stacklevel=3)
        if shift <= 0:
            return (wide << -shift).astype(np.int16)
        return np.minimum((wide + (1 << (shift - 1))) >> shift, 32767).astype(np.int16)  # rounded
    scaled = np.multiply(array, 32767.0, dtype=np.float64)
    np.clip(scaled, -32767.0, 32767.0, out=scaled)
    scaled[np.isnan(scaled)] = 0.0
    return np.rint(scaled).astype(np.int16)


MAX_AUDIO_CHANNELS = 65535
MAX_AUDIO_SAMPLES = 1 << 27  # per clip, all channels: 256 MiB of 16-bit PCM (25 min of 44.1 kHz stereo)


def check_audio_args(shape: Sequence[int], sample_rate: int, name: str = "tensor") -> None:
    """Raises, naming the argument, unless samples of `shape` ((length,) or (length, channels)) at
    `sample_rate` can be stored as WAV."""
    shape = tuple(int(d) for d in shape)
    if len(shape) not in (1, 2) or 0 in shape:
        raise ValueError(f"{name}: expected (length,) or (length, channels) samples, got shape {shape}")
    channels = shape[1] if len(shape) == 2 else 1
    if channels > MAX_AUDIO_CHANNELS:  # WAV stores the channel count as uint16
        raise ValueError(f"{name}: {channels} channels (shape {shape}); WAV holds at most {MAX_AUDIO_CHANNELS}; "
                         "audio is (length, channels)")
    if shape[0] * channels > MAX_AUDIO_SAMPLES:
        raise ValueError(f"{name}: {shape[0] * channels} samples (shape {shape}), more than {MAX_AUDIO_SAMPLES} "
                         "in one clip; log shorter clips")
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, numbers.Real):
        raise TypeError(f"sample_rate: expected a positive integer, got {type(sample_rate).__name__}")
    # WAV stores the rate and the byte rate (rate * channels * 2) as uint32.
    if not float(sample_rate).is_integer() or not 0 < sample_rate * channels * 2 < 2**32:
        raise ValueError(f"sample_rate: expected a positive integer with rate * channels * 2 < 2**32, "
                         f"got {sample_rate!r} for {channels} channels")


def audio(tag: str, tensor: Any, sample_rate: int = 44100) -> summary_pb2.Summary:
    """An audio summary, 16-bit WAV.

    Args:
        tag: The clip's name, a non-empty str.
        tensor: (length,) mono or (length, channels) samples: floats in [-1, 1] are clipped (with
            a warning) and quantized to 16 bits; int16 samples are kept, other PCM integers
            rescaled (see the module's sample rule).
        sample_rate: Samples per second, a positive integer.

    Returns:
        A Summary proto with one audio clip.

    Raises:
        TypeError: Non-numeric samples, a dtype without a PCM scale, or a `sample_rate` that is not a number.
        ValueError: Another shape, more samples or channels than WAV holds, or a bad `sample_rate`.
    """
    check_tag(tag)
    array = check_numeric(to_numpy(tensor, "tensor"), "tensor")
    check_audio_dtype(array.dtype.name)
    check_audio_args(array.shape, sample_rate)
    check_audio_range(tag, array)  # warns once per tag about samples clipped to [-1, 1]
    if array.ndim == 1:
        array = array[:, None]
    rate = int(sample_rate)
    pcm = _to_pcm16(array)
    proto = summary_pb2.Summary.Audio(sample_rate=rate, num_channels=pcm.shape[1], length_frames=pcm.shape[0],
                                      encoded_audio_string=encode_wav(pcm, rate), content_type="audio/wav")
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, audio=proto)])


# The writers' named layouts of a clip (the `audio` function above takes frames-first (L,) or (L, C)).
CHANNELS_FIRST = "(channels, length)"  # tensorboard.SummaryWriter: torch's (1, L) and torchaudio's (C, L)
FRAMES_FIRST = "(length, channels)"  # tensorboard.mxboard.SummaryWriter: as this module and tensorboardX
MAX_CHANNELS = 32  # browsers' media pipelines play at most 32 channels (Chromium's media::limits::kMaxChannels)


def clip_shape(shape: Sequence[int], layout: str, name: str = "tensor") -> tuple[int, int]:
    """(frames, channels) of samples of `shape` in a writer's `layout` (CHANNELS_FIRST or FRAMES_FIRST).

    (L,) and any shape with one dimension above 1 ((1, L), (L, 1), (1, 1, L)) are mono clips of L
    frames, as torch and MXBoard squeeze them; a 2-D shape with two dimensions above 1 is read in
    `layout`, up to MAX_CHANNELS channels: a clip in the other layout fails instead of being misread.
    """
    shape = tuple(int(d) for d in shape)
    wide = [d for d in shape if d != 1]
    if 0 in shape or not shape:
        raise ValueError(f"{name}: expected a clip of {layout} samples (or a mono (length,)), got shape {shape}")
    if len(wide) <= 1:
        return (wide[0] if wide else 1), 1
    if len(shape) != 2:
        raise ValueError(f"{name}: expected (length,) or {layout} samples, got shape {shape}")
    frames, channels = (shape[1], shape[0]) if layout == CHANNELS_FIRST else shape
    if channels > MAX_CHANNELS:
        other = FRAMES_FIRST if layout == CHANNELS_FIRST else CHANNELS_FIRST
        raise ValueError(f"{name}: shape {shape} read as {layout} is {channels} channels, more than the "
                         f"{MAX_CHANNELS} browsers play; this writer's layout is {layout}: transpose {other} samples")
    return frames, channels


def as_frames_by_channels(array: np.ndarray, layout: str, name: str = "tensor") -> np.ndarray:
    """`array` (a clip in `layout`, see clip_shape) as the (frames, channels) samples `audio` takes."""
    frames, channels = clip_shape(array.shape, layout, name)
    if channels == 1:
        return array.reshape(frames, 1)
    return array.T if layout == CHANNELS_FIRST else array
