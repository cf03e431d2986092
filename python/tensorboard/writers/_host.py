"""What SummaryWriter's method groups use of the writer that holds them, one Protocol per group.

`_scalar_methods`, `_media_methods` and `_structure_methods` are mixins of `SummaryWriter`
(summary_writer.py), which implements these Protocols; a group uses exactly its Protocol's members
of `self`, besides its own methods (tests/writers/test_host_contract.py checks both sides).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

if TYPE_CHECKING:
    from tensorboard.src import summary_pb2
    from tensorboard.writers._scalar_methods import RunScalars
    from tensorboard.writers._structure_methods import CustomLayouts, HparamsSessions
    from tensorboard.writers.file_writer import FileWriter


class AddHost(Protocol):
    """Logging a ready Summary into a run."""

    def _add(self, summary: summary_pb2.Summary, global_step, walltime, writer: FileWriter | None = None) -> None:
        """Logs `summary` into `writer` (default: the main run) at the step and wall time, use_metadata()'s
        filled in."""
        ...


class MediaHost(AddHost, Protocol):
    """What the media methods (add_histogram, add_image, add_audio, ...) use: logging a Summary at
    once, or once the device values it is made of are ready."""

    def _add_later(self, tag: str, values: tuple, kinds: Sequence[str | None], global_step, walltime,
                   make_summary: Callable[..., summary_pb2.Summary], writer: FileWriter | None = None) -> None:
        """Logs `make_summary(*values)` without waiting for the device values among `values` (their `kinds`)."""
        ...


class RunHost(Protocol):
    """The main run: its FileWriter, the scalar tags logged into it, use_metadata()'s defaults."""

    _file_writer: FileWriter
    _scalars: RunScalars  # add_scalar records the main run's scalar tags, add_hparams links metrics to them
    _defaults: dict[str, Any]  # use_metadata()'s global_step / walltime, empty outside its block

    def _step_and_time(self, global_step, walltime) -> tuple[int, float]:
        """The checked step and wall time of an event, use_metadata()'s defaults filled in."""
        ...


class ScalarHost(MediaHost, RunHost, Protocol):
    """What add_scalar, add_scalars and export_scalars_to_json use."""

    def _sub_writer(self, run: str) -> FileWriter:
        """The FileWriter of sub-run `run` (a checked run name) below the main run, opened on first use."""
        ...

    def flush(self) -> None:
        """Returns once everything logged so far is in the event files."""
        ...


class StructureHost(AddHost, RunHost, Protocol):
    """What add_graph, add_embedding, add_hparams and add_custom_scalars use."""

    _logdir: str  # the main run's directory or URL
    _options: dict[str, Any]  # the FileWriter options of every run of this writer
    _sessions: HparamsSessions  # add_hparams' sessions by run
    _layouts: CustomLayouts  # add_custom_scalars' layouts so far
