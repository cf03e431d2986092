"""docs/compatibility.md states exactly the versions each test environment reports (the environments
install the page's versions as constraints; tools/compat_table.py rewrites the page after an upgrade),
and the Python matrix of tools/test_pythons.py (whose venvs, made beside this suite by `make test`, the
matrix itself checks against the page before running in them)."""

import importlib.util

from upstream import REPO

_spec = importlib.util.spec_from_file_location("compat_table", REPO / "tools" / "compat_table.py")
compat_table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compat_table)


MATRIX_ENVS = (".venv-py3.10", ".venv-py3.12", ".venv-py3.13")  # made beside this suite: the matrix checks them


def test_every_version_in_the_page_is_what_its_environment_reports():
    page = compat_table.parse((REPO / "docs" / "compatibility.md").read_text(encoding="utf-8"))
    assert list(page) == [env for env, _ in compat_table.ENVS]
    for env in page:
        if env not in MATRIX_ENVS:  # tools/test_pythons.py checks those before it runs the suite in them
            assert page[env] == compat_table.env_versions(env), env


def test_the_page_names_the_versions_that_matter():
    page = compat_table.parse((REPO / "docs" / "compatibility.md").read_text(encoding="utf-8"))
    for env in (".venv", ".venv-ecosystem", ".venv-py3.10", ".venv-py3.12", ".venv-py3.13"):
        assert page[env]["tensorboard"] == compat_table.OURS, env
    assert sorted(page[env]["Python"].rsplit(".", 1)[0] for env in page) == \
        ["3.10", "3.11", "3.11", "3.11", "3.11", "3.11", "3.12", "3.13"]
    assert page[".venv-upstream"]["tensorboard"] == "2.21.0"
    assert page[".venv-protobuf-floor"]["protobuf"] == "6.31.1"
    assert page[".venv-mxnet"]["mxnet"] == "1.9.1" and page[".venv-mxnet"]["numpy"] == "1.23.5"
    assert page[".venv-ecosystem"]["torch"].endswith("+cpu")


def test_render_and_parse_round_trip():
    versions = {env: {package: (None if i % 3 else "1.%d" % i) for i, package in enumerate(compat_table.PACKAGES)}
                for env, _ in compat_table.ENVS}
    assert compat_table.parse(compat_table.render(versions)) == versions
