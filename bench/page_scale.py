"""The benchmark page's sections for logdirs at scale: the HTML report (bench/report_export.py), figures
(bench/plot_figures.py), serving to the web UI (bench/serving.py) and sweeps on object storage
(bench/sweeps.py)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from page_format import fmt, has_result, not_run, ratio, reps_text, table, yes_no  # noqa: E402

PATH_LABELS = {"upstream": "upstream's `tensorboard` 2.21 (its own command and Rust data server)",
               "native": "upstream's native data server, through our command (`--data_provider=native`)",
               "multiplexer": "upstream's Python loader",
               "standalone": "our reader (`--data_provider=standalone`)"}


def report_section(extra: dict | None) -> str:
    title = "## A logdir as one HTML page (`bench/report_export.py`)\n\n"
    if not has_result(extra) or "export_s" not in extra:
        return title + not_run(extra)
    rows = [["`tensorboard export --out report.html`", fmt(extra["export_s"], unit=" s")],
            ["tbparse `SummaryReader(...).scalars` (reading only)", fmt(extra["tbparse_read_s"], unit=" s")],
            ["ratio (tbparse / export)", ratio(extra["ratio"])],
            ["page size", f"{extra['page_mb']} MB ({extra['charts']} charts, {extra['runs']} runs, "
                          f"at most {extra['max_points']} points per series)"]]
    if extra.get("open_s") is not None:
        rows.append(["first screen drawn in Chromium", fmt(extra["open_s"], unit=" s")])
    return (title + f"{extra['scalars']:,} scalars ({extra['runs']} runs × {extra['tags']} tags × "
            f"{extra['steps']:,} steps, our writer), {reps_text(extra)}, alternating. Goal: the export takes "
            f"less time than tbparse's read (met: {yes_no(extra.get('target_met'))}).\n\n" + table(["", ""], rows))


def plot_section(extra: dict | None) -> str:
    title = "## A logdir as a figure for a paper (`bench/plot_figures.py`)\n\n"
    if not has_result(extra) or "ours_s" not in extra:
        return title + not_run(extra)
    rows = [["`tensorboard plot --out fig.pdf --grid --smoothing 0.6`", fmt(extra["ours_s"], unit=" s"),
             f"{extra['ours_pdf_mb']} MB"],
            ["matplotlib by hand from `SummaryReader` (every point drawn)", fmt(extra["by_hand_s"], unit=" s"),
             f"{extra['by_hand_pdf_mb']} MB"],
            ["ratio (by hand / ours)", ratio(extra["ratio"]), ""]]
    return (title + f"{extra['scalars']:,} scalars ({extra['runs']} runs × {extra['tags']} tags × "
            f"{extra['steps']:,} steps, our writer), end to end in fresh processes, {reps_text(extra)}, "
            "alternating. The same figure each way: a panel per tag, each run's raw line faint behind its "
            "smoothed one. Goal: ours takes no longer than the script (met: "
            f"{yes_no(extra.get('target_met'))}).\n\n" + table(["", "time", "PDF"], rows))


def met(value: float, targets: dict, name: str) -> str:
    """'met' or 'missed' for a ratio whose goal is at most targets[name]."""
    goal = targets.get(name)
    return "–" if goal is None else ("met" if value <= goal else "missed")


PATHS_SHOWN = ("upstream", "native", "multiplexer", "standalone")  # bench/serving.py's paths, in the table's order


def _startup(row: dict) -> float | None:
    """A path's start-up: the fastest of its starts on the few-run logdir."""
    return min(row["startups_s"]) if row.get("startups_s") else None


