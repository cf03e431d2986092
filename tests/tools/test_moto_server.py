"""tests/tools/s3_server.py: moto's S3 server keeps answering however much it has logged (a line per
request on its stderr, which a pipe nobody reads would hold only 64 KiB of before moto blocks)."""
import urllib.request

import pytest

pytest.importorskip("moto")  # moto[server]: installed into .venv by tools/test_envs.sh

from tools.s3_server import s3_server  # noqa: E402

ANSWER_S = 60  # liveness bound per request, not a speed limit


def test_every_request_is_answered_after_the_log_outgrows_a_pipe():
    pad = "x" * 4000  # a request's log line holds its path: 40 requests log about 160 KiB
    with s3_server() as s3:
        for i in range(40):
            try:
                with urllib.request.urlopen("%s/moto-api/?request=%d&pad=%s" % (s3.endpoint, i, pad),
                                            timeout=ANSWER_S) as answer:
                    assert answer.status == 200, i
            except OSError as err:  # a timeout: moto hangs
                raise AssertionError("request %d of 40 not answered: %s" % (i, err)) from None
