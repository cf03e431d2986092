"""Default-bucket counts equal a binary search over the same limits, on every path and adversarial values.

Paths (tensorboard.summary._histogram_counts): binary search (small inputs), float32/float64 cell
tables (chunked, with lanes of counters), common values or hot buckets counted by comparisons first
(_histogram_plan), counting 8/16-bit bit patterns (float16, bfloat16, int8...), constant data. The
thresholds that pick a path are lowered here so small hypothesis examples reach every path; the
sums are checked on every path too.
"""
import contextlib
import importlib
import threading

import ml_dtypes
import numpy as np
import pytest
from bounds import squares_are_within_bound, sum_is_within_bound
from hypothesis import given, settings
from hypothesis import strategies as st
from matrix import SKIP_PREFIX
from upstream import upstream_run

from tensorboard import SummaryWriter
from tensorboard.summary.histogram import default_bucket_limits, histogram_proto

try:
    import torch
except ImportError:  # only in the Python matrix (tests/matrix.py), where torch's cases skip
    torch = None
NO_TORCH = pytest.mark.skipif(torch is None, reason=f"{SKIP_PREFIX} torch")

counting = importlib.import_module("tensorboard.summary._histogram_counts")
planning = importlib.import_module("tensorboard.summary._histogram_plan")
by_pattern = importlib.import_module("tensorboard.summary._histogram_patterns")
LIMITS = default_bucket_limits()
F32_MAX = float(np.finfo(np.float32).max)


def reference(values64):
    """(limits, counts) by np.searchsorted over LIMITS, empty runs collapsed as TensorFlow does."""
    counts = np.bincount(np.searchsorted(LIMITS, values64, side="left"), minlength=len(LIMITS))
    filled = np.flatnonzero(counts)
    limits, counts = LIMITS[filled[0]:filled[-1] + 1], counts[filled[0]:filled[-1] + 1]
    keep = (counts != 0) | np.append(counts[1:] != 0, True)
    return limits[keep].tolist(), counts[keep].tolist()


_FEW_CHUNKS = 300  # about the most chunks an input is cut into on the forced paths (see `path`)


@contextlib.contextmanager
def path(name, size=0):
    """Forces one counting path: "search", "tables" (in chunks of 7 values), "hot" (any bucket with
    1/8 of the sample counted by comparisons, the rest by tables, chunks of 5), "lanes" (tables with
    4 lanes of counters, chunks of 6), "values" (every value of an 8-value sample counted by equality,
    the rest by tables in lanes, chunks of 9), "words" (as "values", the rest always copied out word by
    word, chunks of 29), "fused" and "fused-words" (as "tables" and "words", with min and max taken
    chunk by chunk, as for data beyond the cache), or "patterns". An input of `size` values longer
    than `_FEW_CHUNKS` such chunks gets longer ones: a few hundred chunk boundaries still fall all
    over it, where tens of thousands of them would only cost time."""
    fused = name.startswith("fused")
    name = name.removeprefix("fused-") if name != "fused" else "tables"
    by_value = name in ("values", "words")
    chunk = {"tables": 7, "hot": 5, "lanes": 6, "values": 9, "words": 29}.get(name)
    if chunk and size > chunk * _FEW_CHUNKS:
        chunk += size // _FEW_CHUNKS
    settings = {
        counting: dict(_SMALL=1 << 40 if name == "search" else 0,
                       _CHUNK=chunk or counting._CHUNK,
                       _FUSE_BYTES=0 if fused else 1 << 60,
                       _HOT_MIN=0 if name in ("hot", "lanes", "values", "words") else 1 << 40),
        by_pattern: dict(_PATTERN_FACTOR=0 if name == "patterns" else 1 << 40),
        planning: dict(VALUE_SHARE=0.0 if by_value else 2.0, HOT_SHARE=2.0 if name == "lanes" else 0.0,
                       LANE_SHARE=0.0, SAMPLE=8 if by_value else planning.SAMPLE,
                       _EACH=0.0 if by_value else planning._EACH,
                       SPARSE_KEPT=(0.0, 1.0) if name == "words" else (2.0, 2.0)),
    }
    saved = {module: {key: getattr(module, key) for key in values} for module, values in settings.items()}
    for module, values in settings.items():
        for key, value in values.items():
            setattr(module, key, value)
    try:
        yield
    finally:
        for module, values in saved.items():
            for key, value in values.items():
                setattr(module, key, value)


