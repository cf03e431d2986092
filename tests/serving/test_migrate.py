"""The read-time migrations keep the display names the file holds: a legacy value the file names not stays
unnamed (as the native data server serves it), a named one keeps its name and description, tensors pass."""
from __future__ import annotations

from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.serving.migrate import migrate


def _migrated(value: summary_pb2.Summary.Value) -> summary_pb2.Summary.Value:
    event = event_pb2.Event(step=1, wall_time=2.0)
    event.summary.value.add().CopyFrom(value)
    (out,) = migrate(event, {})
    (migrated,) = out.summary.value
    return migrated


def _legacy_values(tag: str) -> list:
    histo = summary_pb2.HistogramProto(min=0.0, max=1.0, num=2, sum=1.0, bucket_limit=[0.5, 1.0], bucket=[1, 1])
    return [summary_pb2.Summary.Value(tag=tag, simple_value=0.5),
            summary_pb2.Summary.Value(tag=tag, image=summary_pb2.Summary.Image(height=1, width=1,
                                                                               encoded_image_string=b"png")),
            summary_pb2.Summary.Value(tag=tag, audio=summary_pb2.Summary.Audio(sample_rate=8000.0,
                                                                               encoded_audio_string=b"wav")),
            summary_pb2.Summary.Value(tag=tag, histo=histo)]


def test_an_unnamed_legacy_value_stays_unnamed_and_is_migrated():
    for value in _legacy_values("acc/train"):
        migrated = _migrated(value)
        assert migrated.WhichOneof("value") == "tensor"  # upstream's migration happened
        assert migrated.metadata.plugin_data.plugin_name in ("scalars", "images", "audio", "histograms")
        assert migrated.metadata.display_name == ""
        assert migrated.metadata.data_class != summary_pb2.DATA_CLASS_UNKNOWN


def test_a_named_legacy_value_keeps_its_name_and_description():
    for value in _legacy_values("lr"):
        value.metadata.display_name, value.metadata.summary_description = "learning rate", "step size"
        migrated = _migrated(value)
        assert (migrated.metadata.display_name, migrated.metadata.summary_description) == ("learning rate",
                                                                                            "step size")


def test_tensor_values_keep_what_the_file_holds():
    named = summary_pb2.Summary.Value(tag="t", metadata=summary_pb2.SummaryMetadata(display_name="T"))
    named.tensor.dtype, named.tensor.float_val[:] = 1, [1.0]  # DT_FLOAT
    named.metadata.plugin_data.plugin_name = "scalars"
    assert _migrated(named).metadata.display_name == "T"
    named.metadata.display_name = ""
    assert _migrated(named).metadata.display_name == ""


def test_events_without_a_summary_pass_and_per_file_state_is_kept():
    graph = event_pb2.Event(step=0, wall_time=1.0, graph_def=b"\n\x05\n\x01a\x12\x00")
    assert graph in list(migrate(graph, {}))  # upstream's loader yields the graph event as it came
    state: dict = {}
    for step in range(2):
        event = event_pb2.Event(step=step, wall_time=1.0)
        event.summary.value.add(tag="loss", simple_value=1.0)
        (out,) = migrate(event, state)
        assert out.summary.value[0].metadata.data_class == summary_pb2.DATA_CLASS_SCALAR
        assert out.summary.value[0].metadata.display_name == ""
    assert list(state) == ["loss"]  # the first metadata of the tag, as dataclass_compat remembers it
