"""Reading an S3 logdir (moto's S3 app on 127.0.0.1) many files at once, on both fetch paths (s3fs and
obstore): the same frames as the local read, one GET per event file, several in flight (bounded by
`concurrency` and `max_bytes`), and runs a filter leaves out never fetched."""
import os

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")

from reader.slow_s3 import slow_s3  # noqa: E402
from reader.sweep_logs import local_sweep  # noqa: E402

from tensorboard.logdir.fetch import ObjectFile, plan_batches  # noqa: E402
from tensorboard.reader import SummaryReader  # noqa: E402

pytestmark = pytest.mark.usefixtures("fetch_path")  # every test on both fetch paths (tests/conftest.py)

ALL_KINDS = ("scalars", "histograms", "tensors", "text", "hparams", "images", "audio")
EXTRAS = {"dir_name", "file_name", "wall_time"}


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    import s3fs

    root = local_sweep(tmp_path_factory.mktemp("s3sweep") / "logs")
    with slow_s3(delay=0.01) as server:
        server.create_bucket("logs")
        fs = s3fs.S3FileSystem(**server.storage_options())
        fs.put(root + "/", "logs/exp/", recursive=True)
        server.local_root = root
        server.files = sorted(p for p in fs.find("logs/exp") if "tfevents" in p)
        yield server


def _frames(path, **kwargs):
    reader = SummaryReader(path, extra_columns=EXTRAS, **kwargs)
    return {kind: reader.get_events(kind) for kind in ALL_KINDS}


def test_concurrent_read_gives_the_frames_of_the_local_read(s3, fetch_path):
    s3.meter.reset()
    remote = _frames("s3://logs/exp", storage_options=s3.storage_options())
    local = _frames(s3.local_root)
    for kind in ALL_KINDS:
        assert remote[kind].astype(str).equals(local[kind].astype(str)), kind
    assert len(remote["scalars"]) and len(remote["hparams"])
    # one GET per event file, and several at once
    assert sorted(p.lstrip("/") for p in s3.meter.object_gets) == s3.files
    assert s3.meter.max_in_flight > 1
    # listed and fetched by the path's own client (s3fs's is botocore)
    assert set(s3.meter.clients) == {"object_store" if fetch_path == "obstore" else "botocore"}


def test_requests_are_batched_up_to_the_concurrency(s3):
    s3.meter.reset()
    SummaryReader("s3://logs/exp", storage_options=s3.storage_options(), concurrency=3).scalars
    assert len(s3.meter.object_gets) == len(s3.files) > 3
    assert 1 < s3.meter.max_in_flight <= 3


def test_bytes_in_flight_are_bounded(s3):
    import s3fs

    sizes = sorted(s3fs.S3FileSystem(**s3.storage_options()).du(p) for p in s3.files)
    budget = sizes[-1] + sizes[0]  # the largest file and the smallest fit; never three files
    s3.meter.reset()
    SummaryReader("s3://logs/exp", storage_options=s3.storage_options(), max_bytes=budget).scalars
    assert len(s3.meter.object_gets) == len(s3.files) and 1 <= s3.meter.max_in_flight <= budget // sizes[0]
    s3.meter.reset()  # files larger than the budget are streamed one at a time
    frame = SummaryReader("s3://logs/exp", storage_options=s3.storage_options(), max_bytes=1).scalars
    assert len(s3.meter.object_gets) == len(s3.files) and s3.meter.max_in_flight == 1
    assert frame.equals(SummaryReader(s3.local_root).scalars)


def test_runs_a_filter_leaves_out_are_not_fetched(s3):
    s3.meter.reset()
    frame = SummaryReader("s3://logs/exp", storage_options=s3.storage_options(), runs="^a b", tags="^loss$",
                          steps=(0, 4), extra_columns={"dir_name"}).scalars
    assert set(frame["dir_name"]) == {"a b"} and list(frame["step"]) == [0, 1, 2, 3, 4]
    fetched = sorted(p.lstrip("/") for p in s3.meter.object_gets)
    assert fetched == [f for f in s3.files if f.startswith("logs/exp/a b/")] and fetched


def test_batches_respect_both_bounds():
    files = [ObjectFile(f"s3://b/{i}", size) for i, size in enumerate([10, 10, 10, 50, 10, 100, 1, 1, 1])]
    assert plan_batches(files, 3, 30) == [[0, 1, 2], [3], [4], [5], [6, 7, 8]]
    assert plan_batches(files, 2, 1000) == [[0, 1], [2, 3], [4, 5], [6, 7], [8]]
    assert plan_batches([], 4, 10) == []
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        plan_batches(files, 0, 10)


def test_one_remote_file_and_a_missing_path(s3):
    from tensorboard.reader._summary_reader import LogPathNotFoundError

    one = next(f for f in s3.files if f.startswith("logs/exp/a b/"))
    frame = SummaryReader(f"s3://{one}", storage_options=s3.storage_options()).scalars
    local = SummaryReader(os.path.join(s3.local_root, "a b", os.path.basename(one))).scalars
    assert len(frame) and frame.equals(local)
    with pytest.raises(LogPathNotFoundError, match="not found: s3://logs/nothing"):
        SummaryReader("s3://logs/nothing", storage_options=s3.storage_options())


def test_a_dask_partition_fetches_each_file_once(s3):
    pytest.importorskip("dask.dataframe")
    from tensorboard.logdir import list_runs
    from tensorboard.reader import _dask

    listing = list_runs("s3://logs/exp", s3.storage_options())
    group = _dask._groups(listing.runs, listing.sizes, 1 << 30, 3)[0]  # what one task carries: names, paths, sizes
    s3.meter.reset()  # as on a worker: no listing in this process's cache
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()
    frame = _dask.read_group(group, "scalars", s3.storage_options(), None, None, "s3://logs/exp")
    assert set(frame["run"]) == {run for run, _ in group}
    assert s3.meter.methods == {"GET": sum(len(files) for _, files in group)}
