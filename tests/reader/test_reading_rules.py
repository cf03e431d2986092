"""Reading as upstream reads: files in name order, restarts purge orphaned steps, truncated tails
skipped with a warning, corruption and bad paths named; images/audio decoded without TensorFlow; S3."""
import struct

import numpy as np
import pytest
from upstream import upstream_run

import tensorboard
from tensorboard.events import record
from tensorboard.reader import CorruptEventFileError, DamagedFileWarning, SummaryReader, TruncatedTailWarning
from tensorboard.src import event_pb2, summary_pb2


def event(step=0, wall=1.0, **values):
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=t, simple_value=v) for t, v in values.items()])
    return event_pb2.Event(step=step, wall_time=wall, summary=summary)


def write_events(path, events, version=True):
    head = [event_pb2.Event(wall_time=0.5, file_version="brain.Event:2")] if version else []
    with open(path, "wb") as f:
        f.write(record.frame_many(e.SerializeToString() for e in head + events))


def scalars_by_step(logdir):
    frame = SummaryReader(logdir).scalars
    return list(zip(frame["step"], frame["tag"], frame["value"]))


def test_session_start_purges_later_steps_across_files_as_upstream(tmp_path):
    write_events(tmp_path / "events.out.tfevents.1.host", [event(s, loss=float(s)) for s in range(10)])
    start = event_pb2.Event(step=5, wall_time=2.0, session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START))
    write_events(tmp_path / "events.out.tfevents.2.host", [start] + [event(s, loss=100.0 + s) for s in range(5, 8)])
    ours = scalars_by_step(tmp_path)
    assert ours == [(s, "loss", float(s)) for s in range(5)] + [(s, "loss", 100.0 + s) for s in range(5, 8)]
    upstream = upstream_run(tmp_path)["scalars"]["loss"]
    assert [(row[0], row[2]) for row in upstream] == [(s, v) for s, _, v in ours]


def test_out_of_order_step_without_file_version_purges_that_tag(tmp_path):
    events = [event(s, a=float(s), b=float(s)) for s in range(6)] + [event(3, a=-1.0)]
    write_events(tmp_path / "events.out.tfevents.1.host", events, version=False)
    frame = SummaryReader(tmp_path).scalars
    assert list(frame[frame.tag == "a"]["step"]) == [0, 1, 2, 3] and list(frame[frame.tag == "a"]["value"])[-1] == -1.0
    assert list(frame[frame.tag == "b"]["step"]) == list(range(6))


def _write_v1(path, events, header="brain.Event:1"):
    head = [] if header is None else [event_pb2.Event(step=0, wall_time=0.5, file_version=header)]
    with open(path, "wb") as f:
        f.write(record.frame_many(e.SerializeToString() for e in head + events))


@pytest.mark.parametrize("files", [
    # an event without a summary (a header, a SessionLog) becomes the most recent step too
    [[event(10, a=1.0), event_pb2.Event(step=0, session_log=event_pb2.SessionLog(status=3)), event(5, a=2.0)]],
    # a purging event leaves the most recent step as it was: b@6 is orphaned by b@4
    [[event(5, a=5.0), event(6, b=6.0), event(3, a=3.0), event(4, b=4.0)]],
    # a second version-1 file starting over: its header resets the most recent step
    [[event(s, a=float(s), b=1.0) for s in range(0, 80)], [event(s, a=-float(s)) for s in range(50, 100)]],
    # after a restart every later step purges again, until the steps pass the old ones
    [[event(s, a=float(s), b=float(s)) for s in range(100, 200)] + [event(s, a=-1.0) for s in range(50, 300)]
     + [event(150, b=0.5)]],
])
def test_out_of_order_steps_in_version_1_files_purge_as_event_accumulator(tmp_path, files):
    for index, events in enumerate(files):
        _write_v1(tmp_path / f"events.out.tfevents.{index + 1}.host", events)
    ours = {tag: [(s, v) for s, t, v in scalars_by_step(tmp_path) if t == tag] for tag in ("a", "b")}
    upstream = upstream_run(tmp_path)["scalars"]
    # SummaryReader sorts by step, keeping the read order within one step
    assert ours == {tag: sorted(((row[0], row[2]) for row in upstream.get(tag, [])), key=lambda r: r[0])
                    for tag in ("a", "b")}
    assert sum(map(len, ours.values())) > 0


