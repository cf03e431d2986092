"""Reads what was appended to one event file since the last read into a RunState: our reader's record
scanner checks every CRC and hands out payload spans; runs of plain scalar events are decoded as
columns, every other event goes through upstream's protobuf and its read-time migrations."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from tensorboard.events.record import CorruptEventFileError, not_an_event
from tensorboard.events.scan import scan_spans
from tensorboard.logdir.bulk_decode import key_ids, plain_scalars
from tensorboard.logdir.payloads import damaged_value_message
from tensorboard.serving._migrate import migrate
from tensorboard.serving._run import RunState

logger = logging.getLogger("tensorboard.serving")
MARK_BYTES = 16


@dataclass
class FileState:
    """How far one event file has been read, and what identifies it (a replaced file starts over)."""

    path: str
    identity: tuple = ()  # (device, inode)
    offset: int = 0  # bytes of whole records read
    damaged: bool = False  # stopped at damage; nothing after it is read
    mtime: int = -1  # st_mtime_ns when last looked at
    mark: bytes = b""  # the last MARK_BYTES bytes read: differ when the file was re-created in place
    grew: float = float("-inf")  # time.monotonic() when new bytes were last read (a file being written)
    initial_metadata: dict = field(default_factory=dict)  # dataclass_compat's per-file state


def read_appended(run: RunState, state: FileState, stream) -> int:
    """Adds the records after `state.offset` in `stream` to `run`; returns how many were read.

    A file that ends inside a record keeps its offset at that record (read again once complete);
    damage (a CRC mismatch) ends the file there for good, logged once.
    """
    count = _read(run, state, stream)
    if state.offset:
        stream.seek(max(0, state.offset - MARK_BYTES))
        state.mark = stream.read(min(state.offset, MARK_BYTES))
    return count


def _read(run: RunState, state: FileState, stream) -> int:
    start = state.offset
    stream.seek(start)
    tail = []
    count = 0
    try:
        for buf, base, starts, ends in scan_spans(stream, state.path, on_truncated=tail.append, start=start,
                                                   warn_truncated=False):
            with run.lock:
                _chunk(run, state, buf, base, starts, ends)
            count += len(starts)
            state.offset = base + (int(ends[-1]) + 4 if len(ends) else 0)
    except CorruptEventFileError as err:
        state.damaged = True
        state.offset = int(err.offset)
        logger.warning("%s; the rest of this file is not read", err)
        return count
    state.offset = tail[0] if tail else stream.tell()
    return count


def _chunk(run: RunState, state: FileState, buf: bytes, base: int, starts, ends) -> None:
    """One scanned chunk, in file order: plain scalar stretches column-wise, the rest one by one."""
    ok, steps, walls, values, key_start, key_len = plain_scalars(buf, starts, ends)
    tags, tag_of = tag_ids(buf, ok, key_start, key_len)
    file_records(run, state, buf, base, starts, ends, ok, steps, walls, values, tags, tag_of)


def tag_ids(joined: bytes, ok, key_start, key_len) -> tuple[list[str], np.ndarray]:
    """The tags of the plain scalar records and each record's index into them (-1 elsewhere); records
    whose tag is no UTF-8 are taken off `ok` (they go one by one, as protobuf reads them)."""
    tag_of = np.full(len(ok), -1, np.int64)
    plain = np.flatnonzero(ok)
    if not len(plain):
        return [], tag_of
    grouped = key_ids(np.frombuffer(joined, np.uint8), key_start[plain], key_len[plain])
    if grouped is None:  # a hash collision: every record one by one
        ok[:] = False
        return [], tag_of
    inverse, _, keys = grouped
    tag_of[plain] = inverse
    tags = []
    for i, key in enumerate(keys):
        try:
            tags.append(key.decode("utf-8"))
        except UnicodeDecodeError:
            tags.append("")
            ok[tag_of == i] = False
    return tags, tag_of


def file_records(run, state, joined, base, starts, ends, ok, steps, walls, values, tags, tag_of) -> None:
    """One file's intact records in order: plain scalar stretches column-wise, the rest one by one."""
    flips = np.flatnonzero(np.diff(ok.astype(np.int8))) + 1
    bounds = [0, *flips.tolist(), len(starts)]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if hi > lo and ok[lo]:
            ids, inverse = _tag_groups(tag_of[lo:hi])
            names = [tags[i] for i in ids]
            if _add_scalar_stretch(run, state, names, inverse, steps[lo:hi], walls[lo:hi], values[lo:hi]):
                continue
        one_by_one(run, state, joined, base, starts, ends, lo, hi)


