"""The launcher (tools/launcher/main.py): its argument handling, and what the installed command prints
(`--version`, `info`, start-up)."""

import importlib.util
import io
import subprocess
import sys

from e2e_helpers import REPO, clean_env, start_server, stop_server

_spec = importlib.util.spec_from_file_location("tb_launcher_main", REPO / "tools/launcher/main.py")
launcher = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(launcher)


def test_binds_loopback_by_default():
    assert launcher.rewrite_args(["--logdir", "x"]) == ["--logdir", "x", "--host=127.0.0.1"]


def test_user_host_or_bind_all_is_kept():
    assert launcher.rewrite_args(["--host", "0.0.0.0"]) == ["--host", "0.0.0.0"]
    assert launcher.rewrite_args(["--host=::1"]) == ["--host=::1"]
    assert launcher.rewrite_args(["--bind_all"]) == ["--bind_all"]


def test_s3_logdir_falls_back_to_python_reader_with_a_note():
    err = io.StringIO()
    args = launcher.rewrite_args(["--logdir=s3://bucket/run", "--load_fast", "true"], stderr=err)
    assert "--load_fast=false" in args and "true" not in args
    assert "s3://" in err.getvalue()


def test_s3_in_logdir_spec_is_detected():
    args = launcher.rewrite_args(["--logdir_spec", "a:s3://b/c,b:/tmp/x", "--load_fast=true"], stderr=io.StringIO())
    assert args[-1] == "--load_fast=false"


def test_s3_logdir_without_load_fast_is_left_to_the_data_path_choice():
    """auto never starts the Rust server for s3:// (upstream's rule): --data_provider picks our reader
    (fsspec) or upstream's loader (boto3), and no note is printed."""
    err = io.StringIO()
    args = launcher.rewrite_args(["--logdir=s3://bucket/run"], stderr=err)
    assert not any(a.startswith("--load_fast") for a in args) and err.getvalue() == ""


def test_local_logdir_keeps_load_fast():
    args = launcher.rewrite_args(["--logdir", "/tmp/x", "--load_fast=true"])
    assert "--load_fast=true" in args and "--load_fast=false" not in args


def test_file_url_logdir_becomes_the_local_path_it_names():
    assert launcher.rewrite_args(["--logdir", "file:///tmp/my%20runs"])[:2] == ["--logdir", "/tmp/my runs"]
    assert launcher.rewrite_args(["--logdir=file://localhost/tmp/x"])[0] == "--logdir=/tmp/x"
    assert launcher.rewrite_args(["--logdir", "/tmp/file://x"])[:2] == ["--logdir", "/tmp/file://x"]


def test_file_url_for_another_host_is_refused_naming_logdir():
    import pytest

    with pytest.raises(ValueError, match="--logdir 'file://otherhost/x'"):
        launcher.rewrite_args(["--logdir", "file://otherhost/x"])


def test_version_flag_detection():
    assert launcher.wants_version(["--version"])
    assert launcher.wants_version(["--logdir", "x", "--version_tb"])
    assert not launcher.wants_version(["--logdir", "--version-dir"])


def test_our_version_is_read_without_import(tmp_path):
    (tmp_path / "python" / "tensorboard").mkdir(parents=True)
    (tmp_path / "python" / "tensorboard" / "_version.py").write_text('__version__ = "9.8.7"\n')
    assert launcher.read_our_version(str(tmp_path)) == "9.8.7"
    assert launcher.read_our_version(str(tmp_path / "missing")) == "unknown"


def test_abbreviated_host_and_bind_all_are_the_users_own():
    """argparse takes unique prefixes: `--bind` is --bind_all and `--hos X` is --host X."""
    assert launcher.rewrite_args(["--logdir", "x", "--bind"]) == ["--logdir", "x", "--bind"]
    assert launcher.rewrite_args(["--hos", "127.0.0.2"]) == ["--hos", "127.0.0.2"]
    assert launcher.rewrite_args(["--ho=127.0.0.2"]) == ["--ho=127.0.0.2"]
    assert launcher.rewrite_args(["--logdir", "b"]) == ["--logdir", "b", "--host=127.0.0.1"]


def test_line_dropper_drops_only_the_named_line():
    out = io.StringIO()
    dropper = launcher.LineDropper(out, launcher.TF_MISSING_LINE)
    print(launcher.TF_MISSING_LINE, file=dropper)  # print() writes the text and "\n" separately
    print("a real warning", file=dropper)
    dropper.write("  " + launcher.TF_MISSING_LINE + "\ntail without newline")
    dropper.flush()
    assert out.getvalue() == "a real warning\n  %s\ntail without newline" % launcher.TF_MISSING_LINE


def test_info_is_our_subcommand_only_as_first_word():
    assert launcher.wants_info(["info"])
    assert not launcher.wants_info(["--logdir", "info"])
    assert not launcher.wants_info([])


def _installed_version(venv):
    code = "from importlib.metadata import version; print(version('tensorboard'))"
    return subprocess.run([str(venv / "bin" / "python"), "-c", code], env=clean_env(), check=True,
                          capture_output=True, text=True).stdout.strip()


def test_version_is_one_line_equal_to_the_installed_distribution(venv, tmp_path):
    proc = subprocess.run([str(venv / "bin" / "tensorboard"), "--version"], cwd=tmp_path, env=clean_env(),
                          check=True, capture_output=True, text=True)
    assert proc.stdout == _installed_version(venv) + "\n"
    assert proc.stderr == ""


def test_info_names_the_renderer_and_where_each_part_lives(venv, tmp_path):
    out = subprocess.run([str(venv / "bin" / "tensorboard"), "info"], cwd=tmp_path, env=clean_env(),
                         check=True, capture_output=True, text=True).stdout.splitlines()
    site = "lib/python%d.%d/site-packages/" % sys.version_info[:2]
    assert out[0] == "tensorboard " + _installed_version(venv)
    assert out[1].startswith("renderer: TensorBoard 2.21.0 ")
    assert out[2] == "renderer location: %s" % (
        venv / site / "tensorboard_standalone_renderer/tensorboard.runfiles/tensorboard_renderer/tensorboard")
    assert out[3] == "logger location: %s" % (venv / site / "tensorboard")


def test_start_up_names_the_renderer_once_and_raises_no_tensorflow_alarm(venv, tmp_path):
    server = start_server(venv, tmp_path, tmp_path)
    try:
        lines = server.log().splitlines()
    finally:
        stop_server(server)
    assert not [l for l in lines if "TensorFlow" in l], lines
    assert [l for l in lines if "2.21.0" in l] == [
        "TensorBoard 2.21.0 at http://127.0.0.1:%d/ (Press CTRL+C to quit)" % server.port], lines


def test_our_modules_join_the_renderers_package_after_its_own():
    import types

    renderer = types.ModuleType("tensorboard")
    renderer.__path__ = ["/renderer/tensorboard"]
    launcher.enable_our_modules(str(REPO), renderer)
    launcher.enable_our_modules(str(REPO), renderer)  # once only
    assert renderer.__path__ == ["/renderer/tensorboard", str(REPO / "python" / "tensorboard")]