FLOAT_PATHS = ("search", "tables", "hot", "lanes", "values", "words", "fused", "fused-words")  # float32/float64 input


def check(values, widened, paths=FLOAT_PATHS):
    """histogram_proto(values) on each path == the reference over `widened` (float64 of the same values)."""
    widened = np.asarray(widened, dtype=np.float64).reshape(-1)
    expected = reference(widened)
    for name in paths:
        with path(name, widened.size):
            histo = histogram_proto(values)
        assert (list(histo.bucket_limit), list(histo.bucket)) == expected, name
        assert (histo.min, histo.max, histo.num) == (widened.min(), widened.max(), widened.size), name
        if np.abs(widened).max() < 1e150:  # sums in an order the host's kernels pick: within the stated bounds
            assert sum_is_within_bound(histo.sum, widened), name
            assert squares_are_within_bound(histo.sum_squares, widened), name


def _near_limits():
    """Each finite limit, its float64 neighbours, and the float32 values around it (±2 float32 steps)."""
    edges = LIMITS[1:-1]
    out = [edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)]
    e32 = edges.astype(np.float32)
    for steps in range(3):
        up, down = e32.copy(), e32.copy()
        for _ in range(steps):
            up, down = np.nextafter(up, np.float32(np.inf)), np.nextafter(down, np.float32(-np.inf))
        out += [up.astype(np.float64), down.astype(np.float64)]
    return np.unique(np.concatenate(out))


NEAR_LIMITS = _near_limits()
SPECIAL = np.array([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.4e-45, -1.4e-45, 1.1754944e-38,
                    1e-12, -1e-12, 1e-13, 1e20, -1e20, 1.0000000000000002e20, 3e38, F32_MAX, -F32_MAX,
                    F32_MAX * 1.0000001, 1e39, 1e300, -1e300, np.finfo(np.float64).max, -np.finfo(np.float64).max])
POOL = np.concatenate([NEAR_LIMITS, SPECIAL])

adversarial = st.lists(st.one_of(st.sampled_from(POOL.tolist()),
                                 st.floats(allow_nan=False, allow_infinity=False),
                                 st.floats(-1e-10, 1e-10), st.floats(-1e25, 1e25)), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(adversarial)
def test_float64_matches_reference(values):
    check(np.array(values, dtype=np.float64), values)


@settings(max_examples=300, deadline=None)
@given(adversarial)
def test_float32_matches_reference(values):
    with np.errstate(over="ignore"):
        values32 = np.array(values, dtype=np.float64).astype(np.float32)
    values32 = values32[np.isfinite(values32)]
    if values32.size:
        check(values32, values32)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 0xFFFF), min_size=1, max_size=60), st.sampled_from(["float16", "bfloat16"]))
def test_16bit_floats_match_reference(patterns, fmt):
    bits = np.array(patterns, dtype=np.uint16)
    widened = (bits.astype(np.uint32) << 16).view(np.float32) if fmt == "bfloat16" else bits.view(np.float16)
    finite = np.isfinite(widened)
    bits, widened = bits[finite], widened[finite]
    if bits.size:
        values = bits.view(ml_dtypes.bfloat16) if fmt == "bfloat16" else bits.view(np.float16)
        check(values, widened, paths=FLOAT_PATHS + ("patterns",))


@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_every_16bit_float_value(fmt):
    """All 63,488 finite float16 / 65,280 finite bfloat16 values at once, on every path."""
    bits = np.arange(1 << 16, dtype=np.uint32)
    widened = (bits << 16).view(np.float32) if fmt == "bfloat16" else bits.astype(np.uint16).view(np.float16)
    keep = np.isfinite(widened)
    bits16 = bits.astype(np.uint16)[keep]
    values = bits16.view(ml_dtypes.bfloat16) if fmt == "bfloat16" else bits16.view(np.float16)
    check(values, widened[keep], paths=FLOAT_PATHS + ("patterns",))


