"""What the front doors write stays where and as the user asked: no group or run name puts a file outside
`--out`, every file and directory created honours the umask (as event files do), and names and values that
file content controls (a directory name that is not UTF-8, a list-valued hyperparameter) come out as text
instead of a traceback."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tensorboard import FileWriter, SummaryWriter
from tensorboard.src import hparams_pb2, summary_pb2

REPO = Path(__file__).resolve().parents[2]


def run_front_door(module: str, *args: str, cwd: Path, umask: int | None = None) -> subprocess.CompletedProcess:
    """`python -m tensorboard.cli.<module> ARGS` from the source tree, under `umask` when given."""
    code = (f"import os, sys; os.umask({umask}); " if umask is not None else "import sys; ") + \
        f"from tensorboard.cli import {module}; sys.exit({module}.main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO / "python")})


def seeds(root: Path, pattern: str) -> Path:
    for seed in range(2):
        with SummaryWriter(str(root / pattern.format(seed=seed))) as writer:
            writer.add_scalar("loss", float(seed), 0)
    return root


def test_reduce_keeps_every_group_inside_out(tmp_path):
    logdir = seeds(tmp_path / "logs", "._seed{seed}./._seed{seed}./x")
    out = run_front_door("reduce", "--logdir", str(logdir), "--group_by", r"_seed\d", "--out", "out", "--quiet",
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("events.out.tfevents.*")
                     if "logs" not in p.parts)
    assert written and all(path.startswith("out/%2E%2E/%2E%2E/x/") for path in written), written
    assert not (tmp_path / "x").exists() and not (tmp_path.parent / "x").exists()


@pytest.mark.parametrize("umask", [0o077, 0o022])
def test_outputs_honour_the_umask(tmp_path, umask):
    logdir = seeds(tmp_path / "logs", "seed{seed}")
    for module, args in (("export", ("--logdir", "logs", "--out", "table.csv", "--quiet")),
                         ("export", ("--logdir", "logs", "--out", "page.html", "--quiet")),
                         ("export", ("--logdir", "logs", "--out", "parts", "--partition", "run", "--quiet")),
                         ("reduce", ("--logdir", "logs", "--out", "reduced", "--quiet"))):
        result = run_front_door(module, *args, cwd=tmp_path, umask=umask)
        assert result.returncode == 0, result.stderr
    made = [p for p in tmp_path.rglob("*") if logdir not in p.parents and p != logdir]
    assert len(made) >= 6
    for path in made:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & umask == 0, (path, oct(mode))  # no bit the umask takes away


def test_non_utf8_run_names_and_list_hparams_are_written_as_text(tmp_path):
    from tensorboard.reader import SummaryReader
    from tensorboard.report import export_report

    logdir = tmp_path / "logs"
    odd = os.fsdecode(os.fsencode(str(logdir)) + b"/bad\xffname")
    with SummaryWriter(odd) as writer:
        writer.add_scalar("loss", 1.0, 0)
    data = hparams_pb2.HParamsPluginData(version=0)
    data.session_start_info.hparams["layers"].list_value.values.add().number_value = 3
    data.session_start_info.hparams["layers"].list_value.values.add().string_value = "wide"
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name="hparams", content=data.SerializeToString()))
    writer = FileWriter(str(logdir / "hp"))
    writer.add_summary(summary_pb2.Summary(value=[
        summary_pb2.Summary.Value(tag="_hparams_/session_start_info", metadata=metadata)]), 0)
    writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="loss", simple_value=2.0)]), 0)
    writer.close()
    reader = SummaryReader(str(logdir), extra_columns={"dir_name"})
    assert sorted(reader.scalars["dir_name"]) == ["bad\\xffname", "hp"]
    assert reader.hparams["value"].tolist() == [[3.0, "wide"]]
    assert export_report(str(logdir), str(tmp_path / "r.html"))["runs"] == 2
    assert '"bad\\\\xffname"' in (tmp_path / "r.html").read_text()  # a JSON string: its backslash escaped
    result = run_front_door("export", "--logdir", str(logdir), "--out", "t.csv", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "bad\\xffname,loss,0" in (tmp_path / "t.csv").read_text()
