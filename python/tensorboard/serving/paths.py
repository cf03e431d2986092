"""Which data path serves a `tensorboard` command: `--data_provider={auto,standalone,native,multiplexer}`.

auto serves through our reader (`standalone`) wherever it reads the logdir: local paths, and object-store
URLs (s3://, any fsspec URL whose backend is installed, such as s3fs), unless upstream's own flags ask
for another server (--load_fast=true: its native data server; --grpc_data_provider). URLs no installed
fsspec backend reads keep upstream's Python loader (`multiplexer`). One line on stderr says which serves.
"""
from __future__ import annotations

import sys

from tensorboard.plugins import base_plugin
from tensorboard.serving.rule import ours_serves

CHOICES = ("auto", "standalone", "native", "multiplexer")
FLAG_HELP = """\
Which data path reads the logdir. `auto` (default): standalone TensorBoard's reader wherever it reads
the logdir (unless --load_fast=true asks for upstream's native data server); `standalone`: our reader
(local logdirs and fsspec URLs such as s3://, with s3fs installed); `native`: upstream's native data
server (as --load_fast=true); `multiplexer`: upstream's Python loader (as --load_fast=false)."""
DESCRIPTIONS = {
    "standalone": "standalone TensorBoard's reader",
    "native": "upstream's native data server",
    "multiplexer": "upstream's Python loader (EventMultiplexer)",
    "grpc": "the data server at --grpc_data_provider",
}


PATTERN_FLAGS = ("runs", "exclude", "group_runs")  # regexes
RUN_FLAGS = ("runs", "exclude", "group_runs", "over", "where", "hparams_file", "hparams_metrics")  # our reader's only


class DataPathFlag(base_plugin.TBLoader):
    """Adds --data_provider, --runs, --exclude, --group_runs, --over, --where, --hparams_file and --hparams_metrics to
    upstream's flags (shown by --helpfull);
    loads no plugin."""

    def define_flags(self, parser) -> None:
        parser.add_argument("--data_provider", metavar="{" + ",".join(CHOICES) + "}", type=str,
                            default="auto", choices=CHOICES, help=FLAG_HELP)
        parser.add_argument("--runs", metavar="REGEX", type=str, default=None,
                            help="Serve only the runs whose name matches this regex (standalone reader).")
        parser.add_argument("--exclude", metavar="REGEX", type=str, default=None,
                            help="Leave out the runs whose name matches this regex (standalone reader).")
        parser.add_argument("--group_runs", metavar="REGEX", type=str, default=None,
                            help="Also serve one run per group of runs whose names are equal once the regex's "
                                 "matches are removed, holding the group's mean and mean ± std, with a Custom "
                                 "Scalars margin chart per tag (standalone reader).")
        parser.add_argument("--over", metavar="KEYS", type=str, default=None,
                            help="Also serve one run per configuration: the runs whose hyperparameters agree on "
                                 "every key but these (comma-separated, e.g. seed), holding their mean and mean ± "
                                 "std as --group_runs does (docs/experiments.md; standalone reader).")
        parser.add_argument("--where", metavar="QUERY", type=str, default=None,
                            help="Serve only the runs whose hyperparameters match, e.g. 'lr < 0.01 and optimizer == "
                                 "\"adam\"' (docs/experiments.md; standalone reader).")
        parser.add_argument("--hparams_file", metavar="NAME", type=str, default=None,
                            help="Also read each run's hyperparameters from this JSON, YAML or TOML file in the run's "
                                 "directory or a parent up to the logdir (standalone reader).")
        parser.add_argument("--hparams_metrics", metavar="TAG[=last|min|max],...", type=str, default=None,
                            help="The HParams dashboard's metrics, each as its last, lowest or highest value, e.g. "
                                 "'val/loss=min,val/acc=max' (default: every scalar tag the runs share, last value; "
                                 "standalone reader).")

    def fix_flags(self, flags) -> None:
        wanted = [name for name in RUN_FLAGS if getattr(flags, name, None) is not None]
        if wanted:
            from tensorboard.logdir.grouping import check_one_grouping
            from tensorboard.logdir.selection import compile_pattern
            from tensorboard.serving.served_hparams import check_flags

            try:
                for name in (n for n in wanted if n in PATTERN_FLAGS):
                    compile_pattern("--" + name, getattr(flags, name))
                check_flags(flags.hparams_file, flags.hparams_metrics, flags.where, flags.over)
                check_one_grouping(flags.group_runs, flags.over, "--group_runs")
            except (ValueError, TypeError) as err:
                raise base_plugin.FlagsError(str(err)) from None
            if flags.data_provider == "auto":
                flags.data_provider = "standalone"  # the only path that filters and groups runs
            elif flags.data_provider != "standalone":
                raise base_plugin.FlagsError(f"--{wanted[0]} is served by standalone TensorBoard's reader, not by "
                                             f"--data_provider={flags.data_provider}; use --data_provider=standalone")
        if flags.data_provider == "native" and flags.load_fast == "false":
            raise base_plugin.FlagsError("--data_provider=native cannot serve with --load_fast=false")
        if flags.data_provider == "standalone" and not readable_by_us(flags):
            raise base_plugin.FlagsError("--data_provider=standalone reads local paths and URLs an installed "
                                         "fsspec backend reads (s3:// needs `pip install s3fs`); install it, "
                                         "or use --data_provider=multiplexer for this logdir")

    def load(self, context):
        return None


