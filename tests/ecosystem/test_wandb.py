"""wandb's TensorBoard sync sees our writers: `wandb.init(sync_tensorboard=True)` and
`wandb.tensorboard.patch(root_logdir=...)` patch `tensorboard.summary.writer.event_file_writer.
EventFileWriter` (and torch's), which our SummaryWriter and FileWriter open their files through.
wandb runs offline (no network). Checked: wandb tracks every logdir our writers open and saves a copy
of each event file they wrote into the run, and every point wandb put in the run's history (its
.wandb file, read back) is exact. Not required: that history holds every point: wandb-core 0.31
drops some or all TensorBoard rows of short offline runs at random, for torch's writer as for ours.

Runs in .venv-ecosystem (wandb from tools/envs/wandb.sh) on the installed wheel; TB_ECO_PYTHONPATH,
when set, is put on the path first (to try source-tree changes there without a wheel rebuild).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from eco_helpers import run_eco

HERE = Path(__file__).resolve().parent
STEPS = 5

SCRIPT = """
import glob, json, os, sys
sys.path.insert(0, {here!r})
import wandb
import tensorboard
from tensorboard import summary
from torch.utils.tensorboard import SummaryWriter as TorchWriter
from wandb_datastore import history

mode = {mode!r}
if mode == "patch":  # several logdirs below one root, as wandb asks for them
    wandb.tensorboard.patch(root_logdir="logs")
    run = wandb.init(project="p")
    logdirs = ["logs/ours", "logs/filewriter", "logs/torch"]
else:  # sync_tensorboard=True: one logdir (wandb wants root_logdir for several), every writer in it
    run = wandb.init(project="p", sync_tensorboard=True)
    logdirs = ["logs"] * 3
files = []
with tensorboard.SummaryWriter(logdirs[0]) as writer:
    for step in range({steps}):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        if mode == "patch":  # sub-run FileWriters below logs/ours
            writer.add_scalars("pair", {{"a": step, "b": -step}}, step)
with tensorboard.FileWriter(logdirs[1]) as writer:
    for step in range({steps}):
        writer.add_summary(summary.scalar("acc", step / 10), step)
torch_writer = TorchWriter(logdirs[2])
for step in range({steps}):
    torch_writer.add_scalar("tloss", 2.0 * step, step)
torch_writer.close()
run_files = run.dir
wandb.finish()
(path,) = glob.glob("wandb/offline-run-*/run-*.wandb")
ours = {{os.path.relpath(p, "logs"): open(p, "rb").read().hex()
        for p in glob.glob("logs/**/*tfevents*", recursive=True)}}
saved = {{os.path.relpath(p, run_files): open(p, "rb").read().hex()
         for p in glob.glob(os.path.join(run_files, "**", "*tfevents*"), recursive=True)}}
print(json.dumps({{"rows": history(path), "ours": ours, "saved": saved}}))
"""


def expected_series(mode: str) -> dict:
    """{series: {step: value}} of everything the script logs."""
    steps = range(STEPS)
    series = {"SummaryWriter loss": {step: 1.0 / (step + 1) for step in steps},
              "FileWriter acc": {step: step / 10 for step in steps},
              "torch tloss": {step: 2.0 * step for step in steps}}
    if mode == "patch":
        series.update({"add_scalars a": {step: float(step) for step in steps},
                       "add_scalars b": {step: float(-step) for step in steps}})
    return series


def captured_series(rows: list[dict]) -> dict:
    """{wandb key: {step: value}}: wandb names keys by tag and logdir (relative to its root)."""
    out: dict = {}
    for row in rows:
        for key, value in row.items():
            if not key.startswith("_") and key != "global_step":
                out.setdefault(key, {})[int(row["global_step"])] = value
    return out


def as_float32(series: dict) -> dict:
    return {step: np.float32(value) for step, value in series.items()}


@pytest.mark.parametrize("mode", ["sync_tensorboard", "patch"])
def test_wandb_sees_every_logdir_and_file_of_our_writers_and_torchs(tmp_path, mode):
    extra = {"PYTHONPATH": os.environ["TB_ECO_PYTHONPATH"]} if os.environ.get("TB_ECO_PYTHONPATH") else {}
    out = run_eco(SCRIPT.format(here=str(HERE), mode=mode, steps=STEPS), tmp_path, timeout=600, WANDB_MODE="offline",
                  WANDB_DIR=str(tmp_path), WANDB_SILENT="true", WANDB_DISABLE_GIT="true", **extra)
    assert len(out["ours"]) == (3 if mode == "sync_tensorboard" else 5)  # + add_scalars' two sub-runs
    by_name = {os.path.basename(name): data for name, data in out["saved"].items()}
    for name, data in out["ours"].items():  # every file, saved by wandb as it was at the end
        assert by_name.get(os.path.basename(name)) == data, (
            f"wandb did not save {name}; it saved {sorted(out['saved'])}")
    every_point = {(step, np.float32(value)) for series in expected_series(mode).values()
                   for step, value in series.items()}
    for key, series in captured_series(out["rows"]).items():  # what wandb did put in history is exact
        assert set(as_float32(series).items()) <= every_point, (key, series)
