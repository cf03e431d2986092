"""The build's guard rails: a renderer whose sha256 differs from the pin stops the build, and
the installer replaces an upstream `tensorboard` it finds, saying so and how to go back."""

import shutil
import subprocess
import sys

from e2e_helpers import REPO, clean_env

PIN = REPO / "tools" / "renderer.pin"
CACHE = REPO / ".cache" / "renderer"


def pinned():
    """(requirement, sha256, wheel file name) from tools/renderer.pin."""
    line = next(l for l in PIN.read_text().splitlines() if l.strip() and not l.lstrip().startswith("#"))
    requirement, sha256 = line.split()
    name, version = requirement.split("==")
    return requirement, sha256, "%s-%s-py3-none-any.whl" % (name, version)


def test_a_renderer_with_another_hash_stops_the_build(tmp_path, wheels):
    requirement, sha256, wheel = pinned()
    assert (CACHE / wheel).is_file(), "the wheel fixture's build caches the pinned renderer"
    (tmp_path / "tools").mkdir()
    shutil.copy(REPO / "tools" / "fetch_renderer.sh", tmp_path / "tools")
    wrong = ("0" if sha256[0] != "0" else "1") + sha256[1:]
    (tmp_path / "tools" / "renderer.pin").write_text("%s %s\n" % (requirement, wrong))
    # pip "downloads" the genuine release from a local index, so no network is needed.
    env = clean_env(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(CACHE), PYTHON=sys.executable)
    result = subprocess.run(["bash", "tools/fetch_renderer.sh"], cwd=tmp_path, env=env,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "sha256 mismatch for %s" % wheel in result.stderr
    assert "expected (tools/renderer.pin): %s" % wrong in result.stderr
    assert "downloaded:                    %s" % sha256 in result.stderr
    assert not (tmp_path / "build" / "renderer" / "unpacked").exists()


def test_installer_replaces_upstream_tensorboard_and_says_so(tmp_path, wheels):
    _, _, wheel = pinned()
    env_dir = tmp_path / "upstream-env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    python = str(env_dir / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", str(CACHE / wheel)], check=True, env=clean_env())
    result = subprocess.run(["bash", str(REPO / "installer.sh")], cwd=str(tmp_path),
                            env=clean_env(TB_VENV=str(env_dir)), capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "replacing upstream tensorboard 2.21.0" in result.stdout
    assert "pip install --force-reinstall tensorboard==2.21.0" in result.stdout  # the way back
    listed = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], env=clean_env(),
                            capture_output=True, text=True, check=True).stdout.lower()
    assert "tensorboard==2.21.0+standalone" in listed
    assert "tensorboard==2.21.0\n" not in listed and "tensorboard-standalone" not in listed
    check = subprocess.run([python, "-m", "pip", "check"], env=clean_env(), capture_output=True, text=True)
    assert check.returncode == 0, check.stdout
    # Our logger and upstream's modules both resolve in the replaced environment.
    probe = ("import tensorboard, tensorboard.notebook, tensorboard.program; "
             "from tensorboard.backend.event_processing import event_accumulator; "
             "print(tensorboard.__version__, tensorboard.SummaryWriter.__module__)")
    out = subprocess.run([python, "-c", probe], cwd=str(tmp_path), env=clean_env(), capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[0].endswith("+standalone.1") and out[1].startswith("tensorboard.")
