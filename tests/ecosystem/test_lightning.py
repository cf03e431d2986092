"""Lightning's default logger on our wheel: `Trainer()` with no logger argument picks its
TensorBoardLogger (its metadata check sees our `tensorboard` distribution) and logs a fit."""
from eco_helpers import run_eco
from upstream import metadata_fields, upstream_read

# The tiny module both scripts train; after_log(batch_idx) is the hook a script may override.
TINY = """
import json, os, signal
import torch
import lightning as L
from lightning.pytorch.loggers import TensorBoardLogger

class Tiny(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.layer(x), y)
        self.log("train_loss", loss)
        self.after_log(batch_idx)
        return loss
    def after_log(self, batch_idx):
        pass
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)
"""

SCRIPT = TINY + """
from lightning.fabric.loggers.tensorboard import _TENSORBOARD_AVAILABLE  # a metadata check

torch.manual_seed(0)
x = torch.randn(64, 4)
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8)
trainer = L.Trainer(max_epochs=1, default_root_dir="root", log_every_n_steps=2, enable_progress_bar=False,
                    enable_model_summary=False, enable_checkpointing=False, accelerator="cpu")
trainer.fit(Tiny(), data)
print(json.dumps({"available": bool(_TENSORBOARD_AVAILABLE), "logger": type(trainer.logger).__name__,
                  "log_dir": trainer.logger.log_dir}))
"""


def test_default_trainer_logs_through_tensorboard(tmp_path):
    out = run_eco(SCRIPT, tmp_path)
    assert out["available"] and out["logger"] == "TensorBoardLogger"
    runs = upstream_read(tmp_path / "root")["runs"]
    (run,) = [r for name, r in runs.items() if name.startswith("lightning_logs/version_0")]
    assert [s for s, _, _ in run["scalars"]["train_loss"]] == [1, 3, 5, 7]
    assert "epoch" in run["scalars"]


SIGTERM_SCRIPT = TINY + """
class Preempted(Tiny):
    def after_log(self, batch_idx):
        if batch_idx == 3:
            os.kill(os.getpid(), signal.SIGTERM)  # a scheduler's preemption notice

class OnException(L.Callback):  # Lightning then ends the process itself (exit status 0)
    def on_exception(self, trainer, pl_module, exception):
        print(json.dumps({"exception": type(exception).__name__, "step": trainer.global_step}), flush=True)

x = torch.randn(64, 4)
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8)
trainer = L.Trainer(max_epochs=1, logger=TensorBoardLogger("root"), callbacks=[OnException()], log_every_n_steps=1,
                    enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
                    accelerator="cpu")
trainer.fit(Preempted(), data)
"""


def test_sigterm_takes_lightnings_graceful_path(tmp_path):
    """Lightning installs its SIGTERM handler after the logger's writer exists and calls ours from it:
    ours flushes, and Lightning's own shutdown runs (on_exception, teardown) as with upstream."""
    out = run_eco(SIGTERM_SCRIPT, tmp_path)  # raises unless the process exits 0
    assert out == {"exception": "SIGTERMException", "step": 4}
    (run,) = upstream_read(tmp_path / "root")["runs"].values()
    assert [s for s, _, _ in run["scalars"]["train_loss"]] == [0, 1, 2, 3]


def test_the_environment_gives_a_fit_system_metrics_and_run_metadata(tmp_path):
    """TB_SYSTEM_METRICS=1, no code change: Lightning's logger writes through torch's SummaryWriter on our
    core, which samples the system and records the run's metadata beside the training curves."""
    run_eco(SCRIPT, tmp_path, TB_SYSTEM_METRICS="1", TB_SYSTEM_METRICS_INTERVAL="0.1",
                   TB_RUN_METADATA=None)
    runs = upstream_read(tmp_path / "root")["runs"]
    (run,) = [r for name, r in runs.items() if name.startswith("lightning_logs/version_0")]
    assert [s for s, _, _ in run["scalars"]["train_loss"]] == [1, 3, 5, 7]  # the training's own, unchanged
    assert {"system/cpu/process_percent", "system/memory/process_rss_mib"} <= set(run["scalars"])
    assert run["metadata"]["run/metadata"]["plugin_name"] == "text"
    fields = metadata_fields(run)
    assert fields["versions.torch"] and fields["versions.lightning"] and "+standalone" in fields["versions.tensorboard"]
