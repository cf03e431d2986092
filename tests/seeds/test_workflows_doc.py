"""Every Python example in the README's Workflows section runs (MXNet ones in .venv-mxnet) and logs what it says."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from seeds.mxnet_venv import run_mxnet
from upstream import upstream_read

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


def examples() -> list[tuple[str, str]]:
    """(section title, code) for each complete example (the ones that import tensorboard)."""
    readme = README.read_text()
    start = readme.index("\n## Workflows\n")
    end = readme.find("\n## ", start + 1)
    text = readme[start:end if end != -1 else None]
    found = []
    for match in re.finditer(r"^### (.+?)$(.*?)(?=^### |\Z)", text, re.S | re.M):
        title, body = match.group(1), match.group(2)
        for code in re.findall(r"```python\n(.*?)```", body, re.S):
            if "import tensorboard" in code or "from tensorboard" in code:
                found.append((title, code))
    return found


EXAMPLES = examples()


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
        if "import torch" in code:
            pytest.importorskip("torch")
        if "import jax" in code:
            pytest.importorskip("jax")
        env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
        result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-4000:]
    runs = upstream_read(tmp_path / "logs")["runs"]
    assert runs
    logged = set()
    for run in runs.values():
        logged |= set(run["scalars"]) | set(run["histograms"]) | set(run["images"])
        if run.get("graph"):
            logged.add("<graph>")
    for tag in re.findall(r"add_scalar\('([^']+)'", code) + re.findall(r"add_histogram\('([^']+)'", code):
        assert tag in logged, (title, tag)
    if "add_graph" in code:
        assert "<graph>" in logged
