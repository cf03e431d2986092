"""The one layer through which the logger touches files: local paths or fsspec URLs.

Event files are append-only streams (`open_append`); side files such as projector
configs are whole-file reads and atomic replacements (`read_bytes`/`write_bytes`, or
`write_chunks` to stream a large file).
"""
from __future__ import annotations

import errno
import os
import posixpath
import tempfile
import time
from typing import BinaryIO, Callable, Iterable, Iterator, Protocol

# Remote event files are rolled over to a new object once they reach this size, so a long
# run's buffer (each flush re-uploads the whole current object) stays bounded.
DEFAULT_REMOTE_MAX_FILE_BYTES = 16 << 20


class AppendFile(Protocol):
    """A file that only grows; `flush` makes everything written so far durable enough to survive a crash."""

    path: str

    def write(self, data: bytes) -> None: ...

    def flush(self, fsync: bool = False) -> None: ...

    def close(self) -> None: ...

    def needs_reopen(self) -> bool:
        """True when appending to this file again is unsafe or pointless (a new file should be started)."""
        ...


def is_remote(path: str) -> bool:
    """True for URLs with a scheme other than file:// (s3://, gs://, memory://, ...)."""
    scheme, sep, _ = str(path).partition("://")
    return bool(sep) and scheme not in ("", "file")


def local_path(path: str) -> str:
    """`path` as a local path: a file:// URL (RFC 8089: file:///abs, file://localhost/abs, %-escapes)
    becomes the path it names; anything else is returned unchanged. Another host is refused."""
    if not path.startswith("file://"):
        return path
    from urllib.parse import unquote

    host, slash, rest = path[len("file://"):].partition("/")
    if host not in ("", "localhost"):
        raise ValueError(f"{path!r}: a file:// URL names a path on this machine (file:///abs/path or "
                         f"file://localhost/abs/path), not on host {host!r}")
    return unquote(slash + rest) or "/"


def storage_for(path: str | os.PathLike, **storage_options) -> "LocalStorage | FsspecStorage":
    """The storage that handles `path`; `storage_options` go to fsspec for remote URLs.
    An unknown URL scheme is a ValueError naming `path`."""
    path = os.fspath(path)
    if is_remote(path):
        return FsspecStorage(path, **storage_options)
    local_path(path)  # a file:// URL for another host is refused here, before anything is written
    return LOCAL


class LocalAppendFile:
    """An O_APPEND file descriptor written with os.write: data is in the kernel as soon as write returns.

    A failed write is undone with ftruncate, so the file never keeps a partial record; if even
    that fails the file is marked `tainted` and must not be appended to again.
    """

    def __init__(self, path: str):
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o644)
        self._size = 0
        self.tainted = False

    def write(self, data: bytes) -> None:
        """Writes all of `data`; on failure cuts the file back so no partial record is left behind."""
        view = memoryview(data)
        start = self._size
        try:
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
                self._size += written
        except BaseException:
            if self._size != start:
                try:
                    os.ftruncate(self._fd, start)
                    self._size = start
                except OSError:
                    self.tainted = True
            raise

    def flush(self, fsync: bool = False) -> None:
        """Data is already in the kernel; checks the file still has a name (and fsyncs if asked)."""
        if self._fd < 0:
            raise OSError(errno.EBADF, "event file is closed", self.path)
        if os.fstat(self._fd).st_nlink == 0:
            raise FileNotFoundError(errno.ENOENT, "event file was deleted while being written "
                                    "(was its directory removed?)", self.path)
        if fsync:
            os.fsync(self._fd)

    def needs_reopen(self) -> bool:
        if self._fd < 0 or self.tainted:
            return True
        try:
            return os.fstat(self._fd).st_nlink == 0
        except OSError:
            return True

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


