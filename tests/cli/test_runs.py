"""`tensorboard runs ls / archive / restore / rm` on local logdirs and on moto's S3 (both fetch paths):
rows, queries, sorting, formats; archived runs out of sight of our discovery and upstream's reader."""
import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from upstream import upstream_read

from tensorboard import SummaryWriter
from tensorboard.logdir import list_runs

REPO = Path(__file__).resolve().parents[2]
OLD = 1_600_000_000  # a modification time long past: the run is not being written


def make_sweep(root, old=True, options=None):
    """Four path-named runs (lr x seed) and a Lightning-style run with hparams.yaml."""
    join = (lambda *parts: "/".join([root, *parts])) if isinstance(root, str) and "://" in root else \
        (lambda *parts: os.path.join(root, *parts))
    for lr in (0.01, 0.1):
        for seed in (1, 2):
            with SummaryWriter(join(f"lr={lr},seed={seed}"), storage_options=options) as writer:
                for step in range(1, 6):
                    writer.add_scalar("val/loss", lr * seed + 1.0 / step, step)
    if options is None:
        lightning = Path(root) / "lightning_logs" / "version_0"
        with SummaryWriter(str(lightning)) as writer:
            writer.add_scalar("val/loss", 5.0, 7)
        (lightning / "hparams.yaml").write_text("lr: 0.5\noptimizer: adam\n")
        if old:
            for directory, _, files in os.walk(root):
                for name in files:
                    os.utime(os.path.join(directory, name), (OLD, OLD))


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tensorboard.cli.runs", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO / "python"), **(env or {})})


def test_ls_rows_with_varying_hparams_metrics_sorted_in_every_format(tmp_path):
    make_sweep(tmp_path)
    done = run("ls", tmp_path, "--metrics", "val/loss=min,val/loss", "--sort", "-val/loss (min)", "--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [r["run"] for r in rows] == ["lightning_logs/version_0", "lr=0.1,seed=2", "lr=0.1,seed=1",
                                        "lr=0.01,seed=2", "lr=0.01,seed=1"]
    first = rows[0]
    assert (first["lr"], first["optimizer"], first["seed"], first["first_step"], first["last_step"]) == \
        ("0.5", "adam", "", "7", "7")
    assert first["last_write"] == "2020-09-13T12:26:40Z" and first["active"] == "false" and int(first["size"]) > 0
    assert float(rows[1]["val/loss (min)"]) == pytest.approx(0.2 + 1 / 5) and \
        float(rows[1]["val/loss"]) == pytest.approx(0.2 + 1 / 5)
    table = run("ls", tmp_path, "--where", "seed == 2 and lr < 0.05", "--sources")
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["run", "lr", "lr", "source", "seed", "seed", "source", "first_step", "last_step",
                                "last_write", "size", "active"] and len(lines) == 2
    assert lines[1].split()[:5] == ["lr=0.01,seed=2", "0.01", "path", "2", "path"]
    listed = json.loads(run("ls", tmp_path, "--format", "json", "--runs", "lightning").stdout)
    assert listed == [{"run": "lightning_logs/version_0",
                       "hparams": {"lr": {"value": 0.5, "source": "lightning",
                                          "origin": str(tmp_path / "lightning_logs" / "version_0" / "hparams.yaml")},
                                   "optimizer": {"value": "adam", "source": "lightning",
                                                 "origin": str(tmp_path / "lightning_logs" / "version_0" /
                                                               "hparams.yaml")}},
                       "first_step": 7, "last_step": 7, "last_write": "2020-09-13T12:26:40Z",
                       "size": listed[0]["size"], "active": False, "metrics": {}}]


def test_ls_over_names_groups_and_tells_about_groups_of_one(tmp_path):
    make_sweep(tmp_path)
    done = run("ls", tmp_path, "--over", "seed", "--format", "csv")
    groups = {r["run"]: r["group"] for r in csv.DictReader(io.StringIO(done.stdout))}
    assert groups == {"lr=0.01,seed=1": "lr=0.01", "lr=0.01,seed=2": "lr=0.01", "lr=0.1,seed=1": "lr=0.1",
                      "lr=0.1,seed=2": "lr=0.1", "lightning_logs/version_0": "lr=0.5,optimizer=adam"}
    assert "1 of 3 groups hold one run (lightning_logs/version_0)" in done.stderr
    assert "1 runs have no 'seed' (lightning_logs/version_0)" in done.stderr


