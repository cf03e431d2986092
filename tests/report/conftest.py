"""The report tests' logdir (tests/report/report_logdir.py), written once per session."""
import pytest
from report_logdir import write_logdir


@pytest.fixture(scope="session")
def report_logdir(tmp_path_factory):
    return write_logdir(tmp_path_factory.mktemp("report-logdir"))
