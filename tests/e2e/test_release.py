"""The release: `make release`'s wheel and SHA256SUMS, installed the ways users install it (pip, `uv pip`,
`uv tool install`) and over upstream's `tensorboard` beside CPU torch, then the way back to upstream.
In each environment `tensorboard --version` answers and a scalar logged there is read back by
upstream's reader. Also: the CI workflows parse and run only targets the Makefile has."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from build_version import build_version
from e2e_helpers import REPO, clean_env
from upstream import upstream_run

DIST = REPO / "dist"
UV = REPO / ".venv-release-tools" / "bin" / "uv"  # tools/envs/release.sh
TORCH_WHEELS = sorted(Path("/opt/wheels").glob("torch-2.13.0+cpu-*.whl"))
WORKFLOWS = REPO / ".github" / "workflows"
SITE = "lib/python%d.%d/site-packages" % sys.version_info[:2]
BASE_PYTHON = str(Path(sys.base_prefix) / "bin" / "python3")  # what `python3 -m venv` would use

OUR_LOGGER = """
import sys
from tensorboard import SummaryWriter
with SummaryWriter(sys.argv[1]) as writer:
    writer.add_scalar("loss", 0.25, 7)
"""
TORCH_LOGGER = """
import sys
from torch.utils.tensorboard import SummaryWriter
writer = SummaryWriter(sys.argv[1])
writer.add_scalar("loss", 0.25, 7)
writer.close()
"""
DIST_INFO_PROBE = """
import json, os
from importlib import metadata
out = {}
for name in ("numpy", "protobuf"):
    dist = metadata.distribution(name)
    meta = dist.locate_file(next(f for f in dist.files if f.name == "METADATA"))
    out[name] = [str(meta), os.stat(meta).st_mtime_ns, os.stat(meta).st_ino, dist.version]
print(json.dumps(out))
"""


def run(*cmd, **kwargs):
    """Run a command outside any venv activation; its stdout (it must succeed)."""
    proc = subprocess.run([str(c) for c in cmd], env=kwargs.pop("env", clean_env()), capture_output=True,
                          text=True, **kwargs)
    assert proc.returncode == 0, "%s failed:\n%s%s" % (cmd, proc.stdout, proc.stderr)
    return proc.stdout


def dist_version(python, name="tensorboard"):
    """The version importlib.metadata reports for `name` in the interpreter `python`."""
    return run(python, "-c", "from importlib.metadata import version; print(version(%r))" % name).strip()


def assert_works(python, tensorboard, logdir, logger=OUR_LOGGER):
    """`tensorboard --version` is the installed version; a scalar logged there reads back upstream."""
    assert run(tensorboard, "--version") == dist_version(python) + "\n"
    run(python, "-c", logger, logdir)
    (step, _, value), = upstream_run(logdir)["scalars"]["loss"]
    assert (step, value) == (7, 0.25)


@pytest.fixture(scope="session")
def release_wheel():
    """dist/'s wheel, (re)built by tools/release.sh only if its inputs changed; SHA256SUMS checked."""
    run("bash", REPO / "tools" / "release.sh")
    (line,) = (DIST / "SHA256SUMS").read_text().splitlines()
    run("sha256sum", "--quiet", "-c", "SHA256SUMS", cwd=DIST)
    return DIST / line.split("  ", 1)[1]


@pytest.fixture(scope="session")
def uv():
    """uv from PyPI in .venv-release-tools (tools/envs/release.sh, run by tools/test_envs.sh)."""
    if not UV.exists():
        pytest.fail("%s is missing: run `bash tools/envs/release.sh`" % UV)
    return UV


def test_sha256sums_names_the_release_wheel(release_wheel):
    assert release_wheel.name == "tensorboard-%s-py3-none-any.whl" % build_version()  # a dev label off a tag
    assert release_wheel.is_file()


def test_pip_install_into_a_clean_venv(release_wheel, tmp_path):
    env = tmp_path / "env"
    run(sys.executable, "-m", "venv", env)
    run(env / "bin/python", "-m", "pip", "install", "-q", release_wheel)
    assert_works(env / "bin/python", env / "bin/tensorboard", tmp_path / "logs")


def test_uv_pip_install_into_a_uv_venv(release_wheel, uv, tmp_path):
    env = tmp_path / "env"
    uv_env = clean_env(UV_PYTHON_DOWNLOADS="never")
    run(uv, "venv", "-q", "--python", BASE_PYTHON, env, env=uv_env)
    run(uv, "pip", "install", "-q", "--python", env / "bin/python", release_wheel, env=uv_env)
    assert_works(env / "bin/python", env / "bin/tensorboard", tmp_path / "logs")


