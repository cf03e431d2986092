"""Audio summaries: float samples in [-1, 1] -> 16-bit PCM WAV in the legacy `Summary.Audio`."""
from __future__ import annotations

import numbers
import struct
from typing import Any, Sequence

import numpy as np

from tensorboard.convert import check_numeric, to_numpy
from tensorboard.src import summary_pb2
from tensorboard.summary._common import check_tag

__all__ = ["audio", "encode_wav", "check_audio_args"]


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """WAV bytes (PCM, 16-bit little-endian) of int16 samples shaped (frames, channels)."""
    frames, channels = samples.shape
    data = np.ascontiguousarray(samples, dtype="<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16, 1, channels,
                         sample_rate, sample_rate * channels * 2, channels * 2, 16, b"data", len(data))
    return header + data


def _to_pcm16(array: np.ndarray) -> np.ndarray:
    """Floats in [-1, 1] (clipped; NaN -> 0) to int16; int16 passes through as is."""
    if array.dtype == np.int16:
        return array
    scaled = np.multiply(array, 32767.0, dtype=np.float64)
    np.clip(scaled, -32767.0, 32767.0, out=scaled)
    scaled[np.isnan(scaled)] = 0.0
    return np.rint(scaled).astype(np.int16)


def check_audio_args(shape: Sequence[int], sample_rate: int, name: str = "tensor") -> None:
    """Raises, naming the argument, unless samples of `shape` ((length,) or (length, channels)) at
    `sample_rate` can be stored as WAV."""
    shape = tuple(int(d) for d in shape)
    if len(shape) not in (1, 2) or 0 in shape:
        raise ValueError(f"{name}: expected (length,) or (length, channels) samples, got shape {shape}")
    channels = shape[1] if len(shape) == 2 else 1
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, numbers.Real):
        raise TypeError(f"sample_rate: expected a positive integer, got {type(sample_rate).__name__}")
    # WAV stores the rate and the byte rate (rate * channels * 2) as uint32.
    if not float(sample_rate).is_integer() or not 0 < sample_rate * channels * 2 < 2**32:
        raise ValueError(f"sample_rate: expected a positive integer with rate * channels * 2 < 2**32, "
                         f"got {sample_rate!r} for {channels} channels")


def audio(tag: str, tensor: Any, sample_rate: int = 44100) -> summary_pb2.Summary:
    """An audio summary: `tensor` is (length,) mono or (length, channels); floats in [-1, 1]
    are clipped and quantized to 16 bits; int16 samples are kept as they are."""
    check_tag(tag)
    array = check_numeric(to_numpy(tensor, "tensor"), "tensor")
    check_audio_args(array.shape, sample_rate)
    if array.ndim == 1:
        array = array[:, None]
    rate = int(sample_rate)
    pcm = _to_pcm16(array)
    proto = summary_pb2.Summary.Audio(sample_rate=rate, num_channels=pcm.shape[1], length_frames=pcm.shape[0],
                                      encoded_audio_string=encode_wav(pcm, rate), content_type="audio/wav")
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, audio=proto)])