class LocalStorage:
    """Plain files on this machine; every method also takes file:// URLs (see `local_path`)."""

    default_max_file_bytes: int | None = None  # local files grow without rollover
    canonical = staticmethod(local_path)

    @staticmethod
    def join(path: str, *parts: str) -> str:
        return os.path.join(local_path(path), *parts)

    def makedirs(self, path: str) -> None:
        os.makedirs(local_path(path), exist_ok=True)

    def exists(self, path: str) -> bool:
        return os.path.exists(local_path(path))

    def isdir(self, path: str) -> bool:
        return os.path.isdir(local_path(path))

    def listdir(self, path: str) -> list[str]:
        return sorted(os.listdir(local_path(path)))

    def walk(self, root: str) -> Iterator[tuple[str, list[str]]]:
        """(directory, file names) for every directory below `root`, sorted. Symbolic links to
        directories are followed, as upstream follows them, except into a directory of their own path (a loop)."""
        root = local_path(root)
        chains: dict[str, frozenset] = {}  # directory, as os.walk names it -> real paths of its ancestors below root
        for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
            above = chains.pop(dirpath, frozenset())
            real = os.path.realpath(dirpath)
            if real in above:
                dirnames[:] = []
                continue
            dirnames.sort()
            for name in dirnames:
                chains[os.path.join(dirpath, name)] = above | {real}
            yield dirpath, sorted(filenames)

    def open_append(self, path: str) -> LocalAppendFile:
        return LocalAppendFile(local_path(path))

    def open_read(self, path: str) -> BinaryIO:
        return open(local_path(path), "rb")

    def read_bytes(self, path: str) -> bytes | None:
        try:
            with open(local_path(path), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def write_bytes(self, path: str, data: bytes) -> None:
        """Replaces `path` atomically: readers see the old or the new content, never a mix."""
        self.write_chunks(path, (data,))

    def write_chunks(self, path: str, chunks: Iterable[bytes]) -> None:
        """Replaces `path` atomically with the concatenation of `chunks`, written as they come.

        Streams into a temporary file in the same directory, then renames it over `path`, so large
        files (embeddings) never need to be held in memory whole and readers never see a partial file.
        If writing fails (or the iterable raises) the temporary file is removed and `path` is untouched.
        """
        path = local_path(path)
        directory = os.path.dirname(path) or "."
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.basename(path))
        try:
            with os.fdopen(fd, "wb") as f:
                for chunk in chunks:
                    f.write(chunk)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


LOCAL = LocalStorage()


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

    def close(self) -> None:
        self._block = b""

    def __enter__(self) -> "RangedObjectReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class FsspecStorage:
    """Any fsspec file system (s3://, gs://, memory://, ...); needs `fsspec` and the backend package."""

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

    def _strip(self, path: str) -> str:
        return self.fs._strip_protocol(path)

    def join(self, *parts: str) -> str:
        return posixpath.join(*parts)

    def makedirs(self, path: str) -> None:
        self.fs.makedirs(self._strip(path), exist_ok=True)

    def exists(self, path: str) -> bool:
        return self.fs.exists(self._strip(path))

    def isdir(self, path: str) -> bool:
        return self.fs.isdir(self._strip(path))

    def listdir(self, path: str) -> list[str]:
        self.fs.invalidate_cache(self._strip(path))
        return sorted(posixpath.basename(p.rstrip("/")) for p in self.fs.ls(self._strip(path), detail=False))

    def walk(self, root: str) -> Iterator[tuple[str, list[str]]]:
        """(URL of directory, file names) below `root`; listings are fetched anew, not from fsspec's cache."""
        self.fs.invalidate_cache()
        for dirpath, _dirs, files in self.fs.walk(self._strip(root)):
            yield f"{self.protocol}://{dirpath}", sorted(files)

    def open_append(self, path: str) -> FsspecAppendFile:
        return FsspecAppendFile(self.fs, self._strip(path), retries=self.upload_retries, backoff=self.upload_backoff)

    def open_read(self, path: str) -> "RangedObjectReader":
        return RangedObjectReader(self.fs, self._strip(path))

    def read_bytes(self, path: str) -> bytes | None:
        try:
            return self.fs.cat_file(self._strip(path))
        except FileNotFoundError:
            return None

    def write_bytes(self, path: str, data: bytes) -> None:
        self.fs.pipe_file(self._strip(path), data)

    def write_chunks(self, path: str, chunks: Iterable[bytes]) -> None:
        """Writes the concatenation of `chunks` to `path` through fsspec's buffered writer.

        Memory stays at fsspec's block size instead of the whole file. Unlike `write_bytes`
        (one `pipe_file`) this is not atomic: fsspec files publish what was written when they
        are closed, so an error part-way may leave a truncated object, replaced by the next write.
        """
        with self.fs.open(self._strip(path), "wb") as f:
            for chunk in chunks:
                f.write(chunk)
