"""Per-kind pandas DataFrames in tbparse's layouts, built column-wise from the run stores.

Long form: `step`, `tag`, value column(s), then the asked-for extra columns (`wall_time`, `dir_name`,
`file_name`), rows sorted by (dir_name, file_name when asked,) tag, step. Wide form (pivot): one
column per tag, rows merged per step (several values of one cell become a list).
"""
from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from tensorboard.logdir.hparams import hparam_value
from tensorboard.logdir.kinds import AUDIO, HISTOGRAMS, HPARAMS, IMAGES, SCALARS, TENSORS, TEXT, text_name
from tensorboard.logdir.names import run_parts, tbparse_dir_name
from tensorboard.logdir.payloads import decode_image, decode_wav, tensor_to_numpy
from tensorboard.logdir.run_data import RunData

# per kind: the value columns always present, then the optional ones an extra column switches on
_VALUE_COLUMNS = {SCALARS: (("value",), ()), TENSORS: (("value",), ()), TEXT: (("value",), ()),
                  HISTOGRAMS: (("counts", "limits"), ("max", "min", "num", "sum", "sum_squares")),
                  IMAGES: (("value",), ("height", "width")),
                  AUDIO: (("value",), ("content_type", "length_frames", "sample_rate")),
                  HPARAMS: (("value",), ())}


def _dir_name(run: RunData) -> str:
    return tbparse_dir_name(run.name)


def _plugin_tags(run: RunData, plugin: str) -> set:
    return set(run.plugin_content.get(plugin, ()))


def _store(run: RunData, kind: str):
    """The store holding `kind`'s rows (text and tensors share the tensor store)."""
    return run.scalars if kind == SCALARS else run.histograms if kind == HISTOGRAMS else \
        run.images if kind == IMAGES else run.audio if kind == AUDIO else run.tensors


def _belongs(run: RunData, kind: str, names) -> list[bool]:
    """For the tensor store's tag `names`: which are `kind`'s (text: the text plugin's; tensors: the
    rest but hparams'); every name for the other kinds."""
    if kind not in (TENSORS, TEXT):
        return [True] * len(names)
    text_tags = _plugin_tags(run, "text")
    if kind == TEXT:
        return [name in text_tags for name in names]
    hidden = text_tags | _plugin_tags(run, "hparams")
    return [name not in hidden for name in names]


def run_tags(run: RunData, kind: str) -> list[str]:
    """A run's tags of `kind` as stored, in the order first seen (hparams: each file's names, sorted:
    a protobuf map keeps no order, and tbparse's follows its protobuf runtime's)."""
    if kind == HPARAMS:
        from tensorboard.src import hparams_pb2

        return [name for _, content in sorted(run.session_starts.items())
                for name in sorted(hparams_pb2.HParamsPluginData.FromString(content).session_start_info.hparams)]
    names = list(_store(run, kind).tag_names)
    return [name for name, wanted in zip(names, _belongs(run, kind, names)) if wanted]


def _block(run: RunData, kind: str, optional: tuple) -> dict | None:
    """Columns of one run for `kind`, in the run's event order (tag ids, steps, wall times, files, values)."""
    store = _store(run, kind)
    if not len(store):
        return None
    tag_ids = np.frombuffer(store.tags, np.int32) if len(store.tags) else np.zeros(0, np.int32)
    names = list(store.tag_names)
    keep = None
    if kind in (TENSORS, TEXT):
        keep = np.asarray(_belongs(run, kind, names), bool)[tag_ids]
        if not keep.any():
            return None
        if kind == TEXT:
            names = [text_name(n) for n in names]
    block = {"tag_ids": tag_ids, "names": names,
             "steps": np.frombuffer(store.steps, np.int64), "walls": np.frombuffer(store.walls, np.float64),
             "files": np.frombuffer(store.files, np.int32)}
    if kind == SCALARS:
        block["value"] = np.frombuffer(store.values, np.float64)
    elif kind == HISTOGRAMS:
        rows = store.values
        block["counts"] = _objects(r.counts for r in rows)
        block["limits"] = _objects(r.limits for r in rows)
        for name in ("min", "max", "num", "sum", "sum_squares"):
            if name in optional:
                block[name] = np.fromiter((getattr(r, name) for r in rows), np.float64, len(rows))
    elif kind == IMAGES:  # sizes typed as tbparse's (int64; sample rates float64)
        block["value"] = _objects(decode_image(r.encoded) for r in store.values)
        block["width"] = np.fromiter((r.width for r in store.values), np.int64, len(store.values))
        block["height"] = np.fromiter((r.height for r in store.values), np.int64, len(store.values))
    elif kind == AUDIO:
        block["value"] = _objects(decode_wav(r.encoded) for r in store.values)
        block["content_type"] = [r.content_type for r in store.values]
        block["length_frames"] = np.fromiter((r.length_frames for r in store.values), np.int64, len(store.values))
        block["sample_rate"] = np.fromiter((r.sample_rate for r in store.values), np.float64, len(store.values))
    else:
        values = store.values if keep is None else [v for v, k in zip(store.values, keep) if k]
        if kind == TEXT:
            block["value"] = _objects(tensor_to_numpy(t).item().decode("utf-8") for t in values)
        else:
            arrays = (tensor_to_numpy(t) for t in values)
            block["value"] = _objects(a.item() if a.shape == () else a for a in arrays)
    if keep is not None:
        for key in ("tag_ids", "steps", "walls", "files"):
            block[key] = block[key][keep]
    return block


