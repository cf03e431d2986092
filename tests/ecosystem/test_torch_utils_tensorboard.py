"""torch.utils.tensorboard, unchanged, on our installed wheel: every add_* of torch's docs is
written through our event file writer and read back by upstream's reader."""
from __future__ import annotations

import numpy as np
from eco_helpers import run_eco
from upstream import as_array, upstream_read

SCRIPT = """
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter
from tensorboard.summary.writer import event_file_writer

torch.manual_seed(0)
w = SummaryWriter("logs")
ours = type(w.file_writer.event_writer).__module__ == event_file_writer.__name__ and \\
    event_file_writer.__file__.endswith("site-packages/tensorboard/summary/writer/event_file_writer.py")
for step in range(5):
    w.add_scalar("loss", 1.0 / (step + 1), step)
    w.add_scalars("run", {"a": step, "b": 2 * step}, step)
w.add_histogram("weights", torch.arange(1000, dtype=torch.float32), 0)
w.add_image("image", torch.full((3, 8, 10), 0.5), 0)
w.add_images("images", torch.rand(4, 3, 8, 8), 0)
fig = plt.figure(); plt.plot([1, 2, 3]); w.add_figure("figure", fig, 0)
w.add_video("video", torch.rand(1, 4, 3, 8, 8), 0, fps=4)
w.add_audio("audio", torch.sin(torch.linspace(0, 100, 8000)), 0, sample_rate=8000)
w.add_text("text", "hello **world**", 0)
w.add_graph(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()), torch.zeros(1, 4))
w.add_embedding(torch.randn(20, 5), metadata=[str(i) for i in range(20)], global_step=0, tag="emb")
w.add_pr_curve("pr", torch.randint(0, 2, (100,)), torch.rand(100), 0)
w.add_custom_scalars({"group": {"losses": ["Multiline", ["loss", "run/.*"]]}})
w.add_mesh("mesh", vertices=torch.rand(1, 6, 3), colors=torch.randint(0, 255, (1, 6, 3)),
           faces=torch.tensor([[[0, 1, 2], [3, 4, 5]]]), global_step=0)
w.add_hparams({"lr": 0.1, "optimizer": "sgd"}, {"hparam/accuracy": 0.9}, run_name="hp")
w.close()
print(json.dumps({"ours": ours}))
"""


def test_every_documented_add_method_is_read_back_by_upstream(tmp_path):
    out = run_eco(SCRIPT, tmp_path)
    assert out["ours"], "torch wrote through a writer that is not ours"
    runs = upstream_read(tmp_path / "logs")["runs"]
    main = runs["."]
    assert [s for s, _, _ in main["scalars"]["loss"]] == list(range(5))
    assert [v for _, _, v in runs["run_a"]["scalars"]["run"]] == [0, 1, 2, 3, 4]
    assert [v for _, _, v in runs["run_b"]["scalars"]["run"]] == [0, 2, 4, 6, 8]
    assert main["histograms"]["weights"][0][1]["num"] == 1000
    (_, width, height, image), = main["images"]["image"]
    assert (width, height) == (10, 8) and np.all(as_array(image["pixels"])[..., :3] == 127)
    (_, width, height, _), = main["images"]["images"]  # 4 images of 8x8 in one grid
    assert width * height >= 4 * 8 * 8
    assert "figure" in main["images"]
    assert main["images"]["video"][0][3]["format"] == "GIF" and main["images"]["video"][0][3]["frames"] == 4
    (_, rate, frames, _, wav), = main["audio"]["audio"]
    assert rate == 8000 and frames == 8000
    plugins = {tag: meta["plugin_name"] for tag, meta in main["metadata"].items()}
    assert plugins["text/text_summary"] == "text" and plugins["pr"] == "pr_curves"
    assert plugins["custom_scalars__config__"] == "custom_scalars"
    assert {plugins[t] for t in plugins if t.startswith("mesh")} == {"mesh"}
    assert {n["op"] for n in main["graph"]["node"]} >= {"aten::linear", "aten::relu"}
    hp_runs = [name for name in runs if name.endswith("hp")]
    assert hp_runs and any(m["plugin_name"] == "hparams" for r in runs.values() for m in r["metadata"].values())
    projector = [r["projector"] for r in runs.values() if r.get("projector")]
    assert projector and as_array(projector[0]["embeddings"][0]["tensor"]).shape == (20, 5)
    assert projector[0]["embeddings"][0]["metadata"] == [str(i) for i in range(20)]


OVERFLOW_SCRIPT = """
import json
from torch.utils.tensorboard import SummaryWriter

w = SummaryWriter("logs")
w.add_scalar("kept", 1.0, 1)
errors = {}
for name, step in (("1e20", 10**20), ("2**63", 2**63), ("2**64", 2**64)):
    try:
        w.add_scalar("wrapped", 1.0, step)
        errors[name] = None
    except (ValueError, OverflowError) as err:
        errors[name] = type(err).__name__
w.close()
print(json.dumps(errors))
"""


def test_steps_outside_int64_raise_through_torch_on_our_writer(tmp_path):
    """torch's FileWriter sets Event.step from int(global_step): protobuf refuses it, nothing wraps."""
    errors = run_eco(OVERFLOW_SCRIPT, tmp_path)
    assert all(errors.values()), errors
    main = upstream_read(tmp_path / "logs")["runs"]["."]
    assert main["scalars"]["kept"][0][0::2] == [1, 1.0] and "wrapped" not in main["scalars"]
