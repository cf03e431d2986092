"""`tensorboard plot LOGDIR --out fig.pdf`: a logdir's charts as a figure for a paper (PDF, SVG, PNG or
PGF, by the suffix of --out): one file per tag, or with --grid one file with every tag. The figures are
`tensorboard.plot`'s; an existing file is refused unless --force, and each is written beside its place
and renamed in when complete."""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time

from tensorboard.cli.messages import one_line_warnings
from tensorboard.logdir.arguments import (
    add_experiment_arguments,
    add_run_filter_arguments,
    add_writing_arguments,
    smoothing_weight,
)
from tensorboard.logdir.output import check_out, write_atomically
from tensorboard.logdir.progress import Progress
from tensorboard.logdir.query import QueryError
from tensorboard.logdir.selection import CLI_FLAGS, parse_steps
from tensorboard.plot.options import BANDS, DEFAULT_MAX_POINTS, HISTOGRAM_MODES, PlotOptions, parse_size

FORMATS = ("pdf", "svg", "png", "pgf")
KINDS = {"scalars": "scalars", "histogram": "histogram", "histograms": "histogram", "distribution": "distribution",
         "distributions": "distribution"}


def parser() -> argparse.ArgumentParser:
    """The options of `tensorboard plot`."""
    p = argparse.ArgumentParser(prog="tensorboard plot", description=__doc__.split("\n")[0].strip("`"))
    p.add_argument("logdir", metavar="LOGDIR", help="directory, event file or fsspec URL (s3://...)")
    p.add_argument("--out", required=True, help="the figure: its suffix picks the format: " + ", ".join(FORMATS) +
                   "; without --grid and with several tags, one file per tag, OUT's name with -TAG added")
    p.add_argument("--tags", default=None, metavar="REGEX", help="regex: only tags that match")
    add_run_filter_arguments(p)
    add_experiment_arguments(p, over=True)
    p.add_argument("--steps", default=None, metavar="LO:HI", help="only steps LO to HI, both included")
    p.add_argument("--kind", default="scalars", choices=tuple(KINDS),
                   help="scalars (default), histogram (TensorBoard's histogram view) or distribution "
                        "(its percentile bands)")
    p.add_argument("--smoothing", type=smoothing_weight, default=0.0, metavar="W",
                   help="TensorBoard's smoothing at weight W (0 to 1, as the UI's slider); the raw line is "
                        "drawn faintly behind")
    p.add_argument("--group_runs", "--group-runs", dest="group_runs", default=None, metavar="REGEX",
                   help=r"runs whose names are equal once REGEX's matches are removed (e.g. '_seed\d+') are "
                        "drawn as one line, their mean, with a band")
    p.add_argument("--band", choices=BANDS, default="std", help="a group's band: std (mean ± std) or minmax")
    p.add_argument("--x", default="step", metavar="AXIS",
                   help="the x axis: step (default), relative (time since the run's first point), wall, "
                        "or a scalar TAG joined on step (e.g. epoch)")
    p.add_argument("--logx", action="store_true", help="log x axis (values at or below 0 are not drawn)")
    p.add_argument("--logy", action="store_true", help="log y axis (values at or below 0 are not drawn)")
    p.add_argument("--grid", action="store_true", help="one figure with a panel per tag (default: a file per tag)")
    p.add_argument("--histogram_mode", "--histogram-mode", dest="histogram_mode", choices=HISTOGRAM_MODES,
                   default="offset", help="--kind histogram: TensorBoard's offset (default) or overlay view")
    p.add_argument("--style", default=None, help="a matplotlib style sheet, by name or path (e.g. seaborn-v0_8-paper)")
    p.add_argument("--size", default=None, metavar="W,H", help="figure size in inches (default: 4.2 x 3 per panel)")
    p.add_argument("--dpi", type=float, default=300.0, help="PNG resolution (default: 300)")
    p.add_argument("--max_points", "--max-points", dest="max_points", type=int, default=DEFAULT_MAX_POINTS,
                   metavar="N", help=f"points per line at most, about (default: {DEFAULT_MAX_POINTS}); longer "
                                     "lines are thinned keeping every extremum")
    add_writing_arguments(p)
    return p


def out_format(out: str) -> str:
    """The format --out's suffix names.

    Args:
        out: The --out path.

    Returns:
        "pdf", "svg", "png" or "pgf".

    Raises:
        ValueError: Another suffix, naming --out.
    """
    suffix = os.path.splitext(out)[1].lower().lstrip(".")
    if suffix not in FORMATS:
        raise ValueError(f"--out {out!r}: unknown suffix; use one of .{', .'.join(FORMATS)}")
    return suffix


def out_files(out: str, titles: list[str]) -> list[str]:
    """One file per title beside `out`: `out` itself for one title, else its name with -TITLE added
    (characters other than letters, digits, '.', '_' and '-' become '_'; a repeat gets a number).

    Args:
        out: The --out path.
        titles: A title per figure (its tag, or tag and run).

    Returns:
        The paths, in the order of `titles`.
    """
    if len(titles) == 1:
        return [out]
    stem, suffix = os.path.splitext(out)
    names: list[str] = []
    for title in titles:
        name = f"{stem}-{re.sub(r'[^A-Za-z0-9._-]+', '_', title).strip('_') or 'tag'}"
        candidate, n = name, 2
        while candidate + suffix in names:
            candidate, n = f"{name}-{n}", n + 1
        names.append(candidate + suffix)
    return names


