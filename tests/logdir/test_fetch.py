"""fetch_batches fetches the next batch while the caller works on the current one (fsspec's in-memory
store): the batches come in order with every file's bytes, the two batches held stay within
`max_bytes`, a failed fetch is raised where its batch is taken, and no fetching thread outlives the
read, however it ends."""
from __future__ import annotations

import threading
import uuid

import pytest

pytest.importorskip("fsspec")

from tensorboard.events.storage import storage_for  # noqa: E402
from tensorboard.logdir import fetch as _fetch  # noqa: E402
from tensorboard.logdir.fetch import ObjectFile, fetch_batches, plan_fetches  # noqa: E402

HANG_GUARD = 120  # seconds: only a deadlock would wait this long


@pytest.fixture
def bucket():
    import fsspec

    fs = fsspec.filesystem("memory")
    root = f"/fetch-{uuid.uuid4().hex}"
    contents = {f"{root}/run{i}/events.out.tfevents.{i}": bytes([i]) * (100 + i) for i in range(10)}
    for path, data in contents.items():
        fs.pipe(path, data)
    storage = storage_for("memory://" + root)
    files = [ObjectFile("memory://" + path, len(data)) for path, data in sorted(contents.items())]
    yield storage, files, {"memory://" + path: data for path, data in contents.items()}
    fs.rm(root, recursive=True)


def fetch_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "tensorboard-fetch"]


def recording(monkeypatch, fail_on: int | None = None):
    """Wraps _fetch: records (thread name, first url) per call; sets `seen[k]` when call k begins."""
    calls: list[tuple[str, str]] = []
    seen = [threading.Event() for _ in range(20)]
    real = _fetch._fetch

    def wrapped(storage, files):
        k = len(calls)
        calls.append((threading.current_thread().name, files[0].url))
        seen[k].set()
        if k == fail_on:
            raise OSError(f"no route to {files[0].url}")
        return real(storage, files)

    monkeypatch.setattr(_fetch, "_fetch", wrapped)
    return calls, seen


def test_the_next_batch_is_fetched_while_the_caller_works(bucket, monkeypatch):
    storage, files, contents = bucket
    calls, seen = recording(monkeypatch)
    batches = fetch_batches(storage, files, concurrency=3)
    first = next(batches)
    assert seen[1].wait(HANG_GUARD)  # the second batch is asked for before the caller asks for it
    got = first + [pair for batch in batches for pair in batch]
    assert [f.url for f, _ in got] == [f.url for f in files]
    assert all(data == contents[f.url] for f, data in got)
    assert calls[0][0] == threading.current_thread().name  # nothing to overlap with yet
    assert {name for name, _ in calls[1:]} == {"tensorboard-fetch"} and len(calls) == 4
    assert not fetch_threads()


def test_a_failed_fetch_is_raised_where_its_batch_is_taken(bucket, monkeypatch):
    storage, files, _ = bucket
    recording(monkeypatch, fail_on=1)
    batches = fetch_batches(storage, files, concurrency=3)
    assert len(next(batches)) == 3
    with pytest.raises(OSError, match="no route to memory://.*run3/"):
        next(batches)
    assert not fetch_threads()


def test_a_read_given_up_early_leaves_no_thread(bucket, monkeypatch):
    storage, files, _ = bucket
    calls, seen = recording(monkeypatch)
    batches = fetch_batches(storage, files, concurrency=2)
    next(batches)
    batches.close()  # waits for the fetch under way
    assert not fetch_threads() and len(calls) == 2


def test_two_batches_fit_in_max_bytes_and_larger_files_are_streamed(bucket):
    storage, files, contents = bucket
    sizes = [f.size for f in files]
    budget = 2 * (sizes[0] + sizes[1])  # two files a batch
    plan = plan_fetches(files, 64, budget)
    assert all(sum(sizes[i] for i in batch) <= budget // 2 for batch, fetched in plan if fetched)
    # each file is a byte longer than the one before
    assert [len(batch) for batch, _ in plan] == [2, 1, 1, 1, 1, 1, 1, 1, 1]
    streamed = list(fetch_batches(storage, files, max_bytes=2 * sizes[4]))
    assert [data is None for batch in streamed for _, data in batch] == [False] * 5 + [True] * 5
    assert all(data == contents[f.url] for batch in streamed for f, data in batch if data is not None)


def test_two_batches_ahead_share_the_concurrency_and_the_bytes(bucket, monkeypatch):
    """As through obstore: the two batches after the one taken are fetched meanwhile, each of half the
    `concurrency`, and the three held fit in `max_bytes`."""
    storage, files, contents = bucket
    monkeypatch.setattr(_fetch, "default_ahead", lambda storage: 2)
    calls, seen = recording(monkeypatch)
    batches = fetch_batches(storage, files, concurrency=4)
    first = next(batches)
    assert len(first) == 2 and seen[2].wait(HANG_GUARD)  # the next two are asked for before the caller asks
    got = first + [pair for batch in batches for pair in batch]
    assert [f.url for f, _ in got] == [f.url for f in files] and all(data == contents[f.url] for f, data in got)
    by_first_file = {url: thread for thread, url in calls}
    assert len(calls) == 5 and by_first_file[files[0].url] == threading.current_thread().name
    assert {by_first_file[files[i].url] for i in (2, 4, 6, 8)} == {"tensorboard-fetch"}
    assert not fetch_threads()
    sizes = [f.size for f in files]
    plan = plan_fetches(files, 64, 3 * (sizes[0] + sizes[1]), ahead=2)
    assert [len(batch) for batch, _ in plan][:1] == [2] and all(
        sum(sizes[i] for i in batch) <= sizes[0] + sizes[1] for batch, fetched in plan if fetched)
