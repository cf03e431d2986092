"""`tensorboard plot` from the command line: the files it writes (SVG text naming every tag and run, PDF
with embedded TrueType fonts, PGF that pdflatex compiles, PNG), one file per tag or one with --grid,
no overwrite without --force, errors naming the argument, one line when matplotlib is missing, and the
real launcher dispatching it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from plot_logdir import CONFIGS, RUNS, TAGS

from tensorboard.cli import plot as cli

REPO = Path(__file__).resolve().parents[2]


def run(*args) -> tuple[int, str]:
    """`tensorboard plot ARGS` in this process: (exit status, stderr)."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = cli.main([str(a) for a in args])
    return status, err.getvalue()


def svg_text(path: Path) -> list[str]:
    return [node.text for node in ET.parse(path).iter() if node.tag.endswith("}text") and node.text]


def test_svg_text_holds_every_tag_and_run(sweep, tmp_path):
    out = tmp_path / "fig.svg"
    assert run(sweep, "--out", out, "--tags", "^train/", "--grid", "--smoothing", "0.6")[0] == 0
    text = svg_text(out)
    assert set(TAGS) <= set(text) and set(RUNS) <= set(text)
    assert "step" in text


def test_groups_name_their_configurations(sweep, tmp_path):
    out = tmp_path / "groups.svg"
    assert run(sweep, "--out", out, "--tags", "loss", "--group_runs", r"_seed\d+", "--x", "epoch")[0] == 0
    text = svg_text(out)
    assert set(CONFIGS) <= set(text) and "epoch" in text and not set(RUNS) & set(text)


def test_over_and_where_choose_and_group_runs_by_their_hyperparameters(sweep, tmp_path):
    import json
    import shutil

    root = tmp_path / "sweep"
    shutil.copytree(sweep, root)
    for name in RUNS:
        lr, seed = name.split("_seed")
        (root / name / "params.json").write_text(json.dumps({"lr": float(lr[2:]), "seed": int(seed)}))
    out = tmp_path / "over.svg"
    assert run(root, "--out", out, "--tags", "loss", "--over", "seed", "--where", "seed < 2")[0] == 0
    text = svg_text(out)
    assert {"lr=0.1", "lr=0.01"} <= set(text) and not set(RUNS) & set(text)
    status, err = run(root, "--out", tmp_path / "bad.svg", "--where", "depth > 2")
    assert status == 2 and err.startswith("tensorboard plot: --where") and "lr, seed" in err


def test_pdf_embeds_truetype_fonts(sweep, tmp_path):
    out = tmp_path / "fig.pdf"
    assert run(sweep, "--out", out, "--tags", "loss")[0] == 0
    pdf = out.read_bytes()
    assert pdf.startswith(b"%PDF") and b"/FontFile2" in pdf and b"/Type3" not in pdf


def test_a_file_per_tag_without_grid(sweep, tmp_path):
    status, err = run(sweep, "--out", tmp_path / "fig.png", "--tags", "^train/", "--dpi", "50")
    assert status == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig-train_accuracy.png", "fig-train_loss.png"]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in tmp_path.iterdir())
    assert err.startswith("tensorboard plot: wrote ") and err.count("\n") == 1


def test_pgf_compiles_with_pdflatex(sweep, tmp_path):
    pdflatex = shutil.which("pdflatex")
    assert pdflatex, "pdflatex is missing: apt-get install texlive-latex-base texlive-pictures lmodern " \
                     "(installer.sh --with-browser installs them for the tests)"
    out = tmp_path / "fig.pgf"
    status, err = run(sweep, "--out", out, "--tags", "loss", "--group_runs", r"_seed\d+", "--smoothing", "0.5",
                      "--size", "3.2,2.4")
    assert status == 0, err
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n\\usepackage{pgf}\n\\usepackage{lmodern}\n"
                                        "\\begin{document}\n\\begin{figure}\\input{fig.pgf}\\end{figure}\n"
                                        "\\end{document}\n")
    result = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stdout[-3000:]
    assert (tmp_path / "paper.pdf").read_bytes().startswith(b"%PDF")
    assert "Output written on paper.pdf (1 page" in result.stdout


