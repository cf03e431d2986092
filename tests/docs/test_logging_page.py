"""docs/logging.md ("What you can log") matches the writer: its table has one row per public `add_*` method of
`tensorboard.SummaryWriter`, names only known dashboards, lists as key options only the method's own
parameters, and the shape and dtype claims quoted from its rows (and its pixel table) hold when the writer
is called with such values."""
from __future__ import annotations

import contextlib
import inspect
import re
import warnings

import numpy as np
import pytest
from doc_tables import code_spans, page, section, table

import tensorboard
from tensorboard.reader import SummaryReader

DASHBOARDS = {"Scalars", "Images", "Histograms", "Distributions", "Text", "Audio", "Graphs", "PR curves",
              "Projector", "HParams", "Mesh", "Custom scalars", "Time Series", "Any"}

ROWS = {code_spans(row["Method"])[0]: row for row in table(page("logging.md"), "Method")}


def public_add_methods() -> set[str]:
    return {name for name in dir(tensorboard.SummaryWriter) if name.startswith("add_")}


def test_one_row_per_public_add_method():
    assert len(ROWS) == len(table(page("logging.md"), "Method")), "a method has two rows"
    assert set(ROWS) == public_add_methods()


def test_every_dashboard_named_is_a_known_one():
    for method, row in ROWS.items():
        named = [name.strip() for name in re.sub(r"\(.*?\)", "", row["Dashboard"]).split(",")]
        assert named and set(named) <= DASHBOARDS, (method, named)


def test_key_options_are_the_methods_parameters():
    for method, row in ROWS.items():
        parameters = set(inspect.signature(getattr(tensorboard.SummaryWriter, method)).parameters)
        options = [span for span in code_spans(row["Key options"]) if re.fullmatch(r"[a-z_]+", span)]
        assert options or row["Key options"] == "none", method
        assert set(options) <= parameters, (method, sorted(set(options) - parameters))


# (method, words of its row, the call, the exception it raises or None): each call tests what the words say
CLAIMS = [
    ("add_image", 'dataformats="HWC"', lambda w: w.add_image("hwc", np.zeros((5, 6, 3), np.uint8), 0,
                                                             dataformats="HWC"), None),
    ("add_image", "CHW (the default for a 3-D array)", lambda w: w.add_image("chw", np.ones((3, 5, 6)), 0), None),
    ("add_image", "CHW (the default for a 3-D array)",  # an HWC array without dataformats: 5 "channels"
     lambda w: w.add_image("hwc_as_chw", np.zeros((5, 6, 3), np.uint8), 0), ValueError),
    ("add_image", "rank does not match `dataformats` raises `ValueError`",
     lambda w: w.add_image("rank", np.zeros((5, 6), np.uint8), 0, dataformats="HWC"), ValueError),
    ("add_image", "HW (2-D)", lambda w: w.add_image("hw", np.zeros((5, 6), np.uint8), 0), None),
    ("add_image", "1, 3 or 4 channels", lambda w: w.add_image("two", np.zeros((2, 5, 6)), 0), ValueError),
    ("add_image", "32,767 px a side", lambda w: w.add_image("wide", np.zeros((1, 32768), np.uint8), 0), ValueError),
    ("add_images", "a list of same-shaped images",
     lambda w: w.add_images("list", [np.zeros((3, 4, 4)), np.ones((3, 4, 4))], 0), None),
    ("add_video", "N and C may be left out",
     lambda w: w.add_video("thw", np.zeros((2, 4, 4), np.uint8), 0, dataformats="THW"), None),
    ("add_histogram", "NaN or ±inf raises `ValueError`",
     lambda w: w.add_histogram("nan", [1.0, float("nan")], 0), ValueError),
    ("add_histogram", "of any bool, int or float dtype",
     lambda w: w.add_histogram("bools", np.array([True, False]), 0), None),
    ("add_histogram", "a bucket count from 1 to 65,536", lambda w: w.add_histogram("b", [1.0, 2.0], 0, bins=65536),
     None),
    ("add_histogram", "a bucket count from 1 to 65,536", lambda w: w.add_histogram("b", [1.0, 2.0], 0, bins=65537),
     ValueError),
    ("add_histogram", "a bucket count from 1 to 65,536", lambda w: w.add_histogram("b", [1.0, 2.0], 0, bins=0),
     ValueError),
    ("add_audio", "`(channels, L)` with up to 32 channels",
     lambda w: w.add_audio("stereo", np.zeros((2, 100), np.float32), 0), None),
    ("add_audio", "`(channels, L)` with up to 32 channels",
     lambda w: w.add_audio("many", np.zeros((33, 100), np.float32), 0), ValueError),
    ("add_audio", "such as `(1, L)`", lambda w: w.add_audio("mono", np.zeros((1, 100), np.int16), 0), None),
    ("add_audio", "bool, int64 and uint64 raise `TypeError`",
     lambda w: w.add_audio("int64", np.zeros(100, np.int64), 0), TypeError),
    ("add_audio", "`sample_rate` (a positive integer",
     lambda w: w.add_audio("rate", np.zeros(100), 0, sample_rate=0), ValueError),
    ("add_text", "at most 16 MiB of UTF-8 per call", lambda w: w.add_text("big", "x" * ((16 << 20) + 1), 0),
     ValueError),
    ("add_pr_curve", "`predictions` in [0, 1]", lambda w: w.add_pr_curve("pr", [0, 1], [0.5, 1.5], 0), ValueError),
    ("add_pr_curve", "`labels` (bool or 0/1)", lambda w: w.add_pr_curve("pr", [0, 2], [0.5, 0.5], 0), ValueError),
    ("add_pr_curve", "from 1 to 65,536", lambda w: w.add_pr_curve("pr", [0, 1], [0.2, 0.8], 0, num_thresholds=65537),
     ValueError),
    ("add_mesh", "integer indices of existing vertices",
     lambda w: w.add_mesh("mesh", np.zeros((3, 3)), faces=np.array([[0, 1, 3]])), ValueError),
    ("add_mesh", "`vertices`: (N, 3) or (B, N, 3)",
     lambda w: w.add_mesh("mesh", np.zeros((3, 3)), faces=np.array([[0, 1, 2]])), None),
    ("add_embedding", "a non-empty 2-D (points, dimensions) array", lambda w: w.add_embedding(np.zeros(4)),
     ValueError),
    ("add_scalars", "a non-empty dict", lambda w: w.add_scalars("empty", {}, 0), TypeError),
    ("add_custom_scalars_marginchart", "exactly three scalar tags",
     lambda w: w.add_custom_scalars_marginchart(["a", "b"]), ValueError),
]


