"""The native and pure-Python CRC-32C agree, and match the standard check values."""
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tensorboard.events import crc32c


def test_known_check_values():
    # RFC 3720 (iSCSI) test vectors and the standard "123456789" check value.
    assert crc32c.crc32c_python(b"123456789") == 0xE3069283
    assert crc32c.crc32c_python(bytes(32)) == 0x8A9136AA
    assert crc32c.crc32c_python(b"\xff" * 32) == 0x62A8AB43
    assert crc32c.crc32c_python(bytes(range(32))) == 0x46DD794E


def test_a_native_implementation_is_in_use():
    # The test environment installs one; the fallback is for machines without it.
    assert crc32c.IMPLEMENTATION in ("crc32c", "google_crc32c")


@given(st.binary(max_size=4096))
def test_native_and_python_bit_identical(data):
    assert crc32c.crc32c(data) == crc32c.crc32c_python(data)


def test_large_random_buffers_agree():
    for size in (0, 1, 7, 8, 9, 63, 64, 65, 100_003):
        data = os.urandom(size)
        assert crc32c.crc32c(data) == crc32c.crc32c_python(data)


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_mask_roundtrip(value):
    assert crc32c.unmask(crc32c.mask(value)) == value


@pytest.mark.parametrize("data", [b"", b"a", b"brain.Event:2"])
def test_masked_crc_uses_mask(data):
    assert crc32c.masked_crc32c(data) == crc32c.mask(crc32c.crc32c_python(data))
