"""bench/write_page.py renders docs/benchmarks.md from a real (small) bench/run.py run: the page
holds that run's rows, ratios, machine and commit. No timing is asserted."""
import json
import subprocess
import sys

from upstream import REPO

BENCH = REPO / "bench"


def test_page_shows_the_rows_and_machine_of_a_small_real_run(tmp_path):
    # the images workload: 200 calls a library, the quickest whose row has every column a scalars row has
    run = subprocess.run([sys.executable, str(BENCH / "run.py"), "--reps", "1", "--workloads", "images",
                          "--libs", "ours", "tbx", "--no-refs", "--no-extras", "--out", str(tmp_path)],
                         cwd=REPO, capture_output=True, text=True, timeout=900)
    assert run.returncode in (0, 1), run.stdout + run.stderr  # 1: a speed target missed on a busy machine
    results = json.loads((tmp_path / "results.json").read_text())
    assert [r.get("error") for r in results["runs"]] == [None, None], results["runs"]
    assert {r["lib"] for r in results["runs"]} == {"ours", "tbx"}
    assert [r["problems"] for r in results["runs"]] == [[], []]  # every library wrote what the workload logged

    page_path = tmp_path / "benchmarks.md"
    out = subprocess.run([sys.executable, str(BENCH / "write_page.py"), "--results", str(tmp_path),
                          "--out", str(page_path)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    page = page_path.read_text()

    ours = results["summary"]["images"]["ours"]
    tbx = results["summary"]["images"]["tbx"]
    (row,) = [line for line in page.splitlines() if line.startswith("| images |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == f"{ours['e2e_median_s']:.3g} s" and cells[2] == f"{tbx['e2e_median_s']:.3g} s"
    assert cells[4].startswith(f"{tbx['e2e_median_s'] / ours['e2e_median_s']:.3g}×")
    assert cells[3] == "-"  # torch was not run: no invented figure

    machine = results["machine"]
    assert f"| CPU | {machine['cpu']} |" in page and f"| NumPy | {machine['numpy']} |" in page
    assert machine["git_commit"] and f"`{machine['git_commit']}`" in page
    sys.path.insert(0, str(BENCH))
    import write_page

    # every extra the page has a section for says it was not run (start-up and soak share one section, one line each)
    assert page.count("Not part of this run (`bench/run.py --no-extras`).") == len(write_page.KNOWN_EXTRAS)
    assert "## Seeds and sweeps (`bench/reduce.py`)" in page
    assert "## Reproduce" in page and "make bench" in page


def _reduce_extra(speedup: float, differing: int) -> dict:
    """A small results entry of bench/reduce.py, as run.py records it."""
    return {"wall_s": 60.0, "args": ["--reps", "3"], "targets": {"speedup_vs_reducer": 20.0},
            "seeds_vs_reducer": {"seeds": 5, "tags": 4, "steps": 20000, "ops": "mean,std,min,max,median", "reps": 3,
                                 "reducer_version": "0.4.0", "ours": {"median_s": 1.5},
                                 "reducer": {"median_s": 1.5 * speedup}, "speedup": speedup,
                                 "steps_per_tag_ours": {f"tag{i}": 20000 for i in range(4)},
                                 "steps_per_tag_reducer": {f"tag{i}": 10000 for i in range(4)},
                                 "common_values": 40000, "differing_values": differing, "tags_only_one_has": []},
            "sweep_grouped": {"runs": 1000, "group_size": 10, "groups": 100, "points_per_run": 1000,
                              "group_by": r"_seed\d+", "ops": "mean,std", "reps": 3, "reduce": {"median_s": 4.25},
                              "serve_plain": {"load_s": 5.5, "peak_rss_mib": 250.0},
                              "serve_grouped": {"load_s": 6.25, "peak_rss_mib": 270.0},
                              "last_group_run": "cfg99 (mean)", "load_ratio": 1.14},
            "target_met": speedup >= 20.0, "agree": differing == 0}


def test_seeds_and_sweeps_section_shows_both_tools_and_a_missed_goal():
    sys.path.insert(0, str(BENCH))
    import write_page

    met = write_page.reduce_section(_reduce_extra(25.0, 0))
    assert "## Seeds and sweeps (`bench/reduce.py`)" in met
    assert "| `tensorboard reduce` | 1.5 s | 20,000 |" in met
    assert "| tensorboard-reducer 0.4.0 (`tb-reducer`) | 37.5 s | 10,000 |" in met
    assert "Ours 25.0× faster (goal ≥ 20×, met: yes)" in met and "0 of the 40,000 values differ" in met
    assert "4.25 s" in met and "| 5.5 s | 250 MiB |" in met and "| 6.25 s | 270 MiB |" in met
    assert "1.14× the time without" in met and "cfg99 (mean)" in met

    missed = write_page.reduce_section(_reduce_extra(8.0, 3))
    assert "Ours 8.0× faster (goal ≥ 20×, met: **no**)" in missed
    assert "**3 of the 40,000 values differ**" in missed

    failed = {"error": "timed out after 1800 s", "args": ["--reps", "3"]}
    assert "this run failed: `timed out after 1800 s`" in write_page.reduce_section(failed)
    smoothed = dict(_reduce_extra(25.0, 0), smoothing={"points": 1_000_000, "weight": 0.6, "reps": 11,
                                                       "vectorised": {"median_s": 0.01}, "loop": {"median_s": 0.16},
                                                       "speedup": 16.0})
    assert "`tensorboard.reader.smooth` on 1,000,000 points (weight 0.6): 0.01 s against 0.16 s for a plain loop" \
        in write_page.reduce_section(smoothed)
    assert "16.0× (goal ≥ 10×, met: yes)" in write_page.reduce_section(smoothed)
    partial = dict(_reduce_extra(25.0, 0), error="sweep: the appended points were never served")
    del partial["sweep_grouped"]
    assert "Error: `sweep: the appended points were never served`" in write_page.reduce_section(partial)


def test_without_results_it_says_what_to_run(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH / "write_page.py"), "--results", str(tmp_path),
                          "--out", str(tmp_path / "page.md")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "run bench/run.py first" in out.stderr
    assert not (tmp_path / "page.md").exists()


def _sweeps_extra(obstore_s: float) -> dict:
    """A results entry of bench/sweeps.py at 1,000 runs with both fetch paths, as run.py records it."""
    size = {"runs": 1000, "default_path": "obstore", "read_today_s": 82.9, "read_today_requests": 2004,
            "read_today_measured": True, "read_new_s": 3.5, "read_new_requests": 1001, "read_obstore_s": obstore_s,
            "read_obstore_requests": 1001, "read_obstore_goal_s": 2.0, "read_obstore_goal_met": obstore_s <= 2.0,
            "speedup": 82.9 / 3.5, "speedup_obstore": 82.9 / obstore_s, "filtered_s": 0.5, "filtered_runs": 10,
            "filtered_requests": 11, "dask_s": 7.0, "export_whole_rss_mb": 184.3, "export_partitioned_rss_mb": 66.5,
            "export_rss_ratio": 0.36, "target_met": obstore_s <= 2.0}
    return {"wall_s": 300.0, "scalars_per_run": 1000, "delay_ms": 30.0, "reps": 3, "sizes": {"1000": size},
            "target_speedup": 10.0, "target_rss_ratio": 0.25, "target_met": obstore_s <= 2.0}


def test_sweeps_section_shows_both_fetch_paths_and_a_missed_goal():
    sys.path.insert(0, str(BENCH))
    import page_scale

    met = page_scale.sweeps_section(_sweeps_extra(1.8))
    assert "| many objects at once, s3fs (`TB_OBJECT_STORE=fsspec`) | 3.5 s | 1001 |" in met
    assert "| many objects at once, obstore | 1.8 s | 1001 |" in met
    assert "| filtered read of 10 runs (`runs=`) (obstore) | 0.5 s | 11 |" in met
    assert "the obstore path 1.8 s (goal ≤ 2 s, met: yes)" in met and "All goals met: yes." in met
    missed = page_scale.sweeps_section(_sweeps_extra(2.6))
    assert "the obstore path 2.6 s (goal ≤ 2 s, met: **no**)" in missed and "All goals met: **no**." in missed
    old = _sweeps_extra(1.8)  # a result from before the obstore path: one concurrent read, as it was shown
    for key in ("read_obstore_s", "read_obstore_goal_s", "default_path"):
        del old["sizes"]["1000"][key]
    assert "| many objects at once | 3.5 s | 1001 |" in page_scale.sweeps_section(old)


def test_plot_section_shows_both_figures_and_a_missed_goal():
    sys.path.insert(0, str(BENCH))
    import page_scale

    def extra(ours_s: float) -> dict:  # bench/plot_figures.py's result, as run.py records it
        return {"wall_s": 400.0, "args": ["--reps", "3"], "bench": "plot_figures", "scalars": 12_000_000,
                "runs": 100, "tags": 12, "steps": 10_000, "reps": 3, "ours_s": ours_s, "by_hand_s": 60.0,
                "ratio": round(60.0 / ours_s, 2), "ours_pdf_mb": 30.1, "by_hand_pdf_mb": 95.2,
                "goal": "ours_s <= by_hand_s", "target_met": ours_s <= 60.0}

    met = page_scale.plot_section(extra(20.0))
    assert "12,000,000 scalars (100 runs × 12 tags × 10,000 steps" in met and "median of 3 fresh processes" in met
    assert "| `tensorboard plot --out fig.pdf --grid --smoothing 0.6` | 20 s | 30.1 MB |" in met
    assert "| ratio (by hand / ours) | 3.0× |  |" in met and "(met: yes)" in met
    assert "(met: **no**)" in page_scale.plot_section(extra(75.0))
    assert "Not part of this run" in page_scale.plot_section(None)


def test_the_experiments_section_shows_each_size_and_the_goal():
    sys.path.insert(0, str(BENCH))
    import write_page

    extra = {"wall_s": 10.0, "args": ["--reps", "3"], "target_met": False, "goal": "discovery <= 10% of the first load",
             "rows": [{"runs": 1000, "first_load_s": 0.5, "with_discovery_s": 0.6, "overhead": 0.2,
                       "hparams_found": 3000, "runs_ls_s": 1.25, "ui_first_load_s": 1.0, "ui_with_hparams_s": 1.02,
                       "ui_overhead": 0.02, "ui_with_where_s": 1.1, "ui_where_overhead": 0.1}]}
    text = write_page.experiments_section(extra)
    assert "| 1,000 | 0.5 s | 0.6 s | +20% | 3,000 | 1.25 s |" in text
    assert "| 1,000 | 1 s | 1.02 s (+2%) | 1.1 s (+10%) |" in text
    assert "discovery <= 10% of the first load" in text and "(met: **no**)" in text
    assert write_page.experiments_section(None).endswith("Not part of this run (`bench/run.py --no-extras`).")


def test_the_bench_scan_knows_the_run_metadata_tags_our_writer_logs():
    sys.path.insert(0, str(BENCH))
    import workloads

    from tensorboard.src import run_metadata
    assert workloads.RUN_METADATA_TAGS == {run_metadata.TEXT_TAG.encode(), run_metadata.FIELDS_TAG.encode()}


def test_the_serving_section_shows_each_paths_start_up_beside_the_goal(tmp_path):
    """A real small bench/serving.py run: each path's start-up (its server on the few-run logdir just before each
    timed one) is recorded, shown in its own column, and set beside the time the load goal allows."""
    run = subprocess.run([sys.executable, str(BENCH / "serving.py"), "--runs", "20", "--paths", "native", "standalone"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1), run.stdout + run.stderr  # 1: a goal missed on a busy machine
    extra = json.loads(run.stdout.strip().splitlines()[-1])
    size = extra["sizes"]["20"]
    for path in ("native", "standalone"):
        assert size[path]["startups_s"] and all(t > 0 for t in size[path]["startups_s"])
    sys.path.insert(0, str(BENCH))
    import page_scale
    from page_format import fmt

    text = page_scale.serving_section(extra)
    assert f"to serve a logdir of {extra['startup_runs']} runs" in text
    (header,) = [line for line in text.splitlines() if line.startswith("| path |")]
    assert header.rstrip().endswith("| start-up |")
    for path in ("native", "standalone"):
        (row,) = [line for line in text.splitlines() if line.startswith(f"| {page_scale.PATH_LABELS[path]} |")]
        assert size[path]["startup_s"] == min(size[path]["startups_s"])  # the fastest start
        assert row.rstrip().endswith(f"| {fmt(size[path]['startup_s'], unit=' s')} |")
    goal_s = size["ratio_goal"] * size["native"]["load_s"]
    assert (f"that goal is {fmt(goal_s)} s here, against {fmt(size['standalone']['startup_s'])} s for our start-up "
            f"and {fmt(size['native']['startup_s'])} s for the native path's") in text
    old = json.loads(json.dumps(extra))  # a result from before start-ups were recorded: no column, no sentence
    for path in ("native", "standalone"):
        del old["sizes"]["20"][path]["startup_s"], old["sizes"]["20"][path]["startups_s"]
    assert "start-up" not in page_scale.serving_section(old)


def test_the_token_section_shows_each_servers_throughput_beside_the_median():
    sys.path.insert(0, str(BENCH))
    import write_page

    extra = {"wall_s": 70.0, "args": ["--reps", "3"], "clients": 16, "requests_per_client": 150, "runs": 20,
             "points": 1000, "reps": 3, "none_rps": 207.2, "token_rps": 182.4, "ratio": 0.88, "errors": 0,
             "each_rps": {"none": [199.0, 207.2, 215.5], "token": [182.4, 175.0, 201.3]}, "target_met": False}
    text = write_page.access_section(extra)
    assert "| `--auth none` | 207 requests/s; each 199, 207, 216 |" in text
    assert "| `--auth token` (`Authorization: Bearer` on every request) | 182 requests/s; each 182, 175, 201 |" in text
    assert "| ratio (token / none) | 0.9× |" in text and "(met: **no**)" in text
    del extra["each_rps"]  # a result from before each server was kept: the medians alone
    assert "| `--auth none` | 207 requests/s |" in write_page.access_section(extra)
