import pytest
from plot_logdir import write_sweep


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """Two configurations x three seeds of scalars and histograms (tests/plot/plot_logdir.py)."""
    return write_sweep(tmp_path_factory.mktemp("sweep"), histograms=True)
