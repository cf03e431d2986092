"""Runs tbparse (in .venv-upstream) on a logdir and pickles its DataFrames: `tbparse_dump.py LOGDIR OUT KWARGS_JSON`.

Writes {event type: DataFrame or the error text} for the event types tbparse reads without TensorFlow,
and under "tags" its `reader.tags` for those types.
"""
import json
import pickle
import sys

import pandas as pd
from tbparse import SummaryReader

KINDS = ("scalars", "tensors", "histograms", "text", "hparams")


def portable(frame):
    """String columns (and labels) as object: a pandas 3 string column unpickles in no pandas 2, and the
    tests compare strings as object anyway (tbparse_ref.normalized)."""
    if not isinstance(frame, pd.DataFrame):
        return frame
    frame = frame.copy()
    frame.columns = pd.Index(list(frame.columns), dtype=object)
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.StringDtype):
            frame[column] = frame[column].astype(object)
    return frame


def main() -> None:
    logdir, out, kwargs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    kwargs = {k: set(v) if isinstance(v, list) else v for k, v in kwargs.items()}
    reader = SummaryReader(logdir, **kwargs)
    frames = {}
    for kind in KINDS:
        try:
            frames[kind] = portable(reader.get_events(kind))
        except Exception as err:  # recorded, so the test shows what tbparse said
            frames[kind] = f"{type(err).__name__}: {err}"
    frames["tags"] = {kind: reader.tags.get(kind) for kind in KINDS}
    with open(out, "wb") as f:
        pickle.dump(frames, f)


if __name__ == "__main__":
    main()
