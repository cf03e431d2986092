"""Run in the MXNet venv (NumPy 1.23: no `np.vecdot`, a slow `np.add.at`): the default-bucket counts on
every float path, and of 8/16-bit input counted by bit pattern, equal a binary search, and the sums are
exact to rounding. Prints a JSON summary."""
import importlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: the bounds every host holds
from bounds import squares_are_within_bound, sum_is_within_bound  # noqa: E402

histogram = importlib.import_module("tensorboard.summary.histogram")
counting = importlib.import_module("tensorboard.summary._histogram_counts")
by_pattern = importlib.import_module("tensorboard.summary._histogram_patterns")
planning = importlib.import_module("tensorboard.summary._histogram_plan")
LIMITS = histogram.default_bucket_limits()


def values():
    """Named float32/float64 inputs: every limit and its float32/float64 neighbours, spread and skewed data."""
    rng = np.random.default_rng(3)
    edges = LIMITS[1:-1]
    e32 = edges.astype(np.float32)
    near = [edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf), e32.astype(np.float64),
            np.nextafter(e32, np.float32(np.inf)).astype(np.float64),
            np.nextafter(e32, np.float32(-np.inf)).astype(np.float64)]
    near = np.concatenate(near)
    near32 = near[np.abs(near) < 3e38].astype(np.float32)
    spread = rng.standard_normal(50_000) * 10.0 ** rng.uniform(-14, 22, 50_000)
    relu = np.maximum(rng.standard_normal(50_000), 0)
    mask = rng.integers(0, 2, 50_000) * 0.75
    sparse = np.where(rng.random(50_000) < 0.95, 0.0, rng.standard_normal(50_000))
    return {"near_f64": near, "near_f32": near32, "spread_f64": spread, "spread_f32": spread.astype(np.float32),
            "relu_f32": relu.astype(np.float32), "relu_f64": relu, "mask_f32": mask.astype(np.float32),
            "sparse_f32": sparse.astype(np.float32)}


def pattern_inputs():
    """Named 8/16-bit inputs: every finite float16, normal float16 values, int8 and uint16 values."""
    rng = np.random.default_rng(4)
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    return {"every_f16": every[np.isfinite(every)], "normal_f16": rng.standard_normal(70_000).astype(np.float16),
            "int8": rng.integers(-128, 128, 5_000).astype(np.int8),
            "uint16": rng.integers(0, 1 << 16, 70_000).astype(np.uint16)}


PATHS = {  # name -> settings forcing it, of the counting module and (plan.X) of the plan module
    "tables": {"_CHUNK": 4096, "_HOT_MIN": 1 << 40},
    "lanes": {"_CHUNK": 4093, "_HOT_MIN": 0, "plan.VALUE_SHARE": 2.0, "plan.HOT_SHARE": 2.0, "plan.LANE_SHARE": 0.0},
    "hot": {"_CHUNK": 4095, "_HOT_MIN": 0, "plan.VALUE_SHARE": 2.0, "plan.HOT_SHARE": 0.0},
    "values": {"_CHUNK": 4091, "_HOT_MIN": 0, "plan.SAMPLE": 16, "plan._EACH": 0.0, "plan.VALUE_SHARE": 0.0},
    "words": {"_CHUNK": 4093, "_HOT_MIN": 0, "plan.SAMPLE": 16, "plan._EACH": 0.0, "plan.VALUE_SHARE": 0.0,
              "plan.SPARSE_KEPT": (0.0, 1.0)},  # what the comparisons leave, copied out word by word
    "fused": {"_CHUNK": 4096, "_HOT_MIN": 1 << 40, "_FUSE_BYTES": 0},  # min and max taken chunk by chunk
}


def _module_and_name(key):
    return (planning, key[5:]) if key.startswith("plan.") else (counting, key)


def main():
    checked = {}
    for name, data in values().items():
        wide = data.astype(np.float64)
        expected = np.bincount(np.searchsorted(LIMITS, wide, side="left"), minlength=len(LIMITS))
        for path, settings in PATHS.items():
            saved = {key: getattr(*_module_and_name(key)) for key in settings}
            for key, value in settings.items():
                setattr(*_module_and_name(key), value)
            try:
                counts, total, squares, lo, hi = counting.counts_and_range(data)
            finally:
                for key, value in saved.items():
                    setattr(*_module_and_name(key), value)
            assert counts.tolist() == expected.tolist(), (name, path)
            assert (lo, hi) == (wide.min(), wide.max()), (name, path)
            # float64 sums in any order: within the stated bounds
            assert sum_is_within_bound(total, wide), (name, path, total)
            assert squares_are_within_bound(squares, wide), (name, path, squares)
            checked[f"{name}/{path}"] = int(counts.sum())
    for name, data in pattern_inputs().items():  # counted by bit pattern (`bincount` on NumPy < 1.25)
        wide = data.astype(np.float64)
        saved = by_pattern._PATTERN_FACTOR
        by_pattern._PATTERN_FACTOR = 0
        try:
            histo = histogram.histogram_proto(data)
        finally:
            by_pattern._PATTERN_FACTOR = saved
        expected = np.bincount(np.searchsorted(LIMITS, wide, side="left"), minlength=len(LIMITS))
        filled = np.flatnonzero(expected)
        assert sum(histo.bucket) == wide.size and list(histo.bucket_limit)[-1] == LIMITS[filled[-1]], name
        assert [c for c in histo.bucket if c] == expected[filled].tolist(), name
        assert (histo.min, histo.max) == (wide.min(), wide.max()), name
        assert sum_is_within_bound(histo.sum, wide), (name, histo.sum)
        assert squares_are_within_bound(histo.sum_squares, wide), name
        checked[f"{name}/patterns"] = int(sum(histo.bucket))
    print(json.dumps({"numpy": np.__version__, "vecdot": hasattr(np, "vecdot"),
                      "fast_add_at": counting._FAST_ADD_AT, "checked": checked}))


if __name__ == "__main__":
    main()