def _typed_scalars(values: np.ndarray) -> np.ndarray:
    """A tensors value column of one kind of Python scalar as tbparse's lists type it (float64, int64,
    bool); a mix (floats and ints beyond 2**53 would round) or arrays stay objects, exact."""
    kinds = {type(v) for v in values}
    for kind, dtype in ((float, np.float64), (int, np.int64), (bool, np.bool_)):
        if kinds == {kind}:
            try:
                return values.astype(dtype)
            except OverflowError:  # a uint64 beyond int64
                return values
    return values


def _objects(items) -> np.ndarray:
    """A 1-D object array (never broadcast into 2-D, even when every item is an equal-length array)."""
    items = list(items)
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


class _Names(NamedTuple):
    """The sorted distinct tags, run directories and file names of a frame's runs, and their ranks."""

    tags: list[str]
    tag_rank: dict[str, int]
    dirs: list[str]
    dir_rank: dict[str, int]
    files: list[str]
    file_rank: dict[str, int]


def build_frame(runs: list[RunData], kind: str, pivot: bool, extra_columns: set):
    """The DataFrame of `kind` for `runs`, as tbparse lays it out."""
    import pandas as pd

    if kind == HPARAMS:
        return _hparams_frame(runs, pivot, extra_columns, pd)
    base, optional = _VALUE_COLUMNS[kind]
    value_columns = base + tuple(c for c in optional if c in extra_columns)
    blocks = [(i, run, b) for i, run in enumerate(runs) if (b := _block(run, kind, value_columns[len(base):]))
              is not None]
    if not blocks:
        return pd.DataFrame()
    tags = sorted({n for _, _, b in blocks for n in b["names"]})
    dirs = sorted({_dir_name(run) for _, run, _ in blocks})
    files = sorted({os.path.basename(p) for _, run, _ in blocks for p in run.files})
    names = _Names(tags, {n: r for r, n in enumerate(tags)}, dirs, {n: r for r, n in enumerate(dirs)},
                   files, {n: r for r, n in enumerate(files)})
    use_dir, use_file = "dir_name" in extra_columns, "file_name" in extra_columns
    # only the columns this frame needs: the long form sorts by (dir, file,) tag, step alone
    wanted = {"tag_rank", "steps"} | ({"walls"} if "wall_time" in extra_columns else set()) | \
        ({"dir_rank"} if use_dir or pivot else set()) | ({"file_rank"} if use_file or pivot else set()) | \
        ({"run", "file_id", "tag_id"} if pivot else set())
    flat = _gather(blocks, names, wanted, value_columns)
    if pivot:
        return _pivot_frame(flat, names, runs, value_columns, extra_columns, use_dir, use_file, pd)
    return _long_frame(flat, names, kind, value_columns, extra_columns, use_dir, use_file, pd)


def _gather(blocks: list, names: _Names, wanted: set, value_columns: tuple) -> dict[str, np.ndarray]:
    """The `wanted` index columns and the value columns of every run's block, concatenated (each block is
    dropped as soon as it is copied)."""
    repeated = {"dir_rank", "run"} & wanted  # one value per run, repeated over its rows at the end
    cols: dict[str, list] = {k: [] for k in wanted - repeated}
    values: dict[str, list] = {c: [] for c in value_columns}
    lengths, dir_of, run_of = [], [], []
    for i, run, b in blocks:
        lengths.append(len(b["steps"]))
        if "dir_rank" in repeated:
            dir_of.append(names.dir_rank[_dir_name(run)])
        run_of.append(i)
        if "tag_rank" in cols:
            cols["tag_rank"].append(np.asarray([names.tag_rank[x] for x in b["names"]], np.int32)[b["tag_ids"]])
        if "file_rank" in cols:
            ranks = np.asarray([names.file_rank[os.path.basename(p)] for p in run.files], np.int32)
            cols["file_rank"].append(ranks[b["files"]])
        for column, source in (("steps", "steps"), ("walls", "walls"), ("file_id", "files"), ("tag_id", "tag_ids")):
            if column in cols:
                cols[column].append(b[source])
        for c in values:
            values[c].append(b[c])
        b.clear()
    flat = {k: np.concatenate(v) if len(v) > 1 else np.asarray(v[0]) for k, v in cols.items()}
    cols.clear()
    for column, per_run in (("dir_rank", dir_of), ("run", run_of)):
        if column in repeated:
            flat[column] = np.repeat(np.asarray(per_run, np.int32), lengths)
    for c, parts in values.items():
        flat[c] = np.concatenate([np.asarray(p, dtype=object) if isinstance(p, list) else p for p in parts])
    values.clear()
    return flat


