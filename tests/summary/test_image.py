"""summary.image / images: pixel rules, layouts, grids and the PNG encoder."""
import io
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image

from tensorboard import summary
from tensorboard.summary.image import make_grid, to_uint8
from tensorboard.summary.png import encode_png


def decode(summary_proto):
    (value,) = summary_proto.value
    image = Image.open(io.BytesIO(value.image.encoded_image_string))
    assert image.format == "PNG"
    assert (image.width, image.height) == (value.image.width, value.image.height)
    return np.asarray(image), value.image


@settings(max_examples=150, deadline=None)
@given(hnp.arrays(np.uint8, st.tuples(st.integers(1, 40), st.integers(1, 40), st.sampled_from([1, 2, 3, 4]))))
def test_png_round_trips_any_pixels(pixels):
    decoded = np.asarray(Image.open(io.BytesIO(encode_png(pixels))))
    np.testing.assert_array_equal(decoded.reshape(pixels.shape), pixels)


def test_png_filters_compress_smooth_images():
    gradient = np.tile(np.arange(256, dtype=np.uint8), (64, 1))
    assert len(encode_png(gradient)) < 1000 < gradient.size


def test_png_stores_incompressible_pixels_and_deflates_the_rest():
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, (256, 256, 3), dtype=np.uint8)
    smooth = np.broadcast_to(np.arange(256, dtype=np.uint8)[:, None, None], (256, 256, 3)).copy()
    half = smooth.copy()
    half[:128] = noise[:128]
    for pixels in (noise, smooth, half):
        png = encode_png(pixels)
        assert np.array_equal(np.asarray(Image.open(io.BytesIO(png))), pixels)
    assert len(encode_png(noise)) < noise.size * 1.01  # stored: no bigger than the raw pixels
    assert len(encode_png(smooth)) < smooth.size / 50
    assert len(encode_png(half)) < half.size * 0.55  # the smooth half still compresses


def test_png_rejects_bad_input():
    with pytest.raises(TypeError):
        encode_png(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError):
        encode_png(np.zeros((2, 2, 5), np.uint8))


@pytest.mark.parametrize("array,expected", [
    (np.array([0.0, 0.5, 1.0, 1.7, -0.2, np.nan]), [0, 128, 255, 255, 0, 0]),
    (np.array([False, True]), [0, 255]),
    (np.array([0, 7, 255], np.uint8), [0, 7, 255]),
    (np.array([0, 257, 65535], np.uint16), [0, 1, 255]),
    (np.array([-32768, 0, 32767], np.int16), [0, 128, 255]),
    (np.array([-128, 127], np.int8), [0, 255]),
    (np.array([-5, 0, 100, 300], np.int64), [0, 0, 100, 255]),
    (np.array([3, 1000], np.uint32), [3, 255]),
])
def test_pixel_rule(array, expected):
    assert to_uint8(array).tolist() == expected


def test_float_pixels_beyond_float32_range_clip_without_a_warning():
    array = np.array([1e300, -1e300, np.inf, -np.inf, 2e38, 0.25])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert to_uint8(array).tolist() == [255, 0, 255, 0, 255, 64]


def test_seed_002_int16_image_is_accepted():
    weights = np.random.default_rng(0).standard_normal((20, 30))[..., np.newaxis]
    img = ((weights - weights.min()) * 0xffff / (weights.max() - weights.min())).astype(np.int16)
    pixels, proto = decode(summary.image("fc1-weight_epoch0", img))
    assert pixels.shape == (20, 30) and proto.colorspace == 1


RGB = np.random.default_rng(1).integers(0, 256, (4, 5, 3), dtype=np.uint8)  # H W C


@pytest.mark.parametrize("dataformats,array,expected", [
    ("HW", RGB[:, :, 0], RGB[:, :, 0]),
    ("HWC", RGB, RGB),
    ("CHW", RGB.transpose(2, 0, 1), RGB),
    ("NCHW", RGB.transpose(2, 0, 1)[None], RGB),
    ("NHWC", RGB[None], RGB),
    ("WHC", RGB.transpose(1, 0, 2), RGB),
    ("chw", RGB.transpose(2, 0, 1), RGB),
    ("HWC", RGB[:, :, :1], RGB[:, :, 0]),
])
def test_dataformats(dataformats, array, expected):
    pixels, proto = decode(summary.image("t", array, dataformats=dataformats))
    np.testing.assert_array_equal(pixels, expected)
    assert proto.colorspace == (1 if expected.ndim == 2 else 3)


def test_grid_of_batch():
    batch = np.arange(10 * 2 * 3, dtype=np.uint8).reshape(10, 2, 3, 1)
    grid = make_grid(batch)
    assert grid.shape == (4, 24, 1)  # 8 columns, 2 rows
    np.testing.assert_array_equal(grid[2:4, 3:6], batch[9])
    assert not grid[2:, 6:].any()
    pixels, _ = decode(summary.images("b", batch.transpose(0, 3, 1, 2)))
    np.testing.assert_array_equal(pixels, grid[:, :, 0])


def test_rescale():
    image = np.random.default_rng(2).random((3, 4, 3))
    pixels, proto = decode(summary.image("r", image, rescale=2))
    assert (proto.height, proto.width) == (6, 8)
    np.testing.assert_array_equal(pixels[::2, ::2], to_uint8(image))
    _, proto = decode(summary.image("r", image, rescale=0.5))
    assert (proto.height, proto.width) == (2, 2)


@pytest.mark.parametrize("args,error,match", [
    ((np.zeros((5, 5, 7)),), ValueError, r"^tensor: expected 1, 3 or 4 channels .* got shape \(5, 5, 7\)"),
    ((np.zeros((5, 5)),), ValueError, r"^tensor: dataformats 'HWC' needs a 3-d array, got shape \(5, 5\)"),
    ((np.zeros((5, 5, 3)), 1, "HHC"), ValueError, "^dataformats: "),
    ((np.zeros((0, 5, 3)),), ValueError, "^tensor: image is empty"),
    ((np.array([["a"]]), 1, "HW"), TypeError, "^tensor: expected numeric"),
    ((np.zeros((2, 2)), 0, "HW"), ValueError, "^rescale: "),
])
def test_errors_name_the_argument(args, error, match):
    with pytest.raises(error, match=match):
        summary.image("t", *args)


def test_image_size_is_bounded_before_pixels_are_converted():
    from tensorboard.summary.image import MAX_IMAGE_SIDE, check_image_size

    with pytest.raises(ValueError,
                       match=rf"^rescale: the image would be 40000x40000 px .* at most {MAX_IMAGE_SIDE} px"):
        summary.image("i", np.zeros((4, 4, 3), np.uint8), rescale=10000)
    with pytest.raises(ValueError, match=r"^tensor: the image would be 33000x1 px \(shape \(33000, 1\)"):
        check_image_size((33000, 1), "HW")
    with pytest.raises(ValueError, match=r"^tensor: the image would be 20x40000 px \(shape \(8, 1, 20, 5000\), tiled"):
        check_image_size((8, 1, 20, 5000), "NCHW")
    check_image_size((64, 1, 20, 4000), "NCHW", tiled=False)  # samples are not tiled
    check_image_size((1, 3, MAX_IMAGE_SIDE, 1), "NCHW")
