"""docs/troubleshooting.md names only what exists: every `--flag` on the page is an option of the `tensorboard`
command (the source tree's launcher, `--helpfull`) or of `tensorboard export` / `reduce` / `runs`; each
command line the page shows uses its own command's options; the keyword arguments it passes to `SummaryWriter`
and `SummaryReader` are theirs. The reader's row of its restart table holds for `SummaryReader` and
`tensorboard export`."""
from __future__ import annotations

import csv
import functools
import inspect
import re
import subprocess
import sys

import pytest
from doc_tables import REPO, code_spans, page, section, table
from readme_examples import blocks

import tensorboard
from tensorboard.reader import SummaryReader

PAGE = page("troubleshooting.md")
LAUNCHER = REPO / "tests" / "serving" / "run_launcher.py"
# the help screens that list each command's options: the launcher's whole list, export's two front doors
HELP_ARGS = {"tensorboard": [["--helpfull"]], "export": [["export", "--help"], ["export", "--out", "p.html", "--help"]],
             "reduce": [["reduce", "--help"]],
             "runs": [["runs", "ls", "--help"], ["runs", "archive", "--help"], ["runs", "rm", "--help"]]}
FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")


@functools.cache
def options(command: str) -> frozenset[str]:
    """The options `tensorboard` (or its subcommand `command`) lists in its help, run from the source tree."""
    found = set()
    for args in HELP_ARGS[command]:
        result = subprocess.run([sys.executable, str(LAUNCHER), *args], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, (args, result.stderr[-2000:])
        for line in result.stdout.splitlines():
            if re.match(r"^ {2}-", line):  # an option's line: its names, then (after two spaces) its help
                found.update(FLAG.findall(re.split(r"\s{2,}", line.strip())[0]))
    assert "--logdir" in found or command == "runs", command  # runs takes LOGDIR first
    return frozenset(found)


def command_lines() -> list[str]:
    """Every `tensorboard ...` command the page shows: the lines of its ```sh blocks and its inline code."""
    lines = [line.split("  #", 1)[0].strip() for _, code in blocks(PAGE, "sh") for line in code.splitlines()]
    lines += code_spans(PAGE)
    return list(dict.fromkeys(line for line in lines if line.startswith("tensorboard ")))


def test_the_page_names_flags():
    assert len(set(FLAG.findall(PAGE))) >= 10 and command_lines()


def test_every_flag_on_the_page_exists():
    known = options("tensorboard") | options("export") | options("reduce") | options("runs")
    assert set(FLAG.findall(PAGE)) <= known, sorted(set(FLAG.findall(PAGE)) - known)


@pytest.mark.parametrize("line", command_lines())
def test_every_command_line_uses_its_commands_options(line):
    word = line.split()[1]
    command = word if word in ("export", "reduce", "runs") else "tensorboard"
    assert not re.fullmatch(r"[a-z]+", word) or command != "tensorboard", f"no subcommand {word!r}: {line}"
    assert set(FLAG.findall(line)) <= options(command), (line, sorted(set(FLAG.findall(line)) - options(command)))


def test_keyword_arguments_named_are_the_classes():
    calls = re.findall(r"\b(SummaryWriter|SummaryReader)\(([^()`]*)\)", PAGE)
    assert {name for name, _ in calls} == {"SummaryWriter", "SummaryReader"}
    classes = {"SummaryWriter": tensorboard.SummaryWriter, "SummaryReader": SummaryReader}
    for name, arguments in calls:
        parameters = inspect.signature(classes[name]).parameters
        for keyword in re.findall(r"(\w+)=", arguments):
            assert keyword in parameters, (name, keyword)


# -- the restart table's reader row ------------------------------------------------------------------------------

def _write_restarted(logdir, first_purge_step, resumed_purge_step) -> None:
    """A job's first attempt logs steps 0..9, the resumed one steps 4 and 5 again (values 44, 45)."""
    with tensorboard.SummaryWriter(logdir, purge_step=first_purge_step) as writer:
        for step in range(10):
            writer.add_scalar("loss", float(step), step)
    with tensorboard.SummaryWriter(logdir, purge_step=resumed_purge_step) as writer:
        for step in (4, 5):
            writer.add_scalar("loss", 40.0 + step, step)


OUTCOMES = {"both attempts' points": [(s, float(s)) for s in range(10)] + [(4, 44.0), (5, 45.0)],
            "orphans dropped": [(0, 0.0), (1, 1.0), (2, 2.0), (3, 3.0), (4, 44.0), (5, 45.0)]}
COLUMNS = {"resumed without `purge_step`": (None, None), "resumed with `purge_step=N`": (None, 4),
           "every writer of the job with `purge_step`": (0, 4)}


def test_restart_table_reader_row(tmp_path):
    from tensorboard.cli.export import main as export

    rows = table(section(PAGE, "Restarted training: steps go back"), "What reads the run")
    (reader_row,) = [row for row in rows if "`SummaryReader`" in row["What reads the run"]]
    assert "`tensorboard export`" in reader_row["What reads the run"]
    assert set(reader_row) - {"What reads the run"} == set(COLUMNS)
    for i, (column, (first, resumed)) in enumerate(COLUMNS.items()):
        logdir = tmp_path / f"case{i}"
        _write_restarted(logdir, first, resumed)
        expected = sorted(OUTCOMES[reader_row[column]])
        frame = SummaryReader(logdir).scalars
        assert sorted(zip(frame.step, frame.value)) == expected, column
        out = tmp_path / f"case{i}.csv"
        assert export(["--logdir", str(logdir), "--out", str(out), "--quiet"]) == 0
        with open(out, newline="") as rows_file:
            exported = [(int(row["step"]), float(row["value"])) for row in csv.DictReader(rows_file)]
        assert sorted(exported) == expected, column
