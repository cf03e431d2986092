"""Rank awareness for distributed training: which processes write, and where.

With torchrun, Horovod/MPI or SLURM, every process runs the same script; if each created a
writer in the same run directory, TensorBoard would merge N copies of every curve. By default
`SummaryWriter` therefore writes only on rank 0 when a distributed launch is detected; other
ranks get a `NullSummaryWriter` whose methods do nothing (they cost one call). Options:

* `rank=`: this process's rank (default: from the environment, see `detect_rank`);
* `write_ranks=(0,)` (default), any collection of ranks, or `"all"`;
* `rank_subdir=True`: each writing rank logs into its own sub-run `<logdir>/rank<k>`, so
  per-rank curves appear side by side in TensorBoard.

Without a distributed launcher in the environment (no rank variables, or world size 1) and no
explicit `rank=`, nothing changes: the writer writes to `logdir` as usual.
"""
from __future__ import annotations

import contextlib
import os
from typing import Any, Collection, Mapping

RANK_VARIABLES = ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK")
WORLD_SIZE_VARIABLES = ("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS")


def _env_int(env: Mapping[str, str], names: tuple[str, ...]) -> int | None:
    for name in names:
        value = env.get(name)
        if value is not None and value.strip():
            try:
                return int(value)
            except ValueError:
                raise ValueError(f"environment variable {name}={value!r} is not an integer rank") from None
    return None


def detect_rank(env: Mapping[str, str] | None = None) -> tuple[int | None, int | None]:
    """This process's rank and the world size, from the launcher's environment variables.

    The global rank is read from RANK (torchrun), OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK
    (MPICH, Intel MPI), SLURM_PROCID, then LOCAL_RANK (single-node launchers), the first set.

    Args:
        env: The environment to read; None: `os.environ`.

    Returns:
        (rank, world_size), None where not set.

    Raises:
        ValueError: A variable that is not an integer.
    """
    env = os.environ if env is None else env
    return _env_int(env, RANK_VARIABLES), _env_int(env, WORLD_SIZE_VARIABLES)


def check_write_ranks(write_ranks: Any) -> Collection[int] | str:
    """`write_ranks` validated.

    Args:
        write_ranks: "all", one rank, or a collection of non-negative int ranks.

    Returns:
        "all", or a frozenset of the ranks.

    Raises:
        TypeError: Not "all", an int or a collection.
        ValueError: A rank that is not a non-negative int.
    """
    if write_ranks == "all":
        return "all"
    if isinstance(write_ranks, int) and not isinstance(write_ranks, bool):
        write_ranks = (write_ranks,)
    try:
        ranks = tuple(write_ranks)
    except TypeError:
        raise TypeError(f"write_ranks must be 'all' or a collection of ranks, got {write_ranks!r}") from None
    if not all(isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in ranks):
        raise ValueError(f"write_ranks must hold non-negative int ranks, got {write_ranks!r}")
    return frozenset(ranks)


def resolve(rank: int | None, write_ranks: Any = (0,), rank_subdir: bool = False,
            env: Mapping[str, str] | None = None) -> tuple[bool, str | None]:
    """Whether this process writes, and where, for `SummaryWriter`'s options and the environment.

    Args:
        rank: This process's rank; None: from the environment (not distributed without one, or
            with a world size of 1).
        write_ranks: The ranks that write, or "all".
        rank_subdir: Give each writing rank its own sub-run `rank<k>`.
        env: The environment to read; None: `os.environ`.

    Returns:
        (this process writes, its sub-run name or None).

    Raises:
        ValueError: A `rank` or `write_ranks` that is not a non-negative int (or "all").
    """
    if rank is not None and (not isinstance(rank, int) or isinstance(rank, bool) or rank < 0):
        raise ValueError(f"rank must be a non-negative int or None, got {rank!r}")
    ranks = check_write_ranks(write_ranks)
    env_rank, world_size = detect_rank(env)
    distributed = rank is not None or (env_rank is not None and (world_size is None or world_size > 1))
    if not distributed:
        return True, None
    me = rank if rank is not None else env_rank
    writes = ranks == "all" or me in ranks
    return writes, (f"rank{me}" if rank_subdir else None)


class NullSummaryWriter:
    """What a non-writing rank gets: every `add_*`, `flush` and `close` does nothing; no file is created.

    Args:
        logdir: The logdir the writer would have had (`get_logdir` returns it; None: "./runs").
        *args: The writer's other arguments, ignored.
        **kwargs: Likewise; `log_dir` stands for `logdir`, and `rank` is kept as `rank`.
    """

    def __init__(self, logdir: str | os.PathLike | None = None, *args: Any, **kwargs: Any):
        self._logdir = os.fspath(logdir if logdir is not None else kwargs.get("log_dir") or "./runs")
        self.rank = kwargs.get("rank")

    def get_logdir(self) -> str:
        return self._logdir

    @property
    def writes(self) -> bool:
        """False: this rank does not write."""
        return False

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    @property
    def file_writer(self) -> None:
        """None: this rank has no event file."""
        return None

    @property
    def dropped_events(self) -> int:
        """0: this rank writes nothing, so it drops nothing."""
        return 0

    @contextlib.contextmanager
    def use_metadata(self, *, global_step=None, walltime=None):
        """A `with` block that changes nothing.

        Args:
            global_step: Ignored.
            walltime: Ignored.
        """
        yield self

    def export_scalars_to_json(self, path) -> None:
        """Writes an empty record: this rank logged nothing.

        Args:
            path: The JSON file to write ("{}").
        """
        with open(os.fspath(path), "w", encoding="utf-8") as out:
            out.write("{}")

    def __enter__(self) -> "NullSummaryWriter":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        pass

    def __getattr__(self, name: str):
        if name.startswith("add_"):
            return _noop
        raise AttributeError(f"{type(self).__name__} (a non-writing rank) has no attribute {name!r}")


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


_null_classes: dict[type, type] = {}


def null_writer_class(base: type) -> type:
    """A subclass of `base` (so isinstance checks hold) whose every `add_*`, `flush` and `close` does nothing.

    Args:
        base: A writer class (`SummaryWriter` or a subclass).

    Returns:
        The class, made once per `base`.
    """
    cls = _null_classes.get(base)
    if cls is None:
        namespace = {name: _noop for name in dir(base) if name.startswith("add_")}
        namespace["__doc__"] = NullSummaryWriter.__doc__
        cls = type(f"Null{base.__name__}", (NullSummaryWriter, base), namespace)
        _null_classes[base] = cls
    return cls
