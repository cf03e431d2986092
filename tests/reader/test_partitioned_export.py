"""`tensorboard export --partition run`: a Hive-partitioned Parquet dataset that DuckDB and pyarrow read
back with the same rows as SummaryReader, for every kind, whatever the run names; written run by run,
replaced only when asked, and with a progress bar on a terminal only."""
import io
import os
import subprocess
import sys

import duckdb
import pyarrow.dataset as ds
import pytest
from reader.sweep_logs import KINDS, RUNS, local_sweep

from tensorboard.logdir.progress import Progress
from tensorboard.reader import SummaryReader, export
from tensorboard.reader._partitioned import encode_run

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HISTOGRAM_FIELDS = {"min", "max", "num", "sum", "sum_squares"}


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    return local_sweep(tmp_path_factory.mktemp("sweep") / "logs")


def _cell(value):
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    return tuple(value) if isinstance(value, list) else value


def rows(frame, columns) -> list[tuple]:
    """The frame's rows as plain Python tuples of `columns`, sorted (arrays become tuples)."""
    return sorted(tuple(_cell(v) for v in row) for row in frame[columns].itertuples(index=False, name=None))


def reader_frame(logdir, kind, **filters):
    extras = {"dir_name"} | (set() if kind == "hparams" else {"wall_time"}) | \
        (HISTOGRAM_FIELDS if kind == "histograms" else set())
    frame = SummaryReader(logdir, extra_columns=extras, event_types={kind}, **filters).get_events(kind)
    frame = frame.rename(columns={"dir_name": "run"})
    if "run" in frame:  # tbparse's dir_name is "" for the logdir itself; export names that run "."
        frame["run"] = frame["run"].where(frame["run"] != "", ".")
    return frame


def run_export(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "tensorboard.reader.export", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": os.path.join(REPO, "python")},
                          **kwargs)


@pytest.mark.parametrize("kind", KINDS)
def test_duckdb_and_pyarrow_read_the_same_rows_as_summary_reader(logdir, tmp_path, kind):
    out = tmp_path / "dataset"
    result = run_export("--logdir", logdir, "--out", out, "--partition", "run", "--kind", kind)
    assert result.returncode == 0, result.stderr
    assert "\r" not in result.stderr  # no bar when stderr is not a terminal
    expected = reader_frame(logdir, kind)
    columns = list(expected.columns)
    assert len(set(expected["run"])) >= len(RUNS) - 1  # every run has the kind (hparams: all but the top)
    by_duckdb = duckdb.sql(f"SELECT * FROM read_parquet('{out}/**/*.parquet', hive_partitioning=true)").df()
    by_arrow = ds.dataset(str(out), partitioning="hive").to_table().to_pandas()
    assert sorted(by_duckdb.columns) == sorted(columns) == sorted(by_arrow.columns)
    assert rows(by_duckdb, columns) == rows(expected, columns)
    assert rows(by_arrow, columns) == rows(expected, columns)
    runs = set(expected["run"])
    assert sorted(os.listdir(out)) == sorted(encode_run(r) for r in runs)
    for run in runs:
        assert os.listdir(out / encode_run(run)) == ["part-0.parquet"]


def test_run_names_are_percent_encoded_one_directory_each():
    assert encode_run("") == "run="
    assert encode_run("a b/c=d%ü") == "run=a%20b%2Fc%3Dd%25%C3%BC"
    assert encode_run("null") == "run=%6Eull" and encode_run("NULL") == "run=%4EULL"  # DuckDB < 2: no null run
    assert encode_run("nullable") == "run=nullable"
    with pytest.raises(ValueError, match="null run"):
        encode_run("__HIVE_DEFAULT_PARTITION__")


def test_filters_and_steps_apply_to_the_dataset(logdir, tmp_path):
    out = tmp_path / "filtered"
    result = run_export("--logdir", logdir, "--out", out, "--partition", "run", "--runs", "^(a b|ünï)$",
                        "--tags", "^loss$", "--steps", "5:9", "--quiet")
    assert result.returncode == 0 and result.stderr == ""
    got = duckdb.sql(f"SELECT run, tag, min(step), max(step), count(*) FROM read_parquet('{out}/**/*.parquet', "
                     "hive_partitioning=true) GROUP BY ALL ORDER BY run").fetchall()
    assert got == [("a b", "loss", 5, 9, 5), ("ünï", "loss", 5, 9, 5)]


def test_an_existing_directory_is_replaced_only_with_force_and_only_if_it_is_a_dataset(logdir, tmp_path):
    out = tmp_path / "ds"
    assert run_export("--logdir", logdir, "--out", out, "--partition", "run", "--runs", "^a b$").returncode == 0
    again = run_export("--logdir", logdir, "--out", out, "--partition", "run")
    assert again.returncode == 2 and "pass --force" in again.stderr
    assert run_export("--logdir", logdir, "--out", out, "--partition", "run", "--force", "--runs", "^c=d$",
                      "--quiet").returncode == 0
    assert os.listdir(out) == [encode_run("c=d")]
    (out / "notes.txt").write_text("mine")
    refused = run_export("--logdir", logdir, "--out", out, "--partition", "run", "--force")
    assert refused.returncode == 2 and "not a partition of an export" in refused.stderr
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == ["ds"]  # no temporary directory left behind


def test_bad_steps_are_refused_before_reading(logdir, tmp_path):
    for steps in ("5", "a:b", "9:5"):
        result = run_export("--logdir", logdir, "--out", tmp_path / "x.csv", "--steps", steps)
        assert result.returncode == 2 and "--steps" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_a_bar_on_a_terminal_and_lines_elsewhere():
    terminal = _Terminal()
    bar = Progress(stream=terminal)
    for done in range(1, 5):
        bar(done, 4, f"f{done}")
    bar.close()
    text = terminal.getvalue()
    assert text.startswith("\rtensorboard export: [") and "4/4 files" in text and text.endswith("\n")
    piped = io.StringIO()
    quick = Progress(stream=piped)
    for done in range(1, 5):
        quick(done, 4, f"f{done}")
    quick.close()
    assert piped.getvalue() == ""  # a read under a second prints nothing off a terminal


def test_the_export_holds_a_few_runs_at_a_time(logdir, tmp_path, monkeypatch):
    from tensorboard.reader import _partitioned

    seen = []
    real = _partitioned.table_of

    def table_of(frame):
        seen.append((set(frame["run"]), len(frame)))
        return real(frame)

    monkeypatch.setattr(_partitioned, "table_of", table_of)
    monkeypatch.setattr(export, "GROUP_ROWS", 1)  # every run alone
    frames = export.run_group_frames(logdir, "scalars")
    runs, total = _partitioned.write_partitioned(frames, str(tmp_path / "ds"))
    expected = reader_frame(logdir, "scalars")
    assert all(len(names) == 1 for names, _ in seen) and runs == len(seen) == expected["run"].nunique()
    monkeypatch.setattr(export, "GROUP_ROWS", 150)  # a few runs together, never more than 150 rows
    seen.clear()
    _partitioned.write_partitioned(export.run_group_frames(logdir, "scalars"), str(tmp_path / "ds2"))
    assert max(len(names) for names, _ in seen) > 1 and max(n for _, n in seen) <= 150
    assert total == len(expected) == sum(n for _, n in seen)