@NO_TORCH
def test_torch_16bit_tensors_are_counted_by_pattern_unwidened():
    source = torch.randn(300_000) * torch.logspace(-14, 4, 300_000)
    for dtype in (torch.bfloat16, torch.float16):
        tensor = source.to(dtype)[::3]  # non-contiguous
        widened = tensor.float().numpy()
        widened = widened[np.isfinite(widened)]
        tensor = tensor[torch.isfinite(tensor)]
        check(tensor, widened, paths=FLOAT_PATHS + ("patterns",))
        histo = histogram_proto(tensor)  # default thresholds: the pattern path
        assert sum_is_within_bound(histo.sum, widened) and squares_are_within_bound(histo.sum_squares, widened)


def test_every_float32_cell_boundary():
    """The first and last float32 of each 65,536-pattern cell (where a cell's table entry is read)."""
    cells = np.arange(1 << 16, dtype=np.uint32) << np.uint32(16)
    values = np.concatenate([cells, cells + np.uint32(0xFFFF), cells + np.uint32(0x8000)]).view(np.float32)
    values = values[np.isfinite(values)]
    check(values, values)
    check(values.astype(np.float64), values)


def test_float64_values_rounding_onto_float32_neighbours_of_limits():
    """float64 values within half a float32 step of a limit's float32 rounding: cell found by rounding, bucket exact."""
    e32 = LIMITS[1:-1].astype(np.float32).astype(np.float64)
    step = np.abs(np.nextafter(e32.astype(np.float32), np.float32(np.inf)).astype(np.float64) - e32)
    values = np.concatenate([LIMITS[1:-1], e32 + step * 0.49, e32 - step * 0.49, e32 + step * 0.5, e32 - step * 0.5,
                             np.nextafter(LIMITS[1:-1], np.inf), np.nextafter(LIMITS[1:-1], -np.inf)])
    check(values, values)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64])
def test_integers_on_every_path(dtype):
    info = np.iinfo(dtype) if dtype is not np.bool_ else None
    rng = np.random.default_rng(7)
    if info is None:
        values = rng.integers(0, 2, 5000).astype(bool)
    else:
        values = rng.integers(max(info.min, -2 ** 40), min(info.max, 2 ** 40), 5000, endpoint=True).astype(dtype)
        values[:4] = [info.min, info.max, 0, 1] if info.min < 0 else [0, info.max, 1, 2]
    check(values, values.astype(np.float64), paths=FLOAT_PATHS + ("patterns",))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_few_valued_data_on_the_comparison_path(dtype):
    """0/1 masks, mostly zeros with outliers, values on hot buckets' edges: by default thresholds too."""
    rng = np.random.default_rng(3)
    mask = rng.integers(0, 2, 100_000).astype(dtype)
    sparse = np.where(rng.random(100_000) < 0.97, 0.0, rng.standard_normal(100_000)).astype(dtype)
    edges = np.where(rng.random(100_000) < 0.5, LIMITS[1000], np.nextafter(LIMITS[1000], np.inf)).astype(dtype)
    edges[::1000] = np.nextafter(LIMITS[999], -np.inf)
    relu = np.maximum(rng.standard_normal(100_000), 0).astype(dtype)
    for values in (mask, sparse, -sparse, relu, edges, np.concatenate([edges, NEAR_LIMITS.astype(dtype)])):
        values = values[np.isfinite(values)]
        check(values, values)
        histo = histogram_proto(values)
        wide = values.astype(np.float64)
        assert (list(histo.bucket_limit), list(histo.bucket)) == reference(wide)
        assert sum_is_within_bound(histo.sum, wide) and squares_are_within_bound(histo.sum_squares, wide)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [8, 15, 64, 1001, 65_541])
