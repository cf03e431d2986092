"""The writer thread's wake-up: no wake-up is lost, whatever set() it races with."""
import queue

from tensorboard.events._wakeup import Wakeup


class _SetDuringDrain(queue.SimpleQueue):
    """A token queue that lets a producer's set() land inside the waiting thread's clear()."""

    def __init__(self, wakeup_ref: list):
        super().__init__()
        self.wakeup_ref, self.armed = wakeup_ref, False

    def get_nowait(self):
        if self.armed:
            self.armed = False
            self.wakeup_ref[0].set()
        return super().get_nowait()


def test_a_set_that_lands_inside_clear_is_not_lost():
    ref: list = []
    wakeup = Wakeup()
    tokens = _SetDuringDrain(ref)
    wakeup._tokens, ref[:] = tokens, [wakeup]
    wakeup.set()
    wakeup.wait(1.0)  # woken
    tokens.armed = True
    wakeup.clear()  # a producer's set() lands during the drain
    wakeup.set()  # and the next producer's
    assert wakeup.is_set() and tokens.qsize() == 1  # a pending wake-up always has its token


def test_force_posts_even_when_a_set_looks_pending_and_waits_take_any_timeout():
    wakeup = Wakeup()
    wakeup._pending = True  # a set() interrupted between its flag and its token
    wakeup.force()
    assert wakeup._tokens.qsize() == 1
    wakeup.clear()
    assert not wakeup.is_set() and wakeup._tokens.qsize() == 0
    wakeup.set()
    wakeup.wait(float("inf"))  # flush_secs may be inf: returns on the token, no OverflowError
