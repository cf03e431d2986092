"""`tensorboard.reader.to_dask` on a real dask.distributed LocalCluster (2 worker processes, 127.0.0.1):
the same rows as SummaryReader for every kind, one partition per group of runs, and the event data is
read by the workers only: the client lists the logdir and ships run names, paths and sizes."""
import os

import cloudpickle
import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from reader.sweep_logs import KINDS, local_sweep  # noqa: E402
from reader.test_partitioned_export import reader_frame, rows  # noqa: E402

import tensorboard  # noqa: E402
from tensorboard.reader import to_dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None,
                                  scheduler_kwargs={"dashboard": False}) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = local_sweep(tmp_path_factory.mktemp("dask") / "logs")
    for i in range(6):  # some bulk, so that data and graph sizes can be told apart
        with tensorboard.SummaryWriter(os.path.join(root, "bulk", str(i))) as writer:
            for step in range(3000):
                writer.add_scalar("loss", float(np.sin(step + i)), step)
    return root


@pytest.mark.parametrize("kind", KINDS)
def test_same_rows_as_summary_reader(client, logdir, kind):
    frame = to_dask(logdir, kind, partition_bytes=50_000)
    assert frame.npartitions > 1
    got = frame.compute()
    expected = reader_frame(logdir, kind)
    assert list(got.columns) == list(frame.columns) and sorted(got.columns) == sorted(expected.columns)
    assert rows(got, list(expected.columns)) == rows(expected, list(expected.columns))


def test_filters_reach_the_workers(client, logdir):
    got = to_dask(logdir, runs="^bulk/[12]$", tags="loss", steps=(100, 199)).compute()
    assert sorted(set(got["run"])) == ["bulk/1", "bulk/2"] and len(got) == 200 and got["step"].between(100, 199).all()


def test_no_event_data_passes_through_the_client(client, logdir, monkeypatch):
    import tensorboard.logdir
    from tensorboard.logdir import read

    expected = len(reader_frame(logdir, "scalars"))

    def refuse(*args, **kwargs):
        raise AssertionError("the client decoded event data")

    # the workers are other processes: only the client's decoding and reading are refused
    monkeypatch.setattr(read, "decode_file", refuse)
    monkeypatch.setattr(tensorboard.logdir, "read_listed", refuse)
    frame = to_dask(logdir, "scalars", partition_bytes=100_000)
    event_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(logdir) for f in fs)
    graph = dict(frame.__dask_graph__())
    shipped = len(cloudpickle.dumps(graph))
    assert event_bytes > 500_000 and shipped < event_bytes / 20, (shipped, event_bytes)
    assert b"tfevents" in cloudpickle.dumps(graph)  # what the tasks carry: paths
    total = client.compute(frame["value"].count()).result()
    assert total == expected


def test_bad_arguments_are_refused(logdir):
    with pytest.raises(ValueError, match="kind 'images'"):
        to_dask(logdir, "images")
    with pytest.raises(ValueError, match="partition_bytes"):
        to_dask(logdir, partition_bytes=0)
    with pytest.raises(ValueError, match="runs '\\[' is not a valid regex"):
        to_dask(logdir, runs="[")
