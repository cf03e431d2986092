"""projector.write_embedding: file contents, config merging, validation, and upstream's view."""
import warnings

import numpy as np
import pytest
from google.protobuf import text_format
from upstream import as_array, upstream_read

from tensorboard import projector
from tensorboard.events.storage import LocalStorage
from tensorboard.src import projector_config_pb2

FS = LocalStorage()
RNG = np.random.default_rng(7)


def parse_tsv(data: bytes) -> np.ndarray:
    """Parses TSV the way upstream's projector does: float() per field, then float32."""
    return np.array([[float(x) for x in line.split("\t")] for line in data.decode().splitlines() if line],
                    dtype=np.float32)


def load_config(run_dir) -> projector_config_pb2.ProjectorConfig:
    config = projector_config_pb2.ProjectorConfig()
    text_format.Parse((run_dir / "projector_config.pbtxt").read_text(), config)
    return config


@pytest.mark.parametrize("matrix", [
    RNG.standard_normal((50, 7)).astype(np.float32),
    np.array([[0.0, -0.0, 1.0, -1.0], [1e-45, -1e-45, 3.4028235e38, -3.4028235e38],
              [0.1, 99999999.5, 1.1754944e-38, 123456789.0]], dtype=np.float32),
    RNG.integers(0, 2 ** 32, (300, 4), dtype=np.uint64).astype(np.uint32).view(np.float32),  # all bit patterns
])
def test_tsv_round_trips_float32_exactly(matrix):
    parsed = parse_tsv(projector.tsv_bytes(matrix))
    np.testing.assert_array_equal(parsed, matrix.astype(np.float32))  # NaN == NaN for assert_array_equal


def test_tsv_format_is_plain():
    assert projector.tsv_bytes(np.array([[1.5, -2.0], [0.0, 0.125]], np.float32)) == (
        b"1.50000000e+00\t-2.00000000e+00\n0.00000000e+00\t1.25000000e-01\n")


def test_write_embedding_files_and_config(tmp_path):
    matrix = RNG.standard_normal((10, 3))
    images = RNG.random((10, 3, 4, 5))
    projector.write_embedding(FS, str(tmp_path), matrix, metadata=[f"l{i}\tx" for i in range(10)],
                              label_img=images, tag="emb/one", global_step=3)
    sub = tmp_path / "00003" / "emb%2Fone"
    np.testing.assert_array_equal(parse_tsv((sub / "tensors.tsv").read_bytes()), matrix.astype(np.float32))
    assert (sub / "metadata.tsv").read_text().splitlines() == [f"l{i} x" for i in range(10)]
    (entry,) = load_config(tmp_path).embeddings
    assert entry.tensor_name == "emb/one:00003"
    assert entry.tensor_path == "00003/emb%2Fone/tensors.tsv"
    assert entry.metadata_path == "00003/emb%2Fone/metadata.tsv"
    assert list(entry.tensor_shape) == [10, 3]
    assert entry.sprite.image_path == "00003/emb%2Fone/sprite.png"
    assert list(entry.sprite.single_image_dim) == [5, 4]


def test_float64_beyond_float32_is_written_as_inf_with_a_warning(tmp_path):
    matrix = np.array([[1e300, 1.0], [-1e300, np.inf], [np.nan, 2.0]])
    with pytest.warns(UserWarning, match="^mat: 2 finite values are beyond float32's range and are written as inf"):
        projector.write_embedding(FS, str(tmp_path), matrix, tag="big")
    parsed = parse_tsv((tmp_path / "big" / "tensors.tsv").read_bytes())
    np.testing.assert_array_equal(parsed, [[np.inf, 1.0], [-np.inf, np.inf], [np.nan, 2.0]])
    with warnings.catch_warnings():  # infinities and NaN the caller passed warn nothing
        warnings.simplefilter("error")
        projector.write_embedding(FS, str(tmp_path), np.array([[1e38, np.inf], [np.nan, -1e38]]), tag="fine")


def test_config_merges_and_replaces(tmp_path):
    for step in (0, 1):
        for tag in ("a", "b"):
            projector.write_embedding(FS, str(tmp_path), np.full((2, 2), step), tag=tag, global_step=step)
    projector.write_embedding(FS, str(tmp_path), np.ones((4, 2)), tag="a", global_step=0)  # replaces in place
    projector.write_embedding(FS, str(tmp_path), np.ones((2, 2)), tag="nostep")
    config = load_config(tmp_path)
    assert [e.tensor_name for e in config.embeddings] == ["a:00000", "b:00000", "a:00001", "b:00001", "nostep"]
    assert list(config.embeddings[0].tensor_shape) == [4, 2]
    assert config.embeddings[-1].tensor_path == "nostep/tensors.tsv"