@pytest.mark.parametrize("method,words,call,error", CLAIMS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CLAIMS)])
def test_claim_of_a_row_holds(tmp_path, method, words, call, error):
    assert words in ROWS[method]["Accepts"] + " " + ROWS[method]["Key options"], (method, words)
    with tensorboard.SummaryWriter(tmp_path) as writer:
        if error is None:
            call(writer)
        else:
            with pytest.raises(error):
                call(writer)


def test_an_hwc_image_reads_back_as_logged(tmp_path):
    pixels = np.random.default_rng(0).integers(0, 256, (5, 6, 3), dtype=np.uint8)
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_image("hwc", pixels, 0, dataformats="HWC")
    assert np.array_equal(SummaryReader(tmp_path).images.value[0], pixels)


def test_mxboard_dicts_of_add_scalar_go_to_sub_runs(tmp_path):
    assert "`{name: number}` dict" in ROWS["add_scalar"]["Accepts"]
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_scalar("loss", {"train": 1.0, "val": 2.0}, 0)
        writer.add_scalars("acc", {"train": 0.5}, 0)
    frame = SummaryReader(tmp_path, extra_columns={"dir_name"}).scalars
    assert sorted(zip(frame.dir_name, frame.tag)) == [("acc/train", "acc"), ("loss/train", "loss"),
                                                      ("loss/val", "loss")]


# One sample array per row of the pixel table, with the 8-bit pixels it must become.
PIXELS = {
    "float": (np.array([0.0, 0.5, 1.0, 2.0, np.nan]), [0, 128, 255, 255, 0]),
    "uint8": (np.array([0, 7, 255], np.uint8), [0, 7, 255]),
    "bool": (np.array([False, True]), [0, 255]),
    "uint16": (np.array([0, 65535], np.uint16), [0, 255]),
    "int8, int16": (np.array([-128, 127], np.int8), [0, 255]),
    "int32, int64, uint32, uint64": (np.array([0, 7, 300], np.int64), [0, 7, 255]),
}


def test_pixel_table_is_the_writers_rule(tmp_path):
    rows = table(section(page("logging.md"), "Pixels"), "dtype")
    assert [row["dtype"] for row in rows] == list(PIXELS)
    with tensorboard.SummaryWriter(tmp_path) as writer:
        for i, (values, expected) in enumerate(PIXELS.values()):
            with pytest.warns(UserWarning) if i in (0, 5) else _no_warning():  # clipped: 2.0 and 300
                writer.add_image(f"p{i}", values.reshape(1, -1), 0, dataformats="HW")
    images = SummaryReader(tmp_path).images.set_index("tag").value
    for i, (_, expected) in enumerate(PIXELS.values()):
        assert images[f"p{i}"].reshape(-1).tolist() == expected, list(PIXELS)[i]


@contextlib.contextmanager
def _no_warning():
    """A block in which a warning fails the test (pytest.warns' counterpart)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield
