"""Every summary type, written by our FileWriter and read back by upstream TensorBoard 2.21.

One logdir holds all the data (upstream runs in a subprocess, so it is read once per module);
each test compares what was logged with what upstream's readers decode.
"""
import numpy as np
import pytest
from bounds import squares_are_within_bound, sum_is_within_bound
from upstream import as_array, plugin_content, upstream_read

import tensorboard
from tensorboard import summary
from tensorboard.src import hparams_pb2, layout_pb2, mesh_pb2, plugin_data_pb2

RNG = np.random.default_rng(1234)
HIST_VALUES = RNG.standard_normal(5000).astype(np.float32) * 3
HIST_VALUES_64 = np.concatenate([RNG.standard_normal(300) * 1e6, [0.0, -0.0, 1e-300, 5.0]])
IMG_HWC = RNG.random((12, 9, 3)).astype(np.float32)
IMG_CHW_U8 = RNG.integers(0, 256, (4, 7, 5), dtype=np.uint8)
IMG_BATCH = RNG.integers(0, 256, (5, 1, 6, 4), dtype=np.uint8)
IMG_INT16 = ((RNG.random((10, 11, 1)) * 0xFFFF).astype(np.int64)).astype(np.int16)
AUDIO_MONO = np.sin(np.linspace(0, 40, 800)).astype(np.float32) * 1.2  # clipped beyond ±1
AUDIO_STEREO = RNG.uniform(-1, 1, (300, 2))
LABELS = RNG.integers(0, 2, 200).astype(bool)
PREDICTIONS = np.clip(LABELS * 0.3 + RNG.random(200) * 0.7, 0, 1)
VERTICES = RNG.random((1, 6, 3)).astype(np.float32)
FACES = np.array([[[0, 1, 2], [3, 4, 5]]], dtype=np.int32)
COLORS = RNG.integers(0, 256, (1, 6, 3), dtype=np.uint8)
VIDEO = (RNG.integers(0, 4, (2, 3, 1, 5, 6)) * 80).astype(np.uint8)  # N T C H W, 4 gray levels


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    logdir = tmp_path_factory.mktemp("all_types")
    writer = tensorboard.FileWriter(str(logdir))
    writer.add_summary(summary.scalar("train-accuracy", 0.9), 1)
    writer.add_summary(summary.scalar("loss", float("nan"), display_name="Loss!", description="the loss"), 2)
    writer.add_summary(summary.scalar("inf", np.float64("inf")), 3)
    writer.add_summary(summary.histogram("hist", HIST_VALUES), 5)
    writer.add_summary(summary.histogram("hist64", HIST_VALUES_64), 5)
    writer.add_summary(summary.histogram("hist_np", HIST_VALUES, bins=10), 5)
    writer.add_summary(summary.image("img_hwc", IMG_HWC), 1)
    writer.add_summary(summary.image("img_chw", IMG_CHW_U8[:3], dataformats="CHW"), 1)
    writer.add_summary(summary.image("img_rgba", IMG_CHW_U8, dataformats="CHW"), 1)
    writer.add_summary(summary.images("img_batch", IMG_BATCH), 1)
    writer.add_summary(summary.image_samples("img_samples", IMG_BATCH, max_outputs=3, dataformats="NCHW"), 1)
    writer.add_summary(summary.image("img_int16", IMG_INT16), 1)
    writer.add_summary(summary.audio("audio_mono", AUDIO_MONO, sample_rate=8000), 1)
    writer.add_summary(summary.audio("audio_stereo", AUDIO_STEREO, sample_rate=22050), 1)
    writer.add_summary(summary.text("text", "hello **world**"), 1)
    writer.add_summary(summary.text("table", [["a", "b"], ["c", "ünï"]]), 1)
    writer.add_summary(summary.pr_curve("pr", LABELS, PREDICTIONS, num_thresholds=11), 1)
    writer.add_summary(summary.pr_curve_raw("pr_raw", *[np.arange(5) + i for i in range(6)], num_thresholds=5), 1)
    writer.add_summary(summary.mesh("mesh", VERTICES, colors=COLORS, faces=FACES,
                                    config_dict={"camera": {"fov": 75}}), 1)
    writer.add_summary(summary.video("video", VIDEO, fps=5), 1)
    writer.add_summary(summary.custom_scalars({"Losses": {"both": ["Multiline", ["loss", "train.*"]],
                                                          "band": ["Margin", ["m", "lo", "hi"]]}}))
    for part in summary.hparams({"lr": 0.01, "optimizer": "adam", "bn": True, "layers": 3},
                                {"hparam/accuracy": 0.5}, hparam_domain_discrete={"optimizer": ["adam", "sgd"]}):
        writer.add_summary(part, 0)
    writer.close()
    return upstream_read(logdir)["runs"]["."]


