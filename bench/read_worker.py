"""One reading measurement in a fresh process: `read_worker.py READER KIND LOGDIR`, prints one JSON line.

READER: ours (tensorboard.reader.SummaryReader, main venv) | ea (upstream EventAccumulator, size
guidance 0 = keep everything, one per run directory, rows into a DataFrame) | tbparse (both in
.venv-upstream). KIND: scalars | histograms. Time = logdir path given .. DataFrame built.
"""
from __future__ import annotations

import json
import os
import sys
import time

from memory import PeakRSS  # bench/memory.py (this script's directory is on sys.path)


def main() -> int:
    reader, kind, logdir = sys.argv[1:4]
    import numpy as np
    import pandas as pd

    if reader == "ours":
        import tensorboard.logdir.bulk_decode  # noqa: F401,E401
        import tensorboard.logdir.decode
        import tensorboard.reader._frames
        import tensorboard.src.event_pb2  # noqa: F401
        from tensorboard.reader import SummaryReader

        def run():
            return getattr(SummaryReader(logdir), kind)
    elif reader == "tbparse":
        from tbparse import SummaryReader

        def run():
            return getattr(SummaryReader(logdir), kind)
    elif reader == "ea":
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        def run():
            frames = []
            for directory, _, files in sorted(os.walk(logdir)):
                if not any("tfevents" in f for f in files):
                    continue
                acc = EventAccumulator(directory, size_guidance={"scalars": 0, "histograms": 0, "tensors": 0,
                                                                 "images": 0, "audio": 0, "compressedHistograms": 0})
                acc.Reload()
                run_name = os.path.relpath(directory, logdir)
                if kind == "scalars":
                    rows = [(e.step, tag, e.value) for tag in acc.Tags()["scalars"] for e in acc.Scalars(tag)]
                    frames.append(pd.DataFrame(rows, columns=["step", "tag", "value"]).assign(dir_name=run_name))
                else:
                    rows = [(e.step, tag, np.array(e.histogram_value.bucket), np.array(e.histogram_value.bucket_limit))
                            for tag in acc.Tags()["histograms"] for e in acc.Histograms(tag)]
                    frames.append(pd.DataFrame(rows, columns=["step", "tag", "counts", "limits"])
                                  .assign(dir_name=run_name))
            return pd.concat(frames, ignore_index=True)
    else:
        raise SystemExit(f"unknown reader {reader}")
    pd.DataFrame({"tag": ["warm-up"], "value": [0.0]})  # loads pandas' lazy string backend for every reader alike
    probe = PeakRSS()
    probe.start()
    t0 = time.perf_counter()
    frame = run()
    elapsed = time.perf_counter() - t0
    peak = probe.stop()
    print(json.dumps({"reader": reader, "kind": kind, "rows": len(frame), "seconds": elapsed,
                      "peak_delta_mb": peak["rss_delta_mb"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