def test_bad_arguments_are_one_line_errors(tmp_path):
    make_sweep(tmp_path)
    for args, message in ((("--where", "lr <"), "at column 5"), (("--where", "lrr < 1"), "the keys are: lr, "),
                          (("--sort", "nope"), "--sort 'nope': no such column"),
                          (("--metrics", "val/loss=best"), "is not one of last, min, max")):
        done = run("ls", tmp_path, *args)
        assert done.returncode in (1, 2) and message in done.stderr and len(done.stderr.splitlines()) == 1, \
            done.stderr


def test_archive_restore_rm_move_runs_out_of_every_servers_sight(tmp_path):
    logdir = tmp_path / "logs"
    make_sweep(logdir)
    done = run("archive", logdir, "lr=0.1,*", "--where", "seed == 2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"archived lr=0.1,seed=2: {logdir / 'lr=0.1,seed=2'} -> "
                                        f"{tmp_path / 'logs.archived' / 'lr=0.1,seed=2'}"]
    assert "lr=0.1,seed=2" not in [name for name, _ in list_runs(logdir).runs]
    assert sorted(upstream_read(logdir)["runs"]) == ["lightning_logs/version_0", "lr=0.01,seed=1", "lr=0.01,seed=2",
                                                     "lr=0.1,seed=1"]
    assert run("archive", logdir, "lightning_logs/*").returncode == 0
    assert not (logdir / "lightning_logs").exists()  # emptied parents go too
    restored = run("restore", logdir, "lightning_logs/version_0")
    assert restored.stdout.startswith("restored lightning_logs/version_0: ")
    assert (logdir / "lightning_logs" / "version_0" / "hparams.yaml").exists()

    dry = run("rm", logdir, "lr=0.01,*")
    assert dry.stdout.splitlines()[0].startswith("would delete lr=0.01,seed=1 (")
    assert "nothing deleted; pass --yes" in dry.stderr and (logdir / "lr=0.01,seed=1").exists()
    gone = run("rm", logdir, "lr=0.01,*", "--yes")
    assert [line.split(" (")[0] for line in gone.stdout.splitlines()] == ["deleted lr=0.01,seed=1",
                                                                          "deleted lr=0.01,seed=2"]
    assert sorted(os.listdir(logdir)) == ["lightning_logs", "lr=0.1,seed=1"]
    assert sorted(os.listdir(tmp_path / "logs.archived")) == ["lr=0.1,seed=2"]  # no trash left behind


def test_runs_being_written_are_refused_unless_forced(tmp_path):
    make_sweep(tmp_path, old=False)
    refused = run("rm", tmp_path, "lr=0.1,seed=1", "--yes")
    assert refused.returncode == 1 and "1 run is being written" in refused.stderr
    assert (tmp_path / "lr=0.1,seed=1").exists()
    assert run("rm", tmp_path, "lr=0.1,seed=1", "--yes", "--force").returncode == 0
    assert not (tmp_path / "lr=0.1,seed=1").exists()
    listed = run("ls", tmp_path, "--format", "json").stdout
    assert all(row["active"] for row in json.loads(listed))


def test_refusals_for_runs_that_cannot_move(tmp_path):
    make_sweep(tmp_path)
    with SummaryWriter(str(tmp_path / "lightning_logs")) as writer:  # a run holding another run
        writer.add_scalar("x", 1.0, 0)
    os.utime(next((tmp_path / "lightning_logs").glob("events*")), (OLD, OLD))
    held = run("archive", tmp_path, "lightning_logs")
    assert held.returncode == 1 and "holds other runs (lightning_logs/version_0); choose them too" in held.stderr
    assert run("archive", tmp_path).returncode == 1
    assert "name the runs to archive" in run("archive", tmp_path).stderr
    assert "no run matches" in run("archive", tmp_path, "nothing*").stderr


