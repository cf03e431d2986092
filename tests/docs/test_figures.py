"""Every measured figure the README and the manual quote is one of the generated benchmark page's.

docs/benchmarks.md is written by bench/write_page.py from one `make bench` run and never by hand. The
other pages may quote its figures (a speed-up, a time, a size, a share), but only as it shows them: each
figure in their prose (a number with ×, x, "times", s, ms, µs, MiB, MB, %, ...; both ends of a range;
"twice", "a third of the memory", ...) must be a figure of the benchmark page with the same unit and
value. Code blocks and inline code are not prose. The few numbers that are not measurements (limits,
defaults, sizes of refused inputs) are listed below, each with the reason.

After a new `make bench`, a page quoting a figure that changed fails here, naming the page, the line,
the figure and the benchmark page's nearest figures of that unit.
"""
from __future__ import annotations

import re

import pytest
from readme_examples import DOCS, README, REPO, doc_pages, page_name

BENCHMARKS = DOCS / "benchmarks.md"

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNIT = r"events/s|steps/s|MiB|GiB|KiB|MB|GB|kB|KB|µs|ms|ns|minutes?|seconds?|hours?|min|bytes|s|×|x|times|%"
# A number and its unit, or a range of two numbers and a unit ("25-35x", "15.3× to 34.1×" is two figures).
# Not part of a longer token (a version, `lr%3D0.1`, a path), and not a dimension ("3x256", "6 × 65,536").
_FIGURE = re.compile(rf"(?<![\w.,/=+-])(?P<low>{_NUMBER})(?:\s?(?:-|–|to)\s?(?P<high>{_NUMBER}))?\s?"
                     rf"(?P<unit>{_UNIT})(?![\w/])(?!\s?\d)")
# Figures in words: a benchmark page shows numbers, so these are rewritten with the page's figure.
_WORDS = re.compile(r"\b(?:twice|half|(?:a|one)\s(?:third|quarter|fifth|tenth|twelfth)|"
                    r"(?:two|three|four|five|ten|a\shundred)\stimes)\s"
                    r"(?:as\s(?:long|fast|much)|the|of\s(?:the|its)|faster|slower)\b")
_SAME_UNIT = {"x": "×", "times": "×", "minute": "min", "minutes": "min", "second": "s", "seconds": "s",
              "hour": "h", "hours": "h"}

