"""SummaryReader's run, tag and step filters (export's --runs/--tags/--steps): the rows of an unfiltered
read that match, for every kind and in both layouts; bad filters are refused naming the argument."""
import re

import pytest
from reader.sweep_logs import local_sweep

from tensorboard.reader import SummaryReader, export

KINDS = ("scalars", "histograms", "tensors", "text", "hparams")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    return local_sweep(tmp_path_factory.mktemp("filters") / "logs")


def _read(logdir, kind, **filters):
    extra = {"dir_name"} | (set() if kind == "hparams" else {"wall_time"})
    return SummaryReader(logdir, extra_columns=extra, **filters).get_events(kind)


def _matching(frame, runs=None, tags=None, steps=None, exclude=None):
    names = frame["dir_name"].map(lambda r: r or ".")  # runs are matched by name: "." for the logdir itself
    keep = names.map(lambda r: bool(re.search(runs, r))) if runs else True
    if exclude:
        keep = keep & ~names.map(lambda r: bool(re.search(exclude, r)))
    if tags:
        keep = keep & frame["tag"].map(lambda t: bool(re.search(tags, t)))
    if steps and "step" in frame:
        lo, hi = steps
        keep = keep & frame["step"].between(-2**63 if lo is None else lo, 2**63 - 1 if hi is None else hi)
    return frame[keep] if keep is not True else frame


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("filters", [{"runs": "^(a b|e/f)"}, {"tags": "^(loss|w|note|lr|batch|dp)$"},
                                     {"tags": "^nothing$"},
                                     {"steps": (5, 20)}, {"steps": (None, 3)}, {"steps": (10, None)},
                                     {"runs": "=|%", "tags": "l", "steps": (0, 10)},
                                     {"exclude": "^(a b|e/f)"}, {"runs": "^(a b|e/f)", "exclude": "f$"}])
def test_filtered_read_is_the_matching_rows_of_the_full_read(logdir, kind, filters):
    full = _read(logdir, kind)
    expected = _matching(full, **filters).reset_index(drop=True)
    got = _read(logdir, kind, **filters)
    assert len(full)
    if expected.empty:
        assert got.empty
    else:
        assert got.astype(str).equals(expected.astype(str))


def test_tags_lists_only_matching_tags_and_children_keep_the_filters(logdir):
    reader = SummaryReader(logdir, tags="^lo", steps=(0, 4))
    assert reader.tags["scalars"] == ["loss"] and reader.tags["histograms"] == []
    child = reader["a b"]
    assert list(child.scalars["step"]) == [0, 1, 2, 3, 4]


def test_pivot_keeps_the_filtered_columns(logdir):
    wide = SummaryReader(logdir, pivot=True, tags="^(loss|lr)$", steps=(3, 5), runs="^a b$").scalars
    assert list(wide.columns) == ["step", "loss", "lr"] and list(wide["step"]) == [3, 4, 5]


def test_export_takes_the_same_filters(logdir):
    table = export.export_table(logdir, "scalars", runs="^c=d$", tags="loss", steps="30:")
    assert set(table["run"]) == {"c=d"} and set(table["tag"]) == {"loss"} and list(table["step"]) == list(range(30, 40))


@pytest.mark.parametrize("kwargs,error,match", [
    ({"runs": "("}, ValueError, "runs '\\(' is not a valid regex"),
    ({"tags": 3}, TypeError, "tags must be a regex string"),
    ({"steps": 5}, TypeError, "steps must be a pair"),
    ({"steps": (5, 1)}, ValueError, "steps \\(5, 1\\) is empty"),
    ({"steps": (1.5, None)}, TypeError, "steps must be a pair"),
    ({"concurrency": 0}, ValueError, "concurrency must be a positive int"),
    ({"max_bytes": "1M"}, ValueError, "max_bytes must be a positive int"),
])
def test_bad_filters_are_refused_naming_the_argument(logdir, kwargs, error, match):
    with pytest.raises(error, match=match):
        SummaryReader(logdir, **kwargs)
