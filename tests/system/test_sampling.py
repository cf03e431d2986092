"""The probes read what the kernel says: psutil's readings against /proc over the same window, and the
NVML path (a GPU machine checks it in full with bench/gpu_check.py)."""
from __future__ import annotations

import os
import re
import socket
import threading
import time
from pathlib import Path

import pytest
from matrix import NO_GPU  # a skip with this reason passes TB_STRICT

from tensorboard.system import sampling

psutil = pytest.importorskip("psutil")


def proc_rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024  # kB
    raise AssertionError("no VmRSS in /proc/self/status")


def proc_meminfo_mib(key: str) -> float:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no {key} in /proc/meminfo")


def proc_cpu_seconds() -> float:
    """This process's user + system CPU time from /proc/self/stat (fields 14 and 15, in clock ticks)."""
    with open("/proc/self/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_net_bytes() -> tuple[int, int]:
    """(sent, received) over every interface, from /proc/net/dev."""
    sent = received = 0
    with open("/proc/net/dev") as dev:
        for line in list(dev)[2:]:
            numbers = line.split(":", 1)[1].split()
            received += int(numbers[0])
            sent += int(numbers[8])
    return sent, received


def readings(probe, elapsed: float) -> dict[str, float]:
    return dict(probe.sample(elapsed))


def test_memory_readings_match_proc():
    probe = sampling.PsutilProbe(psutil)
    ballast = bytearray(64 << 20)  # 64 MiB touched: RSS moves, both sources see it
    ballast[::4096] = b"x" * len(ballast[::4096])
    before = proc_rss_mib()
    got = readings(probe, 0.0)
    after = proc_rss_mib()
    assert min(before, after) - 16 <= got["system/memory/process_rss_mib"] <= max(before, after) + 16
    assert got["system/memory/process_rss_mib"] > 64
    total = proc_meminfo_mib("MemTotal")
    assert got["system/memory/machine_available_mib"] == pytest.approx(proc_meminfo_mib("MemAvailable"),
                                                                       abs=0.05 * total)
    assert 0 < got["system/memory/machine_used_mib"] < total
    assert 0 <= got["system/memory/machine_used_percent"] <= 100
    del ballast


def test_process_cpu_matches_proc_over_the_same_window():
    cpu_before, wall_before = proc_cpu_seconds(), time.monotonic()
    probe = sampling.PsutilProbe(psutil)  # its window starts here, with /proc's
    spent = 0.0
    while spent < 0.4:  # busy: 0.4 s of CPU time in this thread
        start = os.times()
        sum(i * i for i in range(20000))
        spent += os.times().user - start.user + os.times().system - start.system
    got = readings(probe, 0.0)
    measured = 100 * (proc_cpu_seconds() - cpu_before) / (time.monotonic() - wall_before)
    # both count clock ticks of one window: a few ticks apart at most
    tick_percent = 100 * 3 / os.sysconf("SC_CLK_TCK") / max(0.4, time.monotonic() - wall_before)
    assert got["system/cpu/process_percent"] == pytest.approx(measured, abs=10 + tick_percent)
    assert 0 <= got["system/cpu/machine_percent"] <= 100


def test_network_rate_counts_loopback_traffic_as_proc_does():
    probe = sampling.PsutilProbe(psutil)
    sent_before, _ = proc_net_bytes()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    payload = b"x" * (8 << 20)

    def drain():
        connection, _ = server.accept()
        with connection:
            while connection.recv(1 << 16):
                pass

    reader = threading.Thread(target=drain)
    reader.start()
    with socket.create_connection(server.getsockname()) as client:
        client.sendall(payload)
    reader.join()
    server.close()
    sent_after, _ = proc_net_bytes()
    got = readings(probe, 1.0)  # elapsed 1 s: the rate is the byte count in MiB
    assert got["system/network/sent_mib_per_s"] >= len(payload) / sampling.MIB
    assert got["system/network/sent_mib_per_s"] == pytest.approx((sent_after - sent_before) / sampling.MIB,
                                                                 rel=0.2, abs=1.0)
    assert got["system/network/received_mib_per_s"] >= len(payload) / sampling.MIB
    for tag in ("system/disk/read_mib_per_s", "system/disk/write_mib_per_s"):
        assert got.get(tag, 0.0) >= 0


def test_the_first_sample_has_no_rates():
    got = readings(sampling.PsutilProbe(psutil), 0.0)
    assert not [tag for tag in got if tag.endswith("_per_s")]


def test_nvml_gives_a_probe_or_one_line_that_says_why():
    made = sampling.nvml_probe()
    if isinstance(made, str):  # this machine: no GPU, no driver, or no nvidia-ml-py
        assert "\n" not in made and ("NVML" in made or "nvidia-ml-py" in made)
        assert "GPU" in made
    else:
        assert made.gpus > 0


def test_gpu_readings():
    made = sampling.nvml_probe()
    if isinstance(made, str):
        pytest.skip(f"{NO_GPU} ({made})")
    got = readings(made, 1.0)
    assert 0 <= got["system/gpu0/utilization_percent"] <= 100
    assert 0 < got["system/gpu0/memory_used_mib"] <= got["system/gpu0/memory_total_mib"]


def test_the_tags_are_the_ones_the_docs_list():
    """docs/logging.md's "System metrics" table names every tag a probe logs, and no other."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "logging.md").read_text(encoding="utf-8")
    section = page.split("## System metrics", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(system/[^`]+)` \|", section, re.M))
    probe = sampling.PsutilProbe(psutil)
    probe.sample(0.0)
    logged = {tag for tag, _ in probe.sample(1.0)}
    gpu_tags = {f"system/gpu<i>/{name}" for name in sampling.NvmlProbe.QUANTITIES}
    assert documented == logged | gpu_tags
