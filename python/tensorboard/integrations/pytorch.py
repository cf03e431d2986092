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
    """Logs a histogram of each of the module's parameters.

    Args:
        writer: A SummaryWriter or a FileWriter.
        module: A torch.nn.Module.
        step: The step.
        prefix: Put before each tag ("weights/<parameter>").
        pattern: A regex; only parameters whose name it matches are logged.
        bins: As `SummaryWriter.add_histogram`'s.

    Returns:
        The tags logged.

    Examples:
        >>> log_parameters(writer, model, epoch)
    """
    tags = []
    for name, param in _selected(module, pattern):
        tag = prefix + name.replace(".", "/")
        log_histogram(writer, tag, param, step, bins)
        tags.append(tag)
    return tags


def log_gradients(writer: Any, module: Any, step: int, prefix: str = "gradients/", pattern: str | None = None,
                  bins: Any = "tensorflow") -> list[str]:
    """Logs a histogram of each parameter's gradient; call it after `backward()`.

    Parameters without `.grad` are skipped.

    Args:
        writer: A SummaryWriter or a FileWriter.
        module: A torch.nn.Module, after `backward()`.
        step: The step.
        prefix: Put before each tag ("gradients/<parameter>").
        pattern: A regex; only the gradients of parameters whose name it matches are logged.
        bins: As `SummaryWriter.add_histogram`'s.

    Returns:
        The tags logged.
    """
    tags = []
    for name, param in _selected(module, pattern):
        if getattr(param, "grad", None) is None:
            continue
        tag = prefix + name.replace(".", "/")
        log_histogram(writer, tag, param.grad, step, bins)
        tags.append(tag)
    return tags


def log_scalars(writer: Any, scalars: Mapping[str, Any], step: int, prefix: str = "") -> None:
    """Logs one scalar per entry, tagged `prefix + key`.

    Args:
        writer: A SummaryWriter or a FileWriter.
        scalars: {name: number or 0-d/1-element tensor}.
        step: The step.
        prefix: Put before each tag.

    Raises:
        TypeError: A value that is not one real number.
    """
    for key, value in scalars.items():
        log_scalar(writer, prefix + key, value, step)
