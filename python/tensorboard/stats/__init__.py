"""Runs as statistics, for every front door at once: TensorBoard's smoothing (`smooth`), runs reduced
across seeds step by step (`reduce_runs`, `reduce_groups`) and runs grouped by name (`group_runs`)."""
from tensorboard.stats.grouping import group_name, group_runs
from tensorboard.stats.reduction import REDUCE_OPS, reduce_groups, reduce_runs
from tensorboard.stats.smoothing import smooth
from tensorboard.stats.sources import read_sources

__all__ = ["REDUCE_OPS", "group_name", "group_runs", "read_sources", "reduce_groups", "reduce_runs", "smooth"]
