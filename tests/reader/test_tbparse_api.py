"""tbparse's whole public API on our SummaryReader: the same members and signatures as tbparse 0.0.9,
and the same answers (children tree, tags, raw tags and events, static helpers) on the same logdirs,
tbparse running in .venv-upstream (tests/tools/tbparse_api_dump.py)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from tbparse_ref import write_peer_logs
from upstream import upstream_python
from waiting import module_from_file

import tensorboard
from tensorboard import summary
from tensorboard.reader import SummaryReader

TOOL = Path(__file__).resolve().parents[1] / "tools" / "tbparse_api_dump.py"
# tbparse reads images and audio only with TensorFlow (absent there); we read them without it
REDUCED = ["histograms", "hparams", "scalars", "tensors", "text"]


DUMP = module_from_file("tbparse_api_dump", TOOL)


def tbparse(*args: str):
    result = subprocess.run([upstream_python(), str(TOOL), *args], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": ""})
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_public_surface_is_tbparses():
    """Every public member of tbparse's SummaryReader, of the same kind, taking tbparse's parameters
    (same names, kinds and defaults, in order); ours may add keyword-only parameters after them."""
    theirs = tbparse("surface")
    ours = DUMP.surface(SummaryReader)
    differences = []
    for name, (kind, *rest) in theirs.items():
        if name not in ours:
            differences.append(f"missing {name}")
            continue
        our_kind, *our_rest = ours[name]
        if our_kind != kind:
            differences.append(f"{name}: {kind} in tbparse, {our_kind} here")
        elif rest:
            their_params, our_params = rest[0], our_rest[0]
            extra = our_params[len(their_params):]
            if our_params[:len(their_params)] != their_params or any(p[1] != "KEYWORD_ONLY" for p in extra):
                differences.append(f"{name}: parameters {their_params} in tbparse, {our_params} here")
    assert not differences, "\n".join(differences)


def write_tree(root: Path) -> None:
    """Runs of ours and of peers, nested, with a file that is not an event file and an empty directory."""
    rng = np.random.default_rng(5)
    for run in ("a", "a/deeper", "b"):
        with tensorboard.SummaryWriter(str(root / run)) as writer:
            for step in range(4):
                writer.add_scalar("loss", 1.0 / (step + 1), step)
                writer.add_scalar("x/y", float(step), step, new_style=True)
                writer.add_histogram("w", rng.normal(size=50), step)
                writer.add_text("note", f"s{step}", step)
            writer.add_hparams({"lr": 0.1, "opt": "adam"}, {"hp/m": 1.0}, run_name=".")
    with tensorboard.FileWriter(str(root / "b")) as writer:  # a second file in run b
        writer.add_summary(summary.scalar("late", 3.0), 9)
    write_peer_logs("torch", root / "torch")
    (root / "notes.txt").write_text("not events")
    (root / "empty").mkdir()


@pytest.fixture(scope="module")
def logdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    write_tree(root)
    return root


def our_tree(reader, kinds) -> dict:
    return json.loads(json.dumps(DUMP.tree(reader, kinds)))


def test_children_tags_raw_tags_and_raw_events_equal_tbparses(logdir):
    kwargs = {"pivot": True, "extra_columns": {"dir_name", "wall_time"}, "event_types": set(REDUCED)}
    theirs = tbparse("tree", str(logdir), json.dumps({k: sorted(v) if isinstance(v, set) else v
                                                       for k, v in kwargs.items()}))
    ours = our_tree(SummaryReader(logdir, **kwargs), REDUCED)
    hparams_sorted(theirs)
    hparams_sorted(ours)
    assert ours == theirs
    assert set(ours["children"]) == {"a", "b", "torch", "notes.txt", "empty"}
    assert len(ours["children"]["b"]["children"]) == 2 and "raw_error" in ours  # writer (its hparams too), FileWriter


def hparams_sorted(node: dict) -> None:
    """Hyperparameter names come in a protobuf map's order, which neither reader promises: sorted here."""
    for tags in [node["tags"], node["get_tags"]]:
        if "hparams" in tags:
            tags["hparams"] = sorted(tags["hparams"])
    for child in node["children"].values():
        hparams_sorted(child)


def test_children_frames_equal_the_parents_parts(logdir):
    reader = SummaryReader(logdir, extra_columns={"dir_name"})
    child = reader["a"]
    assert child.log_path == os.path.join(str(logdir), "a")
    own = reader.scalars
    part = own[own.dir_name.str.startswith("a")]
    assert sorted(child.scalars["value"]) == sorted(part["value"]) and len(part) == 10  # with hp/m
    assert reader.children["notes.txt"].scalars.empty


def test_raw_api_refuses_a_directory_and_unknown_types(logdir):
    reader = SummaryReader(logdir)
    with pytest.raises(ValueError, match="Not an event file"):
        reader.raw_tags
    leaf = next(child for name, child in reader["a"].children.items() if "tfevents" in name)
    with pytest.raises(ValueError, match="Unknown event_type"):
        leaf.get_raw_tags("nope")
    with pytest.raises(ValueError, match="Unknown event_type"):
        reader.get_tags("nope")
    with pytest.raises(ValueError, match="tag shouldn't be set"):
        leaf.get_raw_events(None, "loss")


