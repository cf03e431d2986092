"""Lightning runs with `save_hyperparameters()` and no `add_hparams` in the user's code: the engine finds
each version's hyperparameters (hparams.yaml, and what Lightning's logger logged itself), so that
`--where`, `--over`, best values and `runs ls` work on them."""
import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from eco_helpers import run_eco

from tensorboard.reader import SummaryReader

REPO = Path(__file__).resolve().parents[2]

SWEEP = """
import json
import torch
import lightning as L

class Model(L.LightningModule):
    def __init__(self, lr=0.1, seed=0, optimizer={"name": "sgd", "momentum": 0.0}):
        super().__init__()
        self.save_hyperparameters()
        self.layer = torch.nn.Linear(4, 1)
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.layer(x), y)
        self.log("train_loss", loss)
        return loss
    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.layer(x), y))
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=self.hparams.optimizer["momentum"])

x = torch.randn(64, 4)
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=16)
for lr in (0.01, 0.05):
    for seed in (1, 2):
        torch.manual_seed(seed)
        trainer = L.Trainer(max_epochs=3, default_root_dir="root", log_every_n_steps=1, enable_progress_bar=False,
                            enable_model_summary=False, enable_checkpointing=False, accelerator="cpu")
        trainer.fit(Model(lr=lr, seed=seed, optimizer={"name": "sgd", "momentum": 0.9}), data, data)
print(json.dumps({"done": True}))
"""


@pytest.fixture(scope="module")
def lightning_logs(tmp_path_factory):
    work = tmp_path_factory.mktemp("lightning")
    assert run_eco(SWEEP, work) == {"done": True}
    return work / "root" / "lightning_logs"


def test_save_hyperparameters_are_found_with_their_source(lightning_logs):
    reader = SummaryReader(str(lightning_logs))
    table = reader.hparams_table(metrics={"val_loss": "min", "train_loss": "last"})
    assert list(table["run"]) == ["version_0", "version_1", "version_2", "version_3"]
    assert list(table["lr"]) == [0.01, 0.01, 0.05, 0.05] and list(table["seed"]) == [1, 2, 1, 2]
    assert list(table["optimizer.momentum"]) == [0.9] * 4  # the nested dict of hparams.yaml, flattened with dots
    assert table["val_loss (min)"].notna().all() and table["train_loss"].notna().all()
    sources = reader.hparams_sources
    by_name = dict(zip(sources[sources.run == "version_0"].name, sources[sources.run == "version_0"].source))
    assert by_name["optimizer.momentum"] == "lightning"  # only hparams.yaml spells it with a dot
    assert by_name["lr"] in ("add_hparams", "lightning")  # Lightning's logger logs it as well: the same value
    assert sources[sources.name == "lr"].value.tolist() == [0.01, 0.01, 0.05, 0.05]


def test_where_over_and_runs_ls_on_lightning_versions(lightning_logs, tmp_path):
    reader = SummaryReader(str(lightning_logs), where="lr > 0.02", over="seed")
    assert reader.groups == {"all": ["version_2", "version_3"]}  # one configuration left: nothing varies
    assert SummaryReader(str(lightning_logs), over="seed").groups == {"lr=0.01": ["version_0", "version_1"],
                                                                      "lr=0.05": ["version_2", "version_3"]}
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    done = subprocess.run([sys.executable, "-m", "tensorboard.cli.runs", "ls", str(lightning_logs), "--format", "csv",
                           "--metrics", "val_loss=min", "--sort", "val_loss (min)"], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert sorted(row["run"] for row in rows) == ["version_0", "version_1", "version_2", "version_3"]
    losses = [float(row["val_loss (min)"]) for row in rows]
    assert losses == sorted(losses)
    assert {"lr", "seed"} <= set(rows[0]) and "optimizer.name" not in rows[0]  # only what varies
