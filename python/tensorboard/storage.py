"""The one layer through which the logger touches files: local paths or fsspec URLs.

Event files are append-only streams (`open_append`); side files such as projector
configs are whole-file reads and atomic replacements (`read_bytes`/`write_bytes`).
"""
from __future__ import annotations

import os
import posixpath
import tempfile
from typing import BinaryIO, Iterator, Protocol


class AppendFile(Protocol):
    """A file that only grows; `flush` makes everything written so far durable enough to survive a crash."""

    path: str

    def write(self, data: bytes) -> None: ...

    def flush(self, fsync: bool = False) -> None: ...

    def close(self) -> None: ...


def is_remote(path: str) -> bool:
    """True for URLs with a scheme other than file:// (s3://, gs://, memory://, ...)."""
    scheme, sep, _ = str(path).partition("://")
    return bool(sep) and scheme not in ("", "file")


def storage_for(path: str | os.PathLike) -> "LocalStorage | FsspecStorage":
    """The storage that handles `path`."""
    path = os.fspath(path)
    if is_remote(path):
        return FsspecStorage(path)
    return LOCAL


class LocalAppendFile:
    """An O_APPEND file descriptor written with os.write: data is in the kernel as soon as write returns."""

    def __init__(self, path: str):
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o644)
        self._size = 0

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
            try:
                os.ftruncate(self._fd, start)
                self._size = start
            except OSError:
                pass
            raise

    def flush(self, fsync: bool = False) -> None:
        if fsync:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


class LocalStorage:
    """Plain files on this machine."""

    join = staticmethod(os.path.join)

    def makedirs(self, path: str) -> None:
        os.makedirs(path, exist_ok=True)

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def isdir(self, path: str) -> bool:
        return os.path.isdir(path)

    def listdir(self, path: str) -> list[str]:
        return sorted(os.listdir(path))

    def walk(self, root: str) -> Iterator[tuple[str, list[str]]]:
        """(directory, file names) for every directory below `root`, sorted."""
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            yield dirpath, sorted(filenames)

    def open_append(self, path: str) -> LocalAppendFile:
        return LocalAppendFile(path)

    def open_read(self, path: str) -> BinaryIO:
        return open(path, "rb")

    def read_bytes(self, path: str) -> bytes | None:
        try:
            with open(path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def write_bytes(self, path: str, data: bytes) -> None:
        """Replaces `path` atomically: readers see the old or the new content, never a mix."""
        directory = os.path.dirname(path) or "."
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.basename(path))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


LOCAL = LocalStorage()


class FsspecAppendFile:
    """An append-only file on an object store: buffered, the whole object uploaded on flush and close."""

    def __init__(self, fs, path: str):
        self.path = path
        self._fs = fs
        self._chunks: list[bytes] = []
        self._dirty = True
        self._closed = False

    def write(self, data: bytes) -> None:
        self._chunks.append(bytes(data))
        self._dirty = True

    def flush(self, fsync: bool = False) -> None:
        if not self._dirty:
            return
        content = b"".join(self._chunks)
        self._chunks = [content]
        self._fs.pipe_file(self.path, content)
        self._dirty = False

    def close(self) -> None:
        if not self._closed:
            self.flush()
            self._closed = True


class FsspecStorage:
    """Any fsspec file system (s3://, gs://, memory://, ...); needs `fsspec` and the backend package."""

    def __init__(self, url: str):
        try:
            import fsspec
        except ImportError as err:  # pragma: no cover - depends on the environment
            raise ImportError(f"logdir {url!r} needs fsspec: pip install 'tensorboard-standalone[s3]'") from err
        self.fs, _ = fsspec.core.url_to_fs(url)
        self.protocol = url.split("://", 1)[0]

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
        return sorted(posixpath.basename(p.rstrip("/")) for p in self.fs.ls(self._strip(path), detail=False))

    def walk(self, root: str) -> Iterator[tuple[str, list[str]]]:
        for dirpath, _dirs, files in self.fs.walk(self._strip(root)):
            yield f"{self.protocol}://{dirpath}", sorted(files)

    def open_append(self, path: str) -> FsspecAppendFile:
        return FsspecAppendFile(self.fs, self._strip(path))

    def open_read(self, path: str) -> BinaryIO:
        return self.fs.open(self._strip(path), "rb")

    def read_bytes(self, path: str) -> bytes | None:
        try:
            return self.fs.cat_file(self._strip(path))
        except FileNotFoundError:
            return None

    def write_bytes(self, path: str, data: bytes) -> None:
        self.fs.pipe_file(self._strip(path), data)
