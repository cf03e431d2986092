"""`SummaryReader.hparams_table`: a DataFrame that is also callable, so that both the attribute
(`reader.hparams_table`, the last values) and the call (`reader.hparams_table(metrics={...})`, best
values) read as the documentation shows them."""
from __future__ import annotations

from typing import Callable

_CLASS = None


def _table_class():
    global _CLASS
    if _CLASS is None:
        import pandas as pd

        class HParamsTable(pd.DataFrame):
            """A DataFrame of hparams rows; calling it builds the table again with other metrics."""

            _metadata = ["_remake"]

            @property
            def _constructor(self):  # frames derived from it (filters, copies) are plain DataFrames
                return pd.DataFrame

            def __call__(self, metrics=None):
                """The table with `metrics` ({tag: "last" | "min" | "max"}, or "tag=min,tag2=max")."""
                return self._remake(metrics)

        _CLASS = HParamsTable
    return _CLASS


def callable_table(frame, remake: Callable):
    """`frame` as an HParamsTable whose call returns `remake(metrics)`."""
    table = _table_class()(frame)
    table._remake = remake
    return table