def tensor_of(run, tag, index=0):
    return as_array(run["tensors"][tag][index][2])


def test_scalars(run):
    assert run["scalars"]["train-accuracy"][0][0] == 1
    assert run["scalars"]["train-accuracy"][0][2] == pytest.approx(0.9, rel=1e-7)
    assert np.isnan(run["scalars"]["loss"][0][2])
    assert run["scalars"]["inf"][0][2] == float("inf")
    assert run["metadata"]["loss"]["display_name"] == "Loss!"
    assert run["metadata"]["loss"]["description"] == "the loss"
    assert run["metadata"]["train-accuracy"]["plugin_name"] == "scalars"
    assert tensor_of(run, "train-accuracy") == np.float32(0.9)


def reference_counts(values):
    """Counts over TensorBoard's default buckets by brute force: bucket i holds (limit[i-1], limit[i]]."""
    edges = []
    edge = 1e-12
    while edge < 1e20:
        edges.append(edge)
        edge *= 1.1
    limits = np.array([-np.finfo(np.float64).max] + [-e for e in reversed(edges)] + [0.0] + edges
                      + [np.finfo(np.float64).max])
    counts = np.bincount(np.searchsorted(limits, np.asarray(values, np.float64), side="left"), minlength=len(limits))
    return limits, counts


@pytest.mark.parametrize("tag,values", [("hist", HIST_VALUES), ("hist64", HIST_VALUES_64)])
def test_histogram_matches_reference_buckets(run, tag, values):
    (step, histo), = run["histograms"][tag]
    limits, counts = reference_counts(values)
    nonzero = counts > 0
    assert step == 5
    assert histo["num"] == values.size
    assert histo["min"] == float(values.min()) and histo["max"] == float(values.max())
    assert sum_is_within_bound(histo["sum"], values) and squares_are_within_bound(histo["sum_squares"], values)
    assert sum(histo["bucket"]) == values.size
    got = dict(zip(histo["bucket_limit"], histo["bucket"]))
    assert {limit: count for limit, count in got.items() if count} == dict(zip(limits[nonzero], counts[nonzero]))


def test_histogram_migrated_tensor(run):
    buckets = tensor_of(run, "hist")
    assert buckets.shape[1] == 3
    assert buckets[:, 2].sum() == HIST_VALUES.size
    assert buckets[0, 0] == np.float32(HIST_VALUES.min()) and buckets[-1, 1] == np.float32(HIST_VALUES.max())
    assert np.all(buckets[:, 0] <= buckets[:, 1])
    assert run["metadata"]["hist"]["plugin_name"] == "histograms"


def test_histogram_numpy_bins(run):
    (_, histo), = run["histograms"]["hist_np"]
    counts, edges = np.histogram(HIST_VALUES, bins=10)
    assert histo["bucket"] == counts.tolist() and histo["bucket_limit"] == edges[1:].tolist()


def decoded_pixels(run, tag):
    (step, width, height, decoded), = run["images"][tag]
    assert decoded["format"] == "PNG" and (decoded["width"], decoded["height"]) == (width, height)
    return as_array(decoded["pixels"])


def test_image_float_hwc(run):
    pixels = decoded_pixels(run, "img_hwc")
    np.testing.assert_array_equal(pixels, np.rint(IMG_HWC * 255).astype(np.uint8))