def _pivot_frame(flat: dict, names: _Names, runs: list[RunData], value_columns: tuple, extra_columns: set,
                 use_dir: bool, use_file: bool, pd):
    """tbparse's pivoted frame: rows first in its pre-merge order (run, file, tag first seen, event)."""
    natural = np.lexsort([np.arange(len(flat["steps"])), flat["tag_id"], flat["file_id"], flat["run"]])
    columns = {"step": flat["steps"][natural], "tag": np.asarray(names.tags, dtype=object)[flat["tag_rank"][natural]],
               "dir_name": np.asarray(names.dirs, dtype=object)[flat["dir_rank"][natural]],
               "file_name": np.asarray(names.files, dtype=object)[flat["file_rank"][natural]]}
    for c in value_columns:
        columns[c] = flat[c][natural]
    if "wall_time" in extra_columns:
        columns["wall_time"] = flat["walls"][natural]
    return _pivot(columns, flat["run"][natural], flat["file_id"][natural], runs, value_columns, use_dir, use_file, pd)


def _long_frame(flat: dict, names: _Names, kind: str, value_columns: tuple, extra_columns: set, use_dir: bool,
                use_file: bool, pd):
    """tbparse's long frame, sorted by (dir, file,) tag and step."""
    keys = [flat["steps"], flat["tag_rank"]] + ([flat["file_rank"]] if use_file else []) + \
        ([flat["dir_rank"]] if use_dir else [])
    order = sort_order(keys)
    del keys

    def take(name: str) -> np.ndarray:
        column = flat.pop(name)
        return column if order is None else column[order]

    columns: dict[str, object] = {"step": take("steps"), "tag": _strings(names.tags, take("tag_rank"), pd)}
    for c in value_columns:
        columns[c] = take(c)
    if kind == TENSORS:
        columns["value"] = _typed_scalars(columns["value"])
    if "wall_time" in extra_columns:
        columns["wall_time"] = take("walls")
    if use_dir:
        columns["dir_name"] = _strings(names.dirs, take("dir_rank"), pd)
    if use_file:
        columns["file_name"] = _strings(names.files, take("file_rank"), pd)
    return pd.DataFrame(columns, copy=False)


def _strings(names: list[str], codes: np.ndarray, pd):
    """names[codes] as pandas' default string column; built in Arrow from the few distinct names when
    pandas stores strings in Arrow (as pandas 3 does with pyarrow installed), else as an object array."""
    dtype = pd.Series(["x"]).dtype
    if getattr(dtype, "storage", None) == "pyarrow":
        import pyarrow as pa

        dictionary = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)),
                                                    pa.array(names, pa.large_string()))
        return pd.array(dictionary.cast(pa.large_string()), dtype=dtype)
    return np.asarray(names, dtype=object)[codes]


def sort_order(keys: list[np.ndarray]) -> np.ndarray | None:
    """The stable order of rows by `keys` (as np.lexsort takes them: the last key first), or None when the
    rows are in that order already (a run's steps usually are). Integer keys whose value ranges multiply
    to less than 2**62 are folded into one int64 key: one argsort instead of a pass per key."""
    if not len(keys[0]):
        return None
    folded = np.zeros(len(keys[0]), np.int64)
    room = 1
    for key in reversed(keys):  # the primary key first
        lo = int(key.min())
        span = int(key.max()) - lo + 1
        room *= span
        if room >= 1 << 62:
            return np.lexsort(keys)
        folded *= span
        folded += key  # in place, no temporary; the sum may wrap in int64, but less `lo` it is in range
        folded -= lo
    if bool((folded[1:] >= folded[:-1]).all()):
        return None
    return np.argsort(folded, kind="stable")


def _is_null(x) -> bool:
    return x is None or (isinstance(x, float) and x != x) or (isinstance(x, np.floating) and np.isnan(x))


