"""Events whose values are damaged in ways a CRC does not catch: well-framed records that hold a wrong shape,
a wrong dtype, a huge declared shape, an empty tensor, plugin content that does not decode, or bytes that are
no Event at all. Each case is one run's worth of events (`damaged_events`), written beside healthy runs, so a
test can check that the damage spoils only itself in every front door."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

from tensorboard import FileWriter, SummaryWriter
from tensorboard.src import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

SCALARS = "scalars"


def _tensor(dtype: int, dims: list[int], content: bytes = b"", floats: list[float] | None = None,
            strings: list[bytes] | None = None) -> tensor_pb2.TensorProto:
    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape=shape, tensor_content=content,
                                  float_val=floats or [], string_val=strings or [])


def _value_event(tag: str, plugin: str, tensor: tensor_pb2.TensorProto, step: int = 1,
                 content: bytes = b"", data_class: int = 0) -> bytes:
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name=plugin, content=content), data_class=data_class)
    value = summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=tensor)
    return event_pb2.Event(wall_time=1.0 + step, step=step, summary=summary_pb2.Summary(value=[value])) \
        .SerializeToString()


SCALAR_CLASS = summary_pb2.DATA_CLASS_SCALAR
TENSOR_CLASS = summary_pb2.DATA_CLASS_TENSOR
BLOB_CLASS = summary_pb2.DATA_CLASS_BLOB_SEQUENCE
HUGE = 2 ** 33


CASES: dict[str, Callable[[], list[bytes]]] = {
    "scalar_shape_2": lambda: [_value_event("bad", SCALARS, _tensor(types_pb2.DT_FLOAT, [2], floats=[1.0, 2.0]),
                                            data_class=SCALAR_CLASS)],
    "scalar_huge_shape": lambda: [_value_event("bad", SCALARS, _tensor(types_pb2.DT_FLOAT, [HUGE, HUGE],
                                                                       floats=[1.0]), data_class=SCALAR_CLASS)],
    "scalar_empty": lambda: [_value_event("bad", SCALARS, _tensor(types_pb2.DT_FLOAT, [0]),
                                          data_class=SCALAR_CLASS)],
    "scalar_short_content": lambda: [_value_event("bad", SCALARS, _tensor(types_pb2.DT_DOUBLE, [], content=b"\x01"),
                                                  data_class=SCALAR_CLASS)],
    "scalar_string_dtype": lambda: [_value_event("bad", SCALARS, _tensor(types_pb2.DT_STRING, [],
                                                                         strings=[b"x"]), data_class=SCALAR_CLASS)],
    "text_huge_shape": lambda: [_value_event("bad", "text", _tensor(types_pb2.DT_STRING, [100000, 100000],
                                                                    strings=[b"x"]), data_class=TENSOR_CLASS)],
    "histogram_shape_7": lambda: [_value_event("bad", "histograms", _tensor(types_pb2.DT_DOUBLE, [7],
                                                                            floats=[1.0] * 7),
                                               data_class=TENSOR_CLASS)],
    "image_huge_shape": lambda: [_value_event("bad", "images", _tensor(types_pb2.DT_STRING, [HUGE],
                                                                       strings=[b"1", b"1"]),
                                              data_class=BLOB_CLASS)],
    "hparams_bad_content": lambda: [_value_event("_hparams_/session_start_info", "hparams",
                                                 _tensor(types_pb2.DT_FLOAT, []), content=b"\xff\xff\xff")],
    "pr_curve_5_rows": lambda: [_value_event("bad", "pr_curves", _tensor(types_pb2.DT_FLOAT, [5, 3],
                                                                         floats=[0.5] * 15),
                                             data_class=TENSOR_CLASS)],
    "not_an_event": lambda: [b"\xff\xff\xff\xff not an event"],
}


def damaged_events(case: str) -> Iterator[bytes]:
    """The serialized events of `case` (CASES), framed by the caller's record writer."""
    yield from CASES[case]()


HEALTHY_RUNS = ("b_good", "c_good")
HEALTHY_TAGS = ("loss", "weights", "notes")  # a scalar, a histogram and a text in every run
DAMAGED_TAGS = ("bad", "_hparams_/session_start_info")


def write_logdir(root: Path, damaged: bool) -> Path:
    """Healthy runs, and a run `bad_<case>` per case holding the healthy tags too; when `damaged`, each of those
    also holds the case's events, in a file of their own."""
    import numpy as np

    for run in HEALTHY_RUNS + tuple(f"bad_{case}" for case in CASES):
        with SummaryWriter(str(root / run)) as writer:
            for step in range(4):
                writer.add_scalar("loss", 1.0 / (step + 1), step)
                writer.add_histogram("weights", np.arange(10.0) * (step + 1), step)
            writer.add_text("notes", "healthy", 0)
        if damaged and run.startswith("bad_"):
            writer = FileWriter(str(root / run), filename_suffix=".damaged")
            for event in damaged_events(run[len("bad_"):]):
                writer.add_event_bytes(event)
            writer.close()
    return root
