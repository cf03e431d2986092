"""The engine's package imports its names on first use: a walk of a logdir or the configuration files
(what the launcher forks to find hyperparameters with) do not import the decoders or NumPy."""
from __future__ import annotations

import subprocess
import sys

from upstream import REPO


def test_every_name_of_the_package_is_what_its_module_defines():
    import tensorboard.logdir as engine

    assert sorted(engine.__all__) == sorted(engine._EXPORTS)  # pylint: disable=protected-access
    for name, module in engine._EXPORTS.items():  # pylint: disable=protected-access
        defined = getattr(__import__(f"tensorboard.logdir.{module}", fromlist=[name]), name)
        assert getattr(engine, name) is defined
    assert set(dir(engine)) >= set(engine.__all__)


def test_the_walk_and_the_configuration_files_import_no_decoder():
    code = ("import sys\n"
            "from tensorboard.logdir.discovery import event_directories\n"
            "from tensorboard.logdir.hparams_sources import discover_hparams\n"
            "from tensorboard.serving.hparams_preload import discover_below\n"
            "heavy = sorted(m for m in ('numpy', 'tensorboard.logdir.decode', 'tensorboard.events.record')"
            " if m in sys.modules)\n"
            "print(heavy)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
