"""The reader's frames and the UI's served series hold the same points (issue 53: one ingestion pipeline).

Each logdir is read by the reader (`tensorboard.reader.SummaryReader`, which fills `logdir.run_data.RunData`
through `logdir.decode.RunDataSink`) and by the UI's provider in process (`serving.served_logdir.Logdir` +
`serving.provider.StandaloneDataProvider`, which fill `serving.run_state.RunState` through
`serving.file_reading.RunStateSink`); both read through `logdir.records`. For every run and tag, the scalars
(step, wall time, value), the tensors, the histograms and the blob sequences (images, audio) must be equal.

The logdirs: those the benchmarks write with their own writers (bench/serving.py, bench/reduce.py,
bench/report_export.py, bench/plot_figures.py, bench/sweeps.py through bench/logdirs.py, and bench/read_logs.py's
shapes with our SummaryWriter), small; tests/robustness/damaged_values.py's logdir of damaged values; and a mixed
logdir written here: every kind, several runs (the top one too), several files per run, a file cut inside its
last record, a record that fails its CRC and a well-framed record that holds no Event; and hand-made files of
awkward plain scalars (steps from -2**63 to 2**63-1, no step or wall time field, NaN, -0.0, several values per
event; few, which the reader decodes one by one, and many, which it decodes column-wise), tensors of every
dtype (logdir.payloads.tensor_to_numpy decodes them for both), and a file without a version header whose steps
go back (both purge as upstream does).

Serving samples (a reservoir per tag, downsampling per request): every logdir is served with sampling off
(every point kept, a downsample larger than any series) and with upstream's default sizes, which these
logdirs stay within, so both keep every point.

What differs by design, and how it is compared:
- Serving applies upstream's read-time migrations (data_compat, dataclass_compat): legacy values become
  tensors. The reader's values are put through the same migration before they are compared: each histogram
  row is made a HistogramProto again and migrated (to upstream's (left, right, count) rows); an image's
  served blobs (width, height, encoded image) and an audio clip's (its WAV) are decoded by the reader's own
  decoders (`logdir.payloads.decode_image`, `decode_wav`) and compared with the reader's pixels, sizes and
  samples (its sample rate and frame count against the WAV's header, which is all the migration keeps).
- The reader lays its frames out as tbparse does: a scalar logged as a tensor (`new_style`) is a row of its
  `tensors` frame, where serving shows it as a scalar; a text tag is named without TF 1's '/text_summary';
  a tensor of shape () is its Python item. Serving's values are put the same way before comparing.
- Serving answers a blob sequence with the first point of each step (upstream's provider does); the
  reader's frame keeps every point, so its first per step is compared.
- The hparams plugin's session tags (start and end info) are no series of the reader's frames (tbparse's
  layout): its `hparams` frame is compared with the session start info serving holds for each run.
- Restarts follow each front door's upstream accumulator (logdir/purge.py: the reader EventAccumulator's, serving
  the plugin accumulator's, which differ on a run's first SessionLog START and on tensors), so the restart
  here is one both agree on: a file without a version header whose plain scalars' steps go back.
- A tag served with no points (its only values damaged: serving lists it by its metadata) has no rows in a
  frame; the tags compared are those with points.
"""
from __future__ import annotations

import io
import sys
import warnings
import wave
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "robustness"))
sys.path.insert(0, str(REPO / "bench"))

import logdirs as bench_logdirs  # noqa: E402  (bench/logdirs.py)
import plot_figures as bench_plot  # noqa: E402
import read_logs as bench_read_logs  # noqa: E402
import reduce as bench_reduce  # noqa: E402
import report_export as bench_report  # noqa: E402
import serving as bench_serving  # noqa: E402  (bench/serving.py; bench/ is first on sys.path)
import sweeps as bench_sweeps  # noqa: E402
from damaged_values import write_logdir as write_damaged_values  # noqa: E402

from tensorboard import SummaryWriter  # noqa: E402
from tensorboard.events.record import frame  # noqa: E402
from tensorboard.logdir import decode_many  # noqa: E402
from tensorboard.logdir.kinds import text_name  # noqa: E402
from tensorboard.logdir.names import TOP_RUN  # noqa: E402
from tensorboard.logdir.payloads import decode_image, decode_wav  # noqa: E402
from tensorboard.reader import SummaryReader  # noqa: E402
from tensorboard.serving.ingester import size_guidance  # noqa: E402
from tensorboard.serving.migrate import migrate  # noqa: E402
from tensorboard.serving.provider import StandaloneDataProvider  # noqa: E402
from tensorboard.serving.served_logdir import Logdir  # noqa: E402

