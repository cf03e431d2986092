"""transformers' Trainer(report_to="tensorboard") and TensorBoardCallback(tb_writer=our writer) on our
wheel, with a tiny model built from a config (nothing downloaded)."""
from eco_helpers import run_eco
from upstream import metadata_fields, upstream_read

SCRIPT = """
import json, sys
import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments
from transformers.integrations import TensorBoardCallback
import tensorboard

config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                    intermediate_size=16, max_position_embeddings=16, num_labels=2)

class Data(torch.utils.data.Dataset):
    def __len__(self):
        return 32
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return {"input_ids": torch.randint(0, 50, (8,), generator=g), "labels": torch.tensor(i % 2)}

torch.manual_seed(0)
args = TrainingArguments(output_dir="default", num_train_epochs=1, per_device_train_batch_size=4, logging_steps=2,
                         save_strategy="no", use_cpu=True, disable_tqdm=True, report_to="tensorboard")
Trainer(model=BertForSequenceClassification(config), args=args, train_dataset=Data()).train()  # default/runs/<date>
ours = tensorboard.SummaryWriter("ours/tb")
torch.manual_seed(0)
args = TrainingArguments(output_dir="ours", num_train_epochs=1, per_device_train_batch_size=4, logging_steps=2,
                         save_strategy="no", use_cpu=True, disable_tqdm=True, report_to="none")
trainer = Trainer(model=BertForSequenceClassification(config), args=args, train_dataset=Data(),
                  callbacks=[TensorBoardCallback(tb_writer=ours)])
trainer.train()
ours.close()
print(json.dumps({"ok": True}))
"""


def test_trainer_reports_to_tensorboard(tmp_path):
    assert run_eco(SCRIPT, tmp_path)["ok"]
    for logdir in ("default", "ours/tb"):
        runs = upstream_read(tmp_path / logdir)["runs"]
        scalars = {tag: points for run in runs.values() for tag, points in run["scalars"].items()}
        assert [s for s, _, _ in scalars["train/loss"]] == [2, 4, 6, 8], (logdir, sorted(scalars))
        assert "train/learning_rate" in scalars
        texts = {tag for run in runs.values() for tag, m in run["metadata"].items() if m["plugin_name"] == "text"}
        assert any("args" in t for t in texts), (logdir, texts)  # the TrainingArguments as text


ENVIRONMENT_SCRIPT = SCRIPT.split("ours = tensorboard.SummaryWriter")[0] + 'print(json.dumps({"ok": True}))\n'


def test_the_environment_gives_a_trainer_system_metrics_and_run_metadata(tmp_path):
    """TB_SYSTEM_METRICS=1, no code change: Trainer(report_to="tensorboard") gets both."""
    assert run_eco(ENVIRONMENT_SCRIPT, tmp_path, TB_SYSTEM_METRICS="1", TB_SYSTEM_METRICS_INTERVAL="0.1",
                   TB_RUN_METADATA=None)["ok"]
    (run,) = upstream_read(tmp_path / "default")["runs"].values()
    assert [s for s, _, _ in run["scalars"]["train/loss"]] == [2, 4, 6, 8]
    assert {"system/cpu/machine_percent", "system/memory/machine_used_mib"} <= set(run["scalars"])
    fields = metadata_fields(run)
    assert fields["versions.transformers"] and fields["versions.torch"] and fields["command"]
