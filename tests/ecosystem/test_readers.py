"""Upstream's EventAccumulator and tbparse, in the ecosystem venv, read logdirs our installed
SummaryWriter and FileWriter wrote."""
import numpy as np
from eco_helpers import run_eco

SCRIPT = """
import json
import numpy as np
import tensorboard
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tbparse import SummaryReader

with tensorboard.SummaryWriter("logs/high") as w:
    for step in range(10):
        w.add_scalar("loss", 1.0 / (step + 1), step)
        w.add_histogram("weights", np.arange(100.0) * step, step)
    w.add_text("note", "hello", 0)
fw = tensorboard.FileWriter("logs/low")
for step in range(3):
    fw.add_summary(tensorboard.summary.scalar("accuracy", step / 2), global_step=step)
fw.close()

acc = EventAccumulator("logs/high", size_guidance={"scalars": 0, "histograms": 0})
acc.Reload()
accumulated = {"loss": [[e.step, e.value] for e in acc.Scalars("loss")],
               "hist_num": [e.histogram_value.num for e in acc.Histograms("weights")]}
low = EventAccumulator("logs/low"); low.Reload()
accumulated["accuracy"] = [[e.step, e.value] for e in low.Scalars("accuracy")]

reader = SummaryReader("logs", extra_columns={"dir_name"})
scalars = reader.scalars
tb = {"rows": [[r.dir_name, r.tag, int(r.step), float(r.value)] for r in scalars.itertuples()],
      "hist_tags": sorted(set(reader.histograms["tag"])), "text": list(reader.text["value"])}
print(json.dumps({"acc": accumulated, "tbparse": tb}))
"""


def test_event_accumulator_and_tbparse_read_our_logdirs(tmp_path):
    out = run_eco(SCRIPT, tmp_path)
    acc = out["acc"]
    assert acc["loss"] == [[s, float(np.float32(1.0 / (s + 1)))] for s in range(10)]
    assert acc["hist_num"] == [100.0] * 10
    assert acc["accuracy"] == [[0, 0.0], [1, 0.5], [2, 1.0]]
    rows = out["tbparse"]["rows"]
    assert [r for r in rows if r[1] == "loss"] == [["high", "loss", s, float(np.float32(1.0 / (s + 1)))]
                                                    for s in range(10)]
    assert [r for r in rows if r[1] == "accuracy"] == [["low", "accuracy", s, s / 2] for s in range(3)]
    assert out["tbparse"]["hist_tags"] == ["weights"] and out["tbparse"]["text"] == ["hello"]