def test_multi_column_metadata(tmp_path):
    projector.write_embedding(FS, str(tmp_path), np.zeros((2, 2)), metadata=[["x", 1], ["y\n", 2]],
                              metadata_header=["name", "count"])
    assert (tmp_path / "default" / "metadata.tsv").read_text() == "name\tcount\nx\t1\ny \t2\n"


@pytest.mark.parametrize("kwargs,match", [
    (dict(mat=np.zeros((3, 2)), metadata=["a", "b"]), "metadata: expected one label per embedding row"),
    (dict(mat=np.zeros(3)), "mat: expected a non-empty 2-d"),
    (dict(mat=np.zeros((2, 2)), label_img=np.zeros((3, 3, 4, 4))), "label_img: expected one image"),
    (dict(mat=np.zeros((2, 2)), label_img=np.zeros((2, 2, 4, 4))), "label_img: expected NCHW images"),
    (dict(mat=np.zeros((2, 2)), metadata=[["a", "b"], ["c", "d"]]), "metadata_header"),
    (dict(mat=np.zeros((2, 2)), metadata=[["a", "b"], ["c"]], metadata_header=["x", "y"]), r"metadata\[1\]"),
])
def test_validation_errors_name_the_argument(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        projector.write_embedding(FS, str(tmp_path), **kwargs)
    assert not (tmp_path / "projector_config.pbtxt").exists()  # nothing written on bad input


def test_corrupt_config_is_rewritten_with_a_warning(tmp_path):
    (tmp_path / "projector_config.pbtxt").write_text("this is { not a config")
    with pytest.warns(UserWarning, match="not a valid projector config"):
        projector.write_embedding(FS, str(tmp_path), np.zeros((1, 1)))
    assert [e.tensor_name for e in load_config(tmp_path).embeddings] == ["default"]


def test_sprite_grid():
    images = np.arange(5 * 1 * 2 * 3, dtype=np.uint8).reshape(5, 1, 2, 3)
    sprite = projector.sprite_image(images, 5)
    assert sprite.shape == (6, 9, 1)  # 3x3 grid of 2x3 thumbnails
    np.testing.assert_array_equal(sprite[2:4, 3:6, 0], images[4, 0])  # row 1, column 1
    assert not sprite[4:, :, 0].any()


def test_upstream_reads_embeddings(tmp_path):
    matrix = RNG.standard_normal((20, 6)).astype(np.float32)
    labels = [f"label {i}" for i in range(20)]
    images = RNG.integers(0, 256, (20, 3, 4, 4), dtype=np.uint8)
    projector.write_embedding(FS, str(tmp_path), matrix, metadata=labels, label_img=images, tag="feat", global_step=1)
    projector.write_embedding(FS, str(tmp_path), np.zeros((2, 2)), tag="zeros", global_step=1)
    view = upstream_read(tmp_path)["runs"]["."]["projector"]
    first, second = view["embeddings"]
    assert first["tensor_name"] == "feat:00001" and first["tensor_shape"] == [20, 6]
    np.testing.assert_array_equal(as_array(first["tensor"]), matrix)
    assert first["metadata"] == labels
    assert first["sprite"]["single_image_dim"] == [4, 4]
    sprite = as_array(first["sprite"]["image"]["pixels"])
    assert sprite.shape == (20, 20, 3)  # 5x5 grid
    np.testing.assert_array_equal(sprite[4:8, 0:4], images[5].transpose(1, 2, 0))
    np.testing.assert_array_equal(as_array(second["tensor"]), np.zeros((2, 2), np.float32))


@pytest.mark.parametrize("rows", [1, 7, 8, 9, 16, 17, 100])
def test_tsv_chunks_join_to_the_unchunked_bytes(monkeypatch, rows):
    """Row blocks of 8 rows (monkeypatched): same bytes as one block, also when one late block holds a NaN."""
    matrix = RNG.standard_normal((rows, 5)).astype(np.float32)
    with_nan = matrix.copy()
    with_nan[-1, -1] = np.nan  # the slow "%.9g" format must then apply to every row, not just the last block
    whole = {}
    for chunk_values in (1 << 40, 40):  # 40 values = 8 rows of 5
        monkeypatch.setattr(projector, "_CHUNK_VALUES", chunk_values)
        for name, m in (("finite", matrix), ("nan", with_nan)):
            pieces = list(projector.tsv_chunks(m))
            assert len(pieces) == (1 if chunk_values > 40 else -(-rows // 8))
            whole.setdefault(name, b"".join(pieces))
            assert b"".join(pieces) == whole[name] == projector.tsv_bytes(m)
    np.testing.assert_array_equal(parse_tsv(whole["finite"]), matrix)
    assert whole["nan"].startswith(projector._slow_tsv(with_nan[:1]))


def test_write_chunks_is_atomic(tmp_path):
    target = tmp_path / "tensors.tsv"
    FS.write_chunks(str(target), iter([b"a\t", b"b\n"]))
    assert target.read_bytes() == b"a\tb\n"

    def failing():
        yield b"partial"
        raise RuntimeError("formatting failed")

    with pytest.raises(RuntimeError):
        FS.write_chunks(str(target), failing())
    assert target.read_bytes() == b"a\tb\n" and sorted(p.name for p in tmp_path.iterdir()) == ["tensors.tsv"]


def test_storage_without_write_chunks_gets_joined_bytes(tmp_path):
    class BytesOnly:  # write_embedding's documented minimum: makedirs, write_bytes, read_bytes, join
        makedirs, write_bytes, read_bytes = FS.makedirs, FS.write_bytes, FS.read_bytes
        join = staticmethod(FS.join)

    matrix = RNG.standard_normal((20, 3)).astype(np.float32)
    projector.write_embedding(BytesOnly(), str(tmp_path), matrix, tag="t")
    assert (tmp_path / "t" / "tensors.tsv").read_bytes() == projector.tsv_bytes(matrix)


@pytest.mark.parametrize("metadata,header", [
    (["a", "", "c"], None), (["a", " \t", "c"], None), (["a", "\ufeff", "c"], None),
    ([["a", "1"], ["", " "], ["c", "3"]], ["name", "n"]),
])
def test_blank_labels_are_refused_since_the_projector_skips_blank_lines(tmp_path, metadata, header):
    with pytest.raises(ValueError, match=r"^metadata\[1\]: an empty or blank label"):
        projector.write_embedding(FS, str(tmp_path), np.zeros((3, 2)), metadata=metadata, metadata_header=header)
    for header in (["", " "], ["\ufeff", " "]):
        with pytest.raises(ValueError, match="^metadata_header: the column names must not all be blank"):
            projector.write_embedding(FS, str(tmp_path), np.zeros((1, 2)), metadata=[["a", "b"]],
                                      metadata_header=header)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_rows_as_dicts_one_column_headers_and_numeric_labels(tmp_path):
    torch = pytest.importorskip("torch")
    records = [{"id": 1, "name": "cat", "extra": 0}, {"name": "", "id": 2}]  # df.to_dict("records")
    projector.write_embedding(FS, str(tmp_path), np.zeros((2, 2)), metadata=records, metadata_header=["name", "id"],
                              tag="dicts")
    with pytest.warns(UserWarning, match=r"^metadata_header: one column \('label'\) has no header line"):
        projector.write_embedding(FS, str(tmp_path), np.zeros((2, 2)), metadata=[["x"], ["y"]],
                                  metadata_header=["label"], tag="one")
    projector.write_embedding(FS, str(tmp_path), np.zeros((3, 2)), metadata=np.array([0.1, 0.7, 2], np.float32),
                              tag="floats")
    projector.write_embedding(FS, str(tmp_path), np.zeros((2, 2)), metadata=list(torch.tensor([3, 7])), tag="ints")
    with pytest.raises(ValueError, match=r"^metadata\[1\]: no value for column 'id'"):
        projector.write_embedding(FS, str(tmp_path), np.zeros((2, 2)), metadata=[{"id": 1}, {"x": 2}],
                                  metadata_header=["id"], tag="missing")
    metadata = {e["tensor_name"]: e["metadata"]
                for e in upstream_read(tmp_path)["runs"]["."]["projector"]["embeddings"]}
    assert metadata == {"dicts": ["name\tid", "cat\t1", "\t2"], "one": ["x", "y"], "floats": ["0.1", "0.7", "2.0"],
                        "ints": ["3", "7"]}


def test_dict_keys_and_dataframes_by_column_name(tmp_path):
    pd = pytest.importorskip("pandas")
    vocab = {"cat": 0, "dog": 1, "emu": 2}
    projector.write_embedding(FS, str(tmp_path), np.zeros((3, 2)), metadata=vocab.keys(), tag="keys")
    frame = pd.DataFrame({"id": [1, 2, 3], "label": ["cat", "dog", "emu"]})
    projector.write_embedding(FS, str(tmp_path), np.zeros((3, 2)), metadata=frame, metadata_header=["label", "id"],
                              tag="frame")
    metadata = {e["tensor_name"]: e["metadata"]
                for e in upstream_read(tmp_path)["runs"]["."]["projector"]["embeddings"]}
    assert metadata == {"keys": ["cat", "dog", "emu"], "frame": ["label\tid", "cat\t1", "dog\t2", "emu\t3"]}


@pytest.mark.parametrize("metadata", ["dog", b"dog", {"a": 1, "b": 2, "c": 3}, {"x", "y", "z"}])
def test_metadata_that_is_no_sequence_of_labels_is_refused(tmp_path, metadata):
    """add_embedding(mat, "dog") (a tag where tensorboardX takes metadata) must not label rows d, o, g."""
    with pytest.raises(TypeError, match="^metadata: expected a sequence with one label per embedding row"):
        projector.write_embedding(FS, str(tmp_path), np.zeros((3, 2)), metadata=metadata)
    assert list(tmp_path.iterdir()) == []


def test_names_the_projector_cannot_tell_apart_are_refused(tmp_path):
    projector.write_embedding(FS, str(tmp_path), np.ones((2, 2)), tag="x", global_step=1)
    projector.write_embedding(FS, str(tmp_path), np.ones((2, 2)), tag="emb")
    for tag, step in (("x:00001", None), ("emb:0", None)):
        with pytest.raises(ValueError, match="^tag: the embedding would be named .* choose another tag"):
            projector.write_embedding(FS, str(tmp_path), np.zeros((2, 2)), tag=tag, global_step=step)
    projector.write_embedding(FS, str(tmp_path), np.full((2, 2), 2.0), tag="x", global_step=1)  # same files: replaced
    view = upstream_read(tmp_path)["runs"]["."]["projector"]["embeddings"]
    assert [e["tensor_name"] for e in view] == ["x:00001", "emb"]
    assert as_array(view[0]["tensor"]).tolist() == [[2.0, 2.0]] * 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["00001", "emb", "projector_config.pbtxt"]


def test_dot_tags_stay_inside_the_run_directory(tmp_path):
    run = tmp_path / "run"
    for tag in (".", ".."):
        projector.write_embedding(FS, str(run), np.full((1, 2), len(tag)), tag=tag, metadata=["p"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
    assert sorted(p.name for p in run.iterdir()) == ["%2E", "%2E%2E", "projector_config.pbtxt"]
    view = upstream_read(tmp_path)["runs"]["run"]["projector"]["embeddings"]
    assert [(e["tensor_name"], as_array(e["tensor"]).tolist(), e["metadata"]) for e in view] == [
        (".", [[1.0, 1.0]], ["p"]), ("..", [[2.0, 2.0]], ["p"])]


def test_embeddings_from_many_threads_all_stay_in_the_config(tmp_path):
    import threading

    def log(worker):
        for i in range(25):
            projector.write_embedding(FS, str(tmp_path), np.full((2, 2), worker), tag=f"w{worker}", global_step=i)

    threads = [threading.Thread(target=log, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    names = {e["tensor_name"] for e in upstream_read(tmp_path)["runs"]["."]["projector"]["embeddings"]}
    assert names == {f"w{w}:{i:05d}" for w in range(8) for i in range(25)}


def test_a_sprite_beyond_the_projectors_8192_px_is_left_out_with_a_warning(tmp_path):
    with pytest.warns(UserWarning, match=r"^label_img: 10000 thumbnails tile into a 10000x9000 px sprite, beyond the "
                                         r"8192 px .* without it \(thumbnails of at most 81 px a side fit\)"):
        projector.write_embedding(FS, str(tmp_path), np.zeros((10000, 2)), label_img=np.zeros((10000, 1, 100, 90)),
                                  metadata=[str(i) for i in range(10000)], tag="big")
    projector.write_embedding(FS, str(tmp_path), np.zeros((10000, 2)), label_img=np.zeros((10000, 1, 81, 81)),
                              tag="fits")
    big, fits = upstream_read(tmp_path)["runs"]["."]["projector"]["embeddings"]
    assert big["sprite"] is None and big["metadata"][-1] == "9999" and as_array(big["tensor"]).shape == (10000, 2)
    assert fits["sprite"]["single_image_dim"] == [81, 81]
    assert projector.sprite_image(np.zeros((4, 1, 4096, 4096), np.uint8), 4).shape == (8192, 8192, 1)


def test_an_embedding_beyond_the_bound_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(projector, "MAX_EMBEDDING_VALUES", 100)
    with pytest.raises(ValueError, match=r"^mat: 11x10 = 110 values, more than the 100 the Projector can load"):
        projector.write_embedding(FS, str(tmp_path), np.zeros((11, 10)), tag="big")
    assert list(tmp_path.iterdir()) == []


def test_a_sprite_too_big_is_not_allocated(tmp_path):
    import tracemalloc

    images = np.zeros((10000, 1, 100, 90), np.uint8)  # a 10000x9000 sprite: 90 MB if tiled
    tracemalloc.start()
    try:
        assert projector.sprite_image(images, 10000) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
