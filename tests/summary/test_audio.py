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


@pytest.mark.parametrize("pcm,expected", [  # each integer dtype's full range onto 16 bits, by dtype alone
    (np.array([-128, -1, 0, 1, 127], np.int8), [-32768, -256, 0, 256, 32512]),
    (np.array([0, 127, 128, 255], np.uint8), [-32768, -256, 0, 32512]),  # WAV's 8-bit format: 128 is silence
    (np.array([0, 32768, 65535], np.uint16), [-32768, 0, 32767]),
    (np.array([-2**31, -65536, 32767, 32768, 2**31 - 1], np.int32), [-32768, -1, 0, 1, 32767]),
    (np.array([0, 2**31, 2**32 - 1], np.uint32), [-32768, 0, 32767]),
])
def test_integer_pcm_keeps_its_scale(pcm, expected):
    samples, _, _, _ = read_wav(summary.audio("a", pcm, 8000))
    assert samples[:, 0].tolist() == expected


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.bool_])
def test_integers_without_a_pcm_scale_are_refused_not_clipped(dtype):
    with pytest.raises(TypeError, match=f"^tensor: {np.dtype(dtype).name} samples have no PCM scale"):
        summary.audio("a", np.array([0, 1, 1000]).astype(dtype), 8000)


@pytest.mark.parametrize("tensor,rate,match", [
    (np.zeros((2, 2, 2)), 44100, "^tensor: expected"), (np.zeros(0), 44100, "^tensor: expected"),
    (np.zeros(4), 0, "^sample_rate: "), (np.zeros(4), 22.5, "^sample_rate: "),
])
def test_errors(tensor, rate, match):
    with pytest.raises(ValueError, match=match):
        summary.audio("a", tensor, sample_rate=rate)


def test_int32_samples_within_int16_range_warn_that_they_are_near_silence():
    with pytest.warns(UserWarning, match=r"^tensor: int32 samples are 32-bit PCM, and these peak below 2\*\*15"):
        samples, _, _, _ = read_wav(summary.audio("a", np.array([1000, -2000, 30000], np.int32), 8000))
    assert samples[:, 0].tolist() == [0, 0, 0]  # the dtype rule still holds: the warning says so


def test_audio_channels_and_length_are_bounded_before_encoding():
    from tensorboard.summary.audio import MAX_AUDIO_SAMPLES, check_audio_args

    with pytest.raises(ValueError, match=r"^tensor: 70000 channels \(shape \(10, 70000\)\); WAV holds at most 65535"):
        summary.audio("a", np.zeros((10, 70000), np.float32))
    with pytest.raises(ValueError, match=rf"^tensor: {MAX_AUDIO_SAMPLES + 2} samples .* more than {MAX_AUDIO_SAMPLES}"):
        check_audio_args((MAX_AUDIO_SAMPLES // 2 + 1, 2), 44100)  # from the shape: nothing allocated
