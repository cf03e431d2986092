"""The histogram kernel on NumPy 1.23 (the MXNet venv): `bincount` instead of `np.add.at`, sums without
`np.vecdot`. Counts on every float path and by bit pattern equal a binary search over the limits there too."""
import json
from pathlib import Path

from seeds.mxnet_venv import run_mxnet

SCRIPT = Path(__file__).with_name("old_numpy_histogram_script.py")


def test_counts_and_sums_on_numpy_1_23(tmp_path):
    result = json.loads(run_mxnet([str(SCRIPT)], cwd=tmp_path).stdout.strip().splitlines()[-1])
    assert result["numpy"].startswith("1.23.") and not result["vecdot"] and not result["fast_add_at"]
    names = {"near_f64", "near_f32", "spread_f64", "spread_f32", "relu_f32", "relu_f64", "mask_f32", "sparse_f32"}
    paths = ("tables", "lanes", "hot", "values", "words", "fused")
    patterns = {"every_f16", "normal_f16", "int8", "uint16"}
    assert set(result["checked"]) == ({f"{name}/{path}" for name in names for path in paths}
                                      | {f"{name}/patterns" for name in patterns})

