"""`tensorboard export`: a logdir as a table or dataset (`reader.export`) or, for an --out ending in
.html, as one self-contained page (`report`). The suffix of --out picks the front door."""
from __future__ import annotations

import argparse
import sys

from tensorboard.cli.messages import one_line_warnings


def wants_page(argv: list[str]) -> bool:
    """True when --out names an .html file."""
    out = argparse.ArgumentParser(add_help=False)
    out.add_argument("--out")
    return (out.parse_known_args(argv)[0].out or "").lower().endswith(".html")


def main(argv: list[str] | None = None) -> int:
    """Runs `tensorboard export ARGV`; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    with one_line_warnings("tensorboard export"):
        if wants_page(argv):
            from tensorboard.report.cli import main as page
            return page(argv)
        from tensorboard.reader.export import main as table
        return table(argv)


if __name__ == "__main__":
    sys.exit(main())
