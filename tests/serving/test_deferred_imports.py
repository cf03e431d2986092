"""serving.deferred_imports: a deferred package's `import` succeeds without running it, and its first use
imports it, once, in its place; a package that is not installed still fails to import."""
from __future__ import annotations

import sys

from waiting import run_python

from tensorboard.serving import deferred_imports


def _run(code: str, tmp_path) -> str:
    """`code` in a fresh interpreter on the source tree (its sys.modules is the point), its stdout."""
    done = run_python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_succeeds_and_runs_nothing_until_used(tmp_path):
    out = _run("""
        import sys
        from tensorboard.serving import deferred_imports
        assert deferred_imports.defer("fsspec")
        import fsspec
        print("loaded" if "fsspec.spec" in sys.modules else "deferred")
        fs = fsspec.filesystem("memory")
        real = sys.modules["fsspec"]
        print(type(real).__name__, type(fs).__name__, fsspec.filesystem is real.filesystem)
    """, tmp_path)
    assert out.split() == ["deferred", "module", "MemoryFileSystem", "True"]


def test_a_submodule_import_imports_the_package_first(tmp_path):
    out = _run("""
        import sys
        from tensorboard.serving import deferred_imports
        deferred_imports.defer("fsspec")
        import fsspec.implementations.memory as memory
        print(type(sys.modules["fsspec"]).__name__, memory.MemoryFileSystem.protocol)
    """, tmp_path)
    assert out.split()[0] == "module" and "memory" in out


def test_first_uses_in_threads_import_once(tmp_path):
    out = _run("""
        import sys, threading
        from tensorboard.serving import deferred_imports
        deferred_imports.defer("fsspec")
        import fsspec
        seen = []
        threads = [threading.Thread(target=lambda: seen.append(fsspec.filesystem)) for _ in range(8)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(len(seen), len(set(map(id, seen))))
    """, tmp_path)
    assert out.split() == ["8", "1"]


def test_missing_or_imported_packages_are_left_alone():
    assert not deferred_imports.defer("no_such_package_anywhere")
    assert "no_such_package_anywhere" not in sys.modules
    assert not deferred_imports.defer("json")  # imported already
    assert not deferred_imports.defer("os.path")


def test_upstreams_file_layer_still_finds_s3_and_fsspec(tmp_path):
    out = _run("""
        import sys
        from tensorboard.serving import deferred_imports
        deferred_imports.defer_renderer_optional()
        from tensorboard.compat.tensorflow_stub.io import gfile
        print(gfile.S3_ENABLED, gfile.FSSPEC_ENABLED, "boto3.session" in sys.modules)
        print(callable(gfile.boto3.client), "boto3.session" in sys.modules)
    """, tmp_path)
    assert out.split() == ["True", "True", "False", "True", "True"]
