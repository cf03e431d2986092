"""tbparse's raw access to one event file: its tags and events as upstream's EventAccumulator holds
them (ScalarEvent, TensorEvent, HistogramEvent, ... namedtuples), read by upstream's own accumulator
(shipped inside our wheel with the renderer), so they are exactly what tbparse returns."""
from __future__ import annotations

from typing import Any

HPARAMS, TEXT = "hparams", "text"
RAW_EVENT_TYPES = ("images", "audio", "histograms", "scalars", "tensors", "graph", "meta_graph", "run_metadata",
                   HPARAMS, TEXT)
# tbparse's event types, in its dictionaries' order
EVENT_TYPES_ORDER = ("images", "audio", "histograms", "scalars", "tensors", HPARAMS, TEXT)


def load_accumulator(path: str):
    """Upstream's EventAccumulator over the event file `path`, keeping every event, loaded."""
    try:
        from tensorboard.backend.event_processing.event_accumulator import (
            STORE_EVERYTHING_SIZE_GUIDANCE,
            EventAccumulator,
        )
    except ImportError as err:
        raise ImportError("raw_tags/raw_events need upstream TensorBoard's event_accumulator, which ships with "
                          "the renderer inside this wheel; it was not found (is tensorboard_standalone_renderer "
                          "installed?)") from err
    accumulator = EventAccumulator(path, STORE_EVERYTHING_SIZE_GUIDANCE)
    accumulator.Reload()
    return accumulator


def raw_tags(accumulator, event_type: str | None) -> Any:
    """{raw event type: tags} (the accumulator's Tags() plus the hparams and text plugins' tags), or one type's."""
    if event_type is not None and event_type not in RAW_EVENT_TYPES:
        raise ValueError(f"Unknown event_type: {event_type}")
    tags = accumulator.Tags()
    for plugin in (HPARAMS, TEXT):
        try:
            tags[plugin] = list(accumulator.PluginTagToContent(plugin))
        except KeyError:  # no tag of this plugin in the file
            tags[plugin] = []
    return tags if event_type is None else tags[event_type]


def raw_events(accumulator, event_type: str | None, tag: str | None) -> Any:
    """The accumulator's events: of one tag (a list), of one type ({tag: list}) or of every type."""
    if event_type is None:
        if tag is not None:
            raise ValueError("tag shouldn't be set if event_type is None")
        return {kind: raw_events(accumulator, kind, None) for kind in EVENT_TYPES_ORDER}
    getters = {"scalars": accumulator.Scalars, "tensors": accumulator.Tensors, "histograms": accumulator.Histograms,
               "images": accumulator.Images, "audio": accumulator.Audio, TEXT: accumulator.Tensors,
               HPARAMS: lambda name: accumulator.PluginTagToContent(HPARAMS)[name]}
    if event_type not in getters:
        raise KeyError(event_type)
    get = getters[event_type]
    if tag is not None:
        return get(tag)
    return {name: get(name) for name in raw_tags(accumulator, event_type)}
