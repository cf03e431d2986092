"""The numeric tests hold on hosts unlike this one: the histogram sums, TensorBoard's smoothing and the report's
downsampling, run again in a child pytest under another BLAS kernel (one that adds in another order than the
kernel this CPU gets), one OpenMP thread, a timezone 12:45 hours from UTC and another locale. A test that passes
only on the CPU it was written on fails here, on the machine that runs the suite."""
from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# An OpenBLAS kernel every CPU of the architecture runs, and whose sums run in another order than the AVX2 and
# AVX-512 kernels of today's x86-64 machines (or the NEON ones of ARM servers).
OTHER_KERNEL = {"x86_64": "Prescott", "AMD64": "Prescott", "aarch64": "ARMV8", "arm64": "ARMV8"}
NUMERIC_TESTS = ["tests/summary/test_histogram_exact.py", "tests/summary/test_histogram.py", "tests/stats",
                 "tests/report/test_downsample.py"]
KERNEL_PROBE = ("import json, numpy, threadpoolctl; "
                "print(json.dumps([i.get('architecture') for i in threadpoolctl.threadpool_info()]))")


def other_host_env() -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TZ": "Pacific/Chatham", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    kernel = OTHER_KERNEL.get(platform.machine())
    if kernel:
        env["OPENBLAS_CORETYPE"] = kernel
    return env


def test_numeric_tests_pass_under_another_blas_kernel_timezone_and_locale(tmp_path):
    env = other_host_env()
    try:
        import threadpoolctl  # noqa: F401  (the main environment has it: scikit-learn's)
    except ImportError:
        pass
    else:
        kernels = [subprocess.run([sys.executable, "-c", KERNEL_PROBE], env=probe_env, capture_output=True,
                                  text=True, timeout=120).stdout for probe_env in (os.environ, env)]
        if "OPENBLAS_CORETYPE" in env and env.get("OPENBLAS_CORETYPE") != os.environ.get("OPENBLAS_CORETYPE"):
            assert kernels[0] != kernels[1], kernels  # the child really runs another kernel than this host's
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NUMERIC_TESTS],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    assert " passed" in result.stdout.splitlines()[-1] and "failed" not in result.stdout.splitlines()[-1]
