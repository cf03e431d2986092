"""Files fetched together are decoded together (FetchedFiles: one scan and one column decode per group
of small files), with the same rows, errors and warnings as decode_file gives each file alone: on
files of every kind, short and long, out-of-order steps, files cut anywhere and files with a byte
flipped anywhere."""
from __future__ import annotations

import io
import os
import warnings

import numpy as np
import pytest

import tensorboard
from tensorboard.events.record import frame
from tensorboard.events.scan import CorruptEventFileError
from tensorboard.logdir import decode_many as _decode_many
from tensorboard.logdir.decode import decode_file
from tensorboard.logdir.decode_many import FetchedFiles
from tensorboard.logdir.run_data import RunData
from tensorboard.reader._frames import build_frame
from tensorboard.src import event_pb2, summary_pb2

KINDS = ("scalars", "histograms", "tensors", "text", "hparams", "images", "audio")


def written(tmp_path, name: str, write) -> list[bytes]:
    """The bytes of the event files `write(writer)` makes with our SummaryWriter."""
    directory = tmp_path / name
    with tensorboard.SummaryWriter(str(directory)) as writer:
        write(writer)
    paths = sorted(os.path.join(d, f) for d, _, files in os.walk(directory) for f in files)
    return [open(path, "rb").read() for path in paths]


def version_one_file(steps) -> bytes:
    """A file with a version-1 header, whose lower steps purge what was logged after them."""
    events = [event_pb2.Event(wall_time=1.0, file_version="brain.Event:1")]
    for i, step in enumerate(steps):
        value = summary_pb2.Summary.Value(tag="loss", simple_value=float(i))
        events.append(event_pb2.Event(wall_time=2.0 + i, step=step, summary=summary_pb2.Summary(value=[value])))
    return b"".join(frame(e.SerializeToString()) for e in events)


@pytest.fixture(scope="module")
def intact(tmp_path_factory) -> list[bytes]:
    tmp = tmp_path_factory.mktemp("decode_many")

    def scalars(n, tags=("loss",)):
        def write(writer):
            for step in range(n):
                for tag in tags:
                    writer.add_scalar(tag, step / 7, step)
        return write

    def mixed(writer):
        for step in range(200):
            writer.add_scalar("loss", 1 / (step + 1), step)
            if step % 50 == 0:
                writer.add_histogram("w", np.arange(30.0) + step, step)
                writer.add_text("note", f"step {step}", step)
                writer.add_image("img", np.full((3, 4, 5), step % 255, np.uint8), step)
        writer.add_scalar("dp", 0.25, 3, double_precision=True)
        writer.add_hparams({"lr": 0.1}, {"score": 1.0}, run_name="hp")

    files = [written(tmp, "long", scalars(3000, ("a", "b"))), written(tmp, "short", scalars(5)),
             written(tmp, "mixed", mixed), written(tmp, "empty", scalars(0)), written(tmp, "mid", scalars(130))]
    return [data for found in files for data in found] + [
        version_one_file([0, 1, 2, 3, 1, 2, 5]), version_one_file(list(range(100)) + [50] + list(range(51, 80)))]


def damaged(intact: list[bytes], rng) -> list[bytes]:
    """The intact files, and copies cut or with a byte flipped at random places."""
    out = list(intact)
    for data in intact:
        for _ in range(2):
            cut = bytearray(data[:int(rng.integers(0, len(data) + 1))])
            flipped = bytearray(data)
            flipped[int(rng.integers(0, len(data)))] ^= 1 << int(rng.integers(0, 8))
            out += [bytes(cut), bytes(flipped)]
    out.append(b"not an event file at all, just some text")
    order = rng.permutation(len(out))
    return [out[i] for i in order]


def outcome(decode, path: str, skip: bool):
    """(frames by kind as text, error, warnings) of one decode into a fresh run."""
    run = RunData("r")
    run.files.append(path)
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            decode(run, skip)
        except CorruptEventFileError as err:
            error = (str(err), err.offset)
    frames = {kind: build_frame([run], kind, False, {"wall_time"}).astype(str).to_dict("list") for kind in KINDS}
    return frames, error, [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("group_bytes", [_decode_many.DECODE_GROUP_BYTES, 4096])  # 4096: many groups, large files alone
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("skip", [False, True])
def test_each_file_decodes_as_it_does_alone(intact, seed, skip, group_bytes, monkeypatch):
    monkeypatch.setattr(_decode_many, "DECODE_GROUP_BYTES", group_bytes)
    payloads = damaged(intact, np.random.default_rng(seed))
    together = FetchedFiles(payloads)
    errors = 0
    for i, data in enumerate(payloads):
        path = f"s3://b/run{i}/events.out.tfevents.1.host"
        alone = outcome(lambda run, skip: decode_file(run, io.BytesIO(data), path, 0, skip), path, skip)
        both = outcome(lambda run, skip: together.decode(i, run, path, 0, skip), path, skip)
        assert both == alone, i
        errors += alone[1] is not None or any(kind == "DamagedFileWarning" for kind, _ in alone[2])
    assert errors  # the damage was met, and met the same way


def test_purges_and_every_kind_survive(intact):
    together = FetchedFiles(intact)
    runs = [RunData(str(i)) for i in range(len(intact))]
    for i, run in enumerate(runs):
        run.files.append(f"f{i}")
        together.decode(i, run, f"f{i}", 0)
    assert len(runs[0].scalars) == 6000
    mixed = [run for run in runs if len(run.histograms)]
    assert len(mixed) == 1 and {len(build_frame(mixed, kind, False, set())) > 0 for kind in KINDS
                                if kind not in ("hparams", "audio", "tensors")} == {True}
    purged = build_frame([runs[-2]], "scalars", False, set())
    assert list(purged["step"]) == [0, 1, 2, 5]  # steps 2 and 3 were purged by the second 1


def test_files_decoded_together_hold_what_upstreams_reader_reads(tmp_path):
    from upstream import upstream_run

    def scalars(writer):
        for step in range(300):
            writer.add_scalar("a", step / 7, step)
            writer.add_scalar("b", -step / 3, step)
        writer.add_histogram("w", np.arange(10.0), 5)

    directories = {"ours": tmp_path / "ours", "purged": tmp_path / "purged"}
    with tensorboard.SummaryWriter(str(directories["ours"])) as writer:
        scalars(writer)
    directories["purged"].mkdir()
    (directories["purged"] / "events.out.tfevents.1.host").write_bytes(version_one_file([0, 1, 2, 3, 1, 2, 5]))
    paths = [directory / name for directory in directories.values() for name in sorted(os.listdir(directory))]
    together = FetchedFiles([path.read_bytes() for path in paths])
    for i, (name, directory) in enumerate(directories.items()):
        run = RunData(name)
        run.files.append(str(paths[i]))
        together.decode(i, run, str(paths[i]), 0)
        ours = build_frame([run], "scalars", False, set())
        upstream = upstream_run(directory)["scalars"]
        assert sorted(upstream) == sorted(set(ours["tag"])) == (["a", "b"] if name == "ours" else ["loss"])
        for tag, rows in upstream.items():
            mine = ours[ours["tag"] == tag]
            assert [(row[0], row[2]) for row in rows] == list(zip(mine["step"], mine["value"])), (name, tag)
