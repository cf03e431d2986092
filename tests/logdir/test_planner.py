"""Local logdirs are read in the planner's batches (`logdir.planner`): small files' bytes together, decoded as one
(`decode_many`), a large file streamed alone; every run holds the rows, and every damaged or cut file
gives the error or warnings, that reading each file on its own gives."""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import tensorboard
from tensorboard.events.scan import CorruptEventFileError
from tensorboard.events.storage import LocalStorage
from tensorboard.logdir import decode_many, planner
from tensorboard.logdir.decode import decode_file
from tensorboard.logdir.fetch import ObjectFile
from tensorboard.logdir.read import iter_runs
from tensorboard.logdir.run_data import RunData
from tensorboard.reader._frames import build_frame

KINDS = ("scalars", "histograms", "tensors", "text", "images")


def _write(directory, steps: int, extras: bool = False) -> None:
    with tensorboard.SummaryWriter(str(directory)) as writer:
        for step in range(steps):
            writer.add_scalar("loss", 1 / (step + 1), step)
            if extras and step % 40 == 0:
                writer.add_histogram("w", np.arange(20.0) + step, step)
                writer.add_text("note", f"step {step}", step)
                writer.add_image("img", np.full((3, 4, 5), step % 255, np.uint8), step)


@pytest.fixture
def logdir(tmp_path):
    """Runs of one small file, a large one, two files, a damaged and a cut file, in an order that mixes them."""
    root = tmp_path / "logs"
    _write(root / "a_small", 30)
    _write(root / "b_large", 3000, extras=True)
    _write(root / "c_two", 20)
    _write(root / "c_two", 25)  # a second file in the same run
    _write(root / "d_small", 5, extras=True)
    for name, damage in (("e_damaged", "flip"), ("f_cut", "cut")):
        _write(root / name, 50)
        (path,) = (root / name).iterdir()
        data = bytearray(path.read_bytes())
        if damage == "flip":
            data[len(data) // 2] ^= 0x10
        else:
            data = data[:len(data) * 2 // 3]
        path.write_bytes(bytes(data))
    _write(root / "g_small", 7)
    return root


def _alone(root, skip: bool):
    """(run, frames) of each run read file by file with decode_file, the warnings, and the error met."""
    runs, caught, error = [], [], None
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        try:
            for name in sorted(os.listdir(root)):
                run = RunData(name)
                for file_id, path in enumerate(sorted(str(p) for p in (root / name).iterdir())):
                    run.files.append(path)
                    with open(path, "rb") as stream:
                        decode_file(run, stream, path, file_id, skip)
                runs.append(run)
        except CorruptEventFileError as err:
            error = (str(err), err.offset)
        caught = [(w.category.__name__, str(w.message)) for w in got]
    return [_frames(run) for run in runs], caught, error


def _batched(root, skip: bool):
    runs, caught, error = [], [], None
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        try:
            for run in iter_runs(str(root), skip_damaged=skip):
                runs.append(run)
        except CorruptEventFileError as err:
            error = (str(err), err.offset)
        caught = [(w.category.__name__, str(w.message)) for w in got]
    return [_frames(run) for run in runs], caught, error


def _frames(run: RunData):
    return run.name, {kind: build_frame([run], kind, False, {"wall_time"}).astype(str).to_dict("list")
                      for kind in KINDS}


@pytest.mark.parametrize("group_bytes", [decode_many.DECODE_GROUP_BYTES, 4096])  # 4096: the large run streamed
@pytest.mark.parametrize("skip", [False, True])
def test_runs_read_in_batches_hold_what_each_file_read_alone_holds(logdir, skip, group_bytes, monkeypatch):
    monkeypatch.setattr(decode_many, "DECODE_GROUP_BYTES", group_bytes)
    monkeypatch.setattr(planner, "LOCAL_READ_AHEAD_BYTES", 20_000)  # several batches
    alone, batched = _alone(logdir, skip), _batched(logdir, skip)
    assert batched == alone
    assert (alone[2] is not None) != skip  # the damage raised, or was skipped with a warning
    assert any(kind == "TruncatedTailWarning" for kind, _ in alone[1]) == skip


def test_small_files_come_together_and_a_large_one_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(decode_many, "DECODE_GROUP_BYTES", 100)
    monkeypatch.setattr(planner, "LOCAL_READ_AHEAD_BYTES", 150)
    sizes = [40, 50, 70, 101, 10, 200, 5]
    files = []
    for i, size in enumerate(sizes):
        path = tmp_path / f"f{i}"
        path.write_bytes(bytes([i]) * size)
        files.append(ObjectFile(str(path), 0))
    batches = list(planner.batches(LocalStorage(), files))
    assert [[(os.path.basename(f.url), None if data is None else len(data)) for f, data in batch]
            for batch in batches] == [[("f0", 40), ("f1", 50), ("f2", 70)], [("f3", None)], [("f4", 10)],
                                      [("f5", None)], [("f6", 5)]]
    assert all(data == bytes([int(f.url[-1])]) * len(data) for batch in batches for f, data in batch if data)


def test_a_file_gone_since_the_listing_ends_the_read_after_the_runs_before_it(tmp_path):
    from tensorboard.logdir.discovery import list_runs
    from tensorboard.logdir.read import read_listed

    for name in ("a", "b", "c"):
        _write(tmp_path / name, 5)
    listing = list_runs(str(tmp_path))
    next((tmp_path / "b").iterdir()).unlink()
    got = []
    with pytest.raises(FileNotFoundError):
        for run in read_listed(listing):
            got.append(run.name)
    assert got == ["a"]


def test_intact_runs_read_in_batches_hold_what_upstreams_reader_reads(logdir):
    from upstream import upstream_read

    intact = ("a_small", "b_large", "c_two", "d_small", "g_small")
    for name in ("e_damaged", "f_cut"):  # the damage is compared with decode_file above
        for path in (logdir / name).iterdir():
            path.unlink()
        (logdir / name).rmdir()
    upstream = upstream_read(logdir)["runs"]
    ours = {run.name: run for run in iter_runs(str(logdir))}
    assert sorted(ours) == sorted(upstream) == list(intact)
    for name in intact:
        frame = build_frame([ours[name]], "scalars", False, set())
        rows = upstream[name]["scalars"]["loss"]
        # the frame is sorted by step; upstream's rows come in file order (c_two's second file starts again at 0)
        assert sorted((row[0], row[2]) for row in rows) == sorted(zip(frame["step"], frame["value"])), name


def _same_files_local_and_in_memory(tmp_path, sizes: list[int]):
    """The same files on the local disk and in fsspec's in-memory store: (local storage, its files), (memory
    storage, its files)."""
    import uuid

    fsspec = pytest.importorskip("fsspec")
    from tensorboard.events.storage import storage_for

    memory, root = fsspec.filesystem("memory"), f"/planner-{uuid.uuid4().hex}"
    local_files, remote_files = [], []
    for i, size in enumerate(sizes):
        data = bytes([i]) * size
        (tmp_path / f"f{i}").write_bytes(data)
        memory.pipe(f"{root}/f{i}", data)
        local_files.append(ObjectFile(str(tmp_path / f"f{i}"), size))
        remote_files.append(ObjectFile(f"memory://{root}/f{i}", size))
    return (LocalStorage(), local_files), (storage_for("memory://" + root), remote_files)


def _flat(batches) -> list[tuple[str, object]]:
    return [(os.path.basename(f.url), data if data is None or isinstance(data, bytes) else type(data).__name__)
            for batch in batches for f, data in batch]


def test_one_entry_gives_the_same_files_from_a_local_disk_and_an_object_store(tmp_path):
    sizes = [40, 50, 300, 10, 0, 7]
    (local, local_files), (remote, remote_files) = _same_files_local_and_in_memory(tmp_path, sizes)
    expected = [(f"f{i}", bytes([i]) * size) for i, size in enumerate(sizes)]
    assert _flat(planner.batches(local, local_files)) == _flat(planner.batches(remote, remote_files)) == expected
    alone = [(name, None if len(data) > 100 else data) for name, data in expected]  # f2 is left to the caller
    assert _flat(planner.batches(local, local_files, alone_above=100)) == alone
    assert _flat(planner.batches(remote, remote_files, alone_above=100)) == alone
    for batch in planner.batches(remote, remote_files, alone_above=100):  # a file handed over alone is alone
        assert len(batch) == 1 or all(data is not None for _, data in batch)


def test_a_file_gone_since_the_listing_comes_with_its_error_or_ends_the_batches(tmp_path):
    (local, local_files), (remote, remote_files) = _same_files_local_and_in_memory(tmp_path, [5, 6, 7])
    os.unlink(local_files[1].url)
    remote.fs.rm(remote.strip_protocol(remote_files[1].url))
    expected = [("f0", bytes([0]) * 5), ("f1", "FileNotFoundError"), ("f2", bytes([2]) * 7)]
    for storage, files in ((local, local_files), (remote, remote_files)):
        assert _flat(planner.batches(storage, files, on_error="return")) == expected
        got = []
        with pytest.raises(FileNotFoundError):
            for batch in planner.batches(storage, files):
                got.extend(_flat([batch]))
        assert got == (expected[:1] if storage is local else [])  # an object store's batch fails as one
    with pytest.raises(ValueError, match="on_error"):
        planner.batches(local, local_files, on_error="skip")


def test_a_file_of_more_new_bytes_than_a_decode_group_streams_alone(monkeypatch):
    monkeypatch.setattr(decode_many, "DECODE_GROUP_BYTES", 100)
    assert not planner.streams_alone(100) and planner.streams_alone(101)


def test_local_files_are_read_whole_from_their_start_past_the_first_read(tmp_path, monkeypatch):
    monkeypatch.setattr(planner, "FIRST_READ_BYTES", 16)  # every file below needs more than one read
    monkeypatch.setattr(decode_many, "DECODE_GROUP_BYTES", 250)
    contents = {"a": bytes(range(40)), "b": bytes(range(200)) * 2, "c": bytes(range(100, 117))}
    for name, data in contents.items():
        (tmp_path / name).write_bytes(data)
    files = [ObjectFile(str(tmp_path / "a"), 40, start=5), ObjectFile(str(tmp_path / "b"), 400, start=150),
             ObjectFile((tmp_path / "c").as_uri(), 17), ObjectFile(str(tmp_path / "b"), 400)]
    got = [(os.path.basename(entry.url), data) for batch in planner.batches(LocalStorage(), files)
           for entry, data in batch]
    assert got == [("a", contents["a"][5:]), ("b", contents["b"][150:]), ("c", contents["c"]), ("b", None)]
