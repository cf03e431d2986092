"""bench/write_page.py renders docs/benchmarks.md from a real (small) bench/run.py run: the page
holds that run's rows, ratios, machine and commit. No timing is asserted."""
import json
import subprocess
import sys

from upstream import REPO

BENCH = REPO / "bench"


def test_page_shows_the_rows_and_machine_of_a_small_real_run(tmp_path):
    run = subprocess.run([sys.executable, str(BENCH / "run.py"), "--reps", "1", "--workloads", "scalars_1tag",
                          "--libs", "ours", "tbx", "--no-refs", "--no-extras", "--out", str(tmp_path)],
                         cwd=REPO, capture_output=True, text=True, timeout=900)
    assert run.returncode in (0, 1), run.stdout + run.stderr  # 1: a speed target missed on a busy machine
    results = json.loads((tmp_path / "results.json").read_text())
    assert [r.get("error") for r in results["runs"]] == [None, None], results["runs"]
    assert {r["lib"] for r in results["runs"]} == {"ours", "tbx"}

    page_path = tmp_path / "benchmarks.md"
    out = subprocess.run([sys.executable, str(BENCH / "write_page.py"), "--results", str(tmp_path),
                          "--out", str(page_path)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    page = page_path.read_text()

    ours = results["summary"]["scalars_1tag"]["ours"]
    tbx = results["summary"]["scalars_1tag"]["tbx"]
    (row,) = [line for line in page.splitlines() if line.startswith("| scalars_1tag |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == f"{ours['e2e_median_s']:.3g} s" and cells[2] == f"{tbx['e2e_median_s']:.3g} s"
    assert cells[4].startswith(f"{tbx['e2e_median_s'] / ours['e2e_median_s']:.3g}×")
    assert cells[3] == "-"  # torch was not run: no invented figure

    machine = results["machine"]
    assert f"| CPU | {machine['cpu']} |" in page and f"| NumPy | {machine['numpy']} |" in page
    assert machine["git_commit"] and f"`{machine['git_commit']}`" in page
    assert page.count("Not part of this run (`bench/run.py --no-extras`).") == 10  # eight sections + start-up + soak
    assert "## Reproduce" in page and "make bench" in page


def test_without_results_it_says_what_to_run(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH / "write_page.py"), "--results", str(tmp_path),
                          "--out", str(tmp_path / "page.md")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "run bench/run.py first" in out.stderr
    assert not (tmp_path / "page.md").exists()