def test_tensorboardx_purge_step_discards_orphans(tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        for s in range(10):
            writer.add_scalar("x", float(s), s)
    with tensorboard.SummaryWriter(str(tmp_path), purge_step=4) as writer:
        writer.add_scalar("x", 40.0, 4)
    frame = SummaryReader(tmp_path).scalars
    assert list(zip(frame.step, frame.value)) == [(0, 0.0), (1, 1.0), (2, 2.0), (3, 3.0), (4, 40.0)]


def test_truncated_tail_is_skipped_with_a_warning(tmp_path):
    path = tmp_path / "events.out.tfevents.1.host"
    write_events(path, [event(s, x=float(s)) for s in range(5)])
    data = path.read_bytes()
    path.write_bytes(data[:-7])
    with pytest.warns(TruncatedTailWarning, match=str(path)):
        frame = SummaryReader(tmp_path).scalars
    assert list(frame.step) == [0, 1, 2, 3]


def test_corrupt_record_mid_file_names_file_and_offset(tmp_path):
    path = tmp_path / "events.out.tfevents.1.host"
    write_events(path, [event(s, x=float(s)) for s in range(5)])
    data = bytearray(path.read_bytes())
    first = 12 + struct.unpack_from("<Q", data, 0)[0] + 4  # offset of the second record
    data[first + 14] ^= 0x55
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptEventFileError, match=rf"{path} at byte {first}: payload CRC mismatch"):
        SummaryReader(tmp_path)
    with pytest.warns(DamagedFileWarning, match=str(path)):  # only when asked: keep what precedes the damage
        assert SummaryReader(tmp_path, skip_damaged=True).scalars.empty


def test_non_event_file_and_missing_path(tmp_path):
    bogus = tmp_path / "events.out.tfevents.notreally"
    bogus.write_text("hello, this is not an event file at all\n")
    with pytest.raises(CorruptEventFileError, match=rf"{bogus} at byte 0: .*not an event file"):
        SummaryReader(tmp_path)
    with pytest.raises(FileNotFoundError, match="nowhere"):
        SummaryReader(tmp_path / "nowhere")


def test_bad_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="extra_columns"):
        SummaryReader(tmp_path, extra_columns={"colour"})
    with pytest.raises(TypeError, match="event_types"):
        SummaryReader(tmp_path, event_types=["scalars"])
    with pytest.raises(ValueError, match="not asked for"):
        SummaryReader(tmp_path, event_types={"scalars"}).histograms


def test_images_and_audio_decode_without_tensorflow(tmp_path):
    rng = np.random.default_rng(0)
    rgb = rng.integers(0, 256, (6, 5, 3), dtype=np.uint8)
    grey = rng.integers(0, 256, (4, 7, 1), dtype=np.uint8)
    sound = (np.sin(np.linspace(0, 20, 800)) * 0.5).astype(np.float32)
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_image("rgb", rgb, 3, dataformats="HWC")
        writer.add_image("grey", grey, 4, dataformats="HWC")
        writer.add_audio("tone", sound, sample_rate=8000, global_step=5)
    reader = SummaryReader(tmp_path, extra_columns={"width", "height", "sample_rate", "length_frames"})
    images = reader.images.set_index("tag")
    np.testing.assert_array_equal(images.loc["rgb", "value"], rgb)
    np.testing.assert_array_equal(images.loc["grey", "value"], grey)
    assert (images.loc["rgb", "width"], images.loc["rgb", "height"]) == (5, 6)
    audio = reader.audio
    assert audio.loc[0, "sample_rate"] == 8000 and audio.loc[0, "length_frames"] == 800
    assert audio.loc[0, "value"].shape == (800, 1)
    np.testing.assert_allclose(audio.loc[0, "value"][:, 0], sound, atol=1 / 32767)
    upstream = upstream_run(tmp_path)  # upstream's reader sees the same images
    assert sorted(upstream["images"]) == ["grey", "rgb"] and list(upstream["audio"]) == ["tone"]
    # typed as tbparse types them (its lists of Python numbers)
    assert (images["width"].dtype, images["height"].dtype) == (np.int64, np.int64)
    assert (audio["length_frames"].dtype, audio["sample_rate"].dtype) == (np.int64, np.float64)


