"""Every Python example of the README and of the docs/ pages runs and logs what it says.

Each runs in the test environment matching what its page tells a user to install: MXNet ones in
.venv-mxnet (source tree on PYTHONPATH), Lightning and transformers ones in .venv-ecosystem (our
installed wheel), the others with this interpreter and the source tree. Upstream's reader reads
back the tags each example names.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ecosystem.eco_helpers import eco_env, eco_python
from matrix import skip_for_absent_frameworks
from readme_examples import all_examples, check_example_logged, example_env, expected_tags, page_examples
from seeds.mxnet_venv import run_mxnet

REPO = Path(__file__).resolve().parents[2]

EXAMPLES = all_examples()


def _run(code: str, workdir: Path) -> None:
    """Runs one example in `workdir`, in its environment; fails with its stderr."""
    script = workdir / f"example{len(list(workdir.glob('example*.py')))}.py"
    script.write_text(code)
    env_name = example_env(code)
    if env_name == "mxnet":
        run_mxnet([script.name], cwd=workdir)
        return
    if env_name == "ecosystem":
        command, env = [eco_python(), script.name], eco_env()
    else:
        command = [sys.executable, script.name]
        env = {**os.environ, "PYTHONPATH": str(REPO / "python"), "OMP_NUM_THREADS": "2"}
    result = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-4000:]


def test_every_framework_has_examples():
    titles = " | ".join(title for title, _ in EXAMPLES)
    for page in ("pytorch", "torch-utils-tensorboard", "lightning", "transformers", "jax", "keras", "mxnet"):
        assert f"docs/workflows/{page}.md" in titles, page
    readme = [code for title, code in EXAMPLES if title.startswith("README.md")]
    for module in ("torch.utils.tensorboard", "lightning", "transformers", "jax", "keras", "mxnet"):
        assert any(module in code for code in readme), f"the README has no {module} example"


@pytest.mark.parametrize("title,code", EXAMPLES, ids=[f"{t.split(':')[0]}-{i}" for i, (t, _) in enumerate(EXAMPLES)])
def test_example_runs_and_logs(tmp_path, title, code):
    skip_for_absent_frameworks(code)
    if not expected_tags(code):
        # An example that only reads: it reads what its page's first example wrote.
        page = REPO / title.split(":")[0]
        first_title, first_code = page_examples(page)[0]
        assert expected_tags(first_code), f"{title} reads logs, but {first_title} writes none"
        skip_for_absent_frameworks(first_code)
        _run(first_code, tmp_path)
        _run(code, tmp_path)
        return
    _run(code, tmp_path)
    check_example_logged(title, code, tmp_path)
