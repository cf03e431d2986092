"""Every Python example in the README's Workflows section runs (MXNet ones in .venv-mxnet) and logs what it says."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seeds.mxnet_venv import run_mxnet
from readme_examples import check_example_logged, workflow_examples

REPO = Path(__file__).resolve().parents[2]


EXAMPLES = workflow_examples()


def test_the_readme_has_the_five_workflows():
    titles = " | ".join(t for t, _ in EXAMPLES)
    for word in ("Module.fit", "Gluon", "FileWriter", "PyTorch", "JAX"):
        assert word in titles


@pytest.mark.parametrize("title,code", EXAMPLES, ids=[t.split()[0] + str(i) for i, (t, _) in enumerate(EXAMPLES)])
def test_example_runs_and_logs(tmp_path, title, code):
    script = tmp_path / "example.py"
    script.write_text(code)
    if "import mxnet" in code:
        run_mxnet([str(script)], cwd=tmp_path)
    else:
        for module in ("torch", "jax", "keras", "flax"):  # found, not imported (keras picks its backend at import)
            if f"import {module}" in code and importlib.util.find_spec(module) is None:
                pytest.skip(f"{module} is not installed")
        env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
        result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-4000:]
    check_example_logged(title, code, tmp_path / "logs")
