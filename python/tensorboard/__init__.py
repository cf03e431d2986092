"""TensorBoard event logging in pure Python, without TensorFlow, plus all of upstream TensorBoard.

`FileWriter` + `tensorboard.summary.*` is the low-level API (Summary protos);
`SummaryWriter` is the high-level one (`add_scalar`, `add_image`, ...). Every module of
upstream TensorBoard (`tensorboard.notebook`, `tensorboard.program`, `tensorboard.compat.proto`,
`tensorboard.backend.event_processing`, ...) resolves too, from the copy inside this wheel,
and loads only when used.
"""
from tensorboard import _aliases, _upstream_hooks, upstream_path
from tensorboard._version import __version__

_aliases.install()  # tensorboard.event_file, tensorboard.storage, ...: the paths before the layers
_upstream_hooks.install()  # tensorboard.program's servers obey serving.access

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from tensorboard.writer import FileWriter, GlobalSummaryWriter, SummaryWriter

__path__ = upstream_path.extend_path(__path__)  # noqa: F821 (set by the import system)

__all__ = ["FileWriter", "GlobalSummaryWriter", "SummaryWriter", "__version__", "errors", "notebook", "program",
           "summary"]


# The writers load on first use too: `import tensorboard` stays as light as upstream's.
_WRITERS = ("FileWriter", "GlobalSummaryWriter", "SummaryWriter")


def __getattr__(name: str):
    """Loads submodules (ours or upstream's) on first attribute access, keeping `import tensorboard` light."""
    if name.startswith("__"):
        raise AttributeError(f"module 'tensorboard' has no attribute {name!r}")
    import importlib

    if name in _WRITERS:
        return getattr(importlib.import_module("tensorboard.writer"), name)
    if name == "_lazy":  # upstream's __init__ has `from tensorboard import lazy as _lazy`
        return importlib.import_module("tensorboard.lazy")

    try:
        return importlib.import_module(f"tensorboard.{name}")
    except ModuleNotFoundError as err:
        if err.name != f"tensorboard.{name}":
            raise
    raise AttributeError(f"module 'tensorboard' has no attribute {name!r}")


def load_ipython_extension(ipython) -> None:
    """IPython's entry point for `%load_ext tensorboard`: registers upstream's `%tensorboard` magic."""
    from tensorboard import notebook

    notebook._load_ipython_extension(ipython)