@pytest.mark.usefixtures("fetch_path")  # TB_OBJECT_STORE, which the command inherits
def test_ls_where_over_archive_restore_rm_on_s3():
    pytest.importorskip("s3fs")
    pytest.importorskip("moto")
    from tools.s3_server import s3_server

    with s3_server() as server:
        server.create_bucket("bucket")
        make_sweep("s3://bucket/logs", options=server.storage_options())
        import fsspec

        fs = fsspec.filesystem("s3", skip_instance_cache=True, **server.storage_options())
        fs.pipe("bucket/logs/lr=0.1,seed=1/hparams.yaml", b"optimizer: sgd\n")

        def runs(*args):
            done = run(*args, env=server.env)
            assert done.returncode == 0, done.stderr
            return done.stdout

        listed = runs("ls", "s3://bucket/logs", "--where", "optimizer == 'sgd' or seed == 2", "--over", "seed",
                      "--format", "csv", "--metrics", "val/loss=min")
        rows = list(csv.DictReader(io.StringIO(listed)))
        assert [(r["run"], r["optimizer"], r["group"]) for r in rows] == [
            ("lr=0.01,seed=2", "", "lr=0.01"), ("lr=0.1,seed=1", "sgd", "lr=0.1,optimizer=sgd"),
            ("lr=0.1,seed=2", "", "lr=0.1")]
        assert [float(r["val/loss (min)"]) for r in rows] == pytest.approx([0.22, 0.3, 0.4], rel=1e-6)
        assert runs("archive", "s3://bucket/logs", "lr=0.1,seed=1", "--force").strip() == (
            "archived lr=0.1,seed=1: s3://bucket/logs/lr=0.1,seed=1 -> s3://bucket/logs.archived/lr=0.1,seed=1")
        fs.invalidate_cache()
        assert sorted(path.rsplit("/", 1)[1][:6] for path in fs.find("bucket/logs.archived")) == ["events", "hparam"]
        assert [name for name, _ in list_runs("s3://bucket/logs", server.storage_options()).runs] == \
            ["lr=0.01,seed=1", "lr=0.01,seed=2", "lr=0.1,seed=2"]
        assert "restored lr=0.1,seed=1" in runs("restore", "s3://bucket/logs", "*", "--force")
        assert runs("rm", "s3://bucket/logs", "--where", "lr < 0.05", "--yes", "--force").count("deleted ") == 2
        assert [name for name, _ in list_runs("s3://bucket/logs", server.storage_options()).runs] == \
            ["lr=0.1,seed=1", "lr=0.1,seed=2"]


def test_a_relative_logdir_archives_beside_it_and_roots_are_refused(tmp_path):
    from tensorboard.logdir.archive import archive_root
    from tensorboard.logdir.discovery import Listing

    logdir = tmp_path / "logs"
    make_sweep(logdir)
    done = subprocess.run([sys.executable, "-m", "tensorboard.cli.runs", "archive", ".", "lr=0.1,seed=1"],
                          capture_output=True, text=True, timeout=300, cwd=logdir,
                          env={**os.environ, "PYTHONPATH": str(REPO / "python")})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "logs.archived" / "lr=0.1,seed=1").is_dir() and not (logdir / "lr=0.1,seed=1").exists()
    for root, message in (("/", "file system's root"), ("s3://bucket", "bucket's root"),
                          ("s3://bucket/", "bucket's root")):
        files = {} if root.startswith("s3") else None
        with pytest.raises(ValueError, match=message):
            archive_root(Listing(None, [], root=root, files=files))
    assert archive_root(Listing(None, [], root="s3://bucket/a/logs/", files={})) == "s3://bucket/a/logs.archived"


def test_nested_runs_are_found_whatever_sorts_between_them(tmp_path):
    from tensorboard.logdir.run_table import nested_runs

    found = nested_runs({"a": "r/a", "b": "r/a/b", "c": "r/a/b c", "x": "r/a/b/x", "z": "r/z"}, "/")
    assert found == {"r/a": ["r/a/b", "r/a/b/x", "r/a/b c"], "r/a/b": ["r/a/b/x"], "r/a/b/x": [], "r/a/b c": [],
                     "r/z": []}