def _merge(cell: list):
    kept = []
    for x in cell:
        if isinstance(x, list):
            kept.extend(x)
        elif not _is_null(x):
            kept.append(x)
    return np.nan if not kept else kept[0] if len(kept) == 1 else kept


def _pivot(columns: dict, row_runs, row_files, runs: list[RunData], fields: tuple, use_dir: bool, use_file: bool, pd):
    """Wide form: one column per tag (or `tag/field`), one row per (dir_name, file_name,) step.

    tbparse merges file by file and then directory by directory (sorting by step at every level,
    unstably when the step is the only key); the same tree walk here gives the same cells and lists.
    """
    steps, tags, walls = columns["step"], columns["tag"], columns.get("wall_time")
    leaves: dict[tuple, list] = {}
    for i in range(len(steps)):
        leaves.setdefault((int(row_runs[i]), int(row_files[i])), []).append(i)
    tree: dict = {}
    for (r, f), rows in leaves.items():
        node = tree
        for part in run_parts(runs[r].name):
            node = node.setdefault(part, {})
        table = []
        for i in rows:
            cells = {(tags[i] if field == "value" else f"{tags[i]}/{field}"): columns[field][i] for field in fields}
            if walls is not None:
                cells["\0wall"] = walls[i]
            table.append(((columns["dir_name"][i], columns["file_name"][i], int(steps[i])), cells))
        node[os.path.basename(runs[r].files[f])] = table
    quick = not (use_dir or use_file)

    def merged(node) -> list:
        if isinstance(node, list):
            rows = node
        else:
            rows = [row for name in sorted(node) for row in merged(node[name])]
        if quick:
            order = np.argsort(np.asarray([k[2] for k, _ in rows], np.int64), kind="quicksort")
            rows = [rows[i] for i in order]
        else:
            rows = sorted(rows, key=lambda row: ((row[0][0],) if use_dir else ()) + ((row[0][1],) if use_file else ())
                          + (row[0][2],))
        groups: dict[tuple, dict[str, list]] = {}
        for key, cells in rows:
            group_key = (key[0] if use_dir else None, key[1] if use_file else None, key[2])
            group = groups.setdefault(group_key, {})
            for name, value in cells.items():
                group.setdefault(name, []).append(value)
        return [((k[0], k[1], k[2]), {n: _merge(v) for n, v in cells.items()}) for k, cells in groups.items()]

    table = merged(tree)
    middle = sorted({name for _, cells in table for name in cells if name != "\0wall"})
    out: dict[str, list] = {"step": [k[2] for k, _ in table]}
    for name in middle:
        out[name] = [cells.get(name, np.nan) for _, cells in table]
    if walls is not None:
        out["wall_time"] = [cells["\0wall"] for _, cells in table]
    if use_dir:
        out["dir_name"] = [k[0] for k, _ in table]
    if use_file:
        out["file_name"] = [k[1] for k, _ in table]
    return pd.DataFrame(out)


def _hparams_frame(runs: list[RunData], pivot: bool, extra_columns: set, pd):
    """Hyperparameters of each run's session start info: `tag` (name) and `value`."""
    from tensorboard.src import hparams_pb2

    rows = []  # (dir_name, file_name, name, value): each file's own, as tbparse reads file by file
    for run in runs:
        for file_id, content in sorted(run.session_starts.items()):
            start = hparams_pb2.HParamsPluginData.FromString(content).session_start_info
            for name, value in start.hparams.items():
                python = hparam_value(value)
                rows.append((_dir_name(run), os.path.basename(run.files[file_id]), name,
                             np.nan if python is None else python))
    if not rows:
        return pd.DataFrame()
    use_dir, use_file = "dir_name" in extra_columns, "file_name" in extra_columns
    key = lambda r: ((r[0],) if use_dir else ()) + ((r[1],) if use_file else ()) + (() if pivot else (r[2],))
    rows = sorted(rows, key=key)
    if not pivot:
        out = {"tag": [r[2] for r in rows], "value": [r[3] for r in rows]}
    else:
        groups: dict[tuple, dict[str, list]] = {}
        for r in rows:
            groups.setdefault(key(r), {}).setdefault(r[2], []).append(r[3])
        middle = sorted({n for cells in groups.values() for n in cells})
        out = {n: [_merge(cells[n]) if n in cells else np.nan for cells in groups.values()] for n in middle}
        rows = [(k[0] if use_dir else "", k[-1] if use_file else "") for k in groups]
        if use_dir:
            out["dir_name"] = [r[0] for r in rows]
        if use_file:
            out["file_name"] = [r[1] for r in rows]
        return pd.DataFrame(out)
    if use_dir:
        out["dir_name"] = [r[0] for r in rows]
    if use_file:
        out["file_name"] = [r[1] for r in rows]
    return pd.DataFrame(out)
