"""Embedding files for the Projector dashboard: tensors.tsv, metadata.tsv, sprite.png and
the run's projector_config.pbtxt, which lists every embedding logged in the run.

Each embedding goes to `<run_dir>/<step:05d>/<tag>/` (`<run_dir>/<tag>/` without a step).
The tensor is TSV, not binary float32: the projector reads `tensor_path` as text first and
only falls back to binary on a decode error, which binary data doesn't reliably raise.
"""
from __future__ import annotations

import math
import threading
import warnings
from collections.abc import KeysView, Mapping, Set
from typing import Any, Iterator, Optional, Sequence
from urllib.parse import quote

import numpy as np
from google.protobuf import text_format

from tensorboard.src import projector_config_pb2
from tensorboard.summary.image import to_uint8
from tensorboard.summary.png import encode_png
from tensorboard.values.convert import check_numeric, count_beyond_float32, to_numpy

__all__ = ["write_embedding", "tsv_bytes", "tsv_chunks", "sprite_image", "CONFIG_NAME"]

CONFIG_NAME = "projector_config.pbtxt"
_config_lock = threading.Lock()  # writers in several threads update one run's config
_DIGITS = 9  # significant digits: enough for every float32 to read back exactly
# ASCII lookup tables: "0000".."9999", and "e-46\t".."e+39\t" for float32 exponents
_FOUR_DIGITS = np.frombuffer("".join(f"{i:04d}" for i in range(10000)).encode(), np.uint8).reshape(10000, 4)
_MIN_EXPONENT = -46
_EXPONENTS = np.frombuffer("".join(f"e{i:+03d}\t" for i in range(_MIN_EXPONENT, 40)).encode(),
                           np.uint8).reshape(-1, 5)


MAX_EMBEDDING_VALUES = 1 << 27  # points x dimensions: 134M values, 512 MiB as the browser's float32 array
_MAX_SPRITE_PX = 8192  # the Projector refuses a wider or taller sprite image
_CHUNK_VALUES = 1 << 12  # numbers formatted per chunk (whole rows): ~3 MB of temporaries, cache-friendly


