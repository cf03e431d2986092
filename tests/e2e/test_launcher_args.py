"""Unit tests of the launcher's argument handling (tools/launcher/main.py)."""

import importlib.util
import io

from e2e_helpers import REPO

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
    args = launcher.rewrite_args(["--logdir_spec", "a:s3://b/c,b:/tmp/x"], stderr=io.StringIO())
    assert args[-1] == "--load_fast=false"


def test_local_logdir_keeps_load_fast():
    args = launcher.rewrite_args(["--logdir", "/tmp/x", "--load_fast=true"])
    assert "--load_fast=true" in args and "--load_fast=false" not in args


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
