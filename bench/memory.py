"""Peak memory for the benchmarks, measured inside the process being measured: the growth of the peak
resident set over a baseline (`PeakRSS`), and the resident set now (`rss_bytes`).

Standard library only: it is imported in every environment's interpreter (ours, `.venv-upstream`'s peers).
"""
from __future__ import annotations

import gc
import os
import resource


def status_kb(field: str) -> int | None:
    """A field of /proc/self/status in kB (VmRSS: resident now, VmHWM: peak), or None off Linux."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak() -> bool:
    """Resets this process's peak RSS (VmHWM) to its current RSS: "5" to /proc/self/clear_refs (Linux >= 4.0).
    False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        return False
    return True


class PeakRSS:
    """Peak RSS growth over a baseline: Linux's VmHWM, reset at the baseline through /proc/self/clear_refs.

    Falls back to ru_maxrss (a lifetime peak: only valid if nothing before the baseline went higher).
    """

    def start(self) -> None:
        gc.collect()
        self.method = "VmHWM reset" if reset_peak() else "ru_maxrss"
        self.baseline_kb = status_kb("VmRSS") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.maxrss_before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def stop(self) -> dict[str, float | str]:
        """The peak since start(): rss_delta_mb is its growth over the baseline, in MB."""
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak = status_kb("VmHWM") if self.method == "VmHWM reset" else maxrss
        return {"rss_method": self.method, "rss_baseline_mb": self.baseline_kb / 1024, "rss_peak_mb": peak / 1024,
                "rss_delta_mb": max(0, peak - self.baseline_kb) / 1024,
                "ru_maxrss_delta_mb": max(0, maxrss - self.maxrss_before_kb) / 1024}


def rss_bytes() -> int:
    """Resident set size of this process now, from /proc (Linux) or psutil."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import psutil

        return psutil.Process().memory_info().rss
