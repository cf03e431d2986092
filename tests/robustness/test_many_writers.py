"""Many writers: threads sharing one SummaryWriter, processes sharing a logdir, fork, ranks, purge_step."""
from __future__ import annotations

import multiprocessing
import os
import threading

import pytest
import rb_helpers as h
from upstream import CLASSIC, upstream_read

import tensorboard
from tensorboard import distributed, reader

THREADS, PER_THREAD = 8, 5000
PROCESSES, PER_PROCESS = 8, 3000


def test_one_writer_shared_by_many_threads(tmp_path):
    writer = tensorboard.SummaryWriter(tmp_path, max_queue=20, max_file_bytes=None)
    barrier = threading.Barrier(THREADS)

    def work(t: int) -> None:
        barrier.wait()
        for i in range(PER_THREAD):
            writer.add_scalar(f"t{t}", float(i), i)
            if i % 1000 == 999:
                writer.flush()

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    [t.start() for t in threads]
    [t.join(120) for t in threads]
    assert not any(t.is_alive() for t in threads)
    writer.close()
    (path,) = h.event_files(tmp_path)
    assert h.our_event_count(path) == (1 + THREADS * PER_THREAD, None)
    view = upstream_read(tmp_path, CLASSIC)
    for t in range(THREADS):
        assert h.upstream_steps(view, tag=f"t{t}") == list(range(PER_THREAD))  # each thread's order kept


def _process_main(logdir: str, index: int) -> None:
    with tensorboard.SummaryWriter(logdir, max_queue=50) as writer:
        for i in range(PER_PROCESS):
            writer.add_scalar(f"p{index}", float(i), i)


def test_processes_write_distinct_files_into_one_logdir(tmp_path):
    context = multiprocessing.get_context("spawn")
    procs = [context.Process(target=_process_main, args=(str(tmp_path), k)) for k in range(PROCESSES)]
    [p.start() for p in procs]
    [p.join(180) for p in procs]
    assert [p.exitcode for p in procs] == [0] * PROCESSES
    files = h.event_files(tmp_path)
    assert len(files) == PROCESSES and len({f.name for f in files}) == PROCESSES
    view = upstream_read(tmp_path, ("files", *CLASSIC))
    assert sum(view["runs"]["."]["files"].values()) == PROCESSES * (PER_PROCESS + 1)
    for k in range(PROCESSES):
        assert h.upstream_steps(view, tag=f"p{k}") == list(range(PER_PROCESS))
        assert h.our_steps(tmp_path, f"p{k}") == list(range(PER_PROCESS))


def _forked_child(writer, k: int) -> None:
    for i in range(500):
        writer.add_scalar("child", float(i), 1000 * k + i)
    writer.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX-only")
def test_writer_created_before_fork_used_by_several_children(tmp_path):
    writer = tensorboard.SummaryWriter(tmp_path, flush_secs=3600, max_queue=10**6)
    for i in range(1000):
        writer.add_scalar("parent", float(i), i)  # still queued in the parent at fork time
    context = multiprocessing.get_context("fork")
    children = [context.Process(target=_forked_child, args=(writer, k)) for k in range(4)]
    [c.start() for c in children]
    [c.join(120) for c in children]
    assert [c.exitcode for c in children] == [0] * 4
    for i in range(1000, 2000):
        writer.add_scalar("parent", float(i), i)
    writer.close()
    files = h.event_files(tmp_path)
    assert len(files) == 5  # the parent's and one per child
    parent_files = [f for f in files if f".{os.getpid()}." in f.name]
    assert len(parent_files) == 1
    # The parent's file holds exactly the parent's events: no child wrote into it, nothing got lost.
    assert [e.step for e in reader.read_events(parent_files[0]) if e.HasField("summary")] == list(range(2000))
    view = upstream_read(tmp_path, CLASSIC)
    assert h.upstream_steps(view, tag="parent") == list(range(2000))
    assert sorted(h.upstream_steps(view, tag="child")) == sorted(1000 * k + i for k in range(4) for i in range(500))


