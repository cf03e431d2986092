"""accelerate's Accelerator(log_with="tensorboard") on our wheel writes events (not silently nothing)."""
from eco_helpers import run_eco
from upstream import upstream_read

SCRIPT = """
import json
from accelerate import Accelerator
from accelerate.utils import is_tensorboard_available

accelerator = Accelerator(log_with="tensorboard", project_dir="project", cpu=True)
accelerator.init_trackers("experiment", config={"lr": 0.01, "epochs": 3})
for step in range(4):
    accelerator.log({"loss": 1.0 / (step + 1), "accuracy": step / 4}, step=step)
accelerator.end_training()
print(json.dumps({"available": is_tensorboard_available(), "trackers": [t.name for t in accelerator.trackers]}))
"""


def test_accelerator_logs_with_tensorboard(tmp_path):
    out = run_eco(SCRIPT, tmp_path)
    assert out["available"] and out["trackers"] == ["tensorboard"]
    runs = upstream_read(tmp_path / "project")["runs"]
    scalars = {tag: points for run in runs.values() for tag, points in run["scalars"].items()}
    assert [v for _, _, v in scalars["loss"]] == [1.0, 0.5, 1.0 / 3, 0.25] or \
        [round(v, 6) for _, _, v in scalars["loss"]] == [1.0, 0.5, 0.333333, 0.25]
    assert [s for s, _, _ in scalars["accuracy"]] == [0, 1, 2, 3]
    plugins = {m["plugin_name"] for run in runs.values() for m in run["metadata"].values()}
    assert "hparams" in plugins  # init_trackers' config