def test_uv_tool_install_puts_the_command_on_the_tool_bin_dir(release_wheel, uv, tmp_path):
    tools, bin_dir = tmp_path / "tools", tmp_path / "bin"
    uv_env = clean_env(UV_TOOL_DIR=str(tools), UV_TOOL_BIN_DIR=str(bin_dir), UV_PYTHON_DOWNLOADS="never")
    run(uv, "tool", "install", "-q", "--python", BASE_PYTHON, release_wheel, env=uv_env)
    assert [p.name for p in bin_dir.iterdir()] == ["tensorboard"]
    assert_works(tools / "tensorboard/bin/python", bin_dir / "tensorboard", tmp_path / "logs")


def test_replaces_upstream_beside_torch_and_the_way_back(release_wheel, tmp_path):
    assert TORCH_WHEELS, "no CPU torch wheel in /opt/wheels (never pull a CUDA torch from PyPI)"
    ours = release_wheel.name.split("-")[1]
    env = tmp_path / "env"
    python, pip = env / "bin/python", [env / "bin/python", "-m", "pip", "install", "-q"]
    run(sys.executable, "-m", "venv", env)
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("torch==2.13.0+cpu\n")  # later installs keep the CPU build
    run(*pip, TORCH_WHEELS[0])
    run(*pip, "-c", constraints, "tensorboard==2.21.0")
    assert dist_version(python) == "2.21.0"

    run(*pip, "-c", constraints, release_wheel)  # ours replaces upstream's
    assert (dist_version(python), dist_version(python, "torch")) == (ours, "2.13.0+cpu")
    where = run(python, "-c", "import tensorboard; print(tensorboard.__file__, tensorboard.SummaryWriter.__module__)")
    path, writer_module = where.split()  # our logger (upstream's package has no SummaryWriter)
    assert path == str(env / SITE / "tensorboard/__init__.py") and writer_module.startswith("tensorboard.")
    assert_works(python, env / "bin/tensorboard", tmp_path / "logs", logger=TORCH_LOGGER)

    kept = json.loads(run(python, "-c", DIST_INFO_PROBE))
    run(*pip, "--force-reinstall", "--no-deps", "tensorboard==2.21.0")  # the way back
    assert dist_version(python) == "2.21.0"
    assert json.loads(run(python, "-c", DIST_INFO_PROBE)) == kept  # numpy, protobuf untouched
    assert run(env / "bin/tensorboard", "--version").strip() == "2.21.0"
    assert not list((env / SITE).glob("tensorboard_standalone_renderer*"))
    assert not list((env / SITE).glob("tensorboard-*+standalone*.dist-info"))


def workflow_commands():
    """{workflow file name: [each `run:` line]} of .github/workflows/*.yml."""
    out = {}
    for path in sorted(WORKFLOWS.glob("*.yml")):
        doc = yaml.safe_load(path.read_text())
        assert doc[True if True in doc else "on"], path  # YAML 1.1 reads a bare `on:` key as True
        lines = []
        for job in doc["jobs"].values():
            assert job["runs-on"].startswith("ubuntu-"), path
            lines += [l.strip() for step in job["steps"] if "run" in step for l in step["run"].splitlines()]
        out[path.name] = lines
    return out


def test_ci_workflows_run_make_targets_that_exist():
    commands = workflow_commands()
    targets = set(re.findall(r"^([a-z][\w-]*):", (REPO / "Makefile").read_text(), re.M))
    prefix = r'^(sudo (-E )?)?(env ("?\w+=\S*"?\s+)+)?make '
    made = [l for lines in commands.values() for l in lines if re.match(prefix, l)]
    assert made, commands
    for line in made:
        for target in re.sub(prefix, "", line).split():
            assert "=" in target or target.startswith("-") or target in targets, line
    assert any(re.search(r"\bmake test\b", l) for l in commands["test.yml"])
    assert any(re.search(r"\bmake release\b", l) for l in commands["release.yml"])


def test_the_test_workflow_runs_on_every_supported_python():
    """The public workflow provides the Pythons of tools/test_pythons.py's matrix; the last is python3."""
    doc = yaml.safe_load((WORKFLOWS / "test.yml").read_text())
    steps = doc["jobs"]["test"]["steps"]
    setup = next(step for step in steps if step.get("uses", "").startswith("actions/setup-python"))
    listed = setup["with"]["python-version"].split()
    supported = re.search(r"^SUPPORTED = \(([^)]*)\)", (REPO / "tools" / "test_pythons.py").read_text(), re.M).group(1)
    assert sorted(listed) == sorted(re.findall(r'"([\d.]+)"', supported))
    assert listed[-1] == "3.11"  # python3, whose CPU torch wheel the framework suites use
