"""bench/page_cache.py: what a timed run reads is read once just before it (every byte below the logdir,
linked directories included), and the kernel's count of file pages read back is there to report."""
import os
import sys

import pytest
from upstream import REPO

sys.path.insert(0, str(REPO / "bench"))
import page_cache  # noqa: E402  (bench/page_cache.py)


def test_warm_reads_every_byte_below_the_roots_links_followed(tmp_path):
    run = tmp_path / "logs" / "a" / "b"
    run.mkdir(parents=True)
    (run / "events.out.tfevents.1").write_bytes(os.urandom(3 * (1 << 20) + 17))  # over several blocks
    (tmp_path / "logs" / "a" / "hparams.yaml").write_bytes(b"lr: 0.1\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "events.out.tfevents.2").write_bytes(b"x" * 1000)
    (tmp_path / "logs" / "linked").symlink_to(elsewhere, target_is_directory=True)
    single = tmp_path / "one.bin"
    single.write_bytes(b"y" * 5)

    assert page_cache.warm(str(tmp_path / "logs")) == 3 * (1 << 20) + 17 + 8 + 1000
    assert page_cache.warm(str(tmp_path / "logs"), str(single)) == 3 * (1 << 20) + 17 + 8 + 1000 + 5


def test_a_file_that_cannot_be_read_counts_nothing_and_stops_nothing(tmp_path):
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    (tmp_path / "kept").write_bytes(b"z" * 10)
    assert page_cache.warm(str(tmp_path)) == 10


@pytest.mark.skipif(not os.path.exists("/proc/vmstat"), reason="the refault counter is Linux's /proc/vmstat")
def test_cold_reads_are_the_growth_of_the_kernels_refault_count():
    before = page_cache.refaults()
    cold = page_cache.ColdReads()
    pages = cold.pages()
    assert isinstance(before, int) and before >= 0
    assert isinstance(pages, int) and 0 <= pages <= page_cache.refaults() - before
