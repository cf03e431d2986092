"""A damaged value spoils only itself in the reader and every front door on it: `SummaryReader`, `tensorboard
export` (tables and the report page) and `tensorboard reduce`, on a logdir of healthy runs plus one run per kind of
damage (damaged_values.py), against its clean twin. The damage is reported once per file and tag (the reader's
DamagedValueWarning), and a tensor that declares more than its bytes hold is refused before any allocation."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from damaged_values import CASES, HEALTHY_TAGS, write_logdir

from tensorboard.logdir.payloads import SPLAT_FACTOR, DamagedValueError, DamagedValueWarning, check_tensor
from tensorboard.reader import SummaryReader
from tensorboard.src import tensor_pb2, tensor_shape_pb2, types_pb2


@pytest.fixture(scope="module")
def logdirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("damaged-read")
    return write_logdir(root / "damaged", True), write_logdir(root / "clean", False)


def healthy(frame, columns=("dir_name", "tag", "step")):
    """The healthy tags' rows, without wall times (the twins were written at other moments), in one order."""
    frame = frame[frame["tag"].isin(HEALTHY_TAGS)].drop(columns=["wall_time"], errors="ignore")
    return frame.sort_values(list(columns)).reset_index(drop=True)


def read(logdir, kind):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = getattr(SummaryReader(str(logdir), extra_columns={"dir_name"}), kind)
    return frame, [w for w in caught if issubclass(w.category, DamagedValueWarning)]


@pytest.mark.parametrize("kind", ["scalars", "histograms", "text"])
def test_the_reader_reads_every_healthy_value(logdirs, kind):
    import pandas as pd

    damaged, clean = logdirs
    got, caught = read(damaged, kind)
    want, none = read(clean, kind)
    assert not none
    if kind == "histograms":  # arrays in cells: compared as lists
        for frame in (got, want):
            for column in frame.columns:
                if frame[column].dtype == object:
                    frame[column] = frame[column].map(lambda v: np.asarray(v).tolist() if v is not None else v)
    pd.testing.assert_frame_equal(healthy(got), healthy(want))
    runs = set(got["dir_name"])
    assert {"b_good", "c_good"} | {f"bad_{case}" for case in CASES} <= runs or kind == "text"


def test_each_damage_is_warned_once_per_file_and_tag(logdirs):
    damaged, _ = logdirs
    _, caught = read(damaged, "text")
    lines = [str(w.message) for w in caught]
    assert len(lines) == len(set(lines)), lines
    reported = {case for case in CASES if any(f"bad_{case}/" in line for line in lines)}
    assert reported == set(CASES), sorted(set(CASES) - reported)
    assert all("left out" in line for line in lines)


def test_export_writes_every_healthy_row(logdirs, tmp_path):
    import pandas as pd

    from tensorboard.cli import export

    damaged, clean = logdirs
    for kind in ("scalars", "text"):
        outs = []
        for name, logdir in (("damaged", damaged), ("clean", clean)):
            out = tmp_path / f"{name}-{kind}.csv"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DamagedValueWarning)
                assert export.main(["--logdir", str(logdir), "--out", str(out), "--kind", kind, "--quiet"]) == 0
            outs.append(pd.read_csv(out).drop(columns=["wall_time"], errors="ignore"))
        got, want = (healthy(frame, ("run", "tag", "step")) for frame in outs)
        pd.testing.assert_frame_equal(got, want)


def test_the_report_page_is_written_with_every_healthy_run(logdirs, tmp_path):
    from tensorboard.report import export_report

    damaged, _ = logdirs
    out = tmp_path / "report.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DamagedValueWarning)
        export_report(str(damaged), str(out))
    page = out.read_text()
    for run in ("b_good", "c_good", *(f"bad_{case}" for case in CASES)):
        assert run in page, run


def test_reduce_gives_what_the_clean_logdir_gives(logdirs, tmp_path):
    from tensorboard.cli import reduce

    damaged, clean = logdirs
    means = []
    for name, logdir in (("damaged", damaged), ("clean", clean)):
        out = tmp_path / name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DamagedValueWarning)
            assert reduce.main(["--logdir", str(logdir), "--out", str(out), "--quiet"]) == 0
        frame = SummaryReader(str(out), extra_columns={"dir_name"}).scalars
        means.append(frame.drop(columns=["wall_time"], errors="ignore").sort_values(["dir_name", "tag", "step"])
                     .reset_index(drop=True))
    import pandas as pd

    pd.testing.assert_frame_equal(means[0], means[1])


def _tensor(dims, floats=(), content=b"", dtype=types_pb2.DT_FLOAT):
    shape = tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape=shape, float_val=list(floats), tensor_content=content)


def test_declared_sizes_are_bounded_by_the_bytes_present():
    assert check_tensor(_tensor([2, 3], content=b"\0" * 24)) == 6
    assert check_tensor(_tensor([SPLAT_FACTOR], floats=[1.0])) == SPLAT_FACTOR  # one value may fill the rest
    for damaged in (_tensor([2, 3], content=b"\0" * 23), _tensor([SPLAT_FACTOR + 1], floats=[1.0]),
                    _tensor([2 ** 33, 2 ** 33], floats=[1.0]), _tensor([-1])):
        with pytest.raises(DamagedValueError):
            check_tensor(damaged)
    with pytest.raises(DamagedValueError, match="exactly one number"):
        check_tensor(_tensor([0]), "scalars")


def test_upstream_reads_the_healthy_values_we_read(logdirs):
    """Upstream's reader on the clean twin (it stops at a record that is no Event, so not on the damaged logdir)
    sees every healthy run's curve as our reader sees it in the damaged logdir."""
    from upstream import upstream_read

    damaged, clean = logdirs
    theirs = upstream_read(clean)["runs"]
    ours, _ = read(damaged, "scalars")
    for run in ("b_good", "c_good", *(f"bad_{case}" for case in CASES)):
        rows = ours[(ours["dir_name"] == run) & (ours["tag"] == "loss")]
        assert [(step, pytest.approx(value)) for step, _, value in theirs[run]["scalars"]["loss"]] == \
            list(zip(rows["step"], rows["value"])), run
