"""events.bulk_encode.scalar_records: byte for byte the records `record.frame(wire.scalar_event(...))` gives,
for every step width (0, one byte, ..., negative), long tags, hostile values; read back by upstream."""
import io
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from upstream import CLASSIC, upstream_run

from tensorboard.events import file_names, record, scan, wire
from tensorboard.events.bulk_encode import scalar_records


def one_by_one(tag, steps, values, walls):
    prefix = wire.scalar_prefix(tag)
    return b"".join(record.frame(wire.scalar_event(prefix, v, s, w)) for s, v, w in zip(steps, values, walls))


STEPS = [0, 1, 127, 128, 16383, 16384, 2**21, 2**35, 2**62, 2**63 - 1, -1, -(2**63)]


@pytest.mark.parametrize("tag", ["loss", "t" * 200, "ünï/cödé"])
def test_every_step_width_and_value_kind(tag):
    steps = sorted(STEPS * 3)
    values = [0.0, -0.0, 1.5, math.inf, -math.inf, math.nan, 3.4e38, 1e-45] * 5
    values = values[:len(steps)]
    walls = [0.0, 1e9 + 0.25, -3.0] * 12
    walls = walls[:len(steps)]
    got = scalar_records(tag, steps, values, walls)
    assert got == one_by_one(tag, steps, values, walls)
    assert [r.payload for r in scan.read_records(io.BytesIO(got))] == \
        [wire.scalar_event(wire.scalar_prefix(tag), v, s, w) for s, v, w in zip(steps, values, walls)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-(2**63), 2**63 - 1), st.floats(width=32), st.floats(allow_nan=False)),
                max_size=40), st.text(min_size=1, max_size=30))
def test_equals_one_by_one(points, tag):
    steps, values, walls = zip(*points) if points else ((), (), ())
    assert scalar_records(tag, list(steps), list(values), list(walls)) == one_by_one(tag, steps, values, walls)


def test_a_finite_value_beyond_float32_is_refused_not_written_as_inf():
    with pytest.raises(OverflowError, match=r"tag 'x': 1e\+39 at step 3 is beyond float32's range"):
        scalar_records("x", [1, 3], [1.0, 1e39], [0.0, 0.0])
    with pytest.raises(ValueError, match="2 steps, 1 values"):
        scalar_records("x", [1, 3], [1.0], [0.0, 0.0])


def test_upstream_reads_the_records(tmp_path):
    steps = np.arange(0, 30000, 3)
    values = np.sin(steps / 100.0)
    path = tmp_path / file_names.event_file_name()
    path.write_bytes(file_names.header_record() + scalar_records("s", steps, values, np.full(len(steps), 5.0)))
    got = upstream_run(tmp_path, parts=CLASSIC)["scalars"]["s"]
    assert [row[0] for row in got] == steps.tolist()
    assert [row[2] for row in got] == values.astype(np.float32).astype(float).tolist()
