"""Runs tbparse (in .venv-upstream) on a logdir and pickles its DataFrames: `tbparse_dump.py LOGDIR OUT KWARGS_JSON`.

Writes {event type: DataFrame or the error text} for the event types tbparse reads without TensorFlow,
and under "tags" its `reader.tags` for those types.
"""
import json
import pickle
import sys

from object_strings import object_strings
from tbparse import SummaryReader

KINDS = ("scalars", "tensors", "histograms", "text", "hparams")


def main() -> None:
    logdir, out, kwargs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    kwargs = {k: set(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    reader = SummaryReader(logdir, **kwargs)
    frames = {}
    for kind in KINDS:
        try:
            frames[kind] = object_strings(reader.get_events(kind))  # any pandas unpickles it
        except Exception as err:  # recorded, so the test shows what tbparse said
            frames[kind] = f"{type(err).__name__}: {err}"
    frames["tags"] = {kind: reader.tags.get(kind) for kind in KINDS}
    with open(out, "wb") as f:
        pickle.dump(frames, f)


if __name__ == "__main__":
    main()
