"""PyTorch training-loop helpers: parameter and gradient histograms, scalar dicts.

    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x), y); optimizer.zero_grad(); loss.backward()
        log_gradients(writer, model, step)          # before optimizer.step()
        optimizer.step()
        log_scalars(writer, {"loss": loss, "lr": scheduler.get_last_lr()[0]}, step, prefix="train/")
    log_parameters(writer, model, epoch)

Tags are the parameters' qualified names with '/' separators ("block/conv/weight"), under
`prefix` ("weights/" and "gradients/" by default). Works with a SummaryWriter or a FileWriter.
torch is not imported here: the module's tensors come in already.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from tensorboard.integrations._common import log_histogram, log_scalar

__all__ = ["log_parameters", "log_gradients", "log_scalars"]


def _selected(module: Any, pattern: str | None):
    regex = re.compile(pattern) if pattern else None
    for name, param in module.named_parameters():
        if regex is None or regex.search(name):
            yield name, param


def log_parameters(writer: Any, module: Any, step: int, prefix: str = "weights/", pattern: str | None = None,
                   bins: Any = "tensorflow") -> list[str]:
    """Histograms of the module's parameters (those whose name matches `pattern`); returns the tags."""
    tags = []
    for name, param in _selected(module, pattern):
        tag = prefix + name.replace(".", "/")
        log_histogram(writer, tag, param, step, bins)
        tags.append(tag)
    return tags


def log_gradients(writer: Any, module: Any, step: int, prefix: str = "gradients/", pattern: str | None = None,
                  bins: Any = "tensorflow") -> list[str]:
    """Histograms of the gradients after `backward()` (parameters without `.grad` are skipped)."""
    tags = []
    for name, param in _selected(module, pattern):
        if getattr(param, "grad", None) is None:
            continue
        tag = prefix + name.replace(".", "/")
        log_histogram(writer, tag, param.grad, step, bins)
        tags.append(tag)
    return tags


def log_scalars(writer: Any, scalars: Mapping[str, Any], step: int, prefix: str = "") -> None:
    """One scalar per entry (numbers, 0-d/1-element tensors), tagged `prefix + key`."""
    for key, value in scalars.items():
        log_scalar(writer, prefix + key, value, step)
