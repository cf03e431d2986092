"""Event files on object stores through fsspec (s3://, gs://, memory://, ...): buffered appends uploaded
whole on every flush, ranged reads, and whole-object writes. `storage.storage_for` picks this for URLs.
"""
from __future__ import annotations

import posixpath
import time
from typing import Callable, Iterable, Iterator

# Remote event files are rolled over to a new object once they reach this size, so a long
# run's buffer (each flush re-uploads the whole current object) stays bounded.
DEFAULT_REMOTE_MAX_FILE_BYTES = 16 << 20


class FsspecAppendFile:
    """An append-only file on an object store: buffered in memory, the whole object uploaded on flush and close.

    Object stores cannot append, so each flush re-uploads the object; the event writer rolls
    over to a new object at `max_file_bytes` to bound that buffer. A failed upload is retried
    `retries` times with exponential backoff (`backoff`, 2*backoff, ...) and then raised; the
    buffer is kept, so a later flush uploads everything again: nothing is silently dropped.
    """

    def __init__(self, fs, path: str, retries: int = 3, backoff: float = 0.5,
                 sleep: Callable[[float], None] = time.sleep):
        self.path = path
        self._fs = fs
        self._chunks: list[bytes] = []
        self._size = 0
        self._dirty = True
        self._closed = False
        self._retries = retries
        self._backoff = backoff
        self._sleep = sleep
        self.uploads = 0
        self.failed_uploads = 0

    @property
    def size(self) -> int:
        return self._size

    def write(self, data: bytes) -> None:
        if self._closed:
            raise ValueError(f"{self.path} is closed")
        self._chunks.append(bytes(data))
        self._size += len(data)
        self._dirty = True

    def flush(self, fsync: bool = False) -> None:
        if not self._dirty:
            return
        content = b"".join(self._chunks)
        self._chunks = [content]
        delay = self._backoff
        for attempt in range(self._retries + 1):
            try:
                self._fs.pipe_file(self.path, content)
                break
            except Exception:
                self.failed_uploads += 1
                if attempt == self._retries:
                    raise
                self._sleep(delay)
                delay *= 2
        self.uploads += 1
        self._dirty = False

    def needs_reopen(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self.flush()
            self._closed = True
            self._chunks = []


class RangedObjectReader:
    """Reads a remote object with independent ranged GETs, not pinned to one object version.

    Event files only grow, and our remote writer re-uploads the whole, longer object on every
    flush. fsspec's file objects pin the version they opened (S3 ETag) and fail with
    FileExpired when an upload lands mid-read; a byte range of the newer object holds the
    same bytes, so reading by ranges sees the file as it grows, up to where a block came back
    short: that is the end of this read, with no GET past it (an HTTP 416 per file; a
    new reader sees what was added since). Memory: one block.
    """

    block_size = 4 << 20

    def __init__(self, fs, path: str):
        self.fs, self.path = fs, path
        self.pos = 0
        self._block, self._block_start = b"", 0
        self._end: int | None = None  # where a short block showed the object to end (no GET past it)

    def _fetch(self, start: int, end: int | None) -> bytes:
        try:
            return self.fs.cat_file(self.path, start=start, end=end)
        except OSError as err:
            # A range starting at or past the end (HTTP 416) is the end of the object.
            if "416" in str(err) or "InvalidRange" in str(err) or "not satisfiable" in str(err).lower():
                return b""
            raise

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes from the current position (all the rest when size < 0); short only at the end."""
        if size is None or size < 0:
            offset = self.pos - self._block_start
            head = self._block[offset:] if 0 <= offset < len(self._block) else b""
            at_end = self._end is not None and self.pos + len(head) >= self._end
            rest = b"" if at_end else self._fetch(self.pos + len(head), None)
            self.pos += len(head) + len(rest)
            return head + rest
        parts, need = [], size
        while need > 0:
            offset = self.pos - self._block_start
            if not 0 <= offset < len(self._block):
                if self._end is not None and self.pos >= self._end:
                    break
                want = max(need, self.block_size)
                self._block_start = self.pos
                self._block = self._fetch(self.pos, self.pos + want)
                if len(self._block) < want:  # the object ends here: the next read needs no GET (an HTTP 416)
                    self._end = self.pos + len(self._block)
                if not self._block:
                    break
                offset = 0
            piece = self._block[offset:offset + need]
            parts.append(piece)
            self.pos += len(piece)
            need -= len(piece)
        return b"".join(parts)

    def seek(self, offset: int, whence: int = 0) -> int:
        """Moves the read position (whence 0: from the start, 1: from here); the next read GETs from there."""
        if whence not in (0, 1):
            raise ValueError("RangedObjectReader seeks from the start (0) or the current position (1) only")
        self.pos = offset if whence == 0 else self.pos + offset
        return self.pos

    def tell(self) -> int:
        return self.pos

    def close(self) -> None:
        self._block = b""

    def __enter__(self) -> "RangedObjectReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class FsspecStorage:
    """Any fsspec file system (s3://, gs://, memory://, ...); needs `fsspec` and the backend package.
    A `storage.ObjectStorage`."""

    default_max_file_bytes: int | None = DEFAULT_REMOTE_MAX_FILE_BYTES
    upload_retries = 3  # a failed upload is retried this often, after 0.5 s, 1 s, 2 s, then raised
    upload_backoff = 0.5

    def __init__(self, url: str, **storage_options):
        try:
            import fsspec
        except ImportError as err:  # pragma: no cover - depends on the environment
            raise ImportError(f"logdir {url!r} needs fsspec: pip install fsspec s3fs") from err
        self.protocol = url.split("://", 1)[0]
        try:
            fsspec.get_filesystem_class(self.protocol)
        except (ValueError, ImportError) as err:  # ValueError: "Protocol not known"; ImportError: backend missing
            raise type(err)(f"{url!r}: cannot use its URL scheme {self.protocol!r} ({err}); use a local path, "
                            "file:///abs/path, or a scheme fsspec knows (s3://, gs://, memory://, ...)") from err
        self.fs, _ = fsspec.core.url_to_fs(url, **storage_options)

    @staticmethod
    def canonical(path: str) -> str:
        return path

    def strip_protocol(self, path: str) -> str:
        """`path` as fsspec's file system names it: the URL without its scheme ("s3://b/k" -> "b/k")."""
        return self.fs._strip_protocol(path)

    def join(self, path: str, *parts: str) -> str:
        return posixpath.join(path, *parts)

    def makedirs(self, path: str) -> None:
        self.fs.makedirs(self.strip_protocol(path), exist_ok=True)

    def exists(self, path: str) -> bool:
        return self.fs.exists(self.strip_protocol(path))

    def isdir(self, path: str) -> bool:
        return self.fs.isdir(self.strip_protocol(path))

    def listdir(self, path: str) -> list[str]:
        self.fs.invalidate_cache(self.strip_protocol(path))
        return sorted(posixpath.basename(p.rstrip("/")) for p in self.fs.ls(self.strip_protocol(path), detail=False))

    def walk(self, root: str) -> Iterator[tuple[str, list[str]]]:
        """(URL of directory, file names) below `root`; listings are fetched anew, not from fsspec's cache."""
        self.fs.invalidate_cache()
        for dirpath, _dirs, files in self.fs.walk(self.strip_protocol(root)):
            yield f"{self.protocol}://{dirpath}", sorted(files)

    def open_append(self, path: str) -> FsspecAppendFile:
        return FsspecAppendFile(self.fs, self.strip_protocol(path), retries=self.upload_retries,
                                backoff=self.upload_backoff)

    def open_read(self, path: str) -> "RangedObjectReader":
        return RangedObjectReader(self.fs, self.strip_protocol(path))

    def read_bytes(self, path: str) -> bytes | None:
        try:
            return self.fs.cat_file(self.strip_protocol(path))
        except FileNotFoundError:
            return None

    def write_bytes(self, path: str, data: bytes) -> None:
        self.fs.pipe_file(self.strip_protocol(path), data)

    def write_chunks(self, path: str, chunks: Iterable[bytes]) -> None:
        """Writes the concatenation of `chunks` to `path` through fsspec's buffered writer.

        Memory stays at fsspec's block size instead of the whole file. Unlike `write_bytes`
        (one `pipe_file`) this is not atomic: fsspec files publish what was written when they
        are closed, so an error part-way may leave a truncated object, replaced by the next write.
        """
        with self.fs.open(self.strip_protocol(path), "wb") as f:
            for chunk in chunks:
                f.write(chunk)
