"""The one layer through which the logger touches files: local paths or fsspec URLs
(`object_store` holds the fsspec side). `Storage` is what both offer to readers and writers.

Event files are append-only streams (`open_append`); side files such as projector
configs are whole-file reads and atomic replacements (`read_bytes`/`write_bytes`, or
`write_chunks` to stream a large file).
"""
from __future__ import annotations

import errno
import os
import tempfile
from typing import Any, BinaryIO, Iterable, Iterator, Protocol

from tensorboard.events.object_store import (  # noqa: F401
    DEFAULT_REMOTE_MAX_FILE_BYTES,
    FsspecAppendFile,
    FsspecStorage,
    RangedObjectReader,
)

FILE_MODE = 0o644  # what every file we create asks for, less the process's umask (as open() applies it)
DIRECTORY_MODE = 0o755


def masked_mode(mode: int) -> int:
    """`mode` less the process's umask: what `open(path, flags, mode)` gives a new file, for files made another
    way (mkstemp's are 0o600, mkdtemp's 0o700) that are then renamed into place."""
    return mode & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (changing it races other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class ReadStream(Protocol):
    """A file open for reading: a local file, or a RangedObjectReader on an object store."""

    def read(self, size: int = -1) -> bytes: ...

    def seek(self, offset: int, whence: int = 0) -> int: ...

    def tell(self) -> int: ...

    def close(self) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc_info: Any) -> Any: ...


class Storage(Protocol):
    """What a storage offers readers and writers: `LocalStorage` below and `FsspecStorage` (object_store).
    Paths are local paths, file:// URLs or, for object stores, URLs of their scheme."""

    def canonical(self, path: str) -> str:
        """`path` as this storage names it (a file:// URL becomes its local path)."""
        ...

    def join(self, path: str, *parts: str) -> str: ...

    def makedirs(self, path: str) -> None: ...

    def exists(self, path: str) -> bool: ...

    def isdir(self, path: str) -> bool: ...

    def listdir(self, path: str) -> list[str]:
        """The names in directory `path`, sorted."""
        ...

    def walk(self, root: str) -> Iterator[tuple[str, list[str]]]:
        """(directory, sorted file names) for every directory below `root`."""
        ...

    def open_read(self, path: str) -> ReadStream: ...

    def read_bytes(self, path: str) -> bytes | None:
        """The whole file, or None if it does not exist."""
        ...

    def write_bytes(self, path: str, data: bytes) -> None: ...

    def write_chunks(self, path: str, chunks: Iterable[bytes]) -> None: ...


class ObjectStorage(Storage, Protocol):
    """A storage on an object store (`FsspecStorage`), which readers also list and fetch from in
    batches through its fsspec file system."""

    protocol: str  # the URL scheme: "s3", "gs", "memory", ...
    fs: Any  # the fsspec file system

    def strip_protocol(self, path: str) -> str:
        """`path` as the file system names it: the URL without its scheme."""
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


def storage_for(path: str | os.PathLike, **storage_options) -> Storage:
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
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        self._fd = os.open(path, flags, 0o644)
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

    def walk(self, root: str, sort: bool = True) -> Iterator[tuple[str, list[str]]]:
        """(directory, file names) for every directory below `root`, depth first, sorted (`sort=False`:
        directories in the file system's order, as upstream's multiplexer walks them). Symbolic links to
        directories are followed, as upstream follows them, except into a directory of their own path (a loop).
        Directories that cannot be listed are left out, as os.walk leaves them."""
        root = local_path(root)
        # (directory, its real path, real paths of its ancestors below root); a real path is resolved only
        # below a link: elsewhere it is the parent's real path and the name (one lstat per link, not per part)
        stack = [(root, os.path.realpath(root), frozenset())]
        while stack:
            dirpath, real, above = stack.pop()
            if real in above:
                continue
            try:
                with os.scandir(dirpath) as listing:
                    entries = list(listing)
            except OSError:
                continue
            files, subdirs = [], []
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                (subdirs if is_dir else files).append(entry)
            yield dirpath, sorted(entry.name for entry in files)
            if sort:
                subdirs.sort(key=lambda entry: entry.name)
            inner = above | {real}
            for entry in reversed(subdirs):  # popped in order
                child = os.path.join(dirpath, entry.name)
                try:
                    linked = entry.is_symlink()
                except OSError:
                    linked = True
                stack.append((child, os.path.realpath(child) if linked else os.path.join(real, entry.name), inner))

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

        Streams into a temporary file in the same directory, fsyncs it, then renames it over `path`, so
        large files (embeddings) never need to be held in memory whole, readers never see a partial file,
        and a power loss leaves the old file or the new one. The file's mode honours the umask.
        If writing fails (or the iterable raises) the temporary file is removed and `path` is untouched.
        """
        path = local_path(path)
        directory = os.path.dirname(path) or "."
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.basename(path))
        try:
            with os.fdopen(fd, "wb") as f:
                for chunk in chunks:
                    f.write(chunk)
                f.flush()
                os.fsync(f.fileno())  # the content is on disk before the rename makes it the file
            os.chmod(tmp, masked_mode(FILE_MODE))
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


LOCAL = LocalStorage()
