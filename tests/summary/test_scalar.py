"""summary.scalar: float32 simple_value, metadata only when asked for."""
import math

import numpy as np
import pytest

from tensorboard import summary


def test_seed_002_call():
    (value,) = summary.scalar("train-accuracy", 0.9).value
    assert value.tag == "train-accuracy" and value.simple_value == np.float32(0.9)
    assert not value.HasField("metadata")


def test_nan_inf_and_framework_scalars():
    assert math.isnan(summary.scalar("x", float("nan")).value[0].simple_value)
    assert summary.scalar("x", np.array([-np.inf])).value[0].simple_value == -math.inf
    assert summary.scalar("x", np.int64(3)).value[0].simple_value == 3.0


def test_display_name_and_description():
    (value,) = summary.scalar("x", 1, display_name="X", description="an x").value
    assert (value.metadata.display_name, value.metadata.summary_description) == ("X", "an x")


@pytest.mark.parametrize("tag,value,error,match", [
    ("x", "1.0", TypeError, "^value: "), ("x", None, TypeError, "^value: "), ("x", [1, 2], TypeError, "^value: "),
    ("", 1.0, ValueError, "^tag: "), (None, 1.0, TypeError, "^tag: "),
])
def test_errors(tag, value, error, match):
    with pytest.raises(error, match=match):
        summary.scalar(tag, value)
