"""The reload loop's pace (serving.ingester.pause_after): a reload starts every --reload_interval seconds
while reloads are short; a longer one is followed by as long a pause, up to the interval (upstream's
pause), so the reader is never busier than half the time, or than upstream's loop."""
from __future__ import annotations

import pytest

from tensorboard.serving.ingester import pause_after


@pytest.mark.parametrize("took", [0.0, 0.01, 0.2, 0.49])
def test_short_reloads_start_every_interval(took):
    assert took + pause_after(took, 1.0) == pytest.approx(1.0)


@pytest.mark.parametrize("took", [0.5, 0.7, 1.0, 3.0, 100.0])
def test_long_reloads_leave_at_least_half_the_time_idle(took):
    pause = pause_after(took, 1.0)
    assert pause >= min(took, 1.0)
    assert pause / (took + pause) >= min(0.5, 1.0 / (took + 1.0)) - 1e-12


def test_a_reload_longer_than_the_interval_waits_the_whole_interval_as_upstream():
    assert pause_after(7.5, 5.0) == 5.0
