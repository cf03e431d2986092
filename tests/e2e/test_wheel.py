"""The wheel: reproducible, self-contained, and installable into a fresh venv."""

import stat
import subprocess
import zipfile

from build_version import build_version
from e2e_helpers import clean_env

RUNFILES = "tensorboard_standalone_renderer/tensorboard.runfiles/"


def test_two_builds_are_byte_identical(wheels):
    first, second = (w.read_bytes() for w in wheels)
    assert wheels[0].name == wheels[1].name
    assert first == second


def test_wheel_has_no_symlinks_or_bazel_manifests(wheels):
    with zipfile.ZipFile(wheels[0]) as zf:
        infos = zf.infolist()
    assert infos, "empty wheel"
    links = [i.filename for i in infos if stat.S_ISLNK(i.external_attr >> 16)]
    manifests = [i.filename for i in infos if i.filename.rsplit("/", 1)[-1] == "MANIFEST"]
    absolute = [i.filename for i in infos if i.filename.startswith("/") or "/bazel-out/" in i.filename]
    assert (links, manifests, absolute) == ([], [], [])


def test_wheel_layout_keeps_renderer_out_of_top_level(wheels):
    with zipfile.ZipFile(wheels[0]) as zf:
        names = set(zf.namelist())
        top_level = {l for l in zf.read(next(n for n in names if n.endswith(".dist-info/top_level.txt")))
                     .decode().split()}
    assert "tensorboard/__init__.py" in names  # our logger
    assert {"tensorboard/events/event_file.py", "tensorboard/values/convert.py",
            "tensorboard/writers/summary_writer.py", "tensorboard/serving/provider.py"} <= names  # every layer
    # the report's page needs its script, style and vendored chart library (with its licence) at run time
    assert {"tensorboard/report/assets/page.js", "tensorboard/report/assets/page.css",
            "tensorboard/report/vendor/uPlot.iife.min.js", "tensorboard/report/vendor/LICENSE"} <= names
    assert "tensorboard/program.py" not in names  # upstream stays in the runfiles
    assert RUNFILES + "tensorboard_renderer/tensorboard/program.py" in names
    assert RUNFILES + "tensorboard_renderer/tensorboard/webfiles.zip" in names
    assert any(n.endswith(".data/scripts/tensorboard") for n in names)
    assert top_level == {"tensorboard", "tensorboard_standalone_renderer"}


def test_wheel_declares_runtime_requirements(wheels):
    with zipfile.ZipFile(wheels[0]) as zf:
        meta = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert "Name: tensorboard\n" in meta
    for req in ("absl-py", "grpcio", "markdown", "numpy", "packaging", "pillow", "protobuf",
                "setuptools", "tensorboard-data-server", "werkzeug"):
        assert "Requires-Dist: " + req in meta, req
    assert "Provides-Extra: s3" in meta
    with zipfile.ZipFile(wheels[0]) as zf:
        entry_points = zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/entry_points.txt"))).decode()
    # upstream's dynamic plugin registration, so in-process servers (tensorboard.program) get the projector
    assert "[tensorboard_plugins]" in entry_points
    assert "projector = tensorboard.plugins.projector.projector_plugin:ProjectorPlugin" in entry_points


def test_installed_version_from_another_cwd_without_activation(venv, tmp_path):
    out = subprocess.run([str(venv / "bin" / "tensorboard"), "--version"], cwd=tmp_path,
                         env=clean_env(), check=True, capture_output=True, text=True).stdout
    assert out == build_version() + "\n"  # the label the build stamped (tools/pip_package/version.py)


def test_stub_runs_with_its_own_env_interpreter(venv, tmp_path):
    """A different `python3` first on PATH must not be used for the renderer."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    for name in ("python", "python3"):
        fake = fake_bin / name
        fake.write_text("#!/bin/sh\necho wrong-python-used >&2\nexit 3\n")
        fake.chmod(0o755)
    env = clean_env(PATH="%s:/usr/bin:/bin" % fake_bin)
    proc = subprocess.run([str(venv / "bin" / "tensorboard"), "--version"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "wrong-python-used" not in proc.stderr


def test_site_packages_tensorboard_is_our_logger(venv, tmp_path):
    code = "import tensorboard, os; print(tensorboard.__file__)"
    path = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path, env=clean_env(),
                          check=True, capture_output=True, text=True).stdout.strip()
    assert path.endswith("site-packages/tensorboard/__init__.py")
    # Upstream's modules resolve under our package, from the one copy in the renderer's runfiles.
    probe = ("import tensorboard.program, tensorboard.summary.v1 as v1; print(tensorboard.program.__file__); "
             "print(v1.__file__); print(tensorboard.SummaryWriter.__module__)")
    program, v1, writer_module = subprocess.run([str(venv / "bin" / "python"), "-c", probe], cwd=tmp_path,
                                                env=clean_env(), check=True, capture_output=True,
                                                text=True).stdout.split()
    runfiles_upstream = "site-packages/tensorboard_standalone_renderer/tensorboard.runfiles/tensorboard_renderer/"
    assert runfiles_upstream + "tensorboard/program.py" in program
    assert runfiles_upstream + "tensorboard/summary/v1.py" in v1
    assert writer_module.startswith("tensorboard.")