# Numbers in the prose that are not measurements: page -> {the text as written: why it is not a figure of
# the benchmark page}. An entry applies to every occurrence on its page; an unused entry fails the test.
NOT_MEASURED = {
    "docs/experiments.md": {
        "1 MiB": "the most of a configuration file read (logdir.config_files' bound on untrusted files)",
        "10 seconds": "how long the server waits for the hyperparameters' child (serving.hparams_preload.PATIENCE_S)",
    },
    "docs/gpu.md": {
        "256 MiB": "the default bound on pending device copies (`max_pending_snapshot_bytes`)",
        "half as long": "gpu_check's pass criterion (a steady-state `add_scalar` against its computation)",
    },
    "docs/guarantees.md": {
        "10 s": "the default of TENSORBOARD_SIGTERM_FLUSH_TIMEOUT",
        "60 s": "the default of TENSORBOARD_EXIT_FLUSH_TIMEOUT and the longest retry backoff",
        "1 s": "the first retry backoff",
        "2 s": "the last upload retry backoff (0.5, 1, 2 s)",
        "3 times": "how often a failed upload is retried",
        "1 MiB": "the size of the fault test's tmpfs",
        "200 kB": "the fault test's RLIMIT_FSIZE",
        "16 MiB": "the default `max_file_bytes`",
        "100 kB": "the size of the property tests' texts",
    },
    "docs/logging.md": {
        "16 MiB": "the text bound",
        "10 s": "the default interval of system metrics",
    },
    "docs/troubleshooting.md": {
        "10 seconds": "how long the server waits for the hyperparameters' child (serving.hparams_preload.PATIENCE_S)",
        "120 seconds": "the default `flush_secs`",
        "5 seconds": "the default `--reload_interval`",
    },
    "docs/refusals.md": {
        "4 GiB": "the address-space limit the refusal tests run under",
        "0.5 MB": "the size of 65,536 float64 edges (arithmetic)",
        "1.5 MB": "the size of a 6 × 65,536 float32 tensor (arithmetic)",
        "256 MiB": "2²⁷ 16-bit samples, the audio bound (arithmetic)",
        "16 MiB": "the text bound",
        "20 MiB": "the text the refusal test passes to the peers",
        "512 MiB": "2²⁷ float32 values, the embedding bound (arithmetic)",
    },
    "docs/serving.md": {
        "16 bytes": "how many bytes before the last read point a reload fetches again",
        "1 MiB": "the reload's decoding batch",
        "256 MiB": "the object-storage read bound",
    },
    "docs/workflows/jax.md": {
        "5 s": "the bound on the exit-time wait for the background encoder",
        "256 MiB": "the default `max_pending_snapshot_bytes`",
    },
    "docs/workflows/large-sweeps.md": {
        "256 MiB": "the default `max_bytes` of the reader",
        "64 MiB": "the most event-file bytes of one `to_dask` partition",
    },
    "docs/workflows/sharing.md": {
        "5.3 bytes": "a float32 in base64, 4 × 4/3 bytes (arithmetic)",
        "8 ms": "float32's spacing at a day's offset in seconds, 2^16 × 2^-23 s (arithmetic)",
        "10 MB": "show()'s limit on a notebook cell (MAX_EMBED_BYTES), a setting",
    },
    "docs/api/report.md": {
        "10 MB": "show()'s limit on a notebook cell (MAX_EMBED_BYTES), a setting",
        "5.3 bytes": "a float32 in base64, 4 × 4/3 bytes (arithmetic)",
    },
}


def _text_figures(text: str) -> list[tuple[int, str, list[tuple[float, str]]]]:
    """(line number, the text as written, [(value, unit), ...]) of every figure in the prose of `text`, a
    figure broken across two lines included: fenced code blocks and inline code are left out."""
    def blank(match: re.Match) -> str:
        return re.sub(r"[^\n]", " ", match.group())

    text = re.sub(r"`[^`]*`", blank, re.sub(r"^```.*?^```", blank, text, flags=re.S | re.M))
    found = []
    for match in _FIGURE.finditer(text):
        unit = _SAME_UNIT.get(match["unit"], match["unit"])
        ends = [match["low"]] + ([match["high"]] if match["high"] else [])
        found.append((match.start(), match.group(), [(float(end.replace(",", "")), unit) for end in ends]))
    found += [(match.start(), match.group(), [(float("nan"), "in words")]) for match in _WORDS.finditer(text)]
    return [(text.count("\n", 0, start) + 1, " ".join(written.split()), values)
            for start, written, values in sorted(found, key=lambda figure: figure[0])]


def _benchmark_figures() -> dict[tuple[float, str], str]:
    """Every figure of docs/benchmarks.md -> the first line holding it."""
    text = BENCHMARKS.read_text()
    lines = text.splitlines()
    figures: dict[tuple[float, str], str] = {}
    for number, _, values in _text_figures(text):
        for value in values:
            figures.setdefault(value, lines[number - 1].strip())
    return figures


def _held(figures: dict[tuple[float, str], str], value: float, unit: str) -> str:
    """What docs/benchmarks.md holds nearest to a figure: up to three of its figures in that unit."""
    if unit == "in words":
        return "numbers only: quote its figure"
    same = sorted((abs(v - value), v, line) for (v, u), line in figures.items() if u == unit)
    if not same:
        return f"no figure in {unit}"
    space = "" if unit in ("×", "%") else " "
    return "nearest: " + "; ".join(f"{v:g}{space}{unit} in \"{line[:90]}\"" for _, v, line in same[:3])


