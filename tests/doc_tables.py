"""Reading the Markdown tables and inline code of docs/ pages, for the tests that hold a page to the code
(tests/docs/test_logging_page.py, tests/docs/test_troubleshooting_page.py, tests/reader/test_columns_table.py)."""
from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"


def page(name: str) -> str:
    """The Markdown text of docs/<name>."""
    return (DOCS / name).read_text()


def section(text: str, heading: str) -> str:
    """The text under the heading `heading` (any level), up to the next heading of the same or a higher level."""
    match = re.search(rf"^(#+) {re.escape(heading)}\s*$", text, re.M)
    assert match, f"no heading {heading!r}"
    level = len(match.group(1))
    end = re.search(rf"^#{{1,{level}}} ", text[match.end():], re.M)
    return text[match.end():match.end() + end.start() if end else None]


def table(text: str, first_header: str) -> list[dict[str, str]]:
    """The rows of the first Markdown table in `text` whose first header cell is `first_header`, as
    {header: cell}; cells are stripped, their inline code kept as written."""
    lines = text.splitlines()
    for start, line in enumerate(lines):
        if _cells(line)[:1] == [first_header]:
            break
    else:
        raise AssertionError(f"no table with the header {first_header!r}")
    headers = _cells(lines[start])
    assert set(_cells(lines[start + 1])[0]) <= set("-: "), f"{first_header!r}: no separator row"
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = _cells(line)
        assert len(cells) == len(headers), f"a row of {len(cells)} cells under {len(headers)} headers: {line}"
        rows.append(dict(zip(headers, cells)))
    return rows


def _cells(line: str) -> list[str]:
    line = line.strip()
    if not line.startswith("|"):
        return []
    return [cell.strip() for cell in line.strip("|").split("|")]


def code_spans(text: str) -> list[str]:
    """The inline code of a cell or page, in order ("`a`, `b`" gives ["a", "b"]); fenced blocks left out."""
    return re.findall(r"`([^`]+)`", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))
