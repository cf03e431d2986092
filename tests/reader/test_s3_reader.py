"""SummaryReader and export on an S3 logdir (moto's server), with explicit storage_options."""
import numpy as np
import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")

from tools.s3_server import s3_server  # noqa: E402

import tensorboard  # noqa: E402
from tensorboard.reader import SummaryReader  # noqa: E402


@pytest.mark.usefixtures("fetch_path")  # s3fs and obstore (tests/conftest.py)
def test_summary_reader_reads_s3_with_storage_options():
    with s3_server() as server:
        server.create_bucket("logs")
        options = server.storage_options()
        for run in ("a", "b"):
            with tensorboard.SummaryWriter(f"s3://logs/exp/{run}", storage_options=options) as writer:
                for step in range(20):
                    writer.add_scalar("loss", step / 2, step)
                writer.add_histogram("h", np.arange(10.0), 3)
        reader = SummaryReader("s3://logs/exp", extra_columns={"dir_name"}, storage_options=options)
        frame = reader.scalars
        assert list(frame.dir_name.unique()) == ["a", "b"]
        assert list(frame[frame.dir_name == "b"].value) == [s / 2 for s in range(20)]
        assert list(reader.histograms.step) == [3, 3]
