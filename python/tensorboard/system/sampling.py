"""What the system monitor reads, and from where: psutil for the process and the machine, NVML
(nvidia-ml-py) for NVIDIA GPUs. Each probe turns one reading into named numbers; it neither
schedules nor writes (tensorboard.system.monitor does).

Tags (MiB = 2**20 bytes; rates are per second over the time since the previous sample):
    system/cpu/process_percent          this process's CPU use, 100 per busy core
    system/cpu/machine_percent          the whole machine's, 0-100
    system/memory/process_rss_mib       this process's resident memory
    system/memory/machine_used_mib      the machine's used memory
    system/memory/machine_used_percent
    system/memory/machine_available_mib
    system/disk/read_mib_per_s, system/disk/write_mib_per_s          all disks
    system/network/sent_mib_per_s, system/network/received_mib_per_s  all interfaces
    system/gpu<i>/utilization_percent, memory_used_mib, memory_total_mib, temperature_c, power_w
"""
from __future__ import annotations

import os
from typing import Any, NamedTuple, Protocol

MIB = float(1 << 20)


class Reading(NamedTuple):
    """One number of one sample: its tag and its value."""

    tag: str
    value: float


class Probe(Protocol):
    """A source of readings; `sample(elapsed)` is called once per sample, `elapsed` seconds after the
    previous call (0 for the first)."""

    def sample(self, elapsed: float) -> list[Reading]: ...


class Probes(NamedTuple):
    """The probes this machine offers, and one line for each that it does not."""

    probes: list[Probe]
    missing: list[str]


class PsutilProbe:
    """CPU, memory, disk and network of this process and machine, through psutil."""

    def __init__(self, psutil: Any):
        self._psutil = psutil
        self._process = psutil.Process(os.getpid())
        self._process.cpu_percent(None)  # the first call starts the interval the next one measures
        psutil.cpu_percent(None)
        self._previous = self._counters()

    def _counters(self) -> dict[str, float]:
        counters: dict[str, float] = {}
        disk = self._psutil.disk_io_counters()  # None where the kernel exposes no disk statistics
        if disk is not None:
            counters.update(read=disk.read_bytes, write=disk.write_bytes)
        net = self._psutil.net_io_counters()
        if net is not None:
            counters.update(sent=net.bytes_sent, received=net.bytes_recv)
        return counters

    def sample(self, elapsed: float) -> list[Reading]:
        memory = self._psutil.virtual_memory()
        readings = [
            Reading("system/cpu/process_percent", self._process.cpu_percent(None)),
            Reading("system/cpu/machine_percent", self._psutil.cpu_percent(None)),
            Reading("system/memory/process_rss_mib", self._process.memory_info().rss / MIB),
            Reading("system/memory/machine_used_mib", memory.used / MIB),
            Reading("system/memory/machine_used_percent", memory.percent),
            Reading("system/memory/machine_available_mib", memory.available / MIB),
        ]
        counters = self._counters()
        if elapsed > 0:
            for key, tag in (("read", "system/disk/read_mib_per_s"), ("write", "system/disk/write_mib_per_s"),
                             ("sent", "system/network/sent_mib_per_s"),
                             ("received", "system/network/received_mib_per_s")):
                if key in counters and key in self._previous:  # counters wrap or reset: never a negative rate
                    readings.append(Reading(tag, max(0.0, counters[key] - self._previous[key]) / MIB / elapsed))
        self._previous = counters
        return readings


class NvmlProbe:
    """Per NVIDIA GPU: utilisation, memory, temperature and power, through NVML (nvidia-ml-py).
    A quantity a GPU does not report (NVML's NotSupported) is left out for that GPU."""

    QUANTITIES = ("utilization_percent", "memory_used_mib", "memory_total_mib", "temperature_c", "power_w")

    def __init__(self, nvml: Any):
        self._nvml = nvml
        self._handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(nvml.nvmlDeviceGetCount())]

    def _quantities(self, handle) -> list[tuple[str, Any]]:
        """(name, reader) per QUANTITIES entry, in its order."""
        nvml = self._nvml
        readers = (
            lambda: nvml.nvmlDeviceGetUtilizationRates(handle).gpu,
            lambda: nvml.nvmlDeviceGetMemoryInfo(handle).used / MIB,
            lambda: nvml.nvmlDeviceGetMemoryInfo(handle).total / MIB,
            lambda: nvml.nvmlDeviceGetTemperature(handle, nvml.NVML_TEMPERATURE_GPU),
            lambda: nvml.nvmlDeviceGetPowerUsage(handle) / 1000.0,  # NVML reports milliwatts
        )
        return list(zip(self.QUANTITIES, readers))

    def sample(self, elapsed: float) -> list[Reading]:
        readings = []
        for index, handle in enumerate(self._handles):
            for name, read in self._quantities(handle):
                try:
                    readings.append(Reading(f"system/gpu{index}/{name}", float(read())))
                except self._nvml.NVMLError:
                    continue
        return readings

    @property
    def gpus(self) -> int:
        return len(self._handles)


def psutil_probe() -> PsutilProbe | str:
    """The psutil probe, or the line that says why there is none."""
    try:
        import psutil
    except ImportError:
        return "psutil is not installed: no CPU, memory, disk or network metrics (pip install 'tensorboard[system]')"
    return PsutilProbe(psutil)


def nvml_probe() -> NvmlProbe | str:
    """The NVML probe, or the line that says why there is none (no library, no driver, no GPU)."""
    try:
        import pynvml
    except ImportError:
        return "nvidia-ml-py is not installed: no GPU metrics (pip install 'tensorboard[system]')"
    try:
        pynvml.nvmlInit()
        probe = NvmlProbe(pynvml)
    except pynvml.NVMLError as err:
        return f"no NVIDIA GPU metrics: NVML says {err}"
    if not probe.gpus:
        return "no NVIDIA GPU metrics: NVML finds no GPU"
    return probe


def available_probes() -> Probes:
    """Every probe this machine offers (psutil, NVML), and one line for each it does not."""
    probes: list[Probe] = []
    missing: list[str] = []
    for made in (psutil_probe(), nvml_probe()):
        if isinstance(made, str):
            missing.append(made)
        else:
            probes.append(made)
    return Probes(probes, missing)
