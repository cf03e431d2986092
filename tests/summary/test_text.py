"""summary.text: DT_STRING tensors with text plugin metadata."""
import numpy as np
import pytest

from tensorboard import summary
from tensorboard.src import summary_pb2, types_pb2


def test_scalar_string():
    (value,) = summary.text("notes", "héllo").value
    assert value.tensor.dtype == types_pb2.DT_STRING and list(value.tensor.tensor_shape.dim) == []
    assert value.tensor.string_val == ["héllo".encode()]
    assert value.metadata.plugin_data.plugin_name == "text"
    assert value.metadata.data_class == summary_pb2.DATA_CLASS_TENSOR


def test_table():
    (value,) = summary.text("t", np.array([["a", "b"], ["c", "d"]])).value
    assert [d.size for d in value.tensor.tensor_shape.dim] == [2, 2]
    assert value.tensor.string_val == [b"a", b"b", b"c", b"d"]


@pytest.mark.parametrize("text,error", [([], ValueError), ([1, 2], TypeError), (None, TypeError)])
def test_errors(text, error):
    with pytest.raises(error, match="^text: "):
        summary.text("t", text)