E = "exp"
EVERY_POINT = 10 ** 9  # a downsample no series reaches
EXTRA = {"dir_name", "wall_time", "min", "max", "num", "sum", "sum_squares", "width", "height", "content_type",
         "length_frames", "sample_rate"}
FRAME_KINDS = ("scalars", "tensors", "text", "histograms", "images", "audio")


# -- the logdirs ---------------------------------------------------------------------------------------------

def write_bench_logdirs(root: Path) -> dict[str, Path]:
    """The benchmarks' logdirs, small: each bench's own writer function (bench/logdirs.py underneath)."""
    made = {name: root / name for name in ("serving", "seeds", "sweep", "report", "plot", "sweeps", "read")}
    bench_serving.write_logdir(str(made["serving"]), 3)
    bench_reduce.write_seeds(str(made["seeds"]), 3, 4, 400)
    bench_reduce.write_sweep(str(made["sweep"]), 4, 2)
    bench_report.write_logdir(str(made["report"]), 3, 5, 120)
    bench_plot.write_logdir(str(made["plot"]), 2, 4, 300)
    bench_sweeps.write_logdir(str(made["sweeps"]), 3, 200)
    writer = bench_logdirs.our_tensorboard().SummaryWriter
    bench_read_logs.scalars(writer, str(made["read"] / "scalars"), 2, 8, 150)
    bench_read_logs.histograms(writer, str(made["read"] / "histograms"), 2, 3, 40)
    bench_read_logs.sparse_steps(writer, str(made["read"] / "sparse"), 600)
    return made


def _scalar_event(tag: str, step: int, value: float) -> bytes:
    from tensorboard.src import event_pb2, summary_pb2

    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])
    return event_pb2.Event(wall_time=1.7e9 + step, step=step, summary=summary).SerializeToString()


def _custom_tensor(step: int):
    """A tensor of a plugin upstream does not know, shaped (2, 3), declared a tensor series."""
    from tensorboard.src import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in (2, 3)])
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, tensor_shape=shape,
                                    double_val=[step + i / 8 for i in range(6)])
    metadata = summary_pb2.SummaryMetadata(data_class=summary_pb2.DATA_CLASS_TENSOR,
                                           plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="custom"))
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="custom/grid", metadata=metadata, tensor=tensor)])


def _media(writer, rng, steps) -> None:
    for step in steps:
        writer.add_histogram("weights", rng.normal(size=400) + step, step)
        writer.add_image("digit", rng.random((3, 8, 6)), step)
        writer.add_text("notes", "step **%d**" % step, step)
        writer.add_pr_curve("pr", rng.integers(0, 2, 40), rng.random(40), step)
        writer.add_summary(_custom_tensor(step), step)
    writer.add_images("batch", rng.random((3, 3, 5, 4)), steps[0])
    writer.add_video("clip", rng.random((1, 3, 3, 6, 5)), steps[0], fps=4)
    for step in steps[:2]:
        tone = np.sin(2 * np.pi * (220 + 110 * step) * np.linspace(0, 1, 800)).reshape(1, -1)
        writer.add_audio("tone", tone, step, sample_rate=8000)


def write_mixed(root: Path) -> Path:
    """Every kind in `train` (two files, the second going on where the first stops), interleaved tags in
    `eval/sub` (its file cut inside its last record), scalars in the top run, and `damaged`: one file with a
    record that fails its CRC mid-file, one with a well-framed record that holds no Event between scalars."""
    rng = np.random.default_rng(7)
    for part, steps in ((".a", range(0, 150)), (".b", range(150, 300))):
        with SummaryWriter(str(root / "train"), filename_suffix=part) as writer:
            for step in steps:
                writer.add_scalar("loss", 1.0 / (step + 1), step)
                writer.add_scalar("acc", step / 300, step, new_style=True)
                writer.add_scalar("lr", 0.1 / (step + 1), step, double_precision=True)
            _media(writer, rng, list(steps)[:3])
            if part == ".a":
                writer.add_hparams({"lr": 0.1, "optimizer": "adam", "layers": 3}, {"hp/final": 0.25})
    with SummaryWriter(str(root / "eval" / "sub")) as writer:
        for step in range(200):
            for tag in ("a", "b", "c"):
                writer.add_scalar("metric/" + tag, step * 0.5 + ord(tag), step)
    (cut,) = (root / "eval" / "sub").glob("events.out.tfevents.*")
    cut.write_bytes(cut.read_bytes()[:-7])
    with SummaryWriter(str(root)) as writer:
        for step in range(10):
            writer.add_scalar("top", float(step * step), step)
    _write_damaged_run(root / "damaged")
    return root


