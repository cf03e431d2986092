"""The one rule for whether our reader serves a `tensorboard` command's logdir, on the flags' raw values:
the launcher's preload decides with it before upstream's flags exist, and `serving.paths` after."""
from __future__ import annotations


def ours_serves(data_provider: str | None, grpc_data_provider: str | None, load_fast: str | None,
                run_flags: bool = False) -> bool:
    """True when our reader serves a logdir it can read: `--data_provider=standalone`, any of the run flags
    (--runs, --exclude, --group_runs), or `auto` (the default) unless upstream's own flags ask for another
    server: `--load_fast=true` (its native data server) or `--grpc_data_provider`."""
    provider = data_provider or "auto"
    if provider == "standalone" or (run_flags and provider == "auto"):
        return True
    return provider == "auto" and not grpc_data_provider and load_fast != "true"