def serving_section(extra: dict | None) -> str:
    title = "## Serving large logdirs to the web UI (`bench/serving.py`)\n\n"
    if not has_result(extra) or "sizes" not in extra:
        return title + not_run(extra)
    parts = [title + "Time from starting `tensorboard --logdir` until every run is listed and the last run's "
             "scalars are served, the peak memory of the server's process tree (summed PSS: pages shared "
             "by forked processes split among them; summed RSS beside it), and the time until 1,000 points "
             "appended to one run are served. Each path's time is the median of fresh servers, the paths "
             "alternating (each time listed), each started with the logdir just read into the page cache; "
             "the peak memory the largest of them."]
    startup = any(_startup(size.get(path, {})) for size in extra["sizes"].values() for path in PATHS_SHOWN)
    if startup:
        parts[0] += (" Start-up is the shortest time the same command took, just before each of those servers, to "
                     f"serve a logdir of {extra.get('startup_runs')} runs: what a load of any logdir costs at least.")
    targets = extra.get("targets", {})
    for runs, size in extra["sizes"].items():
        rows = [[PATH_LABELS.get(path, path), fmt(size[path].get("load_s"), unit=" s")
                 + (" (" + ", ".join(fmt(t) for t in size[path]["loads_s"]) + ")" if "loads_s" in size[path] else ""),
                 fmt(size[path].get("peak_pss_mib"), digits=4, unit=" MiB"),
                 fmt(size[path].get("peak_rss_mib"), digits=4, unit=" MiB"), fmt(size[path].get("reload_s"), unit=" s")]
                + ([fmt(_startup(size[path]), unit=" s")] if startup else [])
                for path in PATHS_SHOWN if path in size]
        line = []
        if "speedup_vs_multiplexer" in size:
            line.append(f"ours {ratio(size['speedup_vs_multiplexer'])} faster than the Python loader (goal ≥ "
                        f"{targets.get('speedup_vs_multiplexer')}×), in {size['memory_vs_multiplexer']:.0%} of its "
                        f"memory (goal ≤ {targets.get('memory_vs_multiplexer', 0.25):.0%})")
        for name, what in (("ratio_vs_native", "the native server's time"), ("memory_vs_native", "its peak memory"),
                           ("reload_vs_native", "its time to serve the new points")):
            if name in size:
                goal = {name: size.get("ratio_goal", targets.get(name))} if name == "ratio_vs_native" else targets
                line.append(f"{size[name]}× {what} (goal ≤ {goal.get(name)}×: {met(size[name], goal, name)})")
        if "ratio_goal" in size and all(_startup(size.get(path, {})) for path in ("standalone", "native")):
            line.append(f"that goal is {fmt(size['ratio_goal'] * size['native']['load_s'])} s here, against "
                        f"{fmt(_startup(size['standalone']))} s for our start-up and "
                        f"{fmt(_startup(size['native']))} s for the native path's")
        if "ratio_vs_upstream" in size:
            line.append(f"{size['ratio_vs_upstream']}× the time of upstream's own command (reported, not a goal)")
        in_process = size.get("standalone_in_process")
        if in_process:
            line.append(f"in process, a reload after the append takes {fmt(in_process['reload_after_append_s'])} s "
                        f"against {fmt(in_process['full_read_s'])} s for a full read")
        header = ["path", "served after", "peak memory (PSS)", "peak RSS", "1,000 new points after"]
        parts.append(f"### {int(runs):,} runs × 1,000 scalars\n\n" + table(header + (["start-up"] if startup else []),
                                                                             rows)
                     + ("\n\n" + "; ".join(line) + "." if line else ""))
    growth = extra.get("growth_10x_runs")
    if growth:
        parts.append(f"Ten times the runs: {growth['load']}× the time and {growth['peak_memory']}× the memory "
                     f"(goal: no faster than linear). All goals met: {yes_no(extra.get('target_met'))}.")
    return "\n\n".join(parts)


def sweeps_section(extra: dict | None) -> str:
    title = "## Sweeps on object storage (`bench/sweeps.py`)\n\n"
    if not has_result(extra) or "sizes" not in extra:
        return title + not_run(extra)
    parts = [title + (f"Runs of {extra['scalars_per_run']:,} scalars on moto's S3 app (127.0.0.1, served by waitress, "
                      f"threaded, connections kept alive) with {extra['delay_ms']:.0f} ms added per request; each "
                      f"row a fresh process, the concurrent reads the median of {extra.get('reps', 1)}, their two "
                      "fetch paths alternating.")]
    for runs, size in extra["sizes"].items():
        both = "read_obstore_s" in size  # results from before the obstore path have one concurrent read
        path = f" ({size.get('default_path')})" if both else ""
        rows = [["one object at a time (the reader of release 2.21.0+standalone.1)"
                 + ("" if size.get("read_today_measured") else " (estimated: 2 requests per file × the delay)"),
                 fmt(size.get("read_today_s"), 3, " s"), f"{size.get('read_today_requests', '–')}"],
                ["many objects at once" + (", s3fs (`TB_OBJECT_STORE=fsspec`)" if both else ""),
                 fmt(size.get("read_new_s"), 3, " s"), f"{size.get('read_new_requests')}"]]
        if both:
            rows.append(["many objects at once, obstore",
                         fmt(size.get("read_obstore_s"), 3, " s"), f"{size.get('read_obstore_requests')}"])
        rows += [[f"filtered read of {size.get('filtered_runs')} runs (`runs=`){path}",
                  fmt(size.get("filtered_s"), 3, " s"), f"{size.get('filtered_requests')}"],
                 [f"`to_dask`, 2-worker LocalCluster, count + mean{path}", fmt(size.get("dask_s"), 3, " s"), "–"]]
        goal = f" (goal ≥ {extra['target_speedup']:.0f}×)" if size.get("read_today_measured") else ""
        speed = f"Speed-up {ratio(size.get('speedup'))}{goal}."
        if both:
            goal_s = size.get("read_obstore_goal_s")
            met = (f" (goal ≤ {goal_s:g} s, met: {yes_no(size.get('read_obstore_goal_met'))})" if goal_s else "")
            speed = (f"Speed-up of the s3fs path {ratio(size.get('speedup'))}{goal}, of the obstore path "
                     f"{ratio(size.get('speedup_obstore'))}; the obstore path "
                     f"{fmt(size.get('read_obstore_s'), 3, ' s')}{met}.")
        parts.append(f"### {int(runs):,} runs\n\n" + table(["read", "time", "requests"], rows) + "\n\n"
                     + f"{speed} Export of the same logdir: whole frame to one "
                     f"Parquet file {fmt(size.get('export_whole_rss_mb'), 4, ' MB')} peak RSS growth, `--partition "
                     f"run` {fmt(size.get('export_partitioned_rss_mb'), 3, ' MB')} (ratio "
                     f"{fmt(size.get('export_rss_ratio'), 2)}"
                     + (f", goal ≤ {extra['target_rss_ratio']})." if int(runs) >= 10000 else ")."))
    parts.append(f"All goals met: {yes_no(extra.get('target_met'))}.")
    return "\n\n".join(parts)