_OPTION_NAMES = {"kind", "smoothing", "group_runs", "band", "x", "logx", "logy", "histogram_mode", "max_points",
                 "style", "size", "tags", "runs", "exclude", "steps", "over"}


def flagged(err: Exception) -> str:
    """An error of `tensorboard.plot` as the command line names it: an argument `x` becomes `--x`.

    Args:
        err: An error whose message may start with an argument's name.

    Returns:
        The message to print.
    """
    text = str(err)
    first = re.split(r"[ :]", text, maxsplit=1)[0]
    return f"--{text}" if first in _OPTION_NAMES else text


PGF_TEX = "pdflatex"  # the TeX matplotlib's PGF backend runs (`pgf.texsystem` in tensorboard.plot.draw)
TEX_PACKAGES = "texlive-latex-base texlive-pictures lmodern"


def check_tex(fmt: str, out: str) -> None:
    """A ValueError naming --out when a PGF is asked for and no pdflatex is on PATH to measure its text.

    Args:
        fmt: The output format.
        out: The --out path.
    """
    if fmt == "pgf" and shutil.which(PGF_TEX) is None:
        raise ValueError(f"--out {out!r}: writing PGF needs {PGF_TEX} on PATH "
                         f"(Debian and Ubuntu: apt-get install {TEX_PACKAGES})")


def _options(args: argparse.Namespace) -> PlotOptions:
    """The figure options of `args`."""
    from tensorboard.logdir.grouping import check_over

    return PlotOptions(KINDS[args.kind], args.smoothing, args.group_runs, args.band, args.x, args.logx,
                       args.logy, args.histogram_mode, args.max_points, check_over(args.over, "--over"))


def main(argv: list[str] | None = None) -> int:
    """Runs `tensorboard plot ARGV`; each warning is one line on stderr.

    Args:
        argv: The command line's arguments; None: `sys.argv[1:]`.

    Returns:
        The exit status: 0 done, 1 reading or writing failed, 2 invalid arguments or matplotlib missing.
    """
    with one_line_warnings("tensorboard plot"):
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    args = parser().parse_args(argv)
    try:
        fmt = out_format(args.out)
        options = _options(args)
        size = parse_size(args.size, "--size")
        steps = parse_steps(args.steps)
        if not args.dpi > 0:
            raise ValueError(f"--dpi {args.dpi!r}: expected a positive number")
        from tensorboard.plot import require_matplotlib
        require_matplotlib()
        from tensorboard.plot.draw import check_style
        check_style(args.style)
        check_tex(fmt, args.out)
        if args.grid:
            check_out(args.out, args.force)  # one file: refused before anything is read
    except FileExistsError as err:
        print(f"tensorboard plot: {err}", file=sys.stderr)
        return 2
    except ImportError as err:
        print(f"tensorboard plot: {err}", file=sys.stderr)
        return 2
    except ValueError as err:
        print(f"tensorboard plot: {flagged(err)}", file=sys.stderr)
        return 2
    started = time.monotonic()
    progress = Progress("tensorboard plot", quiet=args.quiet)
    try:
        written = _draw_and_write(args, options, fmt, size, steps, progress)
    except QueryError as err:  # a --where key no run has: known once the runs are read
        progress.close()
        print(f"tensorboard plot: {err}", file=sys.stderr)
        return 2
    except FileExistsError as err:
        progress.close()
        print(f"tensorboard plot: {err}", file=sys.stderr)
        return 2
    except (OSError, ValueError, RuntimeError) as err:  # RuntimeError: matplotlib's, e.g. a TeX that failed
        progress.close()
        print(f"tensorboard plot: {flagged(err)}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"tensorboard plot: wrote {', '.join(written)} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return 0


def _draw_and_write(args: argparse.Namespace, options: PlotOptions, fmt: str, size, steps, progress) -> list[str]:
    """Reads (reporting to `progress`), draws and writes the figures; returns the files written."""
    from tensorboard.plot import draw_panels, panels
    from tensorboard.plot.draw import panel_names

    found = panels(args.logdir, options, args.tags, args.runs, args.exclude, steps, flags=CLI_FLAGS,
                   progress=progress, where=args.where, hparams_file=args.hparams_file)
    progress.close()
    groups = [found] if args.grid else [[panel] for panel in found]
    files = out_files(args.out, [_title(group[0]) for group in groups])
    for path in files:
        check_out(path, args.force)
    names = panel_names(found)
    for group, path in zip(groups, files):
        figure = draw_panels(group, options, args.style, size, names)
        write_atomically(path, args.force, lambda tmp: figure.savefig(tmp, format=fmt, dpi=args.dpi))
    return files


def _title(panel) -> str:
    run = getattr(panel, "run", None)
    return panel.tag if run is None else f"{panel.tag}-{run}"


if __name__ == "__main__":
    sys.exit(main())
