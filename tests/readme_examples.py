"""The README's runnable examples and the checks of what each one logged.

Shared by tests/seeds/test_workflows_doc.py (examples against the source tree) and
tests/e2e/test_quickstart.py (examples in the environment the README tells a user to create).
"""
from __future__ import annotations

import re
from pathlib import Path

from upstream import upstream_read

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"


def _section(readme: str, heading: str) -> str:
    """The text of the `## heading` section, up to the next `## `."""
    start = readme.index(f"\n## {heading}\n")
    end = readme.find("\n## ", start + 1)
    return readme[start:end if end != -1 else None]


def _complete(code: str) -> bool:
    """An example is complete (runnable) when it imports tensorboard itself."""
    return "import tensorboard" in code or "from tensorboard" in code


def workflow_examples(readme: str | None = None) -> list[tuple[str, str]]:
    """(section title, code) for each complete example of the Workflows section."""
    text = _section(README.read_text() if readme is None else readme, "Workflows")
    found = []
    for match in re.finditer(r"^### (.+?)$(.*?)(?=^### |\Z)", text, re.S | re.M):
        title, body = match.group(1), match.group(2)
        found += [(title, code) for code in re.findall(r"```python\n(.*?)```", body, re.S) if _complete(code)]
    return found


def readme_examples(readme: str | None = None) -> list[tuple[str, str]]:
    """Every complete example a user is told to run: "Using it" and the Workflows."""
    readme = README.read_text() if readme is None else readme
    using = [("Using it", code) for code in re.findall(r"```python\n(.*?)```", _section(readme, "Using it"), re.S)
             if _complete(code)]
    return using + workflow_examples(readme)


def section_blocks(heading: str, lang: str, readme: str | None = None) -> list[str]:
    """The ```lang blocks of the `## heading` section, in order."""
    text = _section(README.read_text() if readme is None else readme, heading)
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def setup_commands(readme: str | None = None) -> list[str]:
    """The shell lines of "Using it" that create the examples' environments (comments stripped)."""
    block = re.search(r"```sh\n(.*?)```", _section(README.read_text() if readme is None else readme, "Using it"),
                      re.S).group(1)
    lines = [line.split("  #", 1)[0].strip() for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


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
    """Every add_scalar/add_histogram tag and the graph the example names were read back by upstream."""
    logged = logged_tags(logdir)
    for tag in re.findall(r"add_scalar\('([^']+)'", code) + re.findall(r"add_histogram\('([^']+)'", code):
        assert tag in logged, (title, tag, sorted(logged))
    if "add_graph" in code:
        assert "<graph>" in logged, title
