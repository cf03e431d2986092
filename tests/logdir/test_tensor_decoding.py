"""logdir.payloads.tensor_to_numpy, the one TensorProto decoder of the reader's frames and the served series:
upstream's `make_ndarray` (what serving decoded with before) wherever that decodes, TensorFlow's rules where it
refuses (typed values fewer than the shape, unsigned 32/64-bit, bfloat16), and a dtype no reader decodes is a
damaged value, left out when read, instead of failing a whole frame or a whole served request."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from tensorboard.logdir.payloads import DamagedValueError, DamagedValueWarning, check_tensor, tensor_to_numpy
from tensorboard.src import tensor_pb2, tensor_shape_pb2
from tensorboard.src import types_pb2 as t


def _tensor(dtype: int, dims: list[int], **fields) -> tensor_pb2.TensorProto:
    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape=shape, **fields)


def _plain(a: np.ndarray) -> tuple:
    return a.dtype.str, a.shape, a.tolist()


UPSTREAM_DECODES = {
    "half": _tensor(t.DT_HALF, [3], half_val=[15360, 16384, 0]),
    "int8": _tensor(t.DT_INT8, [3], int_val=[-1, 2, 3]),
    "uint16": _tensor(t.DT_UINT16, [2], int_val=[5, 65535]),
    "int64": _tensor(t.DT_INT64, [2], int64_val=[-5, 2 ** 62]),
    "bool": _tensor(t.DT_BOOL, [3], bool_val=[True, False, True]),
    "strings": _tensor(t.DT_STRING, [2], string_val=[b"a", b"\xff"]),
    "complex": _tensor(t.DT_COMPLEX128, [1], dcomplex_val=[1, 2]),
    "packed": _tensor(t.DT_DOUBLE, [2, 2], tensor_content=np.arange(4.0).tobytes()),
    "packed half": _tensor(t.DT_HALF, [2], tensor_content=np.array([1, 2], "<f2").tobytes()),
    "one value fills": _tensor(t.DT_FLOAT, [4], float_val=[0.5]),
    "scalar": _tensor(t.DT_INT32, [], int_val=[7]),
}


@pytest.mark.parametrize("name", sorted(UPSTREAM_DECODES))
def test_equal_to_upstreams_make_ndarray_where_it_decodes(name):
    from tensorboard.compat.proto import tensor_pb2 as upstream_tensor_pb2
    from tensorboard.util import tensor_util

    tensor = UPSTREAM_DECODES[name]
    upstream = tensor_util.make_ndarray(upstream_tensor_pb2.TensorProto.FromString(tensor.SerializeToString()))
    assert _plain(tensor_to_numpy(tensor)) == _plain(upstream)


@pytest.mark.parametrize("tensor, expected", [
    (_tensor(t.DT_FLOAT, [4], float_val=[0.5, 1.5]), ("<f4", (4,), [0.5, 1.5, 1.5, 1.5])),  # the last fills
    (_tensor(t.DT_INT32, [3]), ("<i4", (3,), [0, 0, 0])),  # no values: zeros
    (_tensor(t.DT_FLOAT, []), ("<f4", (), 0.0)),
    (_tensor(t.DT_UINT32, [2], uint32_val=[5, 2 ** 32 - 1]), ("<u4", (2,), [5, 2 ** 32 - 1])),
    (_tensor(t.DT_UINT64, [1], uint64_val=[2 ** 64 - 1]), ("<u8", (1,), [2 ** 64 - 1])),
    (_tensor(t.DT_BFLOAT16, [2], half_val=[16256, 49216]), ("<f4", (2,), [1.0, -3.0])),  # widened, exact
    (_tensor(t.DT_BFLOAT16, [3], half_val=[16320]), ("<f4", (3,), [1.5, 1.5, 1.5])),
    (_tensor(t.DT_BFLOAT16, [1], tensor_content=np.array([16448], "<u2").tobytes()), ("<f4", (1,), [3.0])),
], ids=["fewer values", "no values", "scalar without value", "uint32", "uint64", "bfloat16", "bfloat16 fills",
        "packed bfloat16"])
def test_tensorflows_rules_where_upstreams_make_ndarray_refuses(tensor, expected):
    assert _plain(tensor_to_numpy(tensor)) == expected


@pytest.mark.parametrize("dtype", [t.DT_QINT8, t.DT_QUINT8, t.DT_QINT32, t.DT_RESOURCE, t.DT_VARIANT, 0, 999])
def test_a_dtype_no_reader_decodes_is_a_damaged_value(dtype):
    tensor = _tensor(dtype, [2], int_val=[1, 2])
    with pytest.raises(DamagedValueError, match=f"DataType {dtype}"):
        check_tensor(tensor)
    with pytest.raises(DamagedValueError):
        tensor_to_numpy(tensor)


def test_the_readers_frame_leaves_out_such_a_value_and_keeps_the_rest(tmp_path):
    """Before, the value was kept and building the `tensors` frame raised for the whole logdir."""
    from tensorboard import FileWriter
    from tensorboard.reader import SummaryReader
    from tensorboard.src import event_pb2, summary_pb2

    writer = FileWriter(str(tmp_path / "run"))
    for tag, tensor in (("quantized", _tensor(t.DT_QINT8, [2], int_val=[1, 2])),
                        ("bf16", _tensor(t.DT_BFLOAT16, [], half_val=[16320]))):
        value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
        writer.add_event_bytes(event_pb2.Event(step=1, wall_time=2.0, summary=summary_pb2.Summary(value=[value]))
                               .SerializeToString())
    writer.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = SummaryReader(tmp_path).tensors
    assert frame[["step", "tag", "value"]].values.tolist() == [[1, "bf16", 1.5]]
    damaged = [str(w.message) for w in caught if issubclass(w.category, DamagedValueWarning)]
    assert len(damaged) == 1 and "'quantized'" in damaged[0] and "DataType 11" in damaged[0], damaged
