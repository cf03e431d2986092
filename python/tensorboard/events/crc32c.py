"""CRC-32C (Castagnoli) checksums and TFRecord's masked form.

Uses a native implementation when one is installed (`crc32c` or `google-crc32c`)
and a table-driven pure-Python fallback otherwise; tests prove them bit-identical.
"""
from __future__ import annotations

from typing import Callable

_POLY = 0x82F63B78  # CRC-32C polynomial, bit-reversed
MASK_DELTA = 0xA282EAD8  # TFRecord's mask: added after rotating the CRC right by 15


def _make_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY if crc & 1 else crc >> 1
        table.append(crc)
    return table


TABLE = _make_table()


def crc32c_python(data: bytes, crc: int = 0) -> int:
    """Pure-Python CRC-32C of `data`, continuing from a previous `crc`."""
    table = TABLE
    crc ^= 0xFFFFFFFF
    for byte in bytes(data):
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _native() -> tuple[Callable[[bytes], int], str]:
    try:
        import crc32c as _crc32c_module  # ICRAR's package, hardware-accelerated

        return _crc32c_module.crc32c, "crc32c"
    except ImportError:
        pass
    try:
        import google_crc32c

        if getattr(google_crc32c, "implementation", "c") == "c":
            return google_crc32c.value, "google_crc32c"
    except ImportError:
        pass
    return crc32c_python, "python"


crc32c, IMPLEMENTATION = _native()
"""crc32c(data) -> int, native when available; IMPLEMENTATION names the one in use."""


def mask(crc: int) -> int:
    """TFRecord's masking of a CRC (rotate right by 15, add a constant)."""
    return (((crc >> 15) | (crc << 17)) + MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """Inverse of `mask`."""
    rot = (masked - MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    """The masked CRC-32C that TFRecord framing stores after length and payload."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + MASK_DELTA) & 0xFFFFFFFF
