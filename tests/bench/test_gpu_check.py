"""bench/gpu_check.py, run as a GPU user would but with --device cpu: torch and JAX values are logged,
updated in place / donated right after the call, read back and found exact. No timing is asserted."""
import json
import subprocess
import sys

import numpy as np
import pytest
from upstream import REPO

GPU_CHECK = REPO / "bench" / "gpu_check.py"


def run(*args, cwd):
    return subprocess.run([sys.executable, str(GPU_CHECK), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_cpu_run_verifies_torch_and_jax_values(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    out = run("--device", "cpu", "--calls", "5", "--steps", "4", "--logdir", str(tmp_path), cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["ok"] and report["not_checked"] == [] and report["nvml"] == {"skipped": "--device cpu"}
    assert set(report["results"]) == {"torch", "jax"}
    for result in report["results"].values():
        assert result["problems"] == [] and result["values_checked"] == 8
    # JAX arrays take the deferred path even on the CPU; torch CPU tensors are converted at the call
    assert report["results"]["jax"]["path"].startswith("deferred")
    assert report["results"]["torch"]["path"].startswith("synchronous")
    assert "values: 8 logged, read back and compared with the device's: all exact" in out.stdout


def test_without_a_gpu_it_says_so_in_one_line_with_its_own_exit_code(tmp_path):
    torch = pytest.importorskip("torch")
    jax = pytest.importorskip("jax")
    if torch.cuda.is_available() or any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("this machine has a GPU")  # the repo's tests run on CPU-only machines
    out = run(cwd=tmp_path)
    assert out.returncode == 3, out.stdout + out.stderr
    assert out.stdout.count("\n") == 1 and out.stdout.startswith("gpu_check: no GPU found")


def test_a_wrong_logged_value_is_reported(tmp_path):
    sys.path.insert(0, str(REPO / "bench"))
    import gpu_check

    import tensorboard

    values = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_histogram("t/weights", values, 0)
        writer.add_scalar("t/value", 0.5, 0)
    assert gpu_check.compare(str(tmp_path), "t", {"scalars": {0: 0.5}, "histograms": {0: values}}) == []
    changed = values.copy()
    changed[7] += 1e-3
    problems = gpu_check.compare(str(tmp_path), "t", {"scalars": {0: 0.25, 1: 1.0}, "histograms": {0: changed}})
    assert problems == ["t/value step 0: logged 0.5, device held 0.25", "t/value step 1: logged None, device held 1.0",
                        "t/weights step 0: the logged histogram differs from the device's values"]
