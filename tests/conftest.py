"""Puts the source tree's logger first on sys.path, so tests exercise python/tensorboard."""
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "tests"))

import pytest  # noqa: E402

# Run metadata (on by default in SummaryWriter) is off for the suite and the processes it starts: the
# suite compares logdirs event by event with upstream's, tbparse's and torch's. tests/system/ and the
# ecosystem's TB_SYSTEM_METRICS tests take this away again to check the default.
os.environ.setdefault("TB_RUN_METADATA", "0")

try:  # every environment of the suite has hypothesis; a bare checkout run without it still collects the rest
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover
    settings = None
if settings is not None:
    # The same examples on every run and host (derandomize), no example database written into the checkout, and
    # no clock in any verdict: a slow or busy machine is no failure (deadline, the too_slow health check).
    settings.register_profile("suite", deadline=None, derandomize=True, database=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("suite")


@pytest.fixture
def deferred_conversions(monkeypatch) -> dict:
    """Records who converts each deferred value: {id(item): (tag, thread name)}, in the order of first
    conversion. The encoder and a writer thread may both run one item (pure work, first result kept):
    the first thread to start it is recorded."""
    import threading

    from tensorboard.values import deferred as _deferred

    conversions: dict = {}
    original = _deferred.Deferred._run

    def recording(item):
        if not item.done:
            conversions.setdefault(id(item), (item.tag, threading.current_thread().name))
        original(item)

    monkeypatch.setattr(_deferred.Deferred, "_run", recording)
    return conversions


FETCH_PATHS = ("fsspec", "obstore")  # TB_OBJECT_STORE: the two paths s3:// logdirs are read through


@pytest.fixture(params=FETCH_PATHS)
def fetch_path(request, monkeypatch) -> str:
    """The test's s3:// reads through one of the two fetch paths: s3fs (TB_OBJECT_STORE=fsspec), then obstore."""
    if request.param == "obstore":
        pytest.importorskip("obstore")  # on Python 3.10 (no obstore 0.12) only the matrix lets it skip
    monkeypatch.setenv("TB_OBJECT_STORE", request.param)
    return request.param


def pytest_sessionfinish(session, exitstatus):
    """Under TB_STRICT=1 (`make test`, CI) a skipped test fails the run: every check must really run there
    (in the Python matrix, a test that needs a framework the matrix leaves out may skip: tests/matrix.py)."""
    import os

    if os.environ.get("TB_STRICT") != "1":
        return
    from matrix import allowed_skip

    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = [report for report in (reporter.stats.get("skipped", []) if reporter else [])
               if not allowed_skip(_skip_reason(report))]
    if skipped and session.exitstatus == 0:
        for report in skipped:
            reporter.write_line(f"TB_STRICT: skipped test counts as a failure: {report.nodeid} {report.longrepr}")
        session.exitstatus = 1


def _skip_reason(report) -> str:
    """The reason text of a skipped test's report ((file, line, reason) for skips)."""
    longrepr = report.longrepr
    return longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