def test_image_chw_uint8_and_rgba(run):
    np.testing.assert_array_equal(decoded_pixels(run, "img_chw"), IMG_CHW_U8[:3].transpose(1, 2, 0))
    np.testing.assert_array_equal(decoded_pixels(run, "img_rgba"), IMG_CHW_U8.transpose(1, 2, 0))


def test_image_batch_grid(run):
    pixels = decoded_pixels(run, "img_batch")  # 5 gray 6x4 images: grid of 5 columns, 1 row
    assert pixels.shape == (6, 20)
    for index in range(5):
        np.testing.assert_array_equal(pixels[:, index * 4:(index + 1) * 4], IMG_BATCH[index, 0])


def test_image_samples_are_separate_images_of_one_step(run):
    """tf.summary.image's form: the images plugin's `[width, height, png, ...]`, the first 3 of 5 kept."""
    assert run["metadata"]["img_samples"]["plugin_name"] == "images"
    assert run["metadata"]["img_samples"]["data_class"] == 3  # DATA_CLASS_BLOB_SEQUENCE
    (step, samples), = run["image_samples"]["img_samples"]
    assert step == 1 and len(samples) == 3
    for index, sample in enumerate(samples):
        assert (sample["width"], sample["height"], sample["mode"]) == (4, 6, "L")
        np.testing.assert_array_equal(as_array(sample["pixels"]), IMG_BATCH[index, 0])
    width, height = as_array(run["tensors"]["img_samples"][0][2])[:2]
    assert (width, height) == ("4", "6")
    with pytest.raises(ValueError, match="max_outputs"):
        summary.image_samples("x", IMG_BATCH, max_outputs=0, dataformats="NCHW")


def test_image_int16_full_range(run):
    pixels = decoded_pixels(run, "img_int16")
    expected = np.round((IMG_INT16[:, :, 0].astype(np.float64) + 32768) * 255 / 65535).astype(np.uint8)
    np.testing.assert_array_equal(pixels, expected)


def test_image_migrated_tensor(run):
    width, height, png = as_array(run["tensors"]["img_hwc"][0][2])
    assert (int(width), int(height)) == (9, 12)
    assert run["metadata"]["img_hwc"]["plugin_name"] == "images"


def test_audio(run):
    (step, rate, frames, content_type, wav), = run["audio"]["audio_mono"]
    assert (rate, frames, content_type) == (8000, 800, "audio/wav")
    assert (wav["channels"], wav["sampwidth"], wav["rate"]) == (1, 2, 8000)
    expected = np.rint(np.clip(AUDIO_MONO.astype(np.float64), -1, 1) * 32767).astype(np.int16)
    np.testing.assert_array_equal(as_array(wav["samples"]), expected)
    (_, rate, frames, _, wav), = run["audio"]["audio_stereo"]
    assert (rate, frames, wav["channels"]) == (22050, 300, 2)
    np.testing.assert_array_equal(as_array(wav["samples"]).reshape(300, 2), np.rint(AUDIO_STEREO * 32767))
    assert run["metadata"]["audio_mono"]["plugin_name"] == "audio"


def test_text(run):
    assert tensor_of(run, "text").tolist() == "hello **world**"
    assert tensor_of(run, "table").tolist() == [["a", "b"], ["c", "ünï"]]
    assert run["metadata"]["text"]["plugin_name"] == "text"
    plugin_data_pb2.TextPluginData.FromString(plugin_content(run, "text"))


