"""summary.audio: 16-bit PCM WAV, mono or multi-channel."""
import io
import wave

import numpy as np
import pytest

from tensorboard import summary


def read_wav(proto):
    (value,) = proto.value
    with wave.open(io.BytesIO(value.audio.encoded_audio_string)) as wav:
        samples = np.frombuffer(wav.readframes(wav.getnframes()), "<i2").reshape(-1, wav.getnchannels())
        return samples, wav.getframerate(), wav.getsampwidth(), value.audio


def test_mono_float_is_clipped_and_quantized():
    samples, rate, width, audio = read_wav(summary.audio("a", np.array([0.0, 0.5, -1.0, 1.5, -2.0, np.nan]), 16000))
    assert samples[:, 0].tolist() == [0, 16384, -32767, 32767, -32767, 0]
    assert (rate, width, audio.sample_rate, audio.num_channels, audio.length_frames, audio.content_type) == (
        16000, 2, 16000, 1, 6, "audio/wav")


def test_stereo_and_int16_passthrough():
    pcm = np.array([[1, -1], [32767, -32768], [5, 6]], dtype=np.int16)
    samples, _, _, audio = read_wav(summary.audio("a", pcm))
    np.testing.assert_array_equal(samples, pcm)
    assert audio.num_channels == 2 and audio.length_frames == 3 and audio.sample_rate == 44100


@pytest.mark.parametrize("tensor,rate,match", [
    (np.zeros((2, 2, 2)), 44100, "^tensor: expected"), (np.zeros(0), 44100, "^tensor: expected"),
    (np.zeros(4), 0, "^sample_rate: "), (np.zeros(4), 22.5, "^sample_rate: "),
])
def test_errors(tensor, rate, match):
    with pytest.raises(ValueError, match=match):
        summary.audio("a", tensor, sample_rate=rate)
