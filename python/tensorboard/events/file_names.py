"""Event file names and the first record of every event file."""
from __future__ import annotations

import itertools
import os
import socket
import threading
import time

from tensorboard import process
from tensorboard.events import wire

FILE_VERSION = "brain.Event:2"
_file_counter = itertools.count()
_counter_lock = threading.Lock()


def _fresh_lock_after_fork() -> None:
    global _counter_lock
    _counter_lock = threading.Lock()  # a parent thread may have held it at the fork


process.after_fork_in_child(_fresh_lock_after_fork)


_last_stamp = 0  # the latest time stamp a file name of this process got
_last_counter_digits = 1


def event_file_name(suffix: str = "", now: float | None = None) -> str:
    """events.out.tfevents.<10-digit time>.<host>.<pid>.<counter><suffix>: upstream's EventFileWriter's
    format (torch.utils.tensorboard writes through it), the counter process-wide from 0, unpadded.

    Readers (upstream's too) read a run's files in name order, so this process's names must sort in
    creation order: stamps never go back, and when the counter gains a digit ("….10" sorts before
    "….9") within one second, the stamp moves on to the next second.
    """
    global _last_stamp, _last_counter_digits
    stamp = int(time.time() if now is None else now)
    with _counter_lock:
        counter = next(_file_counter)
        digits = len(str(counter))
        stamp = max(stamp, _last_stamp + (digits > _last_counter_digits))
        _last_stamp, _last_counter_digits = stamp, digits
    return f"events.out.tfevents.{stamp:010d}.{socket.gethostname()}.{os.getpid()}.{counter}{suffix}"


def is_summary_events_file(name: str) -> bool:
    """Whether upstream's loader reads the file `name`: it holds 'tfevents' and is no '.profile-empty'
    placeholder (what the profiler plugin leaves in a run directory)."""
    return "tfevents" in name and not name.endswith(".profile-empty")


def parse_file_version(text: str) -> float:
    """'brain.Event:2' -> 2.0, as upstream parses it (-1 when unparsable, which selects the old purge rule)."""
    try:
        return float(text.split("brain.Event:")[-1])
    except ValueError:
        return -1.0


def file_stamp(path: str) -> int:
    """The time stamp field of an event file name (0 if it has none)."""
    try:
        return int(os.path.basename(path).split("tfevents.", 1)[1].split(".", 1)[0])
    except (IndexError, ValueError):
        return 0


def header_record(source_writer: str = "") -> bytes:
    """The first record of every file: Event{wall_time, file_version[, source_metadata{writer}]}."""
    from tensorboard.events import record  # its CRC library, imported by writers, not by a walk of a logdir

    body = wire.event_header(time.time(), 0) + b"\x1a" + wire.varint(len(FILE_VERSION)) + FILE_VERSION.encode()
    if source_writer:
        name = source_writer.encode()
        inner = b"\x0a" + wire.varint(len(name)) + name  # SourceMetadata.writer = 1
        body += b"\x52" + wire.varint(len(inner)) + inner  # Event.source_metadata = 10
    return record.frame(body)