def _quoting_pages():
    return [page for page in doc_pages() if page != BENCHMARKS]


@pytest.mark.parametrize("page", _quoting_pages(), ids=page_name)
def test_every_figure_a_page_quotes_is_on_the_benchmark_page(page):
    figures, allowed = _benchmark_figures(), NOT_MEASURED.get(page_name(page), {})
    wrong = []
    for number, written, values in _text_figures(page.read_text()):
        if written in allowed:
            continue
        for value, unit in values:
            if (value, unit) not in figures:
                wrong.append(f"{page_name(page)}:{number}: \"{written}\" is not a figure of docs/benchmarks.md, "
                             f"which has {_held(figures, value, unit)}")
    assert not wrong, ("quote docs/benchmarks.md's figures as it shows them (or list a number that is no "
                       "measurement in NOT_MEASURED, with the reason):\n" + "\n".join(wrong))


def test_every_entry_of_the_list_of_numbers_that_are_not_measurements_is_used():
    unused = []
    for name, entries in NOT_MEASURED.items():
        written = {text for _, text, _ in _text_figures((REPO / name).read_text())}
        unused += [f"{name}: {entry!r}" for entry in entries if entry not in written]
    assert not unused, "entries of NOT_MEASURED that their page no longer has:\n" + "\n".join(unused)


def _table(heading: str) -> list[dict[str, str]]:
    """The rows of the first table under docs/benchmarks.md's `## heading`, each by column name."""
    page = BENCHMARKS.read_text()
    assert f"\n## {heading}\n" in page, f"docs/benchmarks.md has no section {heading!r}"
    section = page.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in section.splitlines() if line.startswith("|") and not line.startswith("|---")]
    return [dict(zip(rows[0], row)) for row in rows[1:]]


def _times(cell: str) -> float:
    """The median ratio of a cell such as "27.4× (best 30.5×)"."""
    return float(cell.split("×")[0])


def test_the_readme_headline_figures_are_the_rows_they_name():
    """The README's claims of speed quote the benchmark rows they describe, not just any figure of the page."""
    readme, page = README.read_text(), BENCHMARKS.read_text()
    writing = {row["workload"]: row for row in _table("Writing: ours vs tensorboardX vs torch.utils.tensorboard")}
    reading = [_times(row["× tbparse"]) for row in _table("Reading logs into DataFrames (`bench/read.py`)")]
    loader = re.search(r"ours ([\d.]+)× faster than the Python loader", page)
    assert loader, "docs/benchmarks.md has no serving figure \"ours N× faster than the Python loader\""
    claims = [  # (the README's words around its figures, the figures the page's rows give, where)
        (r"\*\*([\d.]+)× faster\*\* than tensorboardX", [_times(writing["scalars_1tag"]["× vs tbx"])],
         "scalars_1tag, × vs tbx"),
        (r"\*\*([\d.]+)× to ([\d.]+)× faster\*\* than tbparse", [min(reading), max(reading)],
         "the reading table's × tbparse, lowest and highest"),
        (r"\*\*([\d.]+)× faster\*\* on our writer core",
         [_times(writing["scalars_1tag: torch.utils.tensorboard on our core"]["× vs torch"])],
         "scalars_1tag: torch.utils.tensorboard on our core, × vs torch"),
        (r"served ([\d.]+)× faster", [float(loader[1])], "serving 1,000 runs, against the Python loader"),
    ]
    wrong = []
    for words, held, where in claims:
        quoted = re.search(words, readme)
        if quoted is None or [float(figure) for figure in quoted.groups()] != held:
            said = f"quotes {quoted.group()!r}" if quoted else f"has no claim matching {words!r}"
            wrong.append(f"README.md {said}; docs/benchmarks.md, {where}: "
                         f"{', '.join(f'{figure:g}×' for figure in held)}")
    assert not wrong, "\n".join(wrong)