def test_option_errors_are_tbparses_types_too(logdir):
    with pytest.raises(KeyError):
        SummaryReader(logdir, extra_columns={"nope"})
    with pytest.raises(KeyError):
        SummaryReader(logdir, event_types={"nope"})
    with pytest.raises(ValueError):
        SummaryReader(logdir, extra_columns=["wall_time"])
    with pytest.raises(ValueError, match="not found"):
        SummaryReader(logdir / "missing")


STATIC_CASES = {
    "cdf": ["histogram_to_cdf", [[0, 2, 5, 3], [-1.0, 0.0, 1.5, 4.0], [-2, -1, -0.5, 0, 1, 1.5, 3, 4, 5]]],
    "cdf_repeated_edge": ["histogram_to_cdf", [[0, 1, 0, 4, 2], [0.0, 1.0, 1.0, 2.0, 3.0], [0.5, 1.0, 1.5, 3.0]]],
    "cdf_bad_x": ["histogram_to_cdf", [[0, 1], [0.0, 1.0], [0.5, 0.2]]],
    "cdf_bad_lengths": ["histogram_to_cdf", [[0, 1, 2], [0.0, 1.0], [0.5]]],
    "pdf": ["histogram_to_pdf", [[0, 2, 5, 3], [-1.0, 0.0, 1.5, 4.0], [-1.0, 0.0, 0.5, 2.0, 4.0]]],
    "bins_default": ["histogram_to_bins", [[0, 2, 5, 3], [-1.0, 0.0, 1.5, 4.0]]],
    "bins_bounds": ["histogram_to_bins", [[0, 2, 5, 3, 1], [-1.0, 0.0, 1.5, 4.0, 4.0], -1.0, 4.0, 7]],
    "bins_equal_bounds": ["histogram_to_bins", [[0, 4], [2.0, 2.0], 2.0, 2.0, 5]],
    "bins_inner": ["histogram_to_bins", [[0, 1, 7, 2], [-3.0, -1.0, 2.0, 9.0], -2.0, 5.0, 30]],
    "bins_bad_first_count": ["histogram_to_bins", [[1, 2], [0.0, 1.0]]],
    "tensor_to_histogram": ["tensor_to_histogram", [[[-1.0, 0.0, 2.0], [0.0, 1.5, 5.0], [1.5, 4.0, 3.0]]]],
    "buckets_to_histogram_dict": ["buckets_to_histogram_dict", [[[0.0, 1.0, 4.0], [1.0, 2.0, 0.0]]]],
}


def test_static_helpers_equal_tbparses(tmp_path):
    rng = np.random.default_rng(9)
    cases = dict(STATIC_CASES)
    for i in range(20):  # random buckets, evaluation points and bin ranges
        limits = np.cumsum(rng.uniform(0.0, 2.0, size=12)) - 8.0
        counts = [0] + rng.integers(0, 9, size=11).tolist()
        x = np.unique(np.round(rng.uniform(-10, 10, size=15), 3)).tolist()
        cases[f"cdf{i}"] = ["histogram_to_cdf", [counts, limits.tolist(), x]]
        cases[f"pdf{i}"] = ["histogram_to_pdf", [counts, limits.tolist(), x]]
        low, high = sorted(rng.uniform(-10, 10, size=2).tolist())
        cases[f"bins{i}"] = ["histogram_to_bins", [counts, limits.tolist(), low, high, int(rng.integers(1, 40))]]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    theirs = tbparse("static", str(tmp_path / "cases.json"))
    ours = json.loads(json.dumps(DUMP.static(SummaryReader, cases)))
    for key in cases:
        # tbparse asserts (AssertionError); we raise ValueError naming the input
        if isinstance(theirs[key], list) and theirs[key][0] == "error":
            assert ours[key] == ["error", "ValueError"], key
        else:
            assert ours[key] == theirs[key], key


def test_tensor_to_image_and_audio_decode_what_was_written(tmp_path):
    """tbparse needs TensorFlow for these two (absent in its venv): checked against the values written."""
    pixels = np.arange(2 * 3 * 4 * 3, dtype=np.uint8).reshape(2, 3, 4, 3)
    proto = summary.image_samples("im", pixels, max_outputs=2)
    from tensorboard.logdir.payloads import tensor_to_numpy

    tensor = tensor_to_numpy(proto.value[0].tensor)
    both = SummaryReader.tensor_to_image(tensor)
    assert both["width"] == 4 and both["height"] == 3 and np.array_equal(both["image"], pixels)
    one = SummaryReader.tensor_to_image(tensor[:3])
    assert np.array_equal(one["image"], pixels[0])
    from tensorboard.summary.audio import encode_wav

    clip = (np.arange(10, dtype=np.int16) * 100).reshape(5, 2)
    wav = encode_wav(clip, 8000)
    sound = SummaryReader.tensor_to_audio(np.array([[wav, b""]], dtype=object))
    assert sound["content_type"] == "audio/wav" and sound["length_frames"] == 5 and sound["sample_rate"] == 8000
    assert np.array_equal(sound["audio"], clip / 32768.0)
    two = SummaryReader.tensor_to_audio(np.array([[wav, b""], [wav, b""]], dtype=object))
    assert two["audio"].shape == (2, 5, 2) and two["sample_rate"].tolist() == [8000, 8000]
