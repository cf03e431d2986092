"""Serving logdirs to upstream TensorBoard's web UI through our reader: a `DataProvider` on column
stores, read incrementally, what the `tensorboard` command serves through by default (see
docs/serving.md). Needs upstream's package (the wheel's renderer)."""
from __future__ import annotations

__all__ = ["StandaloneDataIngester", "StandaloneDataProvider"]


def __getattr__(name: str):
    if name == "StandaloneDataIngester":
        from tensorboard.serving.ingester import StandaloneDataIngester

        return StandaloneDataIngester
    if name == "StandaloneDataProvider":
        from tensorboard.serving.provider import StandaloneDataProvider

        return StandaloneDataProvider
    raise AttributeError(name)