def _write_damaged_run(run: Path) -> None:
    with SummaryWriter(str(run), filename_suffix=".crc") as writer:
        for step in range(100):
            writer.add_scalar("x", float(step), step)
    (crc,) = run.glob("*.crc")
    data = bytearray(crc.read_bytes())
    data[len(data) // 2] ^= 0xFF
    crc.write_bytes(bytes(data))
    with SummaryWriter(str(run), filename_suffix=".junk") as writer:
        for step in range(100, 110):
            writer.add_scalar("y", float(step), step)
    (junk,) = run.glob("*.junk")
    with open(junk, "ab") as out:
        out.write(frame(b"\xff\xff\xff\xff no event"))
        out.write(b"".join(frame(_scalar_event("y", step, float(step))) for step in range(110, 120)))


def _event(step: int | None, wall: float | None, *values) -> bytes:
    """A serialized Event of Summary.Values (no step or wall time field where None)."""
    from tensorboard.src import event_pb2, summary_pb2

    event = event_pb2.Event(summary=summary_pb2.Summary(value=list(values)))
    if step is not None:
        event.step = step
    if wall is not None:
        event.wall_time = wall
    return event.SerializeToString()


def _scalar(tag: str, value: float, display_name: str = ""):
    from tensorboard.src import summary_pb2

    value = summary_pb2.Summary.Value(tag=tag, simple_value=value)
    if display_name:
        value.metadata.display_name = display_name
    return value


EDGE_VALUES = (0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1e-45, 3.4028234663852886e38, -2.5)
EDGE_STEPS = (None, 0, 1, 127, 128, 16383, 16384, 2 ** 31, 2 ** 62, 2 ** 63 - 1, -1, -(2 ** 63))


def _edge_scalars(count: int) -> list[bytes]:
    """`count` events of plain scalars at awkward steps, wall times and values, some events holding several
    values or a named one (which is no plain scalar)."""
    events = []
    for i in range(count):
        step, value = EDGE_STEPS[i % len(EDGE_STEPS)], EDGE_VALUES[i % len(EDGE_VALUES)]
        wall = None if i % 5 == 0 else 1.7e9 + i / 3
        if i % 7 == 3:
            events.append(_event(step, wall, _scalar("pair/a", value), _scalar("pair/b", -value)))
        elif i % 11 == 4:
            events.append(_event(step, wall, _scalar("named", value, display_name="a named scalar")))
        else:
            events.append(_event(step, wall, _scalar("\u03bb/loss" if i % 2 else "plain", value)))
    return events


def _raw_tensor(tag: str, dtype: int, dims: list[int], plugin: str = "raw", **fields):
    """A Summary.Value of one tensor, of `plugin` (a tensor series; `scalars`: a scalar series)."""
    from tensorboard.src import summary_pb2, tensor_pb2, tensor_shape_pb2

    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])
    data_class = summary_pb2.DATA_CLASS_SCALAR if plugin == "scalars" else summary_pb2.DATA_CLASS_TENSOR
    metadata = summary_pb2.SummaryMetadata(data_class=data_class,
                                           plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin))
    return summary_pb2.Summary.Value(tag=tag, metadata=metadata,
                                     tensor=tensor_pb2.TensorProto(dtype=dtype, tensor_shape=shape, **fields))