def test_gif_frames_and_16_bit_pixels_decode_as_tensorflow_decodes_them(tmp_path):
    """What tbparse returns through tf.image.decode_image: a GIF (add_video's clip) as (frames, H, W, 3),
    every frame; a 16-bit grey PNG scaled to 8 bits (the high byte), one channel."""
    import io

    from PIL import Image

    clip = np.stack([np.full((1, 8, 6), 50 * t, np.uint8) for t in range(5)])[None]  # N T C H W: grey 0, 50, ..
    deep = np.array([[0, 255, 256, 1000], [30000, 65535, 5, 7]], np.uint16)
    png = io.BytesIO()
    Image.fromarray(deep).save(png, format="PNG")
    assert Image.open(io.BytesIO(png.getvalue())).mode.startswith("I")  # stored with 16 bits
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_video("clip", clip, 1, fps=5)
        writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
            tag="depth", image=summary_pb2.Summary.Image(height=2, width=4, colorspace=1,
                                                         encoded_image_string=png.getvalue()))]), 2)
    images = SummaryReader(tmp_path).images.set_index("tag")
    frames = images.loc["clip", "value"]
    assert frames.shape == (5, 8, 6, 3)
    assert [int(frame.mean()) for frame in frames] == [0, 50, 100, 150, 200]
    np.testing.assert_array_equal(images.loc["depth", "value"][:, :, 0], [[0, 0, 1, 3], [117, 255, 0, 0]])
    assert images.loc["depth", "value"].shape == (2, 4, 1)


def test_many_files_read_in_name_order(tmp_path):
    for i, name in enumerate(["events.out.tfevents.10.h", "events.out.tfevents.09.h", "events.out.tfevents.11.h"]):
        write_events(tmp_path / name, [event(s, x=float(100 * i + s)) for s in range(2)])
    frame = SummaryReader(tmp_path, extra_columns={"file_name"}).scalars
    assert list(frame.file_name) == ["events.out.tfevents.09.h"] * 2 + ["events.out.tfevents.10.h"] * 2 + \
        ["events.out.tfevents.11.h"] * 2


def record_offsets(data: bytes) -> list[int]:
    """Byte offsets of the records of an event file (each length says where the next starts)."""
    offsets, pos = [], 0
    while pos < len(data):
        offsets.append(pos)
        pos += 16 + struct.unpack_from("<Q", data, pos)[0]
    return offsets


def test_crc_check_finds_one_bad_record_among_thousands(tmp_path):
    path = tmp_path / "events.out.tfevents.1.host"
    write_events(path, [event(s, loss=float(s)) for s in range(5000)])
    data = bytearray(path.read_bytes())
    offsets = record_offsets(data)
    for victim, byte in ((offsets[3001], 20), (offsets[4321], -1)):  # a payload byte; a stored CRC byte
        damaged = bytearray(data)
        end = victim + 16 + struct.unpack_from("<Q", damaged, victim)[0]
        damaged[victim + byte if byte > 0 else end + byte] ^= 0x01
        path.write_bytes(bytes(damaged))
        with pytest.raises(CorruptEventFileError, match=rf"at byte {victim}: payload CRC mismatch"):
            SummaryReader(tmp_path)
        with pytest.warns(DamagedFileWarning):
            kept = SummaryReader(tmp_path, skip_damaged=True).scalars
        assert list(kept.step) == list(range(offsets.index(victim) - 1))  # record 0 is the file version


