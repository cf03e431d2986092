"""The build's guard rails: a renderer whose sha256 differs from the pin stops the build, and
the installer replaces an upstream `tensorboard` it finds, saying so and how to go back; it names
what apt will install and why before doing it, reuses an unchanged wheel and install, and its
closing hint names the port it was given."""

import shutil
import subprocess
import sys
from types import SimpleNamespace

import pytest
from build_version import build_version
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


FAKE_DPKG_QUERY = """#!/bin/sh
# dpkg-query -W -f=FORMAT PACKAGE: these two count as missing, the rest as installed.
for pkg; do :; done
case "$pkg" in patch|chromium) exit 1 ;; esac
printf 'install ok installed'
"""
FAKE_APT_GET = """#!/bin/sh
echo "$@" >> "$APT_LOG"
"""


@pytest.fixture(scope="module")
def installed_over_upstream(tmp_path_factory, wheels):
    """An env holding upstream's wheel, then installer.sh run on it (apt faked: patch and chromium
    "missing"), TB_PORT=7123. Returns the env, the installer's result and the apt log."""
    _, _, wheel = pinned()
    tmp_path = tmp_path_factory.mktemp("installer")
    env_dir = tmp_path / "upstream-env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    python = str(env_dir / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", str(CACHE / wheel)], check=True, env=clean_env())
    fake_bin = tmp_path / "fake-bin"
    fake_bin.mkdir()
    for name, text in (("dpkg-query", FAKE_DPKG_QUERY), ("apt-get", FAKE_APT_GET)):
        (fake_bin / name).write_text(text)
        (fake_bin / name).chmod(0o755)
    apt_log = tmp_path / "apt.log"
    env = clean_env(TB_VENV=str(env_dir), TB_PORT="7123", APT_LOG=str(apt_log))
    env["PATH"] = "%s:%s" % (fake_bin, env["PATH"])
    result = subprocess.run(["bash", str(REPO / "installer.sh"), "--with-browser"], cwd=str(tmp_path), env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return SimpleNamespace(env_dir=env_dir, python=python, result=result, apt_log=apt_log, tmp_path=tmp_path)


def test_installer_names_what_apt_installs_and_why_before_installing(installed_over_upstream):
    lines = installed_over_upstream.result.stdout.splitlines()
    start = lines.index("==> installer: apt-get will install:")
    assert lines[start + 1:start + 3] == [
        "==> installer:   patch: to build the renderer launcher with Bazel and patch its stub",
        "==> installer:   chromium: for the browser tests (--with-browser)"]
    assert installed_over_upstream.apt_log.read_text().splitlines() == [
        "update -qq", "install -y -qq patch chromium"]


def test_installer_hint_names_the_port_and_a_command_that_works(installed_over_upstream):
    last = installed_over_upstream.result.stdout.splitlines()[-1]
    command = "%s/bin/tensorboard --logdir runs --port 7123" % installed_over_upstream.env_dir
    assert last == "==> installer: run: %s   (then open http://127.0.0.1:7123/)" % command
    out = subprocess.run(command.split()[:1] + ["--version"], env=clean_env(), capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("2.21.0+standalone.")


def test_a_second_run_reuses_the_wheel_and_the_install(installed_over_upstream):
    result = subprocess.run(["bash", str(REPO / "installer.sh")], cwd=str(installed_over_upstream.tmp_path),
                            env=clean_env(TB_VENV=str(installed_over_upstream.env_dir)), capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is current (inputs unchanged since it was built): not rebuilt" in result.stdout
    assert "already holds dist/tensorboard-" in result.stdout and ": not reinstalled" in result.stdout
    assert "pip install" not in result.stdout
    assert result.stdout.splitlines()[-1].endswith("--port 6006   (then open http://127.0.0.1:6006/)")


def test_installer_replaces_upstream_tensorboard_and_says_so(installed_over_upstream):
    result, python, tmp_path = (installed_over_upstream.result, installed_over_upstream.python,
                                installed_over_upstream.tmp_path)
    assert "replacing upstream tensorboard 2.21.0" in result.stdout
    assert "pip install --force-reinstall --no-deps tensorboard==2.21.0" in result.stdout  # the way back
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
    assert out[0] == build_version() and out[1].startswith("tensorboard.")