def _paths(flags) -> list[str]:
    if flags.logdir:
        return [flags.logdir]
    if not flags.logdir_spec:
        return []
    from tensorboard.backend.event_processing import data_ingester

    return list(data_ingester._parse_event_files_spec(flags.logdir_spec))  # pylint: disable=protected-access


def readable_by_us(flags) -> bool:
    """True when every logdir is a local path or a URL whose fsspec backend is installed (what our
    reader lists and reads)."""
    from tensorboard.serving.remote_root import can_read

    paths = _paths(flags)
    return bool(paths) and all("://" not in p or can_read(p) for p in paths)


def choose(flags) -> str | None:
    """'standalone', or None to let upstream choose (its native server, a gRPC data server or its Python
    loader)."""
    choice = getattr(flags, "data_provider", "auto")
    if choice == "standalone":
        return "standalone"
    if not ours_serves(choice, flags.grpc_data_provider, flags.load_fast) or not readable_by_us(flags):
        return None
    return "standalone"


def install(program, stderr=None) -> None:
    """Makes upstream's `program.TensorBoard` pick its data ingester by --data_provider, and say which."""
    original = program.TensorBoard._make_data_ingester  # pylint: disable=protected-access

    def _make_data_ingester(self):
        flags = self.flags
        choice = getattr(flags, "data_provider", "auto")
        if choice == "native":
            flags.load_fast = "true"
        elif choice == "multiplexer":
            flags.load_fast = "false"
        if choose(flags) == "standalone":
            from tensorboard.serving.ingester import StandaloneDataIngester

            ingester = StandaloneDataIngester(flags)
            ingester.start()
            path = "standalone"
        else:
            from tensorboard.backend.event_processing import data_ingester
            from tensorboard.serving.preload import cancel_pending

            cancel_pending()
            ingester = original(self)
            path = "multiplexer" if isinstance(ingester, data_ingester.LocalDataIngester) else \
                "grpc" if flags.grpc_data_provider else "native"
        said = " (--data_provider=%s)" % path if path != "grpc" else ""
        print("tensorboard: serving the logdir through %s%s" % (DESCRIPTIONS[path], said),
              file=stderr or sys.stderr, flush=True)
        return ingester

    program.TensorBoard._make_data_ingester = _make_data_ingester  # pylint: disable=protected-access
