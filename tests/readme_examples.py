"""The runnable examples of the README and of every docs/ page, and the checks of what each one logged.

Every ```python block of README.md and docs/**/*.md is a complete example (fragments are written as
inline code). Shared by tests/seeds/test_workflows_doc.py (every example, in the test environment
matching what its page tells a user to install), tests/docs/ (the pages' setup lines) and
tests/e2e/test_quickstart.py (the README's examples in the environments its setup lines create).
"""
from __future__ import annotations

import re
from pathlib import Path

from upstream import upstream_read

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"
# The README section whose example reads the runs the first example ("Log and look") wrote.
READING = "Reading your logs"
# The README section whose first ```sh block makes the examples' environments.
SETUP = "Examples"

_FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)
_HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$", re.M)


def doc_pages() -> list[Path]:
    """README.md and every Markdown page of the documentation site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def page_name(page: Path) -> str:
    return str(page.relative_to(REPO))


def blocks(text: str, lang: str) -> list[tuple[str, str]]:
    """(heading above it, code) for every ```lang block of `text`, in order."""
    prose = _FENCE.sub(lambda m: " " * len(m.group(0)), text)  # a `# comment` in a block is no heading
    found = []
    for match in _FENCE.finditer(text):
        if match.group(1) != lang:
            continue
        headings = _HEADING.findall(prose[:match.start()])
        found.append((headings[-1][1] if headings else "", match.group(2)))
    return found


def page_examples(page: Path) -> list[tuple[str, str]]:
    """(title, code) for each Python example of one page; the title names the page and section."""
    return [(f"{page_name(page)}: {heading}", code) for heading, code in blocks(page.read_text(), "python")]


def all_examples() -> list[tuple[str, str]]:
    """Every Python example a user reads, README first."""
    return [example for page in doc_pages() for example in page_examples(page)]


def _section(readme: str, heading: str) -> str:
    """The text of the README's `## heading` section, up to the next `## `."""
    start = readme.index(f"\n## {heading}\n")
    end = readme.find("\n## ", start + 1)
    return readme[start:end if end != -1 else None]


def readme_examples(readme: str | None = None) -> list[tuple[str, str]]:
    """The README's examples that write logs (all but the reading one), "Log and look" first."""
    readme = README.read_text() if readme is None else readme
    return [(title, code) for title, code in blocks(readme, "python") if title != READING]


def section_blocks(heading: str, lang: str, readme: str | None = None) -> list[str]:
    """The ```lang blocks of the README's `## heading` section, in order."""
    return [code for _, code in blocks(_section(README.read_text() if readme is None else readme, heading), lang)]


def setup_commands(readme: str | None = None) -> list[str]:
    """The shell lines of the README's Examples section that create the environments (comments stripped)."""
    block = section_blocks(SETUP, "sh", readme)[0]
    lines = [line.split("  #", 1)[0].strip() for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def example_env(code: str) -> str:
    """Which test environment matches what the example's page tells a user to install:
    "mxnet" (.venv-mxnet), "ecosystem" (.venv-ecosystem: Lightning, transformers) or "main" (.venv)."""
    if re.search(r"^\s*(import|from) mxnet\b", code, re.M):
        return "mxnet"
    if re.search(r"^\s*(import|from) (lightning|transformers|accelerate)\b", code, re.M):
        return "ecosystem"
    return "main"


def installed_by_page(page: Path) -> set[str]:
    """The distributions the `pip install` lines of a page's ```sh blocks name (wheel files and flags left out)."""
    names = set()
    for _, code in blocks(page.read_text(), "sh"):
        for line in code.splitlines():
            match = re.search(r"\bpip install (.*)", line.split("  #", 1)[0])
            if not match:
                continue
            for word in match.group(1).split():
                word = word.strip("'\"")  # a quoted requirement: "dask[dataframe]"
                if word.startswith("-") or word.endswith(".whl") or "&&" in word:
                    continue
                names.add(re.split(r"[=<>!\[ ]", word, maxsplit=1)[0].lower())
    return names


# Tags that framework callbacks log without naming them in the example's code.
_CALLBACK_TAGS = {
    "report_to='tensorboard'": {"train/loss"},  # the transformers Trainer
    "from tensorboard.integrations.keras import TensorBoard": {"epoch_loss"},
    "LogMetricsCallback(": {"train-accuracy"},
}


def expected_tags(code: str) -> set[str]:
    """The scalar and histogram tags an example says it logs."""
    tags = set()
    for call in (r"add_scalar", r"add_histogram", r"summary\.scalar", r"summary\.histogram", r"self\.log"):
        tags |= set(re.findall(rf"{call}\(['\"]([^'\"]+)['\"]", code))
    for marker, logged in _CALLBACK_TAGS.items():
        if marker in code:
            tags |= logged
    return tags


def logged_tags(logdir: Path) -> set[str]:
    """Scalar, histogram and image tags (and "<graph>") upstream's reader finds anywhere in logdir."""
    runs = upstream_read(logdir)["runs"]
    assert runs, f"upstream's reader found no run in {logdir}"
    logged = set()
    for run in runs.values():
        logged |= set(run["scalars"]) | set(run["histograms"]) | set(run["images"])
        if run.get("graph"):
            logged.add("<graph>")
    return logged


def check_example_logged(title: str, code: str, logdir: Path) -> None:
    """Every tag the example names (or its callbacks log) and its graph were read back by upstream."""
    logged = logged_tags(logdir)
    expected = expected_tags(code)
    assert expected, f"{title}: the example names no tag it logs"
    for tag in expected:
        assert tag in logged, (title, tag, sorted(logged))
    if "add_graph" in code:
        assert "<graph>" in logged, title