@pytest.mark.parametrize("share", [0.0, 0.004, 1 / 64, 0.05, 0.1, 0.3, 1.0])
def test_copying_kept_values_word_by_word_equals_compress(dtype, size, share, monkeypatch):
    """The word-by-word copy of the values left to the tables keeps exactly those, in order."""
    rng = np.random.default_rng([size, int(share * 1000)])
    part = rng.standard_normal(size).astype(dtype)
    keep = rng.random(size) < share
    kept = int(np.count_nonzero(keep))
    out, spare, flags = np.full(size, np.nan, dtype), np.empty(size, dtype), np.empty(size, np.bool_)
    monkeypatch.setattr(planning, "SPARSE_KEPT", (0.0, 1.0))  # any share goes word by word
    copied = planning.copy_kept(part, keep, kept, out, spare, flags)
    assert np.array_equal(copied, part[keep])
    assert kept == 0 or np.shares_memory(copied, out)  # in the buffer given


def test_the_default_plan_counts_masks_and_zeros_by_value_and_leaves_spread_data_alone():
    """With the default thresholds, the values-by-equality path is the one masks and ReLU zeros take."""
    rng = np.random.default_rng(4)
    normal = rng.standard_normal(100_000).astype(np.float32)
    cases = {"mask": (rng.integers(0, 2, 100_000).astype(np.float32), [0.0, 1.0]),
             "relu": (np.maximum(normal, 0), [0.0]),
             "sparse": (np.where(rng.random(100_000) < 0.95, 0, normal).astype(np.float32), [0.0])}
    for name, (values, common) in cases.items():
        plan = planning.sample_plan(values, LIMITS, 4)
        assert plan.values.tolist() == common and not plan.hot, name
    assert planning.sample_plan(normal, LIMITS, 4) is planning.NO_PLAN


def test_constant_data_is_one_bucket_with_exact_sums():
    for value in (0.5, -0.0, 1e-30, 1e30, 1e-12):
        values = np.full(100_000, value, dtype=np.float32)
        check(values, values)
        histo = histogram_proto(values)
        assert list(histo.bucket) == [100_000]
        assert histo.sum == pytest.approx(100_000 * float(values[0]), rel=1e-12)
        assert histo.sum_squares == pytest.approx(100_000 * float(values[0]) ** 2, rel=1e-12)


@pytest.mark.parametrize("values", [
    np.array([1.0, np.nan] * 50_000, dtype=np.float32),
    np.array([1.0, np.inf] * 50_000, dtype=np.float64),
    np.array([1.0, -np.inf] * 50_000, dtype=np.float16),
    np.array([1.0, np.nan] * 50_000, dtype=ml_dtypes.bfloat16),
    pytest.param(lambda: torch.tensor([1.0, float("nan")] * 50_000, dtype=torch.bfloat16), marks=NO_TORCH),
    pytest.param(lambda: torch.tensor([1.0, float("inf")] * 50, dtype=torch.float16), marks=NO_TORCH),
], ids=["f32-nan", "f64-inf", "f16-ninf", "bf16-nan", "torch-bf16-nan", "torch-f16-inf-small"])
def test_non_finite_values_are_refused_with_their_count(values):
    values = values() if callable(values) else values  # torch's cases are made when they run
    size = values.numel() if torch is not None and isinstance(values, torch.Tensor) else values.size
    with pytest.raises(ValueError, match=f"^values: {size // 2} of {size} values are NaN or infinite"):
        histogram_proto(values)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("path_name", ["fused", "fused-words"])
def test_non_finite_values_the_sample_misses_are_refused_on_the_fused_paths(dtype, bad, path_name):
    """Min and max taken chunk by chunk still refuse data whose sample is finite, with the count."""
    values = np.random.default_rng(2).standard_normal(100_003).astype(dtype)
    values[[1, 50_001, 100_002]] = bad  # the 256-value sample takes every 390th value from 0
    with path(path_name), pytest.raises(ValueError, match="^values: 3 of 100003 values are NaN or infinite"):
        histogram_proto(values)


