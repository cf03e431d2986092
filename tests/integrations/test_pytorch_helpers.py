"""tensorboard.integrations.pytorch: parameter/gradient histograms and scalars, read back upstream."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from upstream import upstream_run  # noqa: E402

from tensorboard import FileWriter, SummaryWriter  # noqa: E402
from tensorboard.integrations.pytorch import log_gradients, log_parameters, log_scalars  # noqa: E402


def train(writer, steps=3):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(32, 5), torch.randint(0, 3, (32,))
    losses, grads = [], []
    for step in range(steps):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        grads.append({k: p.grad.clone() for k, p in model.named_parameters()})
        log_gradients(writer, model, step)
        optimizer.step()
        log_scalars(writer, {"loss": loss, "lr": 0.1}, step, prefix="train/")
        losses.append(loss.item())
    log_parameters(writer, model, steps, pattern=r"weight")
    return model, losses, grads


@pytest.mark.parametrize("writer_class", [SummaryWriter, FileWriter])
def test_histograms_and_scalars(tmp_path, writer_class):
    with writer_class(str(tmp_path)) as writer:
        model, losses, grads = train(writer)
    run = upstream_run(tmp_path)
    assert [round(v, 5) for _, _, v in run["scalars"]["train/loss"]] == [round(v, 5) for v in losses]
    assert [s for s, _, _ in run["scalars"]["train/lr"]] == [0, 1, 2]
    hists = run["histograms"]
    assert sorted(t for t in hists if t.startswith("weights/")) == ["weights/0/weight", "weights/2/weight"]
    for name, param in model.named_parameters():
        tag = "gradients/" + name.replace(".", "/")
        entries = hists[tag]
        assert [s for s, _ in entries] == [0, 1, 2]
        for step, h in entries:
            grad = grads[step][name]
            assert h["num"] == grad.numel() and sum(h["bucket"]) == grad.numel()
            assert h["min"] == pytest.approx(grad.min().item(), rel=1e-6, abs=1e-12)
            assert h["max"] == pytest.approx(grad.max().item(), rel=1e-6, abs=1e-12)
    (step, h), = hists["weights/0/weight"]
    assert step == 3 and h["sum"] == pytest.approx(model[0].weight.sum().item(), rel=1e-4, abs=1e-5)
