"""One row per run of a logdir's hparams sessions: the run, its hyperparameters and the final value
of each metric the experiment names, read from the run stores (no pandas needed for the rows)."""
from __future__ import annotations

from tensorboard.logdir.names import TOP_RUN
from tensorboard.logdir.run_data import RunData

EXPERIMENT_TAG = "_hparams_/experiment"


def decode_plugin_data(content: bytes):
    from tensorboard.src import hparams_pb2

    return hparams_pb2.HParamsPluginData.FromString(content)


def hparam_value(value):
    """A google.protobuf.Value as Python: a number, text, bool, or a list or dict of those (what JSON can hold);
    None when unset or null."""
    kind = value.WhichOneof("kind")
    if kind is None or kind == "null_value":
        return None
    if kind == "list_value":
        return [hparam_value(item) for item in value.list_value.values]
    if kind == "struct_value":
        return {key: hparam_value(item) for key, item in value.struct_value.fields.items()}
    return getattr(value, kind)


def metric_tags(runs: list[RunData]) -> list[tuple[str, str]]:
    """(group, tag) of every metric, first seen first: those the first experiment summary names, or
    without one (as upstream's plugin infers them) every scalar tag of a session's run and the runs
    below it, the group being the sub-run's path relative to the session's run."""
    for run in runs:
        content = run.plugin_content.get("hparams", {}).get(EXPERIMENT_TAG)
        if content is not None:
            infos = decode_plugin_data(content).experiment.metric_infos
            return list(dict.fromkeys((info.name.group, info.name.tag) for info in infos))
    sessions = [run.name for run in runs if run.session_starts]
    seen: dict[tuple[str, str], None] = {}
    for run in runs:
        name = run.name
        for session in sessions:
            if session == "" or name == session or name.startswith(session + "/"):
                group = "" if name == session else (name if session == "" else name[len(session) + 1:])
                for tag in run.scalars.tag_names:
                    if not tag.startswith("_hparams_/"):
                        seen.setdefault((group, tag), None)
                break
    return list(seen)


def _last_scalars(run: RunData) -> dict[str, float]:
    """{tag: the value at the run's highest step (the last one logged at that step)}."""
    store = run.scalars
    best: dict[int, tuple[int, float]] = {}
    for tid, step, value in zip(store.tags, store.steps, store.values):
        old = best.get(tid)
        if old is None or step >= old[0]:
            best[tid] = (step, value)
    return {store.tag_names[tid]: value for tid, (_, value) in best.items()}


def hparams_rows(runs: list[RunData], discovered: dict | None = None, metrics=None) -> list[dict]:
    """One dict per run with hyperparameters: {"run", "hparams": {name: value}, "metrics": {tag: value
    or None}}, runs in the order given.

    Without `discovered`, the runs with an hparams session start and what add_hparams logged; with it
    ({run: {key: HParam}} of `logdir.hparams_sources.run_hparams`), every run holding any, from every
    source. Without `metrics`, each metric the experiment names (or, as upstream infers them, the
    scalar tags of the sessions' runs; failing both, the scalar tags every run shares) as its last
    value, read in the sub-run its group names; with `metrics` (`logdir.metrics.parse_metrics`'s
    choices), each as its last, lowest or highest value in the run itself."""
    from tensorboard.logdir.metrics import metric_values, shared_scalar_tags

    if discovered is None:
        chosen = [run for run in runs if run.session_starts]
        values = {run.name: _logged(run) for run in chosen}
    else:
        chosen = [run for run in runs if discovered.get(run.name)]
        values = {run.name: {key: h.value for key, h in discovered[run.name].items()} for run in chosen}
    if metrics is not None:
        return [{"run": run.name, "hparams": values[run.name], "metrics": metric_values(run, metrics)}
                for run in chosen]
    groups = metric_tags(runs) or [("", tag) for tag in shared_scalar_tags(chosen)]
    by_name = {run.name: run for run in runs}
    rows = []
    for run in chosen:
        own = _last_scalars(run)
        found: dict[str, float | None] = {}
        for group, tag in groups:
            source = own
            if group and group != TOP_RUN:
                sub = by_name.get(group if run.name == TOP_RUN else f"{run.name}/{group}")
                source = _last_scalars(sub) if sub is not None else {}
            found[tag if not group or group == TOP_RUN else f"{group}/{tag}"] = source.get(tag)
        rows.append({"run": run.name, "hparams": values[run.name], "metrics": found})
    return rows


def _logged(run: RunData) -> dict[str, object]:
    hparams: dict[str, object] = {}
    for _, content in sorted(run.session_starts.items()):
        for name, value in sorted(decode_plugin_data(content).session_start_info.hparams.items()):
            hparams[name] = hparam_value(value)
    return hparams


def hparams_frame(runs: list[RunData], discovered: dict | None = None, metrics=None):
    """The rows of `hparams_rows` as a DataFrame: `run`, one column per hyperparameter, one per metric
    (NaN where absent)."""
    import pandas as pd

    rows = hparams_rows(runs, discovered, metrics)
    if not rows:
        return pd.DataFrame()
    names = sorted({name for row in rows for name in row["hparams"]})
    metric_names = list(dict.fromkeys(name for row in rows for name in row["metrics"]))
    columns: dict[str, list] = {"run": [row["run"] for row in rows]}
    for name in names:
        columns[name if name != "run" else "hparam/run"] = [row["hparams"].get(name) for row in rows]
    for name in metric_names:
        key = name if name not in columns else f"metric/{name}"
        columns[key] = [float("nan") if row["metrics"].get(name) is None else row["metrics"][name] for row in rows]
    return pd.DataFrame(columns)
