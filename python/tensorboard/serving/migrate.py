"""Upstream's read-time migrations of an event (legacy values to tensors, data classes filled in), with the
display names the file holds: a legacy value (simple_value, image, audio, histo) the file names not stays
unnamed, as the native data server serves it, where upstream's Python migration would name it after its tag."""
from __future__ import annotations

from collections.abc import Iterator

# Imported with the reader's modules, not at the first event: preload's workers, forked once these are
# imported, share them with the server instead of each importing its own copy (with the stubs and boto3
# they pull in, a fifth of a second of a worker's time) before reading.
from tensorboard import data_compat, dataclass_compat

LEGACY_KINDS = frozenset(("simple_value", "image", "audio", "histo"))


def migrate(event, initial_metadata: dict) -> Iterator:
    """The events upstream's loader makes of `event` (an `event_pb2.Event` of upstream's protos);
    `initial_metadata` is dataclass_compat's per-file state, updated in place."""
    unnamed = _unnamed_legacy_tags(event)
    for migrated in dataclass_compat.migrate_event(data_compat.migrate_event(event), initial_metadata):
        if unnamed:
            for value in migrated.summary.value:
                if value.tag in unnamed:
                    value.metadata.display_name = ""
        yield migrated


def _unnamed_legacy_tags(event) -> frozenset:
    """Tags of `event`'s legacy values whose metadata holds no display name."""
    if not event.HasField("summary"):
        return frozenset()
    return frozenset(value.tag for value in event.summary.value
                     if not value.metadata.display_name and value.WhichOneof("value") in LEGACY_KINDS)
