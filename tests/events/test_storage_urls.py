"""file:// logdirs go where the user said, at every entry point (writers, torch's writer, embeddings,
readers, export); an unknown URL scheme or a file:// URL of another host is refused early, naming it."""
from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pytest
from upstream import upstream_read

import tensorboard
from tensorboard import summary
from tensorboard.events.storage import local_path
from tensorboard.reader import SummaryReader, read_events, read_logdir, read_scalars
from tensorboard.reader.export import main as export_main


def url(path: Path, host: str = "") -> str:
    return f"file://{host}{quote(str(path))}"


@pytest.fixture
def where(tmp_path, monkeypatch) -> Path:
    """A target with a space in its name (escaped as %20 in the URL), and the cwd elsewhere, where a
    URL taken as a relative path would land (./file:/...)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path / "logs here" / "run"


def assert_nothing_under_cwd_named_file(tmp_path: Path) -> None:
    assert not (tmp_path / "file:").exists() and not (tmp_path / "file%3A").exists()


@pytest.mark.parametrize("host", ["", "localhost"])
def test_local_path_follows_rfc_8089(host):
    assert local_path(f"file://{host}/tmp/a%20b/c") == "/tmp/a b/c"
    assert local_path("/plain/path") == "/plain/path" and local_path("relative/x") == "relative/x"


def test_summary_writer_and_embedding(where, tmp_path):
    with tensorboard.SummaryWriter(url(where)) as writer:
        writer.add_scalar("loss", 0.5, 3)
        writer.add_embedding(np.eye(4), metadata=list("abcd"), tag="emb")
        assert Path(writer.file_writer.path).parent == where
    assert upstream_read(where)["runs"]["."]["scalars"]["loss"][0][2] == 0.5
    assert (where / "projector_config.pbtxt").is_file() and (where / "emb" / "tensors.tsv").is_file()
    assert_nothing_under_cwd_named_file(tmp_path)


def test_file_writer(where, tmp_path):
    with tensorboard.FileWriter(url(where, "localhost")) as writer:
        writer.add_summary(summary.scalar("x", 2.0), 1)
    assert upstream_read(where)["runs"]["."]["scalars"]["x"][0][2] == 2.0
    assert_nothing_under_cwd_named_file(tmp_path)


def test_torch_summary_writer(where, tmp_path):
    torch_tb = pytest.importorskip("torch.utils.tensorboard")
    writer = torch_tb.SummaryWriter(url(where))
    writer.add_scalar("t", 7.0, 0)
    writer.close()
    assert upstream_read(where)["runs"]["."]["scalars"]["t"][0][2] == 7.0
    assert_nothing_under_cwd_named_file(tmp_path)


def test_readers_and_export(where, tmp_path):
    with tensorboard.SummaryWriter(str(where)) as writer:
        for step in range(3):
            writer.add_scalar("loss", float(step), step)
        path = writer.file_writer.path
    root = url(where.parent)
    assert [v for _, _, v in read_scalars(root)["run"]["loss"]] == [0.0, 1.0, 2.0]
    assert list(SummaryReader(root).scalars["value"]) == [0.0, 1.0, 2.0]
    assert list(SummaryReader(root)["run"].scalars["value"]) == [0.0, 1.0, 2.0]
    assert sum(1 for e in read_logdir(root) if e.event.HasField("summary")) == 3
    assert sum(1 for e in read_events(url(Path(path))) if e.HasField("summary")) == 3
    assert SummaryReader(url(Path(path))).raw_tags["scalars"] == ["loss"]
    out = tmp_path / "out.csv"
    assert export_main(["--logdir", root, "--out", str(out), "--quiet"]) == 0
    assert len(out.read_text().splitlines()) == 4


@pytest.mark.parametrize("open_it", [
    lambda logdir: tensorboard.SummaryWriter(logdir),
    lambda logdir: tensorboard.FileWriter(logdir),
    lambda logdir: SummaryReader(logdir),
    lambda logdir: read_scalars(logdir),
    lambda logdir: list(read_events(logdir + "/events.out.tfevents.1")),
], ids=["SummaryWriter", "FileWriter", "SummaryReader", "read_scalars", "read_events"])
@pytest.mark.parametrize("logdir", ["nosuchscheme://bucket/run", "file://otherhost/tmp/run"])
def test_unknown_scheme_or_other_host_is_refused_naming_the_logdir(tmp_path, monkeypatch, open_it, logdir):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as caught:
        open_it(logdir)
    assert logdir.split("/events")[0] in str(caught.value)
    assert os.listdir(tmp_path) == []  # nothing written anywhere


def test_export_cli_refuses_an_unknown_scheme_in_one_line(tmp_path, capsys):
    assert export_main(["--logdir", "nosuchscheme://b/r", "--out", str(tmp_path / "o.csv"), "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "nosuchscheme://b/r" in err and "scheme" in err
