"""Decodes many small event files fetched together (a batch of an object store's read): one record scan
(scan_tails) and one column decode of plain scalars for all of them, then each file's records into its
run in order. The records, errors and warnings are those decode_file gives file by file; a logdir
of thousands of small files then costs about what one large file costs."""
from __future__ import annotations

import io
import warnings
from typing import Sequence

from tensorboard.events.record import CorruptEventFileError, DamagedFileWarning, TruncatedTailWarning, truncated_tail
from tensorboard.logdir.decode import BULK_MIN, RunDataSink, decode_file
from tensorboard.logdir.records import ScannedFiles
from tensorboard.logdir.run_data import RunData


def decode_scanned(files: ScannedFiles, i: int, run: RunData, path: str, file_id: int,
                   skip_damaged: bool = False) -> int:
    """Adds file i's intact records to `run` (its bytes are the whole file); returns how many.

    Like decode_file: damage raises CorruptEventFileError after the records before it are added (with
    `skip_damaged`, warns DamagedFileWarning instead), and bytes that end inside a record warn
    TruncatedTailWarning.
    """
    fed = files.feed(i, RunDataSink(run, file_id), path)
    try:
        damage = fed.scan.error(path, 0)
        if damage is not None:
            raise damage
    except CorruptEventFileError as err:
        if not skip_damaged:
            raise
        warnings.warn(f"{err}; the rest of this file is skipped", DamagedFileWarning, stacklevel=2)
    else:
        if fed.left:
            warnings.warn(truncated_tail(path, fed.scan.consumed, fed.left), TruncatedTailWarning, stacklevel=2)
    return fed.count


DECODE_GROUP_BYTES = 1 << 20  # bytes of records scanned and decoded together (every front door's reads): the
# scan's temporary arrays take tens of bytes per
# record, so 1 MiB groups keep memory flat, and they are as fast as larger ones


class FetchedFiles:
    """A fetched batch's files, decoded in order: consecutive small files in groups of about
    DECODE_GROUP_BYTES (one ScannedFiles each, built when its first file is asked for), a larger file on
    its own in chunks (decode_file)."""

    def __init__(self, payloads: Sequence[bytes]):
        self._payloads = list(payloads)
        self._group_of: list[tuple[int, int]] = []  # file -> (group start, group end)
        start, held = 0, 0
        for i, payload in enumerate(self._payloads):
            if held and held + len(payload) > DECODE_GROUP_BYTES:
                self._group_of += [(start, i)] * (i - start)
                start, held = i, 0
            held += len(payload)
        self._group_of += [(start, len(self._payloads))] * (len(self._payloads) - start)
        self._group: tuple[tuple[int, int], ScannedFiles] | None = None

    def decode(self, i: int, run: RunData, path: str, file_id: int, skip_damaged: bool = False) -> int:
        """Adds file i's records to `run`, as decode_file would; returns how many."""
        payload = self._payloads[i]
        if len(payload) > DECODE_GROUP_BYTES:
            with io.BytesIO(payload) as stream:
                return decode_file(run, stream, path, file_id, skip_damaged)
        span = self._group_of[i]
        if self._group is None or self._group[0] != span:
            self._group = None  # the previous group's arrays go before the next one's are made
            self._group = span, ScannedFiles(self._payloads[span[0]:span[1]], BULK_MIN)
        return decode_scanned(self._group[1], i - span[0], run, path, file_id, skip_damaged)
