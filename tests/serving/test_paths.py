"""--data_provider: which path serves. auto serves through our reader wherever it reads the logdir (local
paths, and object-store URLs where fsspec has their backend), unless upstream's flags ask for its native
data server (--load_fast=true) or a gRPC one; other URLs stay with upstream's loader; the explicit
choices are refused clearly where they cannot serve; the preload and the server decide by one rule."""
from __future__ import annotations

import argparse

import pytest

from tensorboard.plugins import base_plugin
from tensorboard.serving import paths


def flags(**given) -> argparse.Namespace:
    """Upstream's parsed flags (its own parser), with ours added by paths.DataPathFlag."""
    from tensorboard import program
    from tensorboard.plugins.core import core_plugin

    tb = program.TensorBoard(plugins=[core_plugin.CorePluginLoader(), paths.DataPathFlag()])
    argv = ["tensorboard"] + ["--%s=%s" % (k, v) for k, v in given.items()]
    tb.configure(argv)
    return tb.flags


@pytest.fixture
def without_native(monkeypatch):
    """As on a platform whose tensorboard-data-server wheel holds no binary (upstream's own lookup)."""
    monkeypatch.setenv("TENSORBOARD_DATA_SERVER_BINARY", "/nonexistent/tensorboard-data-server")


@pytest.mark.parametrize("given", [{}, dict(load_fast="auto"), dict(load_fast="false"),
                                   dict(detect_file_replacement="true")])
def test_auto_serves_local_logdirs_through_our_reader(tmp_path, given):
    assert paths.choose(flags(logdir=tmp_path, **given)) == "standalone"


def test_auto_serves_a_logdir_spec_through_our_reader(tmp_path):
    assert paths.choose(flags(logdir_spec="a:%s,b:%s" % (tmp_path / "a", tmp_path / "b"))) == "standalone"


def test_auto_without_a_native_binary_serves_through_our_reader(tmp_path, without_native):
    assert paths.choose(flags(logdir=tmp_path)) == "standalone"


def test_upstreams_flags_for_another_server_are_followed(tmp_path):
    assert paths.choose(flags(logdir=tmp_path, load_fast="true")) is None
    assert paths.choose(flags(logdir=tmp_path, grpc_data_provider="localhost:1")) is None


@pytest.mark.parametrize("given", [{}, dict(load_fast="true"), dict(load_fast="false"), dict(data_provider="native"),
                                   dict(data_provider="multiplexer"), dict(data_provider="standalone"),
                                   dict(grpc_data_provider="localhost:1")])
def test_the_preload_and_the_server_decide_by_one_rule(tmp_path, given):
    from tensorboard.serving import preload

    args = ["--logdir", str(tmp_path)] + ["--%s=%s" % item for item in given.items()]
    preload.start_for(args)
    work = preload.take_pending(str(tmp_path))
    try:
        assert (work is not None) == (paths.choose(flags(logdir=tmp_path, **given)) == "standalone")
    finally:
        if work is not None:
            work.cancel()


def test_object_store_urls_are_served_through_our_reader(without_native):
    pytest.importorskip("s3fs")  # in .venv (tools/test_envs.sh): fsspec's s3:// backend
    assert paths.choose(flags(logdir="s3://bucket/logs")) == "standalone"
    assert paths.choose(flags(logdir="s3://bucket/logs", load_fast="false")) == "standalone"


def test_urls_no_installed_fsspec_backend_reads_stay_with_upstreams_loader(without_native):
    assert paths.choose(flags(logdir="nosuch://bucket/logs", load_fast="false")) is None


def test_explicit_choices(tmp_path):
    assert paths.choose(flags(logdir=tmp_path, data_provider="standalone")) == "standalone"
    assert paths.choose(flags(logdir=tmp_path, data_provider="native")) is None
    assert paths.choose(flags(logdir=tmp_path, data_provider="multiplexer")) is None
    assert paths.choose(flags(logdir=tmp_path, load_fast="true")) is None


def test_refusals_name_the_flag(tmp_path):
    with pytest.raises(base_plugin.FlagsError, match="--data_provider=standalone reads local paths and URLs"):
        flags(logdir="nosuch://bucket/logs", data_provider="standalone")
    with pytest.raises(base_plugin.FlagsError, match="--data_provider=native cannot serve with --load_fast=false"):
        flags(logdir=tmp_path, data_provider="native", load_fast="false")
    with pytest.raises(SystemExit):  # argparse: invalid choice, named with the valid ones
        flags(logdir=tmp_path, data_provider="fast")
