"""summary._layout: the shape-only check of a layout agrees with the array it arranges."""
import numpy as np
import pytest

from tensorboard.summary._layout import arrange, arranged_shape


@pytest.mark.parametrize("dataformats,shape", [("HW", (4, 5)), ("CHW", (3, 4, 5)), ("HWC", (4, 5, 1)),
                                               ("NCHW", (2, 3, 4, 5)), ("WHN", (5, 4, 2)), ("hwc", (4, 5, 3))])
def test_arranged_shape_is_the_shape_of_the_arranged_array(dataformats, shape):
    array = np.arange(np.prod(shape)).reshape(shape)
    arranged = arrange(array, dataformats, "NCHW", "HW", "NHWC", "tensor")
    assert arranged.shape == arranged_shape(shape, dataformats, "NCHW", "HW", "NHWC", "tensor")
    assert arranged.shape[1:3] == (4, 5) and np.shares_memory(arranged, array)  # a view, H and W found


def test_video_layout_and_errors_name_the_argument():
    assert arranged_shape((2, 3, 4, 5), "TCHW", "NTCHW", "THW", "TNHWC", "tensor") == (2, 1, 4, 5, 3)
    with pytest.raises(ValueError, match=r"^dataformats: expected distinct letters from N, T, C, H, W including "
                                         r"T, H and W, got 'NCHW'"):
        arranged_shape((1, 2, 3, 4), "NCHW", "NTCHW", "THW", "TNHWC", "tensor")
    with pytest.raises(ValueError, match=r"^video: dataformats 'THW' needs a 3-d array, got shape \(2, 3\)"):
        arranged_shape((2, 3), "THW", "NTCHW", "THW", "TNHWC", "video")
    with pytest.raises(TypeError, match="^dataformats: expected str, got int"):
        arranged_shape((2, 3), 7, "NCHW", "HW", "NHWC", "tensor")
