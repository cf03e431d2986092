"""The hand encoder gives the bytes protobuf gives."""
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tensorboard.events import wire
from tensorboard.src import event_pb2, summary_pb2

finite_or_not = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6).map(float))


def proto_scalar_event(tag, value, step, wall_time):
    event = event_pb2.Event(wall_time=wall_time, step=step)
    as_float32 = value if math.isnan(value) or abs(value) <= 3.4028234663852886e38 else math.copysign(math.inf, value)
    event.summary.value.add(tag=tag, simple_value=as_float32)
    return event.SerializeToString()


@given(tag=st.text(min_size=1, max_size=300), value=finite_or_not,
       step=st.integers(-(2**63), 2**63 - 1), wall_time=st.floats(min_value=1e-3, max_value=4e9))
def test_scalar_event_matches_protobuf(tag, value, step, wall_time):
    if math.isfinite(value) and abs(value) > 3.4028234663852886e38:  # the caller decides: warn or log a double
        with pytest.raises(OverflowError):
            wire.scalar_event(wire.scalar_prefix(tag), value, step, wall_time)
        value = math.copysign(math.inf, value)
    got = wire.scalar_event(wire.scalar_prefix(tag), value, step, wall_time)
    assert got == proto_scalar_event(tag, value, step, wall_time)


@given(step=st.one_of(st.integers(min_value=2**63, max_value=2**70), st.integers(max_value=-(2**63) - 1,
                                                                                    min_value=-(2**70))))
def test_steps_outside_int64_raise_instead_of_wrapping(step):
    with pytest.raises(ValueError, match="global_step .* outside int64"):
        wire.scalar_event(wire.scalar_prefix("x"), 1.0, step, 1.0)
    with pytest.raises(ValueError, match="global_step .* outside int64"):
        wire.summary_event(b"", step, 1.0)


def test_nan_and_infinities_survive():
    for value in (math.nan, math.inf, -math.inf):
        event = event_pb2.Event.FromString(wire.scalar_event(wire.scalar_prefix("x"), value, 1, 1.0))
        got = event.summary.value[0].simple_value
        assert (math.isnan(got) and math.isnan(value)) or got == value


@given(summary_tag=st.text(min_size=1, max_size=50), step=st.integers(-(2**63), 2**63 - 1),
       wall_time=st.floats(min_value=0, max_value=4e9))
def test_summary_event_matches_protobuf(summary_tag, step, wall_time):
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=summary_tag, simple_value=1.0)])
    expected = event_pb2.Event(wall_time=wall_time, step=step, summary=summary).SerializeToString()
    assert wire.summary_event(summary.SerializeToString(), step, wall_time) == expected


@given(st.integers(0, 2**64 - 1))
def test_varint_decodes(value):
    encoded = wire.varint(value)
    decoded, shift = 0, 0
    for byte in encoded:
        decoded |= (byte & 0x7F) << shift
        shift += 7
    assert decoded == value
    assert all(b & 0x80 for b in encoded[:-1]) and not encoded[-1] & 0x80


def test_every_varint_width_of_steps_matches_protobuf():
    for step in (1, 127, 128, 129, 255, 16383, 16384, 2**21 - 1, 2**21, 2**63 - 1, -1):
        got = wire.scalar_event(wire.scalar_prefix("s"), 0.25, step, 5.0)
        assert got == proto_scalar_event("s", 0.25, step, 5.0), step


any_double = st.floats(allow_nan=True, allow_infinity=True)


@given(stats=st.tuples(*[any_double] * 5), limits=st.lists(any_double, max_size=3000),
       counts=st.lists(st.integers(0, 2**60).map(float), max_size=3000))
def test_histogram_bytes_parse_to_the_proto_built_from_lists(stats, limits, counts):
    """Packed fields of every length-varint width (up to 24,000 bytes), zero, -0.0, NaN and inf statistics."""
    import numpy as np

    encoded = wire.histogram_bytes(*stats, np.array(limits, dtype=np.float64), np.array(counts, dtype=np.float64))
    parsed = summary_pb2.HistogramProto.FromString(encoded)
    built = summary_pb2.HistogramProto(min=stats[0], max=stats[1], num=stats[2], sum=stats[3], sum_squares=stats[4],
                                       bucket_limit=limits, bucket=counts)
    assert parsed.SerializeToString() == built.SerializeToString()


@pytest.mark.parametrize("size", [0, 1, 15, 16, 2047, 2048, 300_000])
def test_histogram_bytes_at_each_varint_width_of_the_packed_lengths(size):
    import numpy as np

    values = np.random.default_rng(size).standard_normal(size)
    encoded = wire.histogram_bytes(-0.0, 0.0, float(size), math.inf, 1e308, values, np.abs(values).round())
    built = summary_pb2.HistogramProto(min=-0.0, max=0.0, num=size, sum=math.inf, sum_squares=1e308,
                                       bucket_limit=values.tolist(), bucket=np.abs(values).round().tolist())
    assert summary_pb2.HistogramProto.FromString(encoded).SerializeToString() == built.SerializeToString()


def test_histogram_bytes_are_little_endian_doubles_whatever_the_arrays_byte_order_or_dtype():
    """Protobuf's packed doubles are little-endian: big-endian or integer arrays (int64 bucket counts)
    must pack to the same bytes as native float64 ones, not to their own memory layout."""
    import numpy as np

    limits, counts = np.array([-1.5, 0.0, 2.25, 1e300]), np.array([3, 0, 7, 1], dtype=np.int64)
    native = wire.histogram_bytes(-1.0, 2.0, 11.0, 5.0, 9.0, limits, counts.astype(np.float64))
    assert wire.histogram_bytes(-1.0, 2.0, 11.0, 5.0, 9.0, limits.astype(">f8"), counts.astype(">i8")) == native
    assert wire.histogram_bytes(-1.0, 2.0, 11.0, 5.0, 9.0, limits, counts) == native
    parsed = summary_pb2.HistogramProto.FromString(native)
    assert list(parsed.bucket_limit) == limits.tolist() and list(parsed.bucket) == [3.0, 0.0, 7.0, 1.0]
