"""The column tables of docs/reading.md ("Columns") are SummaryReader's: on a logdir with every kind of data, each
DataFrame property has the documented columns in the documented order and dtypes, without and with
`extra_columns` (the optional columns, then the extra ones at the end) and with `pivot=True`; the table
lists every DataFrame property there is."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from doc_tables import code_spans, page, section, table

import tensorboard
from tensorboard.logdir.kinds import ALL_EXTRA_COLUMNS
from tensorboard.reader import SummaryReader

SECTION = section(page("reading.md"), "Columns")
RUNS = {"run1": {"lr": 0.1, "opt": "adam"}, "run2": {"lr": 0.01, "opt": "sgd"}}
METRICS = ["loss", "acc", "hp/score"]  # without an experiment summary: every `scalars` tag of the run, first seen first


def documented() -> dict[str, list[dict]]:
    """{property: its rows of the long-form table, in order}."""
    rows: dict[str, list[dict]] = {}
    for row in table(SECTION, "Property"):
        (prop,) = code_spans(row["Property"])
        rows.setdefault(prop, []).append(row)
    return rows


EXTRAS = [code_spans(row["Column"])[0] for row in table(SECTION, "Column")]  # the trailing extra columns


def trailing_extras(prop: str) -> list[str]:
    """The extra columns a property gets at the end when all are asked for, as the sentence above the table says."""
    assert "to every property but\n`hparams_table` and `hparams_sources` (`hparams` gets `dir_name` and " \
           "`file_name` only)" in SECTION
    if prop in ("hparams_table", "hparams_sources"):
        return []
    return [c for c in EXTRAS if c != "wall_time"] if prop == "hparams" else EXTRAS


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("columns")
    rng = np.random.default_rng(0)
    for run, hparams in RUNS.items():
        with tensorboard.SummaryWriter(root / run) as writer:
            for step in range(3):
                writer.add_scalar("loss", 1.0 / (step + 1), step)
                writer.add_scalar("acc", step / 3, step)
                writer.add_scalar("acc_tensor", step / 3, step, new_style=True)
                writer.add_pr_curve("pr", np.array([0, 1, 1, 0]), rng.random(4), step)
                writer.add_histogram("weights", rng.normal(size=50), step)
                writer.add_image("img", rng.integers(0, 256, (4, 5, 3), dtype=np.uint8), step, dataformats="HWC")
                writer.add_video("vid", rng.random((1, 2, 3, 4, 4)), step)
                writer.add_audio("snd", rng.uniform(-1, 1, (2, 100)), step, sample_rate=8000)
                writer.add_text("note", f"step {step}", step)
            writer.add_scalar("hp/score", 0.5, 2)
            writer.add_hparams(hparams, {"hp/score": 0.5})
    return root


def optional_columns(prop: str) -> list[str]:
    """The columns of a property that `extra_columns` switches on, in the documented order."""
    return [code_spans(row["Column"])[0] for row in documented()[prop] if row["Present"] == "`extra_columns`"]


def expand(columns: list[str], frame_tags: list[str], optional: list[str]) -> list[str]:
    """Documented column names with their placeholders filled in: <hparam> by each hyperparameter, in name order,
    <metric> by each metric; for the wide form, <tag> by each tag and <tag>/<column> by each optional column."""
    names = []
    for column in columns:
        if column == "<hparam>":
            names += sorted({name for hparams in RUNS.values() for name in hparams})
        elif column == "<metric>":
            names += METRICS
        elif column == "<tag>/<column>":
            names += [f"{tag}/{field}" for tag in frame_tags for field in optional]
        elif column.startswith("<tag>"):
            names += [tag + column[len("<tag>"):] for tag in frame_tags]
        else:
            names.append(column)
    return names


def dtype_matches(series: pd.Series, code: str) -> bool:
    if code == "str":  # pandas' string dtype (object before pandas 3)
        return pd.api.types.is_string_dtype(series.dtype) and all(isinstance(v, str) for v in series)
    return series.dtype == np.dtype(code)


def test_every_dataframe_property_is_in_the_table(logdir):
    reader = SummaryReader(logdir)
    frames = set()
    for name in dir(SummaryReader):
        if isinstance(getattr(SummaryReader, name), property):
            try:
                value = getattr(reader, name)
            except ValueError:  # raw_tags, raw_events: for one event file only
                continue
            if isinstance(value, pd.DataFrame):
                frames.add(name)
    assert set(documented()) == frames


@pytest.mark.parametrize("extras", [False, True], ids=["default", "all-extra-columns"])
def test_long_form_columns_and_dtypes(logdir, extras):
    reader = SummaryReader(logdir, extra_columns=set(ALL_EXTRA_COLUMNS) if extras else None)
    extra_rows = {code_spans(row["Column"])[0]: row for row in table(SECTION, "Column")}
    for prop, rows in documented().items():
        frame = getattr(reader, prop)
        assert not frame.empty, prop
        shown = [row for row in rows if row["Present"] == "always" or (extras and row["Present"] == "`extra_columns`")]
        assert {row["Present"] for row in rows} <= {"always", "`extra_columns`"}, prop
        dtypes = {}  # column -> the dtypes its row allows, in the documented order
        for row in shown:
            for name in expand(code_spans(row["Column"])[:1], [], []):
                dtypes[name] = code_spans(row["dtype"])
        for name in trailing_extras(prop) if extras else []:
            dtypes[name] = code_spans(extra_rows[name]["dtype"])
        assert list(frame.columns) == list(dtypes), prop
        for name, codes in dtypes.items():
            assert any(dtype_matches(frame[name], code) for code in codes), (prop, name, frame[name].dtype)


def test_tensor_values_of_one_number_type_are_typed(logdir):
    (row,) = [row for row in documented()["tensors"] if code_spans(row["Column"]) == ["value"]]
    numbers = SummaryReader(logdir, tags="^acc_tensor$").tensors.value  # new_style scalars alone
    mixed = SummaryReader(logdir).tensors.value  # and PR curves
    assert numbers.dtype == np.float64 and mixed.dtype == object
    assert {"float64", "object"} <= set(code_spans(row["dtype"]))


def test_values_are_what_the_meanings_say(logdir):
    reader = SummaryReader(logdir)
    histograms = reader.histograms
    assert all(a.dtype == np.float64 for column in (histograms.counts, histograms.limits) for a in column)
    images = reader.images.set_index("tag").value
    assert images["img"].iloc[0].dtype == np.uint8 and images["img"].iloc[0].shape == (4, 5, 3)
    assert images["vid"].iloc[0].shape == (2, 4, 4, 3)  # (frames, H, W, 3)
    sound = reader.audio.value.iloc[0]
    assert sound.dtype == np.float32 and sound.shape == (100, 2) and -1 <= sound.min() and sound.max() < 1
    assert list(reader.hparams_table.run) == list(RUNS)


def test_wide_form_columns(logdir):
    long_rows = documented()
    wide_rows = table(SECTION.split("With `pivot=True`", 1)[1], "Property")  # the table after the long-form one
    reader = SummaryReader(logdir)
    kinds = [prop for prop in long_rows
             if prop not in ("hparams", "hparams_table", "hparams_sources")]  # the ones with tags
    tags = {prop: sorted(set(reader.get_events(prop).tag)) for prop in kinds}
    checked = set()
    for extras in (False, True):
        asked = set(ALL_EXTRA_COLUMNS) if extras else None
        wide = SummaryReader(logdir, pivot=True, extra_columns=asked)
        long = SummaryReader(logdir, extra_columns=asked)
        for row in wide_rows:
            cell = row["Columns with `pivot=True`"]
            for prop in code_spans(row["Property"]):
                if "as without `pivot`" in cell:
                    expected = list(getattr(long, prop).columns)
                else:
                    named = [span for span in code_spans(cell) if span.startswith("<")]
                    middle = sorted(expand(named, tags.get(prop, []), optional_columns(prop) if extras else []))
                    start = ["step"] if "step" in code_spans(cell) else []
                    expected = start + middle + (trailing_extras(prop) if extras else [])
                assert list(getattr(wide, prop).columns) == expected, (prop, extras)
                checked.add(prop)
    assert checked == set(long_rows)


def test_a_kind_not_logged_is_an_empty_frame_without_columns(tmp_path):
    assert "one with nothing of its kind to show is empty, without\ncolumns" in SECTION
    with tensorboard.SummaryWriter(tmp_path, metadata=False) as writer:  # scalars only: no run metadata text
        writer.add_scalar("loss", 1.0, 0)
    reader = SummaryReader(tmp_path)
    assert not reader.scalars.empty
    for prop in set(documented()) - {"scalars"}:
        assert getattr(reader, prop).empty and list(getattr(reader, prop).columns) == [], prop
