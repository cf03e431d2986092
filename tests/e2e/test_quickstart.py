"""A newcomer's first commands, from a clean clone in environments nothing else prepared.

`make demo` (the README's main quick-start command) runs in a fresh `git clone` of this
repository: the Makefile alone builds and installs the wheel into the clone's own `.venv`,
installs what the demo needs, writes the demo run and serves it. The test waits for the server,
checks that every dashboard the demo logs to is active, and stops it. Then the setup lines of the
README's "Examples" section run as written in that clone, and every README example runs in the
environment those lines made (MXNet ones in the clone's `.venv-mxnet`), with no source tree on
the path, and must log what it says (read back by upstream's reader).
"""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from e2e_helpers import REPO, clean_env, free_port, get_json, http_get, stop_group
from readme_examples import READING, check_example_logged, example_env, readme_examples, section_blocks, setup_commands

# Only guards against a hang (a fresh clone builds everything: Bazel, venvs, pip installs).
QUICKSTART_DEADLINE_S = 40 * 60
# Every dashboard demo/demo.py logs to (add_figure and add_images feed "images").
DEMO_DASHBOARDS = ("scalars", "custom_scalars", "histograms", "distributions", "images", "audio", "text",
                   "graphs", "pr_curves", "hparams", "projector", "mesh")


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A fresh clone of this repository (what is committed), with nothing built in it."""
    path = tmp_path_factory.mktemp("quickstart") / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(path)], check=True, env=clean_env())
    assert not (path / ".venv").exists()
    return path


@pytest.fixture(scope="module")
def demo(clone):
    """`make demo` running in the clone; yields (base URL, log path) once the server answers."""
    port = free_port()
    log_path = clone.parent / "make-demo.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(["make", "demo"], cwd=str(clone), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=clean_env(DEMO_PORT=str(port)),
                                start_new_session=True)
    url = "http://127.0.0.1:%d" % port
    try:
        deadline = time.monotonic() + QUICKSTART_DEADLINE_S
        while True:
            if proc.poll() is not None:
                raise AssertionError("make demo exited with %s:\n%s" % (proc.returncode, log_path.read_text()[-6000:]))
            try:
                if http_get(url + "/data/plugins_listing")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("make demo never served:\n" + log_path.read_text()[-6000:])
            time.sleep(1)
        yield url, log_path
    finally:
        stop_group(proc)


def test_make_demo_builds_everything_and_serves_every_dashboard(clone, demo):
    url, log_path = demo
    log = log_path.read_text()
    assert "installer: creating virtualenv" in log  # the Makefile made the venv: nothing was there
    assert list((clone / "dist").glob("tensorboard-*+standalone*.whl"))
    deadline = time.monotonic() + 300
    while True:  # the server loads the logdir in the background
        listing = get_json(url + "/data/plugins_listing")
        inactive = [d for d in DEMO_DASHBOARDS if not listing.get(d, {}).get("enabled")]
        runs = get_json(url + "/data/runs")
        if (not inactive and {"lr_0.01", "lr_0.1", "lr_0.5"} <= set(runs)) or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert not inactive, "dashboards without data: %s" % inactive
    assert {"lr_0.01", "lr_0.1", "lr_0.5"} <= set(runs)
    tags = get_json(url + "/data/plugin/scalars/tags")
    assert "loss/train" in tags["lr_0.1"]


def test_readme_examples_run_in_the_environments_the_readme_creates(clone, demo, tmp_path):
    # `make install` already ran as part of `make demo`; the rest of the setup runs as written.
    commands = setup_commands()
    assert commands[0] == "make install"
    for command in commands[1:]:
        result = subprocess.run(["bash", "-ec", command], cwd=str(clone), env=clean_env(),
                                capture_output=True, text=True)
        assert result.returncode == 0, (command, result.stdout[-2000:], result.stderr[-4000:])
    examples = readme_examples()
    assert len(examples) >= 6
    for i, (title, code) in enumerate(examples):
        workdir = tmp_path / ("example%d" % i)
        workdir.mkdir()
        (workdir / "example.py").write_text(code)
        venv = ".venv-mxnet" if example_env(code) == "mxnet" else ".venv"  # the README installs the rest into .venv
        result = subprocess.run([str(clone / venv / "bin" / "python"), "example.py"], cwd=str(workdir),
                                env=clean_env(OMP_NUM_THREADS="2"), capture_output=True, text=True)
        assert result.returncode == 0, (title, result.stderr[-4000:])
        check_example_logged(title, code, workdir)
    # "Reading your logs" reads the runs/ the "Log and look" example wrote, with .venv activated; its
    # shell block runs `tensorboard export` through the installed launcher and DuckDB on the Parquet.
    assert examples[0][0] == "Log and look"
    using_dir = tmp_path / "example0"
    activated = clean_env(OMP_NUM_THREADS="2")
    activated["PATH"] = f"{clone / '.venv' / 'bin'}{os.pathsep}{activated['PATH']}"
    (python_block,) = section_blocks(READING, "python")
    (using_dir / "reading.py").write_text(python_block)
    result = subprocess.run(["python", "reading.py"], cwd=str(using_dir), env=activated, capture_output=True,
                            text=True)
    assert result.returncode == 0 and "loss" in result.stdout, result.stderr[-4000:]
    (shell_block,) = section_blocks(READING, "sh")
    result = subprocess.run(["bash", "-ec", shell_block], cwd=str(using_dir), env=activated, capture_output=True,
                            text=True)
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-4000:])
    assert "exp1" in result.stdout and "loss" in result.stdout  # DuckDB's table of the export
    assert (using_dir / "h.parquet").stat().st_size > 0
    assert (using_dir / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
