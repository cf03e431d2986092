"""tensorboard.process runs the fork and exit callbacks: exit in stage order (FLUSH before STOP,
whatever the registration order) within one deadline, fork callbacks of modules before those of
tracked objects, and an error in one callback does not keep the others from running."""
import subprocess
import sys
import textwrap

import pytest
from upstream import REPO


def run(script: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_exit_callbacks_run_flush_stage_first_with_one_deadline():
    lines = run("""
        import time
        from tensorboard import process
        left = lambda deadline: 0 < deadline - time.monotonic() <= 60  # process.EXIT_TIMEOUT's default
        process.at_exit(lambda deadline: print("stop", deadline, left(deadline)), process.STOP)
        process.at_exit(lambda deadline: 1 / 0, process.FLUSH)
        process.at_exit(lambda deadline: print("flush", deadline, left(deadline)), process.FLUSH)
    """)
    assert lines[::3] == ["flush", "stop"] and lines[2::3] == ["True", "True"]
    assert lines[1] == lines[4]  # one deadline, shared by both stages


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork()")
def test_fork_callbacks_modules_first_then_tracked_objects_in_creation_order():
    lines = run("""
        import os
        from tensorboard import process

        class Thing:
            def __init__(self, name):
                self.name = name
                process.track(self, Thing.in_child)

            def in_child(self):
                print(self.name, flush=True)

        first, second = Thing("first"), Thing("second")
        process.after_fork_in_child(lambda: print("module", flush=True))
        process.after_fork_in_child(lambda: 1 / 0)
        del second  # gone: not called
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    """)
    assert lines == ["module", "first"]
