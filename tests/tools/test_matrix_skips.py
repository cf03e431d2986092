"""tests/matrix.py: in the Python matrix only a skip naming an absent framework passes TB_STRICT, as pytest
reports it; outside the matrix no skip does."""
import matrix


def test_only_absent_frameworks_may_skip_and_only_in_the_matrix(monkeypatch):
    reasons = [f"Skipped: {matrix.SKIP_PREFIX} torch", "Skipped: could not import 'jax': No module named 'jax'"]
    monkeypatch.setenv("TB_MATRIX", "1")
    assert all(matrix.allowed_skip(reason) for reason in reasons)
    assert not matrix.allowed_skip("Skipped: could not import 'obstore': No module named 'obstore'")
    assert not matrix.allowed_skip("Skipped: no browser")
    monkeypatch.delenv("TB_MATRIX")
    assert not any(matrix.allowed_skip(reason) for reason in reasons)


def test_obstore_may_be_missing_only_where_no_release_the_reader_takes_exists(monkeypatch):
    monkeypatch.setenv("TB_MATRIX", "1")
    reason = "Skipped: could not import 'obstore': No module named 'obstore'"
    assert matrix.allowed_skip(reason, (3, 10))
    assert not matrix.allowed_skip(reason, (3, 11)) and not matrix.allowed_skip(reason, (3, 13))