def test_refuses_to_overwrite_without_force(sweep, tmp_path):
    out = tmp_path / "fig.pdf"
    out.write_bytes(b"mine")
    status, err = run(sweep, "--out", out, "--tags", "loss")
    assert status == 2 and err == f"tensorboard plot: --out {str(out)!r} exists; pass --force to replace it\n"
    assert out.read_bytes() == b"mine"
    assert run(sweep, "--out", out, "--tags", "loss", "--force")[0] == 0
    assert out.read_bytes().startswith(b"%PDF")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.pdf"]  # no temporary file left


def test_nothing_is_written_when_one_of_the_files_exists(sweep, tmp_path):
    (tmp_path / "fig-train_loss.svg").write_text("mine")
    status, err = run(sweep, "--out", tmp_path / "fig.svg", "--tags", "^train/")
    assert status == 2 and "fig-train_loss.svg" in err and "--force" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig-train_loss.svg"]


@pytest.mark.parametrize("args, named", [
    (["--out", "fig.jpg"], "--out"), (["--smoothing", "1.5"], "--smoothing"), (["--band", "iqr"], "--band"),
    (["--group_runs", "("], "--group_runs"), (["--runs", "("], "--runs"), (["--exclude", "("], "--exclude"),
    (["--tags", "("], "--tags"), (["--size", "3"], "--size"), (["--steps", "9:1"], "--steps"),
    (["--style", "no-such-style"], "--style"), (["--x", "wall", "--group_runs", "_s"], "--x"),
    (["--x", "no_such_tag"], "--x"), (["--tags", "no_such_tag"], "--tags"), (["--kind", "images"], "--kind"),
    (["--max_points", "2"], "--max_points"), (["--dpi", "0"], "--dpi"),
])
def test_bad_arguments_give_one_line_naming_the_argument(sweep, tmp_path, args, named, capsys):
    argv = [str(sweep), *(["--out", str(tmp_path / "fig.pdf")] if "--out" not in args else [])]
    argv += [str(tmp_path / a) if a == "fig.jpg" else a for a in args]
    try:
        status = cli.main(argv)
    except SystemExit as exit_:  # argparse's own refusals (choices, types)
        status = exit_.code
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert status in (1, 2)
    assert re.search(rf"(^tensorboard plot: {named}\b)|(argument {named}\b)", err), err
    assert list(tmp_path.iterdir()) == []


def test_without_matplotlib_one_line_says_what_to_install(sweep, tmp_path):
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from tensorboard.cli.plot import main\n"
            f"sys.exit(main([{str(sweep)!r}, '--out', {str(tmp_path / 'f.pdf')!r}]))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(REPO / "python")})
    assert result.returncode == 2
    assert result.stderr == "tensorboard plot: needs matplotlib: pip install tensorboard[plot]\n"


def test_the_launcher_runs_tensorboard_plot(sweep, tmp_path):
    code = ("import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('m', {str(REPO / 'tools/launcher/main.py')!r})\n"
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
            "sys.exit(m.main(['tensorboard'] + sys.argv[1:]))\n")
    out = tmp_path / "fig.svg"
    result = subprocess.run([sys.executable, "-c", code, "plot", str(sweep), "--out", str(out), "--tags", "loss",
                             "--group_runs", r"_seed\d+"], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": ""})
    assert result.returncode == 0, result.stderr
    assert set(CONFIGS) <= set(svg_text(out))
    assert result.stderr.startswith("tensorboard plot: wrote ")


def test_pgf_without_pdflatex_says_which_packages_before_reading(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no pdflatex there
    status, err = run(tmp_path / "no-such-logdir", "--out", tmp_path / "fig.pgf")
    assert status == 2
    assert err == (f"tensorboard plot: --out {str(tmp_path / 'fig.pgf')!r}: writing PGF needs pdflatex on PATH "
                   "(Debian and Ubuntu: apt-get install texlive-latex-base texlive-pictures lmodern)\n")


def test_grid_refuses_an_existing_out_before_reading(tmp_path):
    out = tmp_path / "fig.pdf"
    out.write_bytes(b"mine")
    status, err = run(tmp_path / "no-such-logdir", "--out", out, "--grid")
    assert status == 2 and "exists; pass --force" in err and out.read_bytes() == b"mine"
