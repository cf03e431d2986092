"""Bounding series for the report: evenly spread indices keeping the first and last point, and the
distribution percentiles checked against upstream TensorBoard's own compressor."""
import json
import subprocess

import numpy as np
import pytest
from upstream import upstream_python

from tensorboard.report.downsample import PERCENTILE_BPS, even_indices, histogram_percentiles


@pytest.mark.parametrize("n,k", [(0, 5), (1, 5), (5, 5), (6, 5), (1000, 1000), (1001, 1000), (12345, 1000),
                                 (10**6, 2), (3, 2), (999999, 777)])
def test_even_indices_are_bounded_sorted_unique_and_keep_both_ends(n, k):
    picked = even_indices(n, k)
    assert len(picked) == min(n, k)
    assert list(picked) == sorted(set(picked.tolist()))
    if n:
        assert picked[0] == 0 and picked[-1] == n - 1
    if n > k:  # evenly spread: gaps differ by at most one
        gaps = np.diff(picked)
        assert gaps.max() - gaps.min() <= 1


def test_even_indices_keep_every_point_of_a_short_series():
    assert even_indices(7, 1000).tolist() == list(range(7))


@pytest.mark.parametrize("k", [1, 0, -3])
def test_fewer_than_two_points_is_refused(k):
    with pytest.raises(ValueError, match="max_points must be at least 2"):
        even_indices(10, k)


def test_percentiles_of_even_buckets_are_linear():
    limits = np.arange(1.0, 11.0)  # buckets (0,1], (1,2], ... (9,10]
    got = histogram_percentiles(0.0, 10.0, limits, np.ones(10))
    assert got == pytest.approx([bp / 1000 for bp in PERCENTILE_BPS])


def test_empty_histogram_gives_zeros_as_upstream():
    assert histogram_percentiles(2.0, 3.0, np.array([3.0]), np.array([0.0])) == [0.0] * 9


CASES = [
    (0.0, 10.0, list(np.arange(1.0, 11.0)), [1.0] * 10),
    (-3.5, 4.25, [-3.0, -1.0, 0.0, 0.5, 2.0, 4.25], [5.0, 0.0, 17.0, 2.0, 0.0, 9.0]),
    (1.0, 1.0, [1.0], [42.0]),
    (0.0, 5.0, [1.0, 2.0, 3.0, 4.0, 5.0, 1e300], [0.0, 0.0, 4.0, 1.0, 0.0, 0.0]),  # empty ends
    (0.0, 0.0, [1.0], [0.0]),
    (-1e-3, 7.0, [-1e-12, 1e-12, 3.0, 7.0], [3.0, 100.0, 1.0, 0.0]),
]

UPSTREAM = """
import json, sys
from tensorboard import data_compat
from tensorboard.compat.proto import summary_pb2
from tensorboard.plugins.distribution import compressor
from tensorboard.util import tensor_util
out = []
for lo, hi, limits, counts in json.loads(sys.stdin.read()):
    histo = summary_pb2.HistogramProto(min=lo, max=hi, num=sum(counts), bucket_limit=limits, bucket=counts)
    value = data_compat.migrate_value(summary_pb2.Summary.Value(tag="h", histo=histo))
    buckets = tensor_util.make_ndarray(value.tensor)
    out.append([float(v[1]) for v in compressor.compress_histogram(buckets)])
print(json.dumps(out))
"""


def test_percentiles_match_upstream_distribution_compressor():
    """Upstream's own path, HistogramProto -> bucket tensor (data_compat) -> compress_histogram, is
    the reference."""
    result = subprocess.run([upstream_python(), "-c", UPSTREAM], input=json.dumps(CASES), capture_output=True,
                            text=True, timeout=300, check=True)
    expected = json.loads(result.stdout)
    for (lo, hi, limits, counts), want in zip(CASES, expected):
        assert (histogram_percentiles(lo, hi, np.array(limits), np.array(counts))
                == pytest.approx(want, rel=1e-12, abs=1e-12))