def _row_chunks(matrix: np.ndarray):
    """`matrix` as float32 blocks of whole rows, about `_CHUNK_VALUES` numbers each (converted block by block)."""
    rows = max(1, _CHUNK_VALUES // max(1, matrix.shape[1]))
    for start in range(0, matrix.shape[0], rows):
        yield np.asarray(matrix[start:start + rows], dtype=np.float32)


def _slow_tsv(matrix: np.ndarray) -> bytes:
    row = "\t".join(["%.9g"] * matrix.shape[1])
    return "".join(row % tuple(values) + "\n" for values in matrix.tolist()).encode("ascii")


def _fast_tsv(matrix: np.ndarray) -> bytes:
    """Finite float32 rows as TSV: formats the numbers with NumPy into fixed-width byte cells,
    then squeezes out the unused sign cell of non-negative numbers (~20x faster than per-value
    string formatting). Uses ~100 bytes of temporaries per number: callers pass row blocks.
    """
    rows, columns = matrix.shape
    values = matrix.astype(np.float64).reshape(-1)
    magnitude = np.abs(values)
    nonzero = magnitude > 0
    exponent = np.zeros(values.shape, dtype=np.int64)
    exponent[nonzero] = np.floor(np.log10(magnitude[nonzero])).astype(np.int64)
    mantissa = np.rint(magnitude * 10.0 ** (_DIGITS - 1 - exponent)).astype(np.int64)
    carry = mantissa >= 10 ** _DIGITS  # log10 rounding or 9.999999999 -> 10.00000000
    mantissa[carry] = np.rint(mantissa[carry] / 10.0).astype(np.int64)
    exponent[carry] += 1
    low = mantissa < 10 ** (_DIGITS - 1)  # log10 rounded up: one digit short
    mantissa[low & nonzero] = np.rint(magnitude[low & nonzero] * 10.0 ** (_DIGITS - exponent[low & nonzero])
                                      ).astype(np.int64)
    exponent[low & nonzero] -= 1
    # cell: sign, d, '.', 8 digits, 'e', exponent sign, 2 exponent digits, separator = 16 bytes
    cells = np.empty((values.size, 16), dtype=np.uint8)
    cells[:, 0] = ord("-")
    cells[:, 2] = ord(".")
    lead = mantissa // 10 ** (_DIGITS - 1)
    cells[:, 1] = lead + ord("0")
    rest = (mantissa - lead * 10 ** (_DIGITS - 1)).astype(np.int32)
    upper = rest // 10000
    cells[:, 3:7] = _FOUR_DIGITS[upper]
    cells[:, 7:11] = _FOUR_DIGITS[rest - upper * 10000]
    cells[:, 11:16] = _EXPONENTS[exponent - _MIN_EXPONENT]
    cells.reshape(rows, columns, 16)[:, -1, 15] = ord("\n")
    keep = np.ones(cells.shape, dtype=bool)
    keep[:, 0] = np.signbit(values)
    return cells[keep].tobytes()


def tsv_chunks(matrix: np.ndarray) -> Iterator[bytes]:
    """`tsv_bytes(matrix)` in pieces of whole rows, so a large embedding is never formatted (or held) at once.

    Memory stays ~3 MB whatever the matrix size; joined, the pieces equal `tsv_bytes(matrix)`.

    Args:
        matrix: A 2-D array of numbers.

    Returns:
        An iterator of TSV bytes.

    Raises:
        ValueError: Not 2-D.
    """
    matrix = np.asarray(matrix)
    if matrix.ndim != 2:
        raise ValueError(f"expected a 2-d matrix, got shape {matrix.shape}")
    with np.errstate(over="ignore"):  # float64 beyond float32's range becomes ±inf, as np.asarray(..., float32) does
        finite = all(np.isfinite(block).all() for block in _row_chunks(matrix))
        # any NaN/Inf: every number the slow way ('nan'/'inf' spelled as Python's float() reads them),
        # so the whole file has one format
        format_rows = _fast_tsv if finite else _slow_tsv
        for block in _row_chunks(matrix):
            yield format_rows(block)


def tsv_bytes(matrix: np.ndarray) -> bytes:
    """A matrix, as float32, in TSV rows of 9-significant-digit numbers ("-1.23456789e-05").

    With NaN or ±Inf anywhere in the matrix, every number is formatted with "%.9g".
    `tsv_chunks` yields the same bytes piece by piece (what `write_embedding` streams to disk).

    Args:
        matrix: A 2-D array of numbers.

    Returns:
        The TSV bytes.
    """
    return b"".join(tsv_chunks(matrix))


def _label_text(label: Any) -> str:
    """One metadata cell as text: bytes as UTF-8, 0-d arrays and tensors by their value (a float32
    label reads "0.1", not its float64 widening), tabs and line breaks as spaces (they delimit cells)."""
    if not isinstance(label, (str, bytes)) and getattr(label, "shape", None) == ():
        label = to_numpy(label, "metadata")[()]  # a NumPy scalar: str() of its own precision
    text = label.decode("utf-8", "replace") if isinstance(label, bytes) else str(label)
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def _label_list(metadata: Any) -> list:
    """`metadata` as a list of labels (rows); an array's items keep their own dtype (NumPy scalars)."""
    if isinstance(metadata, (str, bytes, Mapping, Set)) and not isinstance(metadata, KeysView):  # dict.keys(): ordered
        raise TypeError(f"metadata: expected a sequence with one label per embedding row, got "
                        f"{type(metadata).__name__} {metadata!r:.40}")
    if hasattr(metadata, "shape"):
        return list(to_numpy(metadata, "metadata"))
    return list(metadata)


def _row_cells(label: Any, header: Sequence[str], index: int) -> list:
    """The cells of metadata row `index`: a sequence of len(header), or a mapping keyed by the header."""
    if isinstance(label, Mapping):
        missing = [name for name in header if name not in label]
        if missing:
            raise ValueError(f"metadata[{index}]: no value for column {missing[0]!r} of metadata_header")
        return [label[name] for name in header]
    cells = [label] if isinstance(label, (str, bytes)) or not hasattr(label, "__len__") else list(label)
    if len(cells) != len(header):
        raise ValueError(f"metadata[{index}]: expected {len(header)} columns (metadata_header), got {len(cells)}")
    return cells


def _is_blank(line: str) -> bool:
    """Whether the Projector skips this metadata line (blank after JavaScript's trim(), which also removes U+FEFF)."""
    return not line.replace("\ufeff", "").strip()


def _check_not_blank(line: str, index: int) -> str:
    """The Projector skips blank lines, which would give every later row the next row's labels."""
    if _is_blank(line):
        raise ValueError(f"metadata[{index}]: an empty or blank label; the Projector skips blank metadata lines, "
                         "which would shift every later label by one: give it a visible placeholder")
    return line


def _metadata_bytes(metadata: Any, rows: int, header: Optional[Sequence[str]]) -> bytes:
    """metadata.tsv: one label per line, or a header line plus tab-separated columns (two or more:
    the Projector tells a header by its tab, so one column has no header line)."""
    columns = getattr(metadata, "columns", None)  # a DataFrame: its columns by the header's names, if it has them all
    if header is not None and columns is not None and not isinstance(header, (str, bytes)) \
            and set(header) <= set(columns) and list(columns) != list(header):
        metadata = metadata[list(header)]
    labels = _label_list(metadata)
    if len(labels) != rows:
        raise ValueError(f"metadata: expected one label per embedding row ({rows}), got {len(labels)}")
    if header is not None:
        if isinstance(header, (str, bytes)) or len(header) < 1:
            raise TypeError("metadata_header: expected a list of column names")
        header = list(header)
        if len(header) == 1:
            labels = [_row_cells(label, header, index)[0] for index, label in enumerate(labels)]
            warnings.warn(f"metadata_header: one column ({header[0]!r}) has no header line in the Projector's "
                          "metadata format; its labels are written without it", stacklevel=4)
            header = None
    if header is None:
        lines = []
        for index, label in enumerate(labels):
            if isinstance(label, (list, tuple, np.ndarray, Mapping)):
                raise ValueError(f"metadata[{index}]: multi-column labels need metadata_header")
            lines.append(_check_not_blank(_label_text(label), index))
    else:
        lines = ["\t".join(_label_text(name) for name in header)]
        if _is_blank(lines[0]):
            raise ValueError("metadata_header: the column names must not all be blank")
        for index, label in enumerate(labels):
            cells = _row_cells(label, header, index)
            lines.append(_check_not_blank("\t".join(_label_text(cell) for cell in cells), index))
    return ("\n".join(lines) + "\n").encode("utf-8")


def sprite_image(label_img: Any, rows: int) -> Optional[np.ndarray]:
    """Tiles thumbnails into the square sprite grid the Projector expects.

    Args:
        label_img: N thumbnails, NCHW (1, 3 or 4 channels) or NHW.
        rows: N, the embedding's number of points.

    Returns:
        The sprite, HWC uint8; None when it would be wider than the 8192 px the Projector loads.

    Raises:
        ValueError: Another shape, or not one thumbnail per point.
    """
    images = to_numpy(label_img, "label_img")
    if images.ndim == 3:  # N, H, W
        images = images[:, np.newaxis]
    if images.ndim != 4 or images.shape[1] not in (1, 3, 4):
        raise ValueError(f"label_img: expected NCHW images with 1, 3 or 4 channels, got shape {images.shape}")
    if images.shape[0] != rows:
        raise ValueError(f"label_img: expected one image per embedding row ({rows}), got {images.shape[0]}")
    side = math.ceil(math.sqrt(rows))
    if side * max(images.shape[2:]) > _MAX_SPRITE_PX:  # known from the shape: nothing allocated for it
        return None
    pixels = to_uint8(check_numeric(images, "label_img"), "label_img").transpose(0, 2, 3, 1)
    count, height, width, channels = pixels.shape
    canvas = np.zeros((side * side, height, width, channels), dtype=np.uint8)
    canvas[:count] = pixels
    return canvas.reshape(side, side, height, width, channels).swapaxes(1, 2).reshape(
        side * height, side * width, channels)


def _load_config(fs, path: str) -> projector_config_pb2.ProjectorConfig:
    config = projector_config_pb2.ProjectorConfig()
    existing = fs.read_bytes(path)
    if existing:
        try:
            text_format.Parse(existing.decode("utf-8"), config)
        except (text_format.ParseError, UnicodeDecodeError) as exc:
            warnings.warn(f"{path} is not a valid projector config ({exc}); rewriting it")
            config = projector_config_pb2.ProjectorConfig()
    return config


def _write_stream(fs, path: str, chunks: Iterator[bytes]) -> None:
    """Writes `chunks` to `path` through `fs.write_chunks` (streamed, atomic locally); storages
    without it get one joined `write_bytes`."""
    write_chunks = getattr(fs, "write_chunks", None)
    if write_chunks is not None:
        write_chunks(path, chunks)
    else:
        fs.write_bytes(path, b"".join(chunks))


def _warn_beyond_float32(matrix: np.ndarray) -> None:
    """Warns, naming `mat`, when finite float64 values will be written as float32's ±inf."""
    beyond = count_beyond_float32(matrix)
    if beyond:
        warnings.warn(f"mat: {beyond} finite values are beyond float32's range and are written as inf or -inf",
                      stacklevel=4)


def _projector_key(name: str) -> str:
    """The name the Projector finds an embedding by: it drops a trailing ":0", then looks names up
    with ":0" added to those without a colon."""
    name = name[:-2] if name.endswith(":0") else name
    return name if ":" in name else name + ":0"


def _check_name_is_free(config: projector_config_pb2.ProjectorConfig, entry: projector_config_pb2.EmbeddingInfo):
    """Refuses an embedding the Projector would confuse with another one of the run (same name,
    other files): tag "x" at step 1 and tag "x:00001" without a step are both named "x:00001"."""
    key = _projector_key(entry.tensor_name)
    for existing in config.embeddings:
        if _projector_key(existing.tensor_name) == key and existing.tensor_path != entry.tensor_path:
            raise ValueError(f"tag: the embedding would be named {entry.tensor_name!r}, which the Projector cannot "
                             f"tell from the run's embedding {existing.tensor_name!r} ({existing.tensor_path}); "
                             "choose another tag")


def write_embedding(fs, run_dir: str, mat: Any, metadata: Any = None, label_img: Any = None, tag: str = "default",
                    global_step: Optional[int] = None, metadata_header: Optional[Sequence[str]] = None) -> str:
    """Writes one embedding's files and merges its entry into `<run_dir>/projector_config.pbtxt`.

    tensors.tsv is formatted and written in row blocks, so memory does not grow with `mat`. An
    entry with the same tensor name is replaced. Everything is checked before anything is written.

    Args:
        fs: A storage object (makedirs, write_bytes, read_bytes, join; write_chunks if it has it).
        run_dir: The run's directory.
        mat: (N, D) numbers.
        metadata: N labels, or N rows of columns with `metadata_header`.
        label_img: N thumbnails, NCHW.
        tag: The embedding's name.
        global_step: A non-negative step; the files go to `<step:05d>/<tag>/` (`<tag>/` without one).
        metadata_header: Column names, for labels of two or more columns.

    Returns:
        The subdirectory written.

    Raises:
        TypeError: An empty or non-str tag, or non-numeric `mat`.
        ValueError: A `mat` that is not a non-empty 2-D array (or too large for the Projector), bad
            labels or thumbnails, or a tag the Projector would confuse with another embedding's.
    """
    matrix = check_numeric(to_numpy(mat, "mat"), "mat")
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise ValueError(f"mat: expected a non-empty 2-d (points, dimensions) array, got shape {matrix.shape}")
    if matrix.size > MAX_EMBEDDING_VALUES:
        raise ValueError(f"mat: {matrix.shape[0]}x{matrix.shape[1]} = {matrix.size} values, more than the "
                         f"{MAX_EMBEDDING_VALUES} the Projector can load into a browser; sample the points")
    if not isinstance(tag, str) or not tag:
        raise TypeError(f"tag: expected a non-empty str, got {tag!r}")
    if global_step is not None and (isinstance(global_step, bool) or not isinstance(global_step, (int, np.integer))
                                    or global_step < 0):
        raise ValueError(f"global_step: expected a non-negative int or None, got {global_step!r}")
    _warn_beyond_float32(matrix)
    rows = matrix.shape[0]
    # validate everything before writing anything
    metadata_data = None if metadata is None else _metadata_bytes(metadata, rows, metadata_header)
    sprite = None if label_img is None else sprite_image(label_img, rows)
    if label_img is not None and sprite is None:
        side = math.ceil(math.sqrt(rows))
        height, width = to_numpy(label_img, "label_img").shape[-2:]
        warnings.warn(f"label_img: {rows} thumbnails tile into a {side * height}x{side * width} px sprite, beyond "
                      f"the {_MAX_SPRITE_PX} px the Projector loads; the embedding is written without it (thumbnails "
                      f"of at most {_MAX_SPRITE_PX // side} px a side fit)", stacklevel=3)
        sprite = None

    safe_tag = quote(tag, safe="")
    if safe_tag in (".", ".."):  # a path part of its own: the run directory or its parent
        safe_tag = safe_tag.replace(".", "%2E")
    parts = [safe_tag] if global_step is None else [f"{int(global_step):05d}", safe_tag]
    relative = "/".join(parts)
    directory = fs.join(run_dir, *parts)
    entry = projector_config_pb2.EmbeddingInfo(
        tensor_name=tag if global_step is None else f"{tag}:{int(global_step):05d}",
        tensor_path=f"{relative}/tensors.tsv", tensor_shape=list(matrix.shape))
    config_path = fs.join(run_dir, CONFIG_NAME)
    with _config_lock:  # one read-modify-write of the run's config at a time
        config = _load_config(fs, config_path)
        _check_name_is_free(config, entry)
        fs.makedirs(directory)
        _write_stream(fs, fs.join(directory, "tensors.tsv"), tsv_chunks(matrix))
        if metadata_data is not None:
            fs.write_bytes(fs.join(directory, "metadata.tsv"), metadata_data)
            entry.metadata_path = f"{relative}/metadata.tsv"
        if sprite is not None:
            fs.write_bytes(fs.join(directory, "sprite.png"), encode_png(sprite))
            entry.sprite.image_path = f"{relative}/sprite.png"
            entry.sprite.single_image_dim.extend([sprite.shape[1] // math.ceil(math.sqrt(rows)),
                                                  sprite.shape[0] // math.ceil(math.sqrt(rows))])
        for existing in config.embeddings:
            if existing.tensor_name == entry.tensor_name:
                existing.CopyFrom(entry)
                break
        else:
            config.embeddings.append(entry)
        fs.write_bytes(config_path, text_format.MessageToString(config).encode("utf-8"))
    return directory