def test_fused_min_and_max_are_taken_only_for_spread_data_beyond_the_cache(monkeypatch):
    """From 16 MB a spread sample fuses min and max into the counting; constant data and data with a
    non-finite sample keep the separate min and max (constant data is then not counted at all)."""
    calls = []
    real = counting._count_chunks
    monkeypatch.setattr(counting, "_count_chunks", lambda flat, fuse: calls.append(fuse) or real(flat, fuse))
    spread = np.random.default_rng(1).standard_normal(4_500_000).astype(np.float32)  # 18 MB
    constant = np.full(4_500_000, 0.5, dtype=np.float32)
    nan_sample = spread.copy()
    nan_sample[::1000] = np.nan
    assert reference(spread.astype(np.float64)) == (lambda h: (list(h.bucket_limit), list(h.bucket)))(
        histogram_proto(spread))
    assert list(histogram_proto(constant).bucket) == [4_500_000.0]
    with pytest.raises(ValueError, match="^values: 4500 of 4500000 values are NaN"):
        histogram_proto(nan_sample)
    assert histogram_proto(spread[:4_000_000]).num == 4_000_000  # 16.0 MB: below 16 MiB
    assert calls == [True, False]  # the spread data fused; the smaller array counted after its min and max


def test_threads_share_tables_and_keep_their_own_buffers():
    """Each thread goes through every input (float tables, and 8/16-bit patterns counted in reused
    counters) in its own order, three times."""
    rng = np.random.default_rng(11)
    inputs = [rng.standard_normal(50_000).astype(dtype) * 10.0 ** k
              for k in range(-3, 3) for dtype in (np.float32, np.float64)]
    inputs += [(rng.standard_normal(70_000) * 10.0 ** k).astype(np.float16) for k in (-2, 2)]
    inputs += [rng.integers(-128, 128, 3_000).astype(np.int8), rng.integers(0, 1 << 16, 140_000).astype(np.uint16)]
    expected = [reference(v.astype(np.float64)) for v in inputs]
    results = {}

    def work(i):
        order = list(range(i, len(inputs))) + list(range(i))
        for _ in range(3):
            for k in order:
                histo = histogram_proto(inputs[k])
                results[i, k] = (list(histo.bucket_limit), list(histo.bucket))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {(i, k): expected[k] for i in range(len(inputs)) for k in range(len(inputs))}


def test_upstream_reads_back_exact_histograms(tmp_path):
    """Histograms from every path, written by our SummaryWriter, read by upstream's EventAccumulator."""
    rng = np.random.default_rng(5)
    normal = rng.standard_normal(200_000, dtype=np.float32)
    cases = {
        "float32": (normal, normal),
        "float64_wide": (lambda v: (v, v))(rng.standard_normal(100_000) * 10.0 ** rng.uniform(-14, 22, 100_000)),
        "edges": (NEAR_LIMITS, NEAR_LIMITS),
        "float16": (normal.astype(np.float16), normal.astype(np.float16)),
        "int8": (lambda v: (v, v))(rng.integers(-128, 128, 100_000).astype(np.int8)),
        "constant": (np.full(100_000, 0.25, np.float32), np.full(100_000, 0.25, np.float32)),
        "mask": (lambda v: (v, v))(rng.integers(0, 2, 100_000).astype(np.float32)),  # values by equality
        "relu": (lambda v: (v, v))(np.maximum(normal, 0)),  # zeros by equality, the rest by the tables
        "sparse": (lambda v: (v, v))(np.where(rng.random(200_000) < 0.95, np.float32(0), normal)),  # words
        "small": (normal[:100], normal[:100]),
    }
    if torch is not None:  # every Python but the matrix's (tests/matrix.py)
        cases["torch_bfloat16"] = (torch.from_numpy(normal).to(torch.bfloat16),
                                   torch.from_numpy(normal).to(torch.bfloat16).float().numpy())
    with SummaryWriter(str(tmp_path)) as writer:
        for tag, (values, _) in cases.items():
            writer.add_histogram(tag, values, 3)
    run = upstream_run(tmp_path)
    for tag, (_, widened) in cases.items():
        widened = np.asarray(widened, dtype=np.float64)
        (step, histo), = run["histograms"][tag]
        assert step == 3
        assert (histo["bucket_limit"], histo["bucket"]) == reference(widened), tag
        assert (histo["min"], histo["max"], histo["num"]) == (widened.min(), widened.max(), widened.size), tag
        # summed in an order the host's BLAS kernel picks (the edges cancel to 0.0 on one kernel, to 2**20 on
        # another): within the bounds docs/guarantees.md states, not exactly rounded
        assert sum_is_within_bound(histo["sum"], widened), tag
        assert squares_are_within_bound(histo["sum_squares"], widened), tag