def _tag_groups(tag_of: np.ndarray) -> tuple[list[int], np.ndarray]:
    """(the tag ids present, each event's index among them): one tag, the usual case, without a sort."""
    first = int(tag_of[0])
    if (tag_of == first).all():
        return [first], np.zeros(len(tag_of), np.intp)
    ids, inverse = np.unique(tag_of, return_inverse=True)
    return ids.tolist(), inverse.ravel()


def _add_scalar_stretch(run: RunState, state: FileState, tags: list[str], tag_of, steps, walls, values) -> bool:
    """Plain scalar events of one file, in order (`tags[tag_of[i]]` is event i's tag), added column-wise
    with the metadata upstream's migrations give them; False, having added nothing, when they must
    go one by one (a tag of another kind, or steps that purge)."""
    if not all(run.can_take_scalars(t) for t in tags):
        return False
    metadata = {t: _scalar_metadata(state, t) for t in tags if t not in run.metadata}
    for t in tags:
        if t not in state.initial_metadata:
            state.initial_metadata[t] = _scalar_metadata(state, t, initial=True)
    return run.add_scalars(metadata, tags, tag_of, steps, walls, values)


_SCALAR_METADATA: dict = {}


def _scalar_metadata(state: FileState, tag: str, initial: bool = False):
    """The metadata the read-time migrations give a plain scalar value of `tag` (computed once
    by running them on a sample value): as stored for the tag, or as remembered for the file."""
    key = (tag, initial)
    meta = _SCALAR_METADATA.get(key)
    if meta is None:
        from tensorboard.compat.proto import event_pb2

        event = event_pb2.Event(step=0, wall_time=0.0)
        event.summary.value.add(tag=tag, simple_value=0.0)
        first: dict = {}
        (migrated,) = migrate(event, first)
        _SCALAR_METADATA[(tag, False)] = migrated.summary.value[0].metadata
        _SCALAR_METADATA[(tag, True)] = first[tag]
        if len(_SCALAR_METADATA) > 100_000:  # a bound, not a cache policy: tags are few
            _SCALAR_METADATA.clear()
        meta = migrated.summary.value[0].metadata if not initial else first[tag]
    copy = type(meta)()
    copy.CopyFrom(meta)
    return copy


def one_by_one(run: RunState, state: FileState, buf: bytes, base: int, starts, ends, lo: int, hi: int) -> None:
    """Events lo..hi through protobuf and the read-time migrations, as upstream's loader yields them."""
    from tensorboard.compat.proto import event_pb2

    parse = event_pb2.Event.FromString
    for i in range(lo, hi):
        s, e = int(starts[i]), int(ends[i])
        try:
            event = parse(buf[s:e])
        except Exception as err:  # protobuf's DecodeError: the record holds no Event; its checks passed, so
            run.report_damage((state.path, f"@{base + s - 12}"), not_an_event(state.path, base + s - 12, err))
            continue  # the next record starts where it ends: only this one is lost
        for migrated in migrate_values(run, state, event):
            run.process_event(migrated, state.path)


def migrate_values(run: RunState, state: FileState, event) -> list:
    """The events upstream's migrations make of `event`; when they fail on a damaged value (a HistogramProto or
    plugin content they can't read), each value alone, leaving out (and logging) those that fail."""
    try:
        return list(migrate(event, state.initial_metadata))
    except Exception:  # the migrations raise what protobuf and NumPy raise: find the value(s) at fault
        if not event.HasField("summary") or len(event.summary.value) == 0:
            raise
    kept = []
    for value in event.summary.value:
        single = type(event)(wall_time=event.wall_time, step=event.step)
        single.summary.value.add().CopyFrom(value)
        try:
            kept.extend(migrate(single, state.initial_metadata))
        except Exception as err:  # noqa: BLE001 (the same, for this value alone)
            tag = value.tag or value.node_name
            run.report_damage((state.path, tag), damaged_value_message(state.path, tag, f"upstream's migration "
                                                                                         f"fails: {err}"))
    return kept
