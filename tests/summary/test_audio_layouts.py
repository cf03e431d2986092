"""Audio layouts are named per entry point, never guessed: the WAV header upstream's reader decodes has
the channels and frames each documented layout says."""
from __future__ import annotations

import numpy as np
import pytest
from upstream import upstream_read

import tensorboard
from tensorboard import summary
from tensorboard.mxboard import SummaryWriter as MXBoardWriter

L = 600


def samples(*shape):
    return (0.4 * np.sin(np.arange(int(np.prod(shape))) / 7.0)).reshape(shape).astype(np.float32)


TORCH_LAYOUT = {(L,): (1, L), (1, L): (1, L), (L, 1): (1, L), (1, 1, L): (1, L), (2, L): (2, L), (6, L): (6, L)}
MXBOARD_LAYOUT = {(L,): (1, L), (1, L): (1, L), (L, 1): (1, L), (1, 1, L): (1, L), (L, 2): (2, L), (L, 6): (6, L)}


def headers(logdir) -> dict:
    audio = upstream_read(logdir)["runs"]["."]["audio"]
    return {tag: (wav["channels"], wav["frames"]) for tag, ((_, _, _, _, wav),) in audio.items()}


@pytest.mark.parametrize("writer_class, layout", [(tensorboard.SummaryWriter, TORCH_LAYOUT),
                                                  (MXBoardWriter, MXBOARD_LAYOUT)])
def test_each_writer_reads_its_documented_layout(tmp_path, writer_class, layout):
    with writer_class(tmp_path) as writer:
        for shape in layout:
            writer.add_audio(f"clip{shape}", samples(*shape), sample_rate=8000, global_step=0)
    assert headers(tmp_path) == {f"clip{shape}": expected for shape, expected in layout.items()}


def test_channels_first_keeps_each_channel_apart(tmp_path):
    stereo = np.stack([np.full(L, 0.5, np.float32), np.full(L, -0.25, np.float32)])  # (C, L) as torchaudio
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_audio("stereo", stereo, 0, 8000)
    (_, _, _, _, wav), = upstream_read(tmp_path)["runs"]["."]["audio"]["stereo"]
    from upstream import as_array

    interleaved = as_array(wav["samples"]).reshape(L, 2)
    assert (interleaved[:, 0] == 16384).all() and (interleaved[:, 1] == -8192).all()


@pytest.mark.parametrize("writer_class, shape, message", [
    (tensorboard.SummaryWriter, (L, 2), r"snd_tensor: shape \(600, 2\) read as \(channels, length\) is 600 channels"),
    (MXBoardWriter, (2, L), r"audio: shape \(2, 600\) read as \(length, channels\) is 600 channels"),
    (tensorboard.SummaryWriter, (2, 3, L), r"snd_tensor: expected \(length,\) or \(channels, length\) samples"),
])
def test_the_other_layout_fails_instead_of_being_misread(tmp_path, writer_class, shape, message):
    with writer_class(tmp_path) as writer:
        with pytest.raises(ValueError, match=message):
            writer.add_audio("x", samples(*shape), sample_rate=8000)


def test_summary_audio_keeps_its_frames_first_layout(tmp_path):
    with tensorboard.FileWriter(tmp_path) as writer:
        writer.add_summary(summary.audio("mono", samples(L), 8000))
        writer.add_summary(summary.audio("stereo", samples(L, 2), 8000))
    assert headers(tmp_path) == {"mono": (1, L), "stereo": (2, L)}


def test_pending_jax_audio_follows_the_same_layouts(tmp_path):
    jnp = pytest.importorskip("jax.numpy")
    with tensorboard.SummaryWriter(tmp_path / "torch") as writer:
        writer.add_audio("row", jnp.asarray(samples(1, L)), 0, 8000)
        writer.add_audio("stereo", jnp.asarray(samples(2, L)), 0, 8000)
        with pytest.raises(ValueError, match="snd_tensor: shape"):
            writer.add_audio("bad", jnp.asarray(samples(L, 2)), 0, 8000)
    with MXBoardWriter(tmp_path / "mx") as writer:
        writer.add_audio("stereo", jnp.asarray(samples(L, 2)), 8000, 0)
    assert headers(tmp_path / "torch") == {"row": (1, L), "stereo": (2, L)}
    assert headers(tmp_path / "mx") == {"stereo": (2, L)}
