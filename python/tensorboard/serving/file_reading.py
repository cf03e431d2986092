"""A served run's sink of the engine's reading pipeline (logdir.records, followed by logdir.follow): plain
scalar events as columns with the metadata upstream's migrations give them, every other event through
upstream's protobuf and its read-time migrations (RunStateSink)."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

from tensorboard.events.record import not_an_event
from tensorboard.logdir import follow
from tensorboard.logdir.follow import FileState
from tensorboard.logdir.payloads import damaged_value_message
from tensorboard.logdir.records import RecordBlock, ScalarStretch
from tensorboard.serving.migrate import migrate
from tensorboard.serving.run_state import RunState

logger = logging.getLogger("tensorboard.serving")


@dataclass
class ServedFile(FileState):
    """A followed file of a served run, with what upstream's read-time migrations remember per file."""

    initial_metadata: dict = field(default_factory=dict)  # dataclass_compat's per-file state


def read_appended(run: RunState, state: ServedFile, stream) -> None:
    """Adds the records after `state.offset` in `stream` to `run` (the engine's logdir.follow.read_appended)."""
    follow.read_appended(RunStateSink(run, state), state, stream)


class RunStateSink:
    """The reading pipeline's sink (logdir.records.RecordSink) for one file of a served run: plain scalars
    column-wise with the metadata upstream's migrations give them, other records through upstream's
    protobuf and its read-time migrations, each under the run's lock."""

    def __init__(self, run: RunState, state: ServedFile):
        self.run, self.state = run, state

    def add_scalars(self, stretch: ScalarStretch) -> bool:
        run, state = self.run, self.state
        with run.lock:
            if not all(run.can_take_scalars(t) for t in stretch.tags):
                return False
            metadata = {t: _scalar_metadata(state, t) for t in stretch.tags if t not in run.metadata}
            for t in stretch.tags:
                if t not in state.initial_metadata:
                    state.initial_metadata[t] = _scalar_metadata(state, t, initial=True)
            return run.add_scalars(metadata, stretch.tags, stretch.tag_of, stretch.steps, stretch.walls,
                                   stretch.values)

    def add_records(self, block: RecordBlock, lo: int, hi: int) -> None:
        with self.run.lock:
            one_by_one(self.run, self.state, block, lo, hi)


_SCALAR_METADATA: dict = {}


def _scalar_metadata(state: ServedFile, tag: str, initial: bool = False):
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


def one_by_one(run: RunState, state: ServedFile, block: RecordBlock, lo: int, hi: int) -> None:
    """Events lo..hi through protobuf and the read-time migrations, as upstream's loader yields them."""
    from tensorboard.compat.proto import event_pb2

    parse = event_pb2.Event.FromString
    buf, base = block.spans.buf, block.base
    for s, e in zip(*block.spans.lists(lo, hi)):
        try:
            event = parse(buf[s:e])
        except Exception as err:  # protobuf's DecodeError: the record holds no Event; its checks passed, so
            run.report_damage((state.path, f"@{base + s - 12}"), not_an_event(state.path, base + s - 12, err))
            continue  # the next record starts where it ends: only this one is lost
        for migrated in migrate_values(run, state, event):
            run.process_event(migrated, state.path)


def migrate_values(run: RunState, state: ServedFile, event) -> list:
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
