"""The build's guard rails: a renderer whose sha256 differs from the pin stops the build, and
the installer refuses an environment that already holds upstream's `tensorboard`."""

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


def test_installer_refuses_an_env_with_upstream_tensorboard(tmp_path, wheels):
    _, _, wheel = pinned()
    env_dir = tmp_path / "upstream-env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    pip = [str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
    subprocess.run(pip + [str(CACHE / wheel)], check=True, env=clean_env())
    result = subprocess.run(["bash", str(REPO / "installer.sh")], cwd=str(tmp_path),
                            env=clean_env(TB_VENV=str(env_dir)), capture_output=True, text=True)
    assert result.returncode != 0
    assert "already has the upstream 'tensorboard' distribution" in result.stderr
    assert "TB_VENV=" in result.stderr  # says how to use a separate environment
    listed = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
                            env=clean_env(), capture_output=True, text=True, check=True).stdout.lower()
    assert "tensorboard==2.21.0" in listed and "tensorboard-standalone" not in listed
