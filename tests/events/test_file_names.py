"""Event file names follow upstream's EventFileWriter exactly (`%010d.<host>.<pid>.<n>` and the suffix,
n a process-wide counter from 0, unpadded), whichever entry point writes them."""
from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import textwrap

from matrix import skip_for_absent_frameworks
from upstream import upstream_python

from tensorboard.events import file_names

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WRITE_ONE_EACH = textwrap.dedent("""
    import os, sys
    logdir = sys.argv[1]
    def newest(path):
        return sorted((f for f in os.listdir(path) if "tfevents" in f), key=lambda f: os.path.getmtime(
            os.path.join(path, f)))[-1]
    names = []
    {writes}
    print(os.getpid())
    print("\\n".join(names))
""")

OURS = """
    import tensorboard
    from tensorboard.mxboard import SummaryWriter as MXBoardWriter
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    for index, make in enumerate([lambda d: EventFileWriter(d, filename_suffix=".s"),
                                  lambda d: TorchWriter(d), lambda d: tensorboard.SummaryWriter(d),
                                  lambda d: MXBoardWriter(d), lambda d: tensorboard.FileWriter(d)]):
        path = os.path.join(logdir, str(index))
        writer = make(path)
        writer.close()
        names.append(newest(path))
"""

UPSTREAM = """
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
    for index, make in enumerate([lambda d: EventFileWriter(d, filename_suffix=".s"), lambda d: TorchWriter(d)]):
        path = os.path.join(logdir, str(index))
        writer = make(path)
        writer.close()
        names.append(newest(path))
"""


def names_written(python: str, writes: str, logdir, pythonpath: str) -> tuple[str, list[str]]:
    script = WRITE_ONE_EACH.format(writes=textwrap.dedent(writes).strip())
    out = subprocess.run([python, "-c", script, str(logdir)], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": pythonpath})
    assert out.returncode == 0, out.stderr
    pid, *names = out.stdout.split()
    return pid, names


def test_every_entry_point_names_files_as_upstream_does(tmp_path):
    skip_for_absent_frameworks(OURS)
    host = re.escape(__import__("socket").gethostname())
    up_pid, upstream = names_written(upstream_python(), UPSTREAM, tmp_path / "up", "")
    our_pid, ours = names_written(sys.executable, OURS, tmp_path / "ours", os.path.join(REPO, "python"))
    stamp = r"\d{10}"
    assert re.fullmatch(rf"events\.out\.tfevents\.{stamp}\.{host}\.{up_pid}\.0\.s", upstream[0]), upstream
    assert re.fullmatch(rf"events\.out\.tfevents\.{stamp}\.{host}\.{up_pid}\.1", upstream[1]), upstream
    # a fresh process: the same counter values as upstream's, then on through every entry point
    expected = [rf"events\.out\.tfevents\.{stamp}\.{host}\.{our_pid}\.{n}{suffix}"
                for n, suffix in enumerate([r"\.s", "", "", "", ""])]
    assert all(re.fullmatch(pattern, name) for pattern, name in zip(expected, ours)), ours
    assert len(ours) == 5


def test_names_sort_in_creation_order_when_the_counter_gains_a_digit(monkeypatch):
    monkeypatch.setattr(file_names, "_file_counter", itertools.count(8))
    monkeypatch.setattr(file_names, "_last_counter_digits", 1)
    monkeypatch.setattr(file_names, "_last_stamp", 0)  # restored after: later names of this process stay current
    names = [file_names.event_file_name(now=2_000_000_000) for _ in range(4)]  # 8, 9, 10, 11 in one second
    assert sorted(names) == names
    assert [name.split(".")[-1] for name in names] == ["8", "9", "10", "11"]
    stamps = [file_names.file_stamp(name) for name in names]
    assert stamps[0] == stamps[1] and stamps[2] == stamps[3] == stamps[1] + 1  # only the crossing moves on