def test_purge_step_after_restart_seen_by_upstream(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        for step in range(100):
            writer.add_scalar("x", float(step), step)
    # The run crashed after step 99; it restarts from its checkpoint at step 60.
    with tensorboard.SummaryWriter(tmp_path, purge_step=60) as writer:
        for step in range(60, 120):
            writer.add_scalar("x", -float(step), step)
    rows = upstream_read(tmp_path, CLASSIC)["runs"]["."]["scalars"]["x"]
    assert [r[0] for r in rows] == list(range(120))
    assert all(r[2] == -r[0] for r in rows if r[0] >= 60)


# -- ranks -----------------------------------------------------------------------------------------

def test_rank_detection_from_environment():
    assert distributed.detect_rank({}) == (None, None)
    assert distributed.detect_rank({"RANK": "3", "WORLD_SIZE": "8"}) == (3, 8)
    assert distributed.detect_rank({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4"}) == (2, 4)
    assert distributed.detect_rank({"SLURM_PROCID": "5", "SLURM_NTASKS": "6"}) == (5, 6)
    assert distributed.detect_rank({"LOCAL_RANK": "1"}) == (1, None)
    with pytest.raises(ValueError, match="RANK"):
        distributed.detect_rank({"RANK": "zero"})


@pytest.mark.parametrize("env, rank, write_ranks, rank_subdir, expected", [
    ({}, None, (0,), False, (True, None)),  # not distributed: as before
    ({"RANK": "0", "WORLD_SIZE": "1"}, None, (0,), False, (True, None)),
    ({"RANK": "1", "WORLD_SIZE": "4"}, None, (0,), False, (False, None)),
    ({"RANK": "1", "WORLD_SIZE": "4"}, None, "all", True, (True, "rank1")),
    ({}, 2, (0, 2), True, (True, "rank2")),
    ({"RANK": "3", "WORLD_SIZE": "4"}, 0, (0,), False, (True, None)),  # explicit rank wins
])
def test_rank_resolution(env, rank, write_ranks, rank_subdir, expected):
    assert distributed.resolve(rank, write_ranks, rank_subdir, env=env) == expected


def test_bad_rank_options_are_named():
    with pytest.raises(ValueError, match="rank"):
        distributed.resolve(-1, env={})
    with pytest.raises(TypeError, match="write_ranks"):
        distributed.resolve(0, write_ranks=None, env={})
    with pytest.raises(ValueError, match="write_ranks"):
        distributed.resolve(0, write_ranks=("0",), env={})


def test_non_writing_rank_gets_a_no_op_writer(tmp_path, monkeypatch):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    writer = tensorboard.SummaryWriter(tmp_path / "run")
    assert isinstance(writer, tensorboard.SummaryWriter) and writer.writes is False
    writer.add_scalar("x", 1.0, 0)
    writer.add_histogram("h", [1, 2, 3], 0)
    writer.add_text("t", "hello", 0)
    writer.flush()
    assert writer.dropped_events == 0  # every documented property answers, as on rank 0
    writer.close()
    with tensorboard.SummaryWriter(tmp_path / "run") as same:
        same.add_scalar("x", 1.0, 0)
    assert not (tmp_path / "run").exists()  # nothing created on a non-writing rank
    monkeypatch.setenv("RANK", "0")
    with tensorboard.SummaryWriter(tmp_path / "run") as writer0:
        writer0.add_scalar("x", 1.0, 0)
    assert h.our_steps(tmp_path / "run") == [0]


def _rank_main(logdir: str, rank: int) -> None:
    os.environ.update(RANK=str(rank), WORLD_SIZE="4")
    with tensorboard.SummaryWriter(logdir, write_ranks="all", rank_subdir=True) as writer:
        for i in range(200):
            writer.add_scalar("loss", float(rank * 1000 + i), i)


def test_per_rank_sub_runs(tmp_path):
    context = multiprocessing.get_context("spawn")
    procs = [context.Process(target=_rank_main, args=(str(tmp_path), r)) for r in range(4)]
    [p.start() for p in procs]
    [p.join(120) for p in procs]
    assert [p.exitcode for p in procs] == [0] * 4
    view = upstream_read(tmp_path, CLASSIC)
    assert sorted(r for r in view["runs"] if view["runs"][r].get("scalars")) == ["rank0", "rank1", "rank2", "rank3"]
    for r in range(4):
        assert [row[2] for row in view["runs"][f"rank{r}"]["scalars"]["loss"]] == [r * 1000 + i for i in range(200)]
