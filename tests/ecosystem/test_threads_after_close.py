"""No thread of ours outlives a Lightning fit or a torch writer, and a leak guard such as Lightning's
test fixture (`stop()` on every new daemon thread that has one, then `assert not thread.is_alive()`)
ends any that are still running. Runs in .venv-ecosystem on the installed wheel (TB_ECO_PYTHONPATH,
when set, is put on the path first, to try source-tree changes without a wheel rebuild)."""
from __future__ import annotations

import os

from eco_helpers import run_eco
from test_lightning import TINY

SCRIPT = TINY + """
import threading
import numpy as np
from torch.utils.tensorboard import SummaryWriter as TorchWriter

def ours():
    return sorted(t.name.split(":")[0] for t in threading.enumerate() if t.name.startswith("tensorboard-"))

before = set(threading.enumerate())
x = torch.randn(32, 4)
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=8)
trainer = L.Trainer(max_epochs=1, logger=TensorBoardLogger("root"), log_every_n_steps=1, enable_progress_bar=False,
                    enable_model_summary=False, enable_checkpointing=False, accelerator="cpu")
trainer.fit(Tiny(), data)
after_fit = ours()

writer = TorchWriter("torch_run")
writer.add_scalar("x", 1.0, 0)
writer.add_histogram("h", np.arange(10.0), 0)
while_open = ours()
writer.close()
after_close = ours()

# a writer left open, then Lightning's leak guard (tests/tests_pytorch/conftest.py's thread police)
TensorBoardLogger("left").experiment.add_scalar("y", 2.0, 0)
left_open = ours()
guarded = []
for thread in set(threading.enumerate()) - before:
    stop = getattr(thread, "stop", None) or getattr(thread, "exit", None)
    if thread.daemon and callable(stop):
        stop()
        guarded.append([thread.name.split(":")[0], thread.is_alive()])
print(json.dumps({"after_fit": after_fit, "while_open": while_open, "after_close": after_close,
                  "left_open": left_open, "guarded": sorted(guarded), "after_guard": ours()}))
"""


def test_lightning_fit_and_torch_writer_leave_no_thread_of_ours(tmp_path):
    extra = {"PYTHONPATH": os.environ["TB_ECO_PYTHONPATH"]} if os.environ.get("TB_ECO_PYTHONPATH") else {}
    out = run_eco(SCRIPT, tmp_path, **extra)
    assert out["after_fit"] == [] and out["after_close"] == []
    assert out["while_open"] == ["tensorboard-writer"]
    assert out["left_open"] == ["tensorboard-writer"]
    assert ["tensorboard-writer", False] in out["guarded"] and all(not alive for _, alive in out["guarded"])
    assert out["after_guard"] == []
