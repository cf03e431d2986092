"""Runs the `tensorboard` command from the source tree: tools/launcher/main.py with this repository's
python/ as our package, and the renderer (upstream's package) installed in this Python's environment.

    <venv>/bin/python tests/serving/run_launcher.py --logdir LOGDIR --port N ...
"""
import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def renderer_root() -> str:
    """The installed wheel's copy of upstream's package (its runfiles directory)."""
    spec = importlib.util.find_spec("tensorboard_standalone_renderer")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("run_launcher: the tensorboard wheel's renderer is not installed in %s" % sys.prefix)
    return os.path.join(list(spec.submodule_search_locations)[0], "tensorboard.runfiles", "tensorboard_renderer")


def main() -> int:
    spec = importlib.util.spec_from_file_location("tb_launcher_main", os.path.join(REPO, "tools/launcher/main.py"))
    launcher = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(launcher)
    root = renderer_root()
    launcher.runfiles_paths = lambda main_file: (REPO, root)
    return launcher.main(["tensorboard", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