def test_two_records_with_the_same_damage_are_both_caught(tmp_path):
    """The same bit flipped in two equal-length records cancels in any XOR-combined check; ours checks each."""
    path = tmp_path / "events.out.tfevents.1.host"
    write_events(path, [event(s, loss=float(s)) for s in range(2000)])
    data = bytearray(path.read_bytes())
    offsets = record_offsets(data)
    for victim in (offsets[500], offsets[700]):
        data[victim + 20] ^= 0x04
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptEventFileError, match=rf"at byte {offsets[500]}: payload CRC mismatch"):
        SummaryReader(tmp_path)


def test_huge_steps_and_out_of_order_steps_in_bulk(tmp_path):
    steps = [2 ** 40 + i for i in range(300)] + list(range(100, 400))  # 6-byte varints; then a restart
    write_events(tmp_path / "events.out.tfevents.1.host", [event(s, x=float(i)) for i, s in enumerate(steps)],
                 version=False)
    frame = SummaryReader(tmp_path).scalars
    assert list(frame.step) == list(range(100, 400))  # the lower steps purge the orphaned higher ones


def test_a_histogram_field_in_several_packed_chunks_is_read_whole(tmp_path):
    """Protobuf joins repeated packed chunks of one field; the raw-byte fast path must not keep only the last."""
    from tensorboard.events import wire as _wire

    def packed(field, values):
        data = struct.pack(f"<{len(values)}d", *values)
        return bytes([field << 3 | 2]) + _wire.varint(len(data)) + data

    histo = (struct.pack("<Bd", 0x19, 4.0) + packed(6, [1.0, 2.0]) + packed(6, [3.0, 4.0])
             + packed(7, [1.0, 1.0]) + packed(7, [1.0, 1.0]))
    value = b"\x0a\x01h\x2a" + _wire.varint(len(histo)) + histo
    summary = b"\x0a" + _wire.varint(len(value)) + value
    raw = struct.pack("<Bd", 0x09, 1.0) + b"\x10\x01\x2a" + _wire.varint(len(summary)) + summary
    header = event_pb2.Event(wall_time=0.5, file_version="brain.Event:2").SerializeToString()
    (tmp_path / "events.out.tfevents.1.host").write_bytes(record.frame_many([header, raw]))
    frame = SummaryReader(tmp_path).histograms
    assert [list(x) for x in frame.limits] == [[1.0, 2.0, 3.0, 4.0]]
    assert [list(x) for x in frame.counts] == [[1.0, 1.0, 1.0, 1.0]]
    (upstream,) = upstream_run(tmp_path)["histograms"]["h"]
    assert upstream[1]["bucket_limit"] == [1.0, 2.0, 3.0, 4.0] and upstream[1]["bucket"] == [1.0] * 4


def test_tensor_scalars_of_one_kind_are_typed_and_a_mix_stays_exact(tmp_path):
    """One kind of scalar gets tbparse's dtype; floats beside int64s beyond 2**53 stay objects, not rounded."""
    from tensorboard.src import tensor_pb2, types_pb2

    def tensor_event(tag, tensor, step):
        return event_pb2.Event(step=step, wall_time=1.0, summary=summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag=tag, tensor=tensor)]))

    big = 2**53 + 1
    (tmp_path / "ints").mkdir()
    (tmp_path / "mixed").mkdir()
    write_events(tmp_path / "ints" / "events.out.tfevents.1.host", [
        tensor_event("n", tensor_pb2.TensorProto(dtype=types_pb2.DT_INT64, int64_val=[big + s]), s) for s in range(3)])
    write_events(tmp_path / "mixed" / "events.out.tfevents.1.host", [
        tensor_event("n", tensor_pb2.TensorProto(dtype=types_pb2.DT_INT64, int64_val=[big]), 0),
        tensor_event("f", tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[0.5]), 0)])
    ints = SummaryReader(tmp_path / "ints").tensors
    assert ints["value"].dtype == np.int64 and list(ints["value"]) == [big, big + 1, big + 2]
    mixed = SummaryReader(tmp_path / "mixed").tensors.set_index("tag")["value"]
    assert mixed.dtype == object and mixed["n"] == big and mixed["f"] == 0.5