def test_pr_curve(run):
    data = tensor_of(run, "pr")
    assert data.shape == (6, 11) and data.dtype == np.float32
    tp, fp, tn, fn, precision, recall = data.astype(np.float64)
    for i, threshold in enumerate(np.arange(11) / 10):
        predicted = np.floor(PREDICTIONS * 10) >= i  # thresholds on the 1/10 grid
        assert tp[i] == np.sum(predicted & LABELS) and fp[i] == np.sum(predicted & ~LABELS)
        assert tn[i] == np.sum(~predicted & ~LABELS) and fn[i] == np.sum(~predicted & LABELS)
    np.testing.assert_allclose(precision, tp / np.maximum(tp + fp, 1e-7), rtol=1e-6)
    np.testing.assert_allclose(recall, tp / np.maximum(tp + fn, 1e-7), rtol=1e-6)
    meta = plugin_data_pb2.PrCurvePluginData.FromString(plugin_content(run, "pr"))
    assert run["metadata"]["pr"]["plugin_name"] == "pr_curves" and meta.num_thresholds == 11
    np.testing.assert_array_equal(tensor_of(run, "pr_raw"), np.stack([np.arange(5) + i for i in range(6)]))


def test_mesh(run):
    for suffix, expected, content_type in (("VERTEX", VERTICES, mesh_pb2.MeshPluginData.VERTEX),
                                           ("FACE", FACES, mesh_pb2.MeshPluginData.FACE),
                                           ("COLOR", COLORS, mesh_pb2.MeshPluginData.COLOR)):
        tag = f"mesh_{suffix}"
        got = tensor_of(run, tag)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        meta = mesh_pb2.MeshPluginData.FromString(plugin_content(run, tag))
        assert run["metadata"][tag]["plugin_name"] == "mesh"
        assert (meta.name, meta.content_type, list(meta.shape)) == ("mesh", content_type, list(expected.shape))
        assert meta.components == 0b1110
        assert meta.json_config == '{"camera": {"fov": 75}}'


def test_video_gif(run):
    (step, width, height, decoded), = run["images"]["video"]
    assert decoded["format"] == "GIF" and decoded["frames"] == 3
    assert (width, height) == (12, 5)  # two clips side by side
    first = as_array(decoded["pixels"])
    first = first[..., 0] if first.ndim == 3 else first
    np.testing.assert_array_equal(first, np.concatenate([VIDEO[0, 0, 0], VIDEO[1, 0, 0]], axis=1))


def test_custom_scalars(run):
    raw = tensor_of(run, "custom_scalars__config__")
    layout = layout_pb2.Layout.FromString(raw.item().encode("utf-8") if isinstance(raw.item(), str) else raw.item())
    assert run["metadata"]["custom_scalars__config__"]["plugin_name"] == "custom_scalars"
    (category,) = layout.category
    assert category.title == "Losses"
    assert [c.title for c in category.chart] == ["both", "band"]
    assert list(category.chart[0].multiline.tag) == ["loss", "train.*"]
    series = category.chart[1].margin.series[0]
    assert (series.value, series.lower, series.upper) == ("m", "lo", "hi")


def test_hparams(run):
    experiment = hparams_pb2.HParamsPluginData.FromString(plugin_content(run, "_hparams_/experiment")).experiment
    infos = {info.name: info for info in experiment.hparam_infos}
    assert infos["lr"].type == hparams_pb2.DATA_TYPE_FLOAT64
    assert infos["optimizer"].type == hparams_pb2.DATA_TYPE_STRING
    assert infos["bn"].type == hparams_pb2.DATA_TYPE_BOOL
    assert [v.string_value for v in infos["optimizer"].domain_discrete.values] == ["adam", "sgd"]
    assert [m.name.tag for m in experiment.metric_infos] == ["hparam/accuracy"]
    start = hparams_pb2.HParamsPluginData.FromString(plugin_content(run, "_hparams_/session_start_info"))
    values = start.session_start_info.hparams
    assert values["lr"].number_value == 0.01 and values["layers"].number_value == 3
    assert values["optimizer"].string_value == "adam" and values["bn"].bool_value is True
    end = hparams_pb2.HParamsPluginData.FromString(plugin_content(run, "_hparams_/session_end_info"))
    assert end.session_end_info.status == hparams_pb2.STATUS_SUCCESS
    for tag in ("_hparams_/experiment", "_hparams_/session_start_info", "_hparams_/session_end_info"):
        assert run["metadata"][tag]["plugin_name"] == "hparams"
        assert tensor_of(run, tag).shape == (0,)
