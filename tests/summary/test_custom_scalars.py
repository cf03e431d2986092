"""summary.custom_scalars: tensorboardX-style layout dicts -> a serialized Layout."""
import pytest

from tensorboard import summary
from tensorboard.src import layout_pb2, types_pb2


def test_layout_from_dict_and_proto():
    (value,) = summary.custom_scalars({"A": {"x": ["Multiline", ["a/.*"]], "m": ["Margin", ["v", "l", "u"]]},
                                       "B": {"y": ["Multiline", ["b"]]}}).value
    assert value.tag == "custom_scalars__config__" and value.metadata.plugin_data.plugin_name == "custom_scalars"
    assert value.tensor.dtype == types_pb2.DT_STRING and not value.tensor.tensor_shape.dim
    layout = layout_pb2.Layout.FromString(value.tensor.string_val[0])
    assert [c.title for c in layout.category] == ["A", "B"]
    assert layout.category[0].chart[0].multiline.tag == ["a/.*"]
    assert layout.category[0].chart[1].margin.series[0].upper == "u"
    (again,) = summary.custom_scalars(layout).value
    assert layout_pb2.Layout.FromString(again.tensor.string_val[0]) == layout


@pytest.mark.parametrize("layout,error", [
    ({}, TypeError), ({"A": ["x"]}, TypeError), ({"A": {"x": ["Pie", ["a"]]}}, ValueError),
    ({"A": {"x": ["Margin", ["a", "b"]]}}, ValueError), ({"A": {"x": ["Multiline", "a"]}}, TypeError),
])
def test_errors(layout, error):
    with pytest.raises(error, match="^layout"):
        summary.custom_scalars(layout)


def test_a_writers_layouts_add_up_since_the_dashboard_shows_the_last(tmp_path):
    from upstream import upstream_read

    from tensorboard import SummaryWriter

    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_custom_scalars_multilinechart(["loss/.*"], category="train", title="losses")
        writer.add_custom_scalars_marginchart(["acc", "acc_lo", "acc_hi"], category="train", title="accuracy")
        writer.add_custom_scalars({"eval": {"f1": ["Multiline", ["f1"]]}})
        writer.add_custom_scalars_multilinechart(["loss/train"], category="train", title="losses")  # replaces
    events = upstream_read(tmp_path)["runs"]["."]["tensors"]["custom_scalars__config__"]
    (serialized,) = events[-1][2]["values"]  # all ASCII: a small layout of ASCII names
    layout = layout_pb2.Layout.FromString(serialized.encode("ascii"))
    assert [(c.title, [chart.title for chart in c.chart]) for c in layout.category] == [
        ("train", ["losses", "accuracy"]), ("eval", ["f1"])]
    assert layout.category[0].chart[0].multiline.tag == ["loss/train"]
    assert layout.category[0].chart[1].margin.series[0].lower == "acc_lo"