def _edge_tensors() -> list[bytes]:
    """Tensors of every dtype, packed and as typed values; typed values fewer than the shape (the last fills
    the rest) or none (zeros), as TensorFlow reads them; bfloat16; scalars logged as such tensors; a quantized
    dtype no reader decodes (a damaged value both leave out)."""
    from tensorboard.src import types_pb2 as t

    v = _raw_tensor
    values = [v("half", t.DT_HALF, [3], half_val=[15360, 16384, 0]), v("int8", t.DT_INT8, [3], int_val=[-1, 2, 3]),
              v("uint8", t.DT_UINT8, [2], int_val=[1, 255]), v("int64", t.DT_INT64, [2], int64_val=[-5, 2 ** 62]),
              v("uint32", t.DT_UINT32, [2], uint32_val=[5, 2 ** 32 - 1]),
              v("uint64", t.DT_UINT64, [2], uint64_val=[5, 2 ** 64 - 1]),
              v("bool", t.DT_BOOL, [3], bool_val=[True, False, True]),
              v("string", t.DT_STRING, [2], string_val=[b"a", b"\xff"]),
              v("complex", t.DT_COMPLEX64, [2], scomplex_val=[1, 2, 3, 4]),
              v("packed", t.DT_DOUBLE, [2, 2], tensor_content=np.arange(4.0).tobytes()),
              v("splat", t.DT_FLOAT, [4], float_val=[0.5]), v("filled", t.DT_FLOAT, [4], float_val=[0.5, 1.5]),
              v("zeros", t.DT_INT32, [3]), v("int", t.DT_INT32, [], int_val=[7]), v("empty", t.DT_FLOAT, [0]),
              v("bf16", t.DT_BFLOAT16, [2], half_val=[16256, 16384]),
              v("bf16/packed", t.DT_BFLOAT16, [2], tensor_content=np.array([16256, 49216], "<u2").tobytes()),
              v("scalar/bf16", t.DT_BFLOAT16, [], "scalars", half_val=[16320]),
              v("scalar/int", t.DT_INT32, [], "scalars", int_val=[3]), v("scalar/none", t.DT_FLOAT, [], "scalars"),
              v("quantized", t.DT_QINT8, [2], int_val=[1, 2])]
    return [_event(step, 1.7e9 + step, *values) for step in range(3)]


def write_edges(root: Path) -> Path:
    """Hand-made files: awkward plain scalars few (below the reader's column-wise threshold) and many, tensors
    of every dtype, and a file without a version header whose steps go back (upstream purges there)."""
    from tensorboard import FileWriter

    for run, events in (("few", _edge_scalars(40)), ("many", _edge_scalars(400)), ("tensors", _edge_tensors())):
        writer = FileWriter(str(root / run))
        for event in events:
            writer.add_event_bytes(event)
        writer.close()
    (root / "restarts").mkdir(parents=True)
    steps = list(range(0, 80)) + list(range(30, 60)) + list(range(50, 120))  # no header: going back purges
    records = [frame(_event(step, 1.7e9 + i, _scalar("loss", step / 7))) for i, step in enumerate(steps)]
    (root / "restarts" / "events.out.tfevents.1.restarts").write_bytes(b"".join(records))
    return root


@pytest.fixture(scope="module")
def logdirs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("identity")
    made = write_bench_logdirs(root / "bench")
    made["damaged values"] = write_damaged_values(root / "damaged_values", True)
    made["mixed"] = write_mixed(root / "mixed")
    made["edges"] = write_edges(root / "edges")
    return made


# -- each front door's view: {(run, tag): (kind, points)} ------------------------------------------------------

def _array(a: np.ndarray) -> tuple:
    return a.dtype.str, a.shape, a.tolist()


def _tensor_value(a: np.ndarray):
    """A tensor as the reader's `tensors` frame holds it: a shape () tensor as its Python item."""
    return a.item() if a.shape == () else _array(a)


def _migrated_histogram(row) -> tuple:
    """A reader's histogram row made a HistogramProto again and migrated as serving migrates it."""
    from tensorboard.compat.proto import event_pb2
    from tensorboard.util import tensor_util

    event = event_pb2.Event(step=0, wall_time=0.0)
    histo = event.summary.value.add(tag="h").histo
    histo.min, histo.max, histo.num, histo.sum, histo.sum_squares = (row["min"], row["max"], row["num"], row["sum"],
                                                                       row["sum_squares"])
    histo.bucket_limit.extend(row["limits"])
    histo.bucket.extend(row["counts"])
    (migrated,) = migrate(event, {})
    return _array(tensor_util.make_ndarray(migrated.summary.value[0].tensor))


def _wav_header(encoded: bytes) -> tuple[int, int]:
    with wave.open(io.BytesIO(encoded)) as wav:
        return wav.getframerate(), wav.getnframes()


def _reader_point(kind: str, row) -> object:
    value = row.get("value")  # histograms have none: counts and limits
    if kind in ("scalars", "text"):
        return value
    if kind == "tensors":
        return _array(value) if isinstance(value, np.ndarray) else value
    if kind == "histograms":
        return _migrated_histogram(row)
    if kind == "images":
        return int(row["width"]), int(row["height"]), _array(value)
    return _array(value), (int(row["sample_rate"]), int(row["length_frames"]))  # audio


