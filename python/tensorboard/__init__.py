"""TensorBoard event logging in pure Python, without TensorFlow.

`FileWriter` + `tensorboard.summary.*` is the low-level API (Summary protos);
`SummaryWriter` is the high-level one (`add_scalar`, `add_image`, ...).
"""
from tensorboard._version import __version__
from tensorboard.writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter", "__version__", "summary"]


def __getattr__(name: str):
    # `tensorboard.summary` and the readers load on first use, keeping `import tensorboard` light.
    if name in ("summary", "reader", "projector", "graph", "integrations", "convert"):
        import importlib

        return importlib.import_module(f"tensorboard.{name}")
    raise AttributeError(f"module 'tensorboard' has no attribute {name!r}")
