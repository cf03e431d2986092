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


def test_bytes_that_are_not_utf8_are_refused_at_the_call(tmp_path):
    """The text plugin decodes every string of a tag as UTF-8: one bad step would hide all of them."""
    from upstream import upstream_read

    from tensorboard import SummaryWriter

    assert summary.text("t", "café".encode()).value[0].tensor.string_val == ["café".encode()]
    with pytest.raises(ValueError, match=r"^text: bytes that are not UTF-8: unexpected end of data at byte 3"):
        summary.text("t", b"caf\xe9")
    with pytest.raises(ValueError, match=r"^text: bytes that are not UTF-8 \(item 1\)"):
        summary.text("t", [b"ok", b"\xff"])
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_text("notes", "step 0", 0)
        with pytest.raises(ValueError, match="^text: bytes that are not UTF-8"):
            writer.add_text("notes", b"caf\xe9", 1)
        writer.add_text("notes", b"step 2", 2)
    events = upstream_read(tmp_path)["runs"]["."]["tensors"]["notes"]
    assert [(step, value["values"]) for step, _, value in events] == [(0, ["step 0"]), (2, ["step 2"])]


def test_a_lone_surrogate_is_a_value_error_naming_text():
    with pytest.raises(ValueError, match=r"^text: not valid Unicode: surrogates not allowed at index 1 \('\\ud800'\)"):
        summary.text("t", "a\ud800b")
    with pytest.raises(ValueError, match=r"^text: not valid Unicode \(item 1\)"):
        summary.text("t", ["ok", "\udfff"])


def test_text_size_is_bounded():
    from tensorboard.summary.text import MAX_TEXT_BYTES

    with pytest.raises(ValueError, match=rf"^text: more than {MAX_TEXT_BYTES} bytes of UTF-8 in one call"):
        summary.text("t", "x" * (MAX_TEXT_BYTES + 1))
    with pytest.raises(ValueError, match="^text: more than"):
        summary.text("t", ["\u00e9" * (MAX_TEXT_BYTES // 2), "x"])  # 2 bytes each in UTF-8
    assert len(summary.text("t", "x" * MAX_TEXT_BYTES).value[0].tensor.string_val[0]) == MAX_TEXT_BYTES
