"""Pixels and samples outside the range their dtype is read in are clipped as before, and the first
time per tag a ClippedValuesWarning names the tag, the range seen and the likely fix."""
from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from PIL import Image
from upstream import upstream_read

import tensorboard
from tensorboard import summary
from tensorboard.summary import _clipping
from tensorboard.summary._clipping import ClippedValuesWarning


@pytest.fixture(autouse=True)
def fresh_tags(monkeypatch):
    monkeypatch.setattr(_clipping, "_warned", set())


def clipped_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, ClippedValuesWarning)]


def pixels(proto) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(proto.value[0].image.encoded_image_string)))


CASES = [  # (image, expected pixel, words the warning must hold)
    (np.full((2, 2), 200.0, np.float32), 255, ["[200, 200]", "[0, 1]", "uint8", "divide by 255"]),
    (np.full((2, 2), -0.5), 0, ["[-0.5, -0.5]", "[0, 1]"]),
    (np.full((2, 2), 300, np.int32), 255, ["int32", "[300, 300]", "0..255"]),
    (np.full((2, 2), -4, np.int64), 0, ["int64", "[-4, -4]", "0..255"]),
]


@pytest.mark.parametrize("array, expected, words", CASES, ids=["float255", "negative-float", "int32", "int64"])
def test_image_out_of_range_warns_once_per_tag_and_is_still_clipped(array, expected, words):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        first = summary.image("pic", array, dataformats="HW")
        again = summary.image("pic", array, dataformats="HW")
        other = summary.image("other", array, dataformats="HW")
    messages = clipped_warnings(record)
    assert len(messages) == 2 and "'pic'" in messages[0] and "'other'" in messages[1]
    for word in words:
        assert word in messages[0], (word, messages[0])
    for proto in (first, again, other):
        assert (pixels(proto) == expected).all()


@pytest.mark.parametrize("array", [np.linspace(0, 1, 4).reshape(2, 2), np.full((2, 2), 255, np.uint8),
                                   np.full((2, 2), 255, np.int32), np.array([[np.nan, 0.5], [1.0, 0.0]]),
                                   np.full((2, 2), -3, np.int16)],
                         ids=["unit-float", "uint8", "int32-255", "nan", "int16-full-range"])
def test_values_in_range_do_not_warn(array):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        summary.image("fine", array, dataformats="HW")
    assert clipped_warnings(record) == []


def test_image_samples_warn_too():
    with pytest.warns(ClippedValuesWarning, match="'batch'"):
        summary.image_samples("batch", np.full((2, 3, 3, 3), 9.0))


def test_audio_out_of_range_warns_once_per_tag_and_is_still_clipped():
    clip = np.array([0.0, 5.0, -5.0, 0.5])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        protos = [summary.audio("loud", clip, 8000) for _ in range(3)]
        summary.audio("quiet", clip / 10, 8000)
    messages = clipped_warnings(record)
    assert len(messages) == 1 and "'loud'" in messages[0] and "[-5, 5]" in messages[0] and "[-1, 1]" in messages[0]
    samples = np.frombuffer(protos[0].value[0].audio.encoded_audio_string[44:], "<i2")
    assert samples.tolist() == [0, 32767, -32767, 16384]


def test_through_the_summary_writer_each_tag_once(tmp_path):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        with tensorboard.SummaryWriter(tmp_path) as writer:
            for step in range(3):
                writer.add_image("img", np.full((3, 4, 4), 128.0), step)
                writer.add_audio("snd", np.full((1, 50), 2.0), step, sample_rate=8000)
    messages = clipped_warnings(record)
    assert len(messages) == 2 and any("'img'" in m for m in messages) and any("'snd'" in m for m in messages)
    run = upstream_read(tmp_path)["runs"]["."]
    assert len(run["images"]["img"]) == 3
