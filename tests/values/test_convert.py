"""convert.to_numpy / to_float: framework values without importing frameworks."""
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from tensorboard import summary
from tensorboard.values.convert import check_numeric, to_float, to_numpy


class FakeMXNet:
    """Duck-typed MXNet NDArray."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def asnumpy(self):
        return self.data


class ArrayLike:
    def __init__(self, data):
        self.data = np.asarray(data)

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)


def test_numpy_passes_through_without_copy():
    array = np.arange(6).reshape(2, 3)
    assert to_numpy(array) is array


@pytest.mark.parametrize("value,expected", [
    (3, np.array(3)), (2.5, np.array(2.5)), ([1, 2], np.array([1, 2])), ([[1.0], [2.0]], np.array([[1.0], [2.0]])),
    (np.float32(1.5), np.array(1.5, np.float32)), (True, np.array(True)),
])
def test_python_and_numpy_values(value, expected):
    result = to_numpy(value)
    assert isinstance(result, np.ndarray)
    np.testing.assert_array_equal(result, expected)
    assert result.dtype == expected.dtype


def test_duck_typed_mxnet_and_array_protocol():
    np.testing.assert_array_equal(to_numpy(FakeMXNet([1, 2, 3])), [1, 2, 3])
    np.testing.assert_array_equal(to_numpy(ArrayLike([[4.0]])), [[4.0]])


def test_none_and_strings_raise_naming_the_argument():
    with pytest.raises(TypeError, match="^weights: .*None"):
        to_numpy(None, "weights")
    with pytest.raises(TypeError, match="^values: expected numbers"):
        to_numpy("abc", "values")


def test_frameworks_are_not_imported():
    code = ("import sys, numpy as np; from tensorboard.values.convert import to_numpy, to_float; "
            "to_numpy([1, 2]); to_float(np.array([3.0])); import tensorboard.summary, tensorboard.projector; "
            "print(sorted({'torch', 'mxnet', 'jax', 'tensorflow', 'matplotlib', 'PIL'} & set(sys.modules)))")
    python_dir = str(Path(__file__).resolve().parents[2] / "python")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": python_dir})
    assert result.stdout.strip() == "[]"


def test_check_numeric():
    check_numeric(np.array([1, 2]), "x")
    with pytest.raises(TypeError, match="^x: expected numeric values, got dtype <U1"):
        check_numeric(np.array(["a"]), "x")
    with pytest.raises(TypeError, match="complex"):
        check_numeric(np.array([1j]), "x")


@pytest.mark.parametrize("value,expected", [
    (0.5, 0.5), (3, 3.0), (True, 1.0), (np.float16(0.25), 0.25), (np.int64(7), 7.0), (np.array(2.0), 2.0),
    (np.array([[4]]), 4.0), ([5.5], 5.5), (Fraction(1, 4), 0.25), (FakeMXNet([9.0]), 9.0),
    (ArrayLike(1.5), 1.5),
])
def test_to_float_accepts_scalars(value, expected):
    result = to_float(value)
    assert type(result) is float and result == expected


def test_to_float_keeps_nan_and_inf():
    assert math.isnan(to_float(float("nan")))
    assert to_float(np.float32("-inf")) == float("-inf")
    assert to_float(np.array([np.inf])) == float("inf")


@pytest.mark.parametrize("value,match", [
    (None, "expected a real number"), ("1.0", "expected a real number"), (1j, "expected a real number"),
    (np.zeros(2), "expected a single number, got an array of shape"), ([], "expected a single number"),
    (np.array(["x"]), "expected numeric values"),
])
def test_to_float_rejects_non_scalars_naming_the_argument(value, match):
    with pytest.raises(TypeError, match=f"^loss: {match}"):
        to_float(value, "loss")


def test_torch_tensors_if_available():
    torch = pytest.importorskip("torch")
    tensor = torch.arange(6, dtype=torch.float32, requires_grad=True).reshape(2, 3) * 2
    np.testing.assert_array_equal(to_numpy(tensor), np.arange(6).reshape(2, 3) * 2)
    bf16 = torch.tensor([1.5, 2.0], dtype=torch.bfloat16)
    assert to_numpy(bf16).dtype == np.float32
    assert to_float(torch.tensor(2.5, requires_grad=True)) == 2.5
    with pytest.raises(TypeError, match="^v: expected a single number"):
        to_float(torch.zeros(3), "v")


def test_ml_dtypes_bfloat16_widened_if_available():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    array = np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16)
    result = to_numpy(array.tolist() and ArrayLike(array))
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, [1.5, -2.0])


def test_float64_is_not_narrowed():
    assert to_numpy(ArrayLike(np.array([0.1]))).dtype == np.float64



BYTE_ORDER_CALLS = {  # encoder -> a call on pixels in byte order `o` ("<" or ">")
    "image uint16": lambda a, o: summary.image("t", a.astype(o + "u2"), dataformats="HW"),
    "image int16": lambda a, o: summary.image("t", (a - 30000).astype(o + "i2"), dataformats="HW"),
    "video uint16": lambda a, o: summary.video("t", np.stack([a, a[::-1]]).astype(o + "u2")[None, :, None], fps=4),
    "histogram float16": lambda a, o: summary.histogram("t", (a / 7.0).astype(o + "f2")),
    "histogram float64": lambda a, o: summary.histogram("t", (a * 1e-3).astype(o + "f8")),
    "audio int16": lambda a, o: summary.audio("t", (a - 30000).reshape(-1).astype(o + "i2"), 8000),
    "audio int32": lambda a, o: summary.audio("t", (a * 60000).reshape(-1).astype(o + "i4"), 8000),
    "pr_curve": lambda a, o: summary.pr_curve("t", (a.reshape(-1) % 2).astype(o + "i8"),
                                              (a.reshape(-1) / 65535).astype(o + "f4")),
    "mesh": lambda a, o: summary.mesh("t", a[:, :3].astype(o + "f8"), faces=np.array([[0, 1, 1]], o + "i8")),
}


@pytest.mark.parametrize("encoder", sorted(BYTE_ORDER_CALLS))
def test_big_endian_arrays_encode_as_their_little_endian_twins(encoder):
    pixels = np.array([[0, 100, 200, 250], [30000, 40000, 60000, 65535]], dtype=np.int64)
    call = BYTE_ORDER_CALLS[encoder]
    assert call(pixels, ">").SerializeToString() == call(pixels, "<").SerializeToString()


def test_big_endian_arrays_come_back_native():
    array = to_numpy(np.arange(4, dtype=">u2"))
    assert array.dtype == np.uint16 and array.dtype.isnative and array.tolist() == [0, 1, 2, 3]
