"""One tag's kept points in one run, as columns: steps, wall times and values (floats for scalars,
serialized TensorProtos otherwise). Points are sampled exactly as upstream's reservoir samples
them (per tag, `random.Random(0)`, the latest point always kept), so a server on this store shows
the same points as upstream's Python loader, without a Python object per event."""
from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

_GROW = 64  # first column capacity; columns double when full


@dataclass(frozen=True)
class SeriesView:
    """The kept points of one series, in reservoir order (copies): what the data provider answers from.

    A numeric series (plain and tensor scalars read as floats) has `values`; any other has `blobs`, each
    point's serialized TensorProto, and `lengths`, how many blobs each point's sequence holds (images,
    audio) or 1.
    """

    steps: np.ndarray
    walls: np.ndarray
    values: np.ndarray | None = None
    blobs: list[bytes] | None = None
    lengths: np.ndarray | None = None

    @property
    def numeric(self) -> bool:
        return self.values is not None

    def __len__(self) -> int:
        return len(self.steps)

    def tensor(self, i: int):
        """The TensorProto of point `i` of a non-numeric series (upstream's proto class, as the renderer takes)."""
        from tensorboard.compat.proto import tensor_pb2

        return tensor_pb2.TensorProto.FromString(self.blobs[i])


class Series:
    """Columns of one time series, at most `capacity` points (0: every point), sampled as a reservoir."""

    __slots__ = ("capacity", "numeric", "n", "seen", "steps", "walls", "values", "lengths", "blobs", "_rng",
                 "_extent")

    def __init__(self, capacity: int, numeric: bool):
        self.capacity = capacity
        self.numeric = numeric  # floats in `values`; else serialized tensors in `blobs` (and sizes in `lengths`)
        self.n = 0  # points kept
        self.seen = 0  # points offered (the reservoir's count, scaled down by purges as upstream does)
        size = min(_GROW, capacity) if capacity else _GROW
        self.steps = np.zeros(size, np.int64)
        self.walls = np.zeros(size, np.float64)
        self.values = np.zeros(size if numeric else 0, np.float64)
        self.lengths = np.zeros(0 if numeric else size, np.int64)
        self.blobs: list[bytes] = []  # bounded by `capacity` (10 images, 500 histograms... by default)
        self._rng: random.Random | None = None  # created on the first draw, which is Random(0)'s first
        self._extent: tuple | None = None  # extent(), until the next change

    # A preload worker sends its runs to the server pickled (serving.preload): each series' kept points go as
    # one byte string, unpacked into views of one buffer, where NumPy's own pickling would rebuild each of
    # the four columns (unused ones included) through a Python-level call, a tenth of the server's time to
    # take a run in.
    def __getstate__(self) -> tuple:
        n = self.n
        third = self.values if self.numeric else self.lengths
        packed = b"".join((self.steps[:n].tobytes(), self.walls[:n].tobytes(), third[:n].tobytes()))
        return (self.capacity, self.numeric, n, self.seen, self.blobs, self._rng, self._extent, packed)

    def __setstate__(self, state: tuple) -> None:
        self.capacity, self.numeric, n, self.seen, self.blobs, self._rng, self._extent, packed = state
        buf = bytearray(packed)  # writable: the columns are views of it until they grow
        self.n = n
        self.steps = np.frombuffer(buf, np.int64, n, 0)
        self.walls = np.frombuffer(buf, np.float64, n, 8 * n)
        third = np.frombuffer(buf, np.float64 if self.numeric else np.int64, n, 16 * n)
        self.values = third if self.numeric else np.zeros(0, np.float64)
        self.lengths = np.zeros(0, np.int64) if self.numeric else third

    def _reserve(self, more: int) -> None:
        need = self.n + more
        if need <= len(self.steps):
            return
        size = max(need, 2 * len(self.steps))
        if self.capacity:
            size = min(size, self.capacity)
        for name in ("steps", "walls", "values" if self.numeric else "lengths"):
            old = getattr(self, name)
            new = np.zeros(size, old.dtype)
            new[:self.n] = old[:self.n]
            setattr(self, name, new)

    def add_many(self, steps, walls, values=None, blobs=None, lengths=None) -> None:
        """Offers points in order; `values` (floats) for a numeric series, else `blobs` and `lengths`."""
        self._extent = None
        count = len(steps)
        room = count if not self.capacity else max(0, min(count, self.capacity - self.n))
        if room:
            self._reserve(room)
            lo, hi = self.n, self.n + room
            self.steps[lo:hi] = steps[:room]
            self.walls[lo:hi] = walls[:room]
            if self.numeric:
                self.values[lo:hi] = values[:room]
            else:
                self.lengths[lo:hi] = lengths[:room]
                self.blobs.extend(blobs[:room])
            self.n = hi
            self.seen += room
        for i in range(room, count):  # the reservoir is full: upstream's draw, point by point
            self._replace(int(steps[i]), float(walls[i]),
                          float(values[i]) if self.numeric else None,
                          None if self.numeric else blobs[i], None if self.numeric else int(lengths[i]))

    def _replace(self, step: int, wall: float, value, blob, length) -> None:
        if self._rng is None:
            self._rng = random.Random(0)
        r = self._rng.randint(0, self.seen)
        last = self.n - 1
        if r < self.capacity:  # drop point r, shift the later ones down, append the new one
            for column in (self.steps, self.walls, self.values if self.numeric else self.lengths):
                column[r:last] = column[r + 1:self.n].copy()
            if not self.numeric:
                del self.blobs[r]
                self.blobs.append(blob)
        elif not self.numeric:
            self.blobs[last] = blob
        self.steps[last] = step
        self.walls[last] = wall
        if self.numeric:
            self.values[last] = value
        else:
            self.lengths[last] = length
        self.seen += 1

    def purge_from(self, step: int) -> int:
        """Drops the points at `step` or later (a restart's orphans); returns how many were dropped."""
        self._extent = None
        before = self.n
        if not before:
            self.seen = 0  # upstream scales the count by 0 when nothing was kept
            return 0
        keep = self.steps[:before] < step
        kept = int(keep.sum())
        if kept == before:
            return 0
        for name in ("steps", "walls", "values" if self.numeric else "lengths"):
            column = getattr(self, name)
            column[:kept] = column[:before][keep]
        if not self.numeric:
            self.blobs = [b for b, k in zip(self.blobs, keep.tolist()) if k]
        self.n = kept
        self.seen = int(round(self.seen * (kept / float(before))))
        return before - kept

    def extent(self) -> tuple:
        """(largest step, latest wall time, longest blob sequence or None) of the kept points; Nones when empty."""
        if self._extent is None:
            n = self.n
            if not n:
                return None, None, None
            longest = None if self.numeric else int(self.lengths[:n].max())
            self._extent = (int(self.steps[:n].max()), float(self.walls[:n].max()), longest)
        return self._extent

    def view(self) -> SeriesView:
        """The kept points, in reservoir order (copies)."""
        n = self.n
        if self.numeric:
            return SeriesView(self.steps[:n].copy(), self.walls[:n].copy(), values=self.values[:n].copy())
        return SeriesView(self.steps[:n].copy(), self.walls[:n].copy(), blobs=list(self.blobs),
                          lengths=self.lengths[:n].copy())


def downsample_indices(count: int, k: int) -> list[int]:
    """Indices of at most `k` of `count` points as upstream's data provider picks them: all when they fit,
    else the last one plus `k - 1` drawn by `random.Random(0).sample`, in order."""
    if k > count:
        return list(range(count))
    if k == 0:
        return []
    picked = sorted(random.Random(0).sample(range(count - 1), k - 1))
    picked.append(count - 1)
    return picked