def reader_view(logdir: Path) -> tuple[dict, dict]:
    """({(run, tag): (kind, [(step, wall time, value)...])}, {run: hparams}) as the reader's frames hold them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the damage is warned of; tests/reader checks those warnings
        reader = SummaryReader(logdir, extra_columns=EXTRA, skip_damaged=True)
        frames = {kind: reader.get_events(kind) for kind in FRAME_KINDS + ("hparams",)}
    view: dict = {}
    for kind in FRAME_KINDS:
        frame_ = frames[kind]
        for row in frame_.to_dict("records"):
            run = row["dir_name"] or TOP_RUN
            entry = view.setdefault((run, row["tag"]), (kind, []))
            assert entry[0] == kind, (run, row["tag"], entry[0], kind)
            entry[1].append((int(row["step"]), float(row["wall_time"]), _reader_point(kind, row)))
    for key, (kind, points) in view.items():
        points.sort(key=lambda p: p[0])  # stable: a step's points keep their file order
        if kind in ("images", "audio"):
            view[key] = (kind, _first_per_step(points))
    hparams: dict = {}
    for row in frames["hparams"].to_dict("records"):
        hparams.setdefault(row["dir_name"] or TOP_RUN, {})[row["tag"]] = row["value"]
    return view, hparams


def _first_per_step(points: list) -> list:
    seen, kept = set(), []
    for point in points:
        if point[0] not in seen:
            seen.add(point[0])
            kept.append(point)
    return kept


def served_logdir(logdir: Path, sampling: bool) -> Logdir:
    """The UI's store of `logdir`, not read yet: upstream's default sample sizes, or every point."""
    sizes, default = size_guidance(None)
    if not sampling:
        sizes, default = {plugin: 0 for plugin in sizes}, 0
    return Logdir({str(logdir): None}, sizes, default)


def served(logdir: Path, sampling: bool) -> StandaloneDataProvider:
    """The UI's provider on `logdir`, read once."""
    store = served_logdir(logdir, sampling)
    store.reload()
    return StandaloneDataProvider(store, str(logdir))


def _served_kind(plugin: str, tensor_scalar: bool) -> str:
    if plugin in ("histograms", "images", "audio", "text"):
        return plugin
    return "tensors" if tensor_scalar or plugin != "scalars" else "scalars"


class _OneKindPerTag(dict):
    """A view that refuses a second series for one (run, tag): each is served by one plugin."""

    def __setitem__(self, key, value) -> None:
        assert key not in self, ("served twice", key, self[key][0], value[0])
        super().__setitem__(key, value)


def serving_view(provider: StandaloneDataProvider, reader_kinds: dict) -> tuple[dict, dict]:
    """The provider's answers in reader_view's form; `reader_kinds` {(run, tag): kind} says which scalars the
    reader frames as tensors (logged as tensors)."""
    view = _OneKindPerTag()
    for plugin in sorted(provider.list_plugins(experiment_id=E)):
        for run, tags in provider.read_scalars(experiment_id=E, plugin_name=plugin, downsample=EVERY_POINT).items():
            for tag, data in tags.items():
                kind = _served_kind(plugin, reader_kinds.get((run, tag)) == "tensors")
                view[(run, tag)] = (kind, [(d.step, d.wall_time, d.value) for d in data])
        for run, tags in provider.read_tensors(experiment_id=E, plugin_name=plugin, downsample=EVERY_POINT).items():
            for tag, data in tags.items():
                kind = _served_kind(plugin, False)
                if plugin == "text":
                    points = [(d.step, d.wall_time, d.numpy.item().decode("utf-8")) for d in data]
                    view[(run, text_name(tag))] = (kind, points)
                elif plugin != "hparams":  # its session tags are the reader's hparams frame, compared below
                    view[(run, tag)] = (kind, [(d.step, d.wall_time, _tensor_value(d.numpy)) for d in data])
        blobs = provider.read_blob_sequences(experiment_id=E, plugin_name=plugin, downsample=EVERY_POINT)
        for run, tags in blobs.items():
            for tag, data in tags.items():
                points = []
                for d in data:
                    parts = [provider.read_blob(blob_key=ref.blob_key) for ref in d.values]
                    points.append((d.step, d.wall_time, _served_blob(plugin, parts)))
                view[(run, tag)] = (plugin, points)
    view = {key: (kind, points) for key, (kind, points) in view.items() if points}  # a frame has no empty series
    for points in (points for _, points in view.values()):
        points.sort(key=lambda p: p[0])
    hparams = {}
    listed = provider.list_tensors(experiment_id=E, plugin_name="hparams")
    for run, tags in listed.items():
        for tag, series in tags.items():
            if tag == "_hparams_/session_start_info":
                hparams[run] = _session_hparams(series.plugin_content)
    return view, hparams


