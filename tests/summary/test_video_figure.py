"""summary.video (animated GIF) and summary.figure / figure_to_image (matplotlib)."""
import io
import warnings

import numpy as np
import pytest
from PIL import Image

from tensorboard import summary


def test_video_frames_and_timing():
    video = (np.arange(4)[:, None, None, None] * 60 * np.ones((4, 1, 3, 5))).astype(np.uint8)  # T C H W
    (value,) = summary.video("v", video[None], fps=10).value
    gif = Image.open(io.BytesIO(value.image.encoded_image_string))
    assert gif.format == "GIF" and gif.n_frames == 4 and gif.info["duration"] == 100
    for index in range(4):
        gif.seek(index)
        assert set(np.asarray(gif.convert("L")).reshape(-1)) == {index * 60}


def gif_delays(value) -> list:
    """Each frame's delay in ms, read from the GIF's own graphic control blocks (1/100 s units)."""
    data = value.image.encoded_image_string
    delays, at = [], data.find(b"\x21\xf9\x04")
    while at >= 0:
        delays.append(10 * int.from_bytes(data[at + 4:at + 6], "little"))
        at = data.find(b"\x21\xf9\x04", at + 1)
    return delays


@pytest.mark.parametrize("fps,delay", [(10, 100), (15, 70), (24, 40), (25, 40), (30, 30), (50, 20), (0.5, 2000)])
def test_video_delays_are_the_nearest_whole_centiseconds(fps, delay):
    video = np.zeros((1, 2, 1, 3, 3), np.uint8)
    video[0, 1] = 255
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (value,) = summary.video("v", video, fps=fps).value
    assert gif_delays(value) == [delay, delay]


@pytest.mark.parametrize("fps,delay,played", [(60, 20, "50"), (200, 20, "50"), (1000, 20, "50"),
                                              (0.001, 655350, "0.0015259 ")])
def test_video_rates_a_gif_cannot_play_warn_naming_fps(fps, delay, played):
    video = np.zeros((1, 2, 1, 3, 3), np.uint8)
    video[0, 1] = 255
    with pytest.warns(UserWarning, match=f"^fps: a GIF cannot play {fps:g} frames/s in a browser; written at {played}"):
        (value,) = summary.video("v", video, fps=fps).value
    assert gif_delays(value) == [delay, delay]


def test_video_rgb_float_and_layout():
    video = np.random.default_rng(0).random((3, 6, 7, 3))  # T H W C
    (value,) = summary.video("v", video, dataformats="THWC").value
    assert (value.image.width, value.image.height, value.image.colorspace) == (7, 6, 3)


@pytest.mark.parametrize("args,match", [
    ((np.zeros((1, 2, 2, 4, 4)),), "^tensor: expected 1, 3 or 4 channels"),
    ((np.zeros((2, 3, 4, 4)),), "^tensor: dataformats 'NTCHW' needs"),
    ((np.zeros((2, 1, 4, 4)), 4, "TCHX"), "^dataformats: "),
    ((np.zeros((1, 2, 1, 4, 4)), 0), "^fps: "),
])
def test_video_errors(args, match):
    with pytest.raises(ValueError, match=match):
        summary.video("v", *args)


def test_figure():
    plt = pytest.importorskip("matplotlib.pyplot")
    figure = plt.figure(figsize=(2, 1), dpi=50)
    figure.gca().plot([0, 1], [1, 0])
    pixels = summary.figure_to_image(figure, close=False)
    assert pixels.shape == (50, 100, 4) and pixels.dtype == np.uint8
    assert plt.fignum_exists(figure.number)
    (value,) = summary.figure("fig", figure).value
    assert (value.image.width, value.image.height, value.image.colorspace) == (100, 50, 4)
    assert not plt.fignum_exists(figure.number)
    with pytest.raises(TypeError, match="^figure: "):
        summary.figure_to_image(object())


def test_a_list_of_figures_is_one_batch_closed_only_once_logged(tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    from upstream import upstream_run

    from tensorboard import SummaryWriter

    small, large, other = (plt.figure(figsize=size, dpi=50) for size in ((2, 1), (3, 1), (2, 1)))
    with SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(ValueError, match=r"^figure: the figures of a list .* got \[\(50, 100\), \(50, 150\)\]"):
            writer.add_figure("figs", [small, large], 0)
        with pytest.raises(TypeError, match="^figure: expected a matplotlib Figure"):
            writer.add_figure("figs", [small, "not a figure"], 0)
        assert all(plt.fignum_exists(f.number) for f in (small, large))  # nothing closed: fix and log again
        writer.add_figure("figs", [small, other], 1)
    assert not any(plt.fignum_exists(f.number) for f in (small, other)) and plt.fignum_exists(large.number)
    plt.close(large)
    images = upstream_run(tmp_path)["images"]["figs"]
    assert [(step, width, height) for step, width, height, _ in images] == [(1, 200, 50)]
