"""`tensorboard export`: every format by suffix, run/tag/kind filters, DuckDB querying the Parquet as
written, progress on stderr, errors; through the launcher's dispatch and `python -m`."""
import importlib.util
import json
import os
import subprocess
import sys

import duckdb
import numpy as np
import pandas as pd
import pytest

import tensorboard
from tensorboard.reader import export

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    for run, scale in (("train", 1.0), ("eval", 2.0)):
        with tensorboard.SummaryWriter(str(root / run)) as writer:
            for step in range(50):
                writer.add_scalar("loss", scale / (step + 1), step)
                writer.add_scalar("lr", 0.1, step)
                if step % 10 == 0:
                    writer.add_histogram("w", np.arange(100.0) * scale, step)
    return root


def run_export(*args):
    return subprocess.run([sys.executable, "-m", "tensorboard.reader.export", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": os.path.join(REPO, "python")})


def test_duckdb_queries_the_parquet_as_written(logdir, tmp_path):
    out = tmp_path / "scalars.parquet"
    result = run_export("--logdir", logdir, "--out", out)
    assert result.returncode == 0, result.stderr
    rows = duckdb.sql(f"SELECT run, tag, count(*) AS n, min(step), max(step), max(value) FROM '{out}' "
                      "GROUP BY run, tag ORDER BY run, tag").fetchall()
    assert rows == [("eval", "loss", 50, 0, 49, 2.0), ("eval", "lr", 50, 0, 49, pytest.approx(0.1)),
                    ("train", "loss", 50, 0, 49, 1.0), ("train", "lr", 50, 0, 49, pytest.approx(0.1))]
    types = dict(duckdb.sql(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '{out}')").fetchall())
    assert types == {"run": "VARCHAR", "tag": "VARCHAR", "step": "BIGINT", "wall_time": "DOUBLE", "value": "DOUBLE"}


def test_histograms_parquet_has_list_columns(logdir, tmp_path):
    out = tmp_path / "h.parquet"
    assert run_export("--logdir", logdir, "--out", out, "--kind", "histograms", "--runs", "^train$").returncode == 0
    rows = duckdb.sql(f"SELECT run, step, num, len(counts) = len(limits) FROM '{out}' ORDER BY step").fetchall()
    assert [r[:3] for r in rows] == [("train", s, 100.0) for s in range(0, 50, 10)] and all(r[3] for r in rows)


@pytest.mark.parametrize("suffix", [".csv", ".json", ".jsonl"])
def test_text_formats_round_trip(logdir, tmp_path, suffix):
    out = tmp_path / f"s{suffix}"
    assert run_export("--logdir", logdir, "--out", out, "--tags", "^loss$", "--runs", "train").returncode == 0
    frame = pd.read_csv(out) if suffix == ".csv" else pd.read_json(out, lines=suffix == ".jsonl")
    assert list(frame.columns) == ["run", "tag", "step", "wall_time", "value"]
    assert set(frame.run) == {"train"} and set(frame.tag) == {"loss"}
    np.testing.assert_allclose(frame.value, np.float32(1.0 / (frame.step + 1)))


def test_bad_arguments_fail_clearly(logdir, tmp_path):
    result = run_export("--logdir", logdir, "--out", tmp_path / "x.xlsx")
    assert result.returncode == 2 and "unknown suffix" in result.stderr
    result = run_export("--logdir", tmp_path / "missing", "--out", tmp_path / "x.csv")
    assert result.returncode == 1 and "missing" in result.stderr
    result = run_export("--logdir", logdir, "--out", tmp_path / "x.csv", "--tags", "(")  # refused before reading
    assert result.returncode == 2 and "--tags '(' is not a valid regex" in result.stderr
    assert not (tmp_path / "x.csv").exists()


def test_progress_goes_to_stderr(tmp_path, monkeypatch):
    for i in range(3):
        with tensorboard.SummaryWriter(str(tmp_path / f"r{i}")) as writer:
            writer.add_scalar("x", 1.0, 0)
    clock = iter(range(0, 1000, 2))  # every file "takes" 2 s, so every one is reported
    monkeypatch.setattr(export.time, "monotonic", lambda: next(clock))
    errors = []
    monkeypatch.setattr(sys, "stderr",
                        type("E", (), {"write": lambda self, s: errors.append(s), "flush": lambda self: 0})())
    assert export.main(["--logdir", str(tmp_path), "--out", str(tmp_path / "o.jsonl")]) == 0
    text = "".join(errors)
    assert "read 1/3 files" in text and "read 3/3 files" in text and "wrote 3 rows" in text


def test_launcher_dispatches_export_and_nothing_else(logdir, tmp_path):
    spec = importlib.util.spec_from_file_location("tb_launcher_main", os.path.join(REPO, "tools/launcher/main.py"))
    code = ("import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('m', {os.path.join(REPO, 'tools/launcher/main.py')!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "sys.exit(m.main(['tensorboard'] + sys.argv[1:]))\n")
    out = tmp_path / "l.parquet"
    result = subprocess.run([sys.executable, "-c", code, "export", "--logdir", str(logdir), "--out", str(out)],
                            capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": ""})
    assert result.returncode == 0, result.stderr
    assert duckdb.sql(f"SELECT count(*) FROM '{out}'").fetchall() == [(200,)]
    launcher = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(launcher)
    # other arguments (even a logdir called "export") still reach the renderer's argument rewriting
    assert launcher.rewrite_args(["--logdir", "export"]) == ["--logdir", "export", "--host=127.0.0.1"]


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_json_keeps_every_float_and_names_what_it_cannot_hold(tmp_path, suffix):
    with tensorboard.SummaryWriter(str(tmp_path / "run")) as writer:
        writer.add_scalar("lr", 1e-12, 0)
        writer.add_scalar("nan", float("nan"), 1)
        writer.add_scalar("inf", float("inf"), 2)
        writer.add_scalar("dp", 0.123456789012345678, 3, double_precision=True)  # a float64 tensor

    def exported(kind):
        out = tmp_path / f"{kind}{suffix}"
        export.write_table(export.export_table(str(tmp_path), kind), str(out))
        text = out.read_text()
        rows = [json.loads(line) for line in text.splitlines()] if suffix == ".jsonl" else json.loads(text)
        return {row["tag"]: row["value"] for row in rows}

    with pytest.warns(UserWarning, match="^2 NaN or infinite values are written as null"):
        assert exported("scalars") == {"lr": float(np.float32(1e-12)), "nan": None, "inf": None}
    assert exported("tensors") == {"dp": 0.123456789012345678}
    layout = {"c" * 200: {"t": ["Multiline", ["s"]]}}  # serialized, more than 127 bytes: not all UTF-8
    with tensorboard.SummaryWriter(str(tmp_path / "run")) as writer:
        writer.add_custom_scalars(layout)
    serialized = tensorboard.summary.custom_scalars(layout).value[0].tensor.string_val[0]
    assert exported("tensors")["custom_scalars__config__"] == serialized.decode("utf-8", "backslashreplace")


def test_an_existing_out_is_kept_unless_force(logdir, tmp_path):
    out = tmp_path / "mine.csv"
    out.write_text("precious\n")
    result = run_export("--logdir", logdir, "--out", out)
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        f"tensorboard export: --out {str(out)!r} exists; pass --force to replace it"]
    assert out.read_text() == "precious\n"
    assert run_export("--logdir", logdir, "--out", out, "--force", "--quiet").returncode == 0
    assert pd.read_csv(out).shape[0] == 200
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.csv"]  # no temporary file left


def test_an_interrupted_export_leaves_no_file(logdir, tmp_path, monkeypatch):
    out = tmp_path / "half.jsonl"

    def interrupted(frame):
        raise KeyboardInterrupt

    monkeypatch.setattr(export, "_json_rows", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export.write_table(export.export_table(str(logdir)), str(out))
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_appears_during_the_export_is_not_replaced(logdir, tmp_path, monkeypatch):
    out = tmp_path / "race.json"
    real = export._write_format

    def meanwhile(frame, fmt, path):
        real(frame, fmt, path)
        out.write_text("written by someone else")

    monkeypatch.setattr(export, "_write_format", meanwhile)
    with pytest.raises(FileExistsError, match="pass --force"):
        export.write_table(export.export_table(str(logdir)), str(out), force=False)
    assert out.read_text() == "written by someone else" and len(list(tmp_path.iterdir())) == 1


def test_smoothing_adds_tensorboards_smoothed_column_per_run_and_tag(logdir, tmp_path):
    out = tmp_path / "smoothed.csv"
    result = run_export("--logdir", logdir, "--out", out, "--smoothing", "0.6", "--exclude", "^eval$")
    assert result.returncode == 0, result.stderr
    frame = pd.read_csv(out)
    assert list(frame.columns) == ["run", "tag", "step", "wall_time", "value", "smoothed"]
    assert set(frame["run"]) == {"train"}
    for _, rows in frame.groupby(["run", "tag"]):
        assert rows["smoothed"].tolist() == pytest.approx(tensorboard.reader.smooth(rows["value"], 0.6), rel=1e-12)
    assert rows["smoothed"].tolist() != rows["value"].tolist() or rows["value"].nunique() == 1


@pytest.mark.parametrize("args,message", [(["--smoothing", "1.5"], "expected a number from 0 to 1"),
                                          (["--smoothing", "0.5", "--kind", "histograms"],
                                           "--smoothing smooths scalars, not histograms")])
def test_bad_smoothing_is_refused(logdir, tmp_path, args, message):
    result = run_export("--logdir", logdir, "--out", tmp_path / "x.csv", *args)
    assert result.returncode == 2 and message in result.stderr
    assert not (tmp_path / "x.csv").exists()