def _served_blob(plugin: str, parts: list):
    if plugin == "images":  # (width, height, encoded image)
        width, height, encoded = parts
        return int(width), int(height), _array(decode_image(encoded))
    (encoded,) = parts  # audio: its WAV
    return _array(decode_wav(encoded)), _wav_header(encoded)


def _session_hparams(content: bytes) -> dict:
    from tensorboard.plugins.hparams import plugin_data_pb2

    info = plugin_data_pb2.HParamsPluginData.FromString(content).session_start_info
    out = {}
    for name, value in info.hparams.items():
        field = value.WhichOneof("kind")
        out[name] = getattr(value, field)
    return out


# -- the comparison --------------------------------------------------------------------------------------------

def _exact(value):
    """`value` with every float as its hex form: NaN equals NaN, -0.0 differs from 0.0, no rounding."""
    if isinstance(value, float):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [_exact(v) for v in value]
    return value


def assert_identical(logdir: Path, provider: StandaloneDataProvider) -> int:
    """Every series of the reader equals the one `provider` serves; returns how many points were compared."""
    expected, expected_hparams = reader_view(logdir)
    got, got_hparams = serving_view(provider, {key: kind for key, (kind, _) in expected.items()})
    assert sorted(got) == sorted(expected), "tags differ: only served %s, only read %s" % (
        sorted(set(got) - set(expected)), sorted(set(expected) - set(got)))
    for key in sorted(expected):
        assert got[key][0] == expected[key][0], (key, got[key][0], expected[key][0])
        assert _exact(got[key][1]) == _exact(expected[key][1]), key
    assert got_hparams == expected_hparams
    return sum(len(points) for _, points in expected.values())


@pytest.fixture(autouse=True, params=["batched", "file by file"])
def reading(request, monkeypatch):
    """Every test twice: small files read together (the default, for both front doors) and each file read on
    its own, streamed (what a file of more than decode_many.DECODE_GROUP_BYTES gets)."""
    if request.param == "file by file":
        monkeypatch.setattr(decode_many, "DECODE_GROUP_BYTES", -1)
    return request.param


@pytest.mark.parametrize("sampling", [False, True], ids=["every point", "upstream's sample sizes"])
@pytest.mark.parametrize("name", ["serving", "seeds", "sweep", "report", "plot", "sweeps", "read", "damaged values",
                                  "mixed", "edges"])
def test_reader_and_serving_hold_the_same_points(logdirs, name, sampling):
    assert assert_identical(logdirs[name], served(logdirs[name], sampling)) > 0


GROWTH = (0.13, 0.37, 0.38, 0.61, 0.89, 1.0)  # how much of each run's bytes are written at each reload


def grow(source: Path, target: Path, fraction: float) -> None:
    """Appends to `target`'s files until they hold the first `fraction` of each run's bytes in `source`, the
    run's files in name order, as a writer writes them (cut anywhere, inside a record too)."""
    by_run: dict[Path, list[Path]] = {}
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        by_run.setdefault(path.parent, []).append(path)
    for paths in by_run.values():
        left = int(sum(p.stat().st_size for p in paths) * fraction)
        for path in paths:
            data = path.read_bytes()[:max(left, 0)]
            left -= path.stat().st_size
            copy = target / path.relative_to(source)
            have = copy.stat().st_size if copy.exists() else 0
            if len(data) > have:
                copy.parent.mkdir(parents=True, exist_ok=True)
                with open(copy, "ab") as out:
                    out.write(data[have:])


@pytest.mark.parametrize("name", ["mixed", "edges", "damaged values", "read"])
def test_served_while_written_holds_what_the_reader_reads_once_written(logdirs, name, tmp_path):
    """Serving follows files as they grow (logdir.follow: a record cut at one reload is read at the next);
    the reader reads the files once written: the same points."""
    growing = tmp_path / "growing"
    growing.mkdir()
    store = served_logdir(growing, sampling=False)
    for fraction in GROWTH:
        grow(logdirs[name], growing, fraction)
        store.reload()
    assert assert_identical(growing, StandaloneDataProvider(store, str(growing))) > 0
