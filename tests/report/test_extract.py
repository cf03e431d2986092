"""What the report takes from a logdir: bounded scalar series (first and last point kept), histogram
percentiles per run, the last image and texts per tag and run, hparams rows, and the filters."""
import numpy as np
import pytest
from report_logdir import RUNS, STEPS

from tensorboard.reader import read_scalars
from tensorboard.reader._events import read_runs
from tensorboard.report.downsample import even_indices
from tensorboard.report.extract import REPORT_KINDS, extract


@pytest.fixture(scope="module")
def runs(report_logdir):
    return read_runs(report_logdir)


def test_scalar_series_are_bounded_evenly_and_keep_both_ends(runs, report_logdir):
    report = extract(runs, max_points=300)
    full = read_scalars(report_logdir)
    assert sorted(report.scalars) == ["eval/accuracy", "final/loss", "train/loss"]  # the metric: one point
    assert sorted(report.runs) == sorted(RUNS)
    for series in report.scalars["train/loss"]:
        rows = full[report.runs[series.run]]["train/loss"]
        assert series.total == STEPS and len(series.steps) == 300
        keep = even_indices(STEPS, 300)
        assert series.steps.tolist() == [rows[i][0] for i in keep]
        assert series.values.tolist() == [rows[i][2] for i in keep]
        assert series.steps[0] == 0 and series.steps[-1] == STEPS - 1
    for series in report.scalars["eval/accuracy"]:  # 25 points: all kept
        assert series.steps.tolist() == list(range(0, STEPS, 100))


def test_distributions_have_nine_ordered_percentiles_per_step(runs):
    report = extract(runs, kinds=("histograms",))
    assert list(report.distributions) == ["weights"] and not report.scalars
    for series in report.distributions["weights"]:
        assert series.steps.tolist() == list(range(0, 60, 3))
        assert series.values.shape == (20, 9)
        assert np.all(np.diff(series.values, axis=1) >= 0)
        median = series.values[:, 4]
        assert median[-1] > median[0]  # the logged normals move up with the step


def test_last_image_of_each_run_as_its_encoded_png(runs):
    report = extract(runs, kinds=("images",))
    items = report.images["samples"]
    assert len(items) == len(RUNS)
    for run, step, mime, data in items:
        assert step == 50 and mime == "image/png" and data.startswith(b"\x89PNG")


def test_texts_of_each_run(runs):
    report = extract(runs, kinds=("text",))
    assert sorted((report.runs[run], texts) for run, texts in report.text["notes"]) == sorted(
        (run, [(7, f"run {run}\nlearning rate {float(run.split('_')[1])}")]) for run in RUNS)


def test_hparams_rows_one_per_run_with_final_metrics(runs):
    report = extract(runs, kinds=("hparams",))
    rows = {row["run"]: row for row in report.hparams}
    assert sorted(rows) == sorted(RUNS)
    for index, run in enumerate(RUNS):
        assert rows[run]["hparams"] == {"lr": float(run.split("_")[1]), "optimizer": "sgd"}
        assert rows[run]["metrics"]["final/loss"] == pytest.approx(0.5 / (index + 1))


def test_tags_regex_and_kinds_filter(runs):
    report = extract(runs, kinds=REPORT_KINDS, tags="^train|weights")
    assert list(report.scalars) == ["train/loss"] and list(report.distributions) == ["weights"]
    assert not report.images and not report.text
    assert report.hparams  # the table is not a tag: --tags leaves it whole


def test_fewer_than_two_points_is_refused_before_reading(runs):
    with pytest.raises(ValueError, match="max_points must be at least 2"):
        extract(runs, max_points=1)


def test_a_step_range_bounds_every_series(runs):
    report = extract(runs, steps=(100, 1999), max_points=10000)
    for series in report.scalars["train/loss"]:
        assert series.steps.tolist() == list(range(100, 2000))
    for series in report.scalars["eval/accuracy"]:
        assert series.steps.tolist() == list(range(100, 2000, 100))
    assert "final/loss" not in report.scalars  # its one point is at step 0
    assert not report.distributions  # histograms were logged at steps 0 to 57 only
    for series in extract(runs, kinds=("histograms",), steps=(30, None)).distributions["weights"]:
        assert series.steps.tolist() == list(range(30, 60, 3))
    assert report.hparams  # the table keeps the runs' final values
    assert [step for _, step, _, _ in extract(runs, steps=(None, 20)).images["samples"]] == [0, 0, 0]


def test_each_shown_point_keeps_its_wall_time(runs, report_logdir):
    report = extract(runs, max_points=300)
    full = read_scalars(report_logdir)
    keep = even_indices(STEPS, 300)
    for series in report.scalars["train/loss"]:
        rows = full[report.runs[series.run]]["train/loss"]
        assert series.walls.tolist() == [rows[i][1] for i in keep]
    for series in extract(runs, kinds=("histograms",)).distributions["weights"]:
        assert len(series.walls) == len(series.steps) and np.all(np.diff(series.walls) >= 0)
