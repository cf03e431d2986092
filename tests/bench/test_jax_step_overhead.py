"""The JAX loop diagnostic's device-side counting (bench/jax_step_overhead.py) is exact: docs/design-decisions.md
compares the loop with it against the host kernel, so both must count the same buckets."""
import math
import sys

import numpy as np
import pytest
from upstream import REPO

jax = pytest.importorskip("jax")
sys.path.insert(0, str(REPO / "bench"))

import jax_step_overhead  # noqa: E402

from tensorboard.summary import _histogram_counts  # noqa: E402


@pytest.mark.parametrize("scale", [0.05, 1.0, 1e-9, 1e5])
def test_device_counts_equal_a_binary_search_over_the_default_limits(scale):
    values = jax.random.normal(jax.random.PRNGKey(1), (256, 256)) * scale
    keyed, low, high, total, squares = (np.asarray(part) for part in jax_step_overhead.device_counter()(values))
    limits = _histogram_counts.default_bucket_limits()
    counts = np.zeros(len(limits), dtype=np.int64)
    _histogram_counts.add_keyed(counts, keyed)
    host = np.asarray(values).ravel()
    expected = np.bincount(np.searchsorted(limits, host.astype(np.float64), side="left"), minlength=len(limits))
    assert counts.tolist() == expected.tolist()
    assert (float(low), float(high)) == (float(host.min()), float(host.max()))
    # float32 sums on the device, in an order XLA picks for the host's CPU: within n float32 roundings of the
    # magnitudes summed (the bound of any order; tests/bounds.py states it for float64)
    wide = host.astype(np.float64)
    float32_rounding = host.size * 2.0 ** -24
    assert abs(float(total) - math.fsum(wide)) <= float32_rounding * math.fsum(np.abs(wide))
    assert abs(float(squares) - math.fsum(wide * wide)) <= float32_rounding * math.fsum(wide * wide)
