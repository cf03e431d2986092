"""The page's wall times: a run's clock is stored once for the tags logged at the same steps within a
millisecond, and every series' decoded wall times stay within that of its own logged ones."""
import base64

import numpy as np

from tensorboard.reader._events import read_runs
from tensorboard.report.extract import extract
from tensorboard.report.render import WALL_TOLERANCE_S, WallTable, payload

STEPS = np.arange(0, 50, 5)
WALLS = 1_700_000_000.0 + 0.37 * STEPS


def test_a_runs_tags_at_the_same_steps_and_times_share_one_entry():
    table = WallTable()
    first = table.index(0, STEPS, WALLS)
    assert table.index(0, STEPS, WALLS + 0.2e-3) == first  # logged a fraction of a millisecond later
    assert table.index(0, STEPS, WALLS + 5e-3) != first  # later by more than the tolerance: its own
    assert table.index(1, STEPS, WALLS) != first  # another run
    assert table.index(0, STEPS + 1, WALLS) != first  # other steps
    assert len(table.entries) == 4


def decoded(entry: dict) -> np.ndarray:
    return entry["start"] + np.frombuffer(base64.b64decode(entry["offsets"]), "<f4").astype(np.float64)


def test_every_series_reads_back_its_wall_times_within_the_tolerance(report_logdir):
    report = extract(read_runs(report_logdir), max_points=300)
    data = payload(report, "t", 300)
    series = [(s, encoded) for kind in ("scalars", "distributions")
              for tag, items in getattr(report, kind).items()
              for s, encoded in zip(items, next(e["series"] for e in data[kind] if e["tag"] == tag))]
    assert len(series) == 12  # 3 runs x train/loss, eval/accuracy, final/loss (the hparams metric), weights
    for s, encoded in series:
        got = decoded(data["walls"][encoded["walls"]])
        assert np.max(np.abs(got - s.walls)) <= WALL_TOLERANCE_S + 1e-4  # plus float32's rounding of seconds


def test_a_run_logging_its_tags_together_stores_its_clock_once(tmp_path):
    import tensorboard

    for run in ("a", "b"):
        with tensorboard.SummaryWriter(str(tmp_path / run)) as writer:
            for step in range(40):
                for tag in ("loss", "accuracy", "lr"):
                    writer.add_scalar(tag, step * 0.5, step)
    data = payload(extract(read_runs(tmp_path), ("scalars",)), "t", 1000)
    indices = {(data["runs"][s["run"]], e["tag"]): s["walls"] for e in data["scalars"] for s in e["series"]}
    assert len(indices) == 6 and len(data["walls"]) == 2  # one clock per run
    assert len({indices["a", tag] for tag in ("loss", "accuracy", "lr")}) == 1
