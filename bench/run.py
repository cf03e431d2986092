"""Side-by-side benchmark: our logger vs tensorboardX 2.6.5 vs torch.utils.tensorboard (`make bench`).

Each (library, workload, repetition) runs in a fresh subprocess (bench/worker.py), so import
costs stay out of the timings and peak-RSS figures are comparable. Ours (and the plain-loop
reference rows) run with this interpreter and PYTHONPATH=<repo>/python, so the source tree is
measured; tensorboardX and torch run with <repo>/.venv-upstream/bin/python, because they need
upstream's `tensorboard` package, which shares our import name. "torch-ours" is the same
torch.utils.tensorboard code run with this interpreter and our source tree, so its
`EventFileWriter` is ours: its rows compare torch on upstream's writer core with torch on ours.

Prints a table of medians (with min-max spread) and ratios, checks the targets, and writes
the raw runs to artifacts/bench/results.json (and a markdown table next to it).

    python bench/run.py                  # everything, 3 repetitions (~10-15 min on 2 cores)
    python bench/run.py --reps 1 --workloads scalars_1tag images
    python bench/run.py --crc python     # every library with its pure-Python CRC-32C
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import BENCH, REPO, SOURCE, env_for, last_json, run_json  # noqa: E402
from timing import median_of  # noqa: E402
from workloads import SCALAR_WORKLOADS, WORKLOADS  # noqa: E402

LIBS = ("ours", "tbx", "torch")
TORCH_OURS = "torch-ours"  # torch.utils.tensorboard on our writer core
# minimum e2e speed-up of torch.utils.tensorboard on our core over torch on upstream's core
TORCH_OURS_TARGETS = {"scalars_1tag": 3.0, "scalars_100tags": 3.0}
REFS = ("ref-hand", "ref-pre")
LABELS = {"ours": "ours", "tbx": "tensorboardX 2.6.5", "torch": "torch.utils.tensorboard",
          TORCH_OURS: "torch.utils.tensorboard on our core",
          "ref-hand": "ref: plain loop, hand-encoded", "ref-pre": "ref: plain loop, pre-encoded"}
# target: minimum e2e speed-up over tensorboardX, maximum caller µs per add_* call
TARGETS = {"scalars_1tag": (20.0, 3.0), "scalars_100tags": (20.0, 3.0), "histograms": (3.0, None),
           "images": (3.0, None), "embedding": (3.0, None)}
RSS_SLACK_MB = 1.0  # page/arena granularity: RSS deltas within 1 MB of each other count as equal


def preflight(libs) -> tuple[list, dict]:
    """Drops competitors whose environment is missing; returns (libs, environment info)."""
    info = {}
    keep = []
    for lib in libs:
        python, env = env_for(lib)
        probe = {"ours": "import tensorboard, tensorboard.events.crc32c as c; "
                         "print(tensorboard.__file__, tensorboard.__version__, c.IMPLEMENTATION)",
                 "tbx": "import tensorboardX, tensorboardX.crc32c as c; "
                        "print(tensorboardX.__version__, 'crc32c' if c._crc32c_native else 'python')",
                 "torch": "import torch, tensorboard; "
                          "print(torch.__version__, 'cuda' if torch.version.cuda else 'cpu', tensorboard.__version__)",
                 TORCH_OURS: "import torch, tensorboard.summary.writer.event_file_writer as w; "
                             "print(torch.__version__, w.__file__)"}.get(lib)
        if probe is None:
            keep.append(lib)
            continue
        if not os.path.exists(python):
            print(f"!! {lib}: {python} not found -- create it with tools/test_envs.sh "
                  f"(.venv-upstream/bin/pip install /opt/wheels/torch-2.13.0+cpu-*.whl tensorboardX==2.6.5 psutil)")
            continue
        proc = subprocess.run([python, "-c", probe], env=env, capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            print(f"!! {lib}: not importable with {python}; skipped\n   {proc.stderr.strip().splitlines()[-1:]}")
            continue
        info[lib] = proc.stdout.strip()
        if lib in ("ours", TORCH_OURS) and SOURCE not in proc.stdout:
            print(f"!! ours: imported {proc.stdout.strip()}, not the source tree under {REPO}/python")
        if lib == "tbx" and not proc.stdout.startswith("2.6.5"):
            print(f"!! tensorboardX is {proc.stdout.split()[0]}, the spec says 2.6.5")
        keep.append(lib)
    return keep, info


def run_one(lib: str, workload: str, crc: str, check: bool, tmp_root: str, timeout: float) -> dict:
    python, env = env_for(lib)
    logdir = tempfile.mkdtemp(prefix=f"{lib}-{workload}-", dir=tmp_root)
    cmd = [python, os.path.join(BENCH, "worker.py"), lib, workload, logdir, "--crc", crc]
    if not check:
        cmd.append("--no-check")
    try:
        result = run_json(cmd, env, timeout)
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
    return {"lib": lib, "workload": workload, **result} if "error" in result else result


def extras_plan(reps: int) -> list[tuple[str, list[str], float]]:
    """(script, its arguments, timeout) of each extra benchmark; `reps` fresh processes per measurement."""
    return [("startup.py", [], 600), ("soak.py", [], 900), ("read.py", ["--reps", str(reps)], 3600),
            ("histogram_dists.py", ["--reps", str(reps)], 3600), ("async_log.py", ["--reps", str(reps)], 1800),
            ("jax_step_overhead.py", ["--pairs", str(10 * reps)], 1800), ("first_call.py", ["--reps", str(reps)], 1800),
            ("report_export.py", ["--reps", str(reps)], 3600),
            ("serving.py", ["--runs", "1000", "10000", "--reps", str(max(reps, 3))], 3600),
            ("sweeps.py", ["--runs", "1000", "10000", "--reps", str(max(reps, 3))], 3600),
            ("reduce.py", ["--reps", str(reps)], 1800), ("experiments.py", ["--reps", str(max(reps, 3))], 3600),
            ("auth_load.py", ["--reps", str(max(reps, 3))], 1800),
            ("system_cost.py", ["--reps", str(max(reps, 5))], 1800), ("plot_figures.py", ["--reps", str(reps)], 5400)]


def run_extra(name: str, args: list[str], timeout: float) -> dict | None:
    """Runs one of the extra benchmarks (bench/startup.py, soak.py, ...) and keeps the last JSON line it prints."""
    path = os.path.join(BENCH, name)
    if not os.path.exists(path):
        return None
    python, env = env_for("ours")
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([python, path, *args], env=env, cwd=REPO, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s", "args": args}
    result: dict = {"wall_s": time.perf_counter() - t0, "args": args}
    printed = last_json(proc.stdout)
    if printed is not None:
        result.update(printed)
    else:
        result["error"] = (proc.stderr or proc.stdout).strip().splitlines()[-3:] or f"exit {proc.returncode}"
    if proc.returncode != 0:  # after its result a script exits 1 for a missed goal (target_met says which)
        result["exit_status"] = proc.returncode
    return result


# -- summarising -------------------------------------------------------------------------------------

def summarise(runs: list[dict]) -> dict:
    """{workload: {lib: {median/min/max of e2e, µs/call, rss...}}}."""
    out: dict = {}
    for r in runs:
        if "error" in r:
            continue
        out.setdefault(r["workload"], {}).setdefault(r["lib"], []).append(r)
    summary: dict = {}
    for workload, by_lib in out.items():
        for lib, rs in by_lib.items():
            e2e = [r["e2e_s"] for r in rs]
            summary.setdefault(workload, {})[lib] = {
                "n": len(rs), "e2e_median_s": median_of(rs, "e2e_s"), "e2e_min_s": min(e2e), "e2e_max_s": max(e2e),
                "us_per_call_median": median_of(rs, "us_per_call"),
                "us_per_call_min": min(r["us_per_call"] for r in rs),
                "close_median_s": median_of(rs, "close_s"),
                "rss_delta_median_mb": median_of(rs, "rss_delta_mb"),
                "rss_delta_max_mb": max(r["rss_delta_mb"] for r in rs),
                "crc32c": rs[0].get("crc32c"),
                "problems": sorted({p for r in rs for p in r.get("problems", [])}),
                "checked": any("scan" in r for r in rs),
            }
    for workload, by_lib in summary.items():
        _torch_ours_verdicts(workload, by_lib)
        ours = by_lib.get("ours")
        if not ours:
            continue
        for lib in ("tbx", "torch"):
            if lib in by_lib:
                ours[f"ratio_vs_{lib}"] = by_lib[lib]["e2e_median_s"] / ours["e2e_median_s"]
                ours[f"ratio_vs_{lib}_best"] = by_lib[lib]["e2e_min_s"] / ours["e2e_min_s"]
        min_ratio, max_us = TARGETS[workload]
        verdicts = {}
        if "ratio_vs_tbx" in ours:
            verdicts["speed"] = ours["ratio_vs_tbx"] >= min_ratio
            verdicts["memory"] = ours["rss_delta_median_mb"] <= by_lib["tbx"]["rss_delta_median_mb"] + RSS_SLACK_MB
        if max_us is not None:
            verdicts["caller"] = ours["us_per_call_median"] <= max_us
        verdicts["data"] = not ours["problems"]
        ours["targets"] = verdicts
    return summary


def _torch_ours_verdicts(workload: str, by_lib: dict) -> None:
    """torch.utils.tensorboard on our core vs on upstream's: ratio and target, kept in by_lib[TORCH_OURS]."""
    torch_ours, torch_up = by_lib.get(TORCH_OURS), by_lib.get("torch")
    if torch_ours and torch_up and workload in TORCH_OURS_TARGETS:
        torch_ours["ratio_vs_torch"] = torch_up["e2e_median_s"] / torch_ours["e2e_median_s"]
        torch_ours["ratio_vs_torch_best"] = torch_up["e2e_min_s"] / torch_ours["e2e_min_s"]
        torch_ours["targets"] = {"speed": torch_ours["ratio_vs_torch"] >= TORCH_OURS_TARGETS[workload],
                                 "data": not torch_ours["problems"]}


def _secs(s: dict | None) -> str:
    if not s:
        return "-"
    med, lo, hi = s["e2e_median_s"], s["e2e_min_s"], s["e2e_max_s"]
    spread = f" ±{(hi - lo) / 2 / med * 100:.0f}%" if s["n"] > 1 else ""
    return f"{med:.3g} s{spread}"


def _us(v: float) -> str:
    if v >= 1_000_000:
        return f"{v / 1e6:.3g} s"
    if v >= 1_000:
        return f"{v / 1000:.3g} ms"
    return f"{v:.3g} µs"


def _ratio(ours: dict, lib: str) -> str:
    if f"ratio_vs_{lib}" not in ours:
        return "-"
    return f"{ours[f'ratio_vs_{lib}']:.3g}× (best {ours[f'ratio_vs_{lib}_best']:.3g}×)"


def target_text(workload: str, ours: dict) -> tuple[str, str]:
    min_ratio, max_us = TARGETS[workload]
    want = f"≥{min_ratio:g}× tbx" + (f", ≤{max_us:g} µs/call" if max_us else "") + ", RSS ≤ tbx"
    verdicts = ours.get("targets", {})
    missed = [k for k, ok in verdicts.items() if not ok]
    if "speed" not in verdicts:
        return want, "n/a (no tbx)"
    return want, "YES" if not missed else "NO: " + ", ".join(missed)


def table_rows(summary: dict, workloads, with_refs: bool) -> tuple[list[str], list[list[str]]]:
    head = ["workload", "ours e2e", "tbx e2e", "torch e2e", "× vs tbx", "× vs torch", "ours µs/call",
            "tbx µs/call", "peak ΔRSS MB ours/tbx/torch", "target", "met?"]
    rows = []
    for workload in workloads:
        by_lib = summary.get(workload, {})
        ours = by_lib.get("ours")
        tbx, torch = by_lib.get("tbx"), by_lib.get("torch")
        if ours:
            rss = "/".join(f"{by_lib[lib]['rss_delta_median_mb']:.1f}" if lib in by_lib else "-" for lib in LIBS)
            want, met = target_text(workload, ours)
            rows.append([workload, _secs(ours), _secs(tbx), _secs(torch),
                         _ratio(ours, "tbx"), _ratio(ours, "torch"),
                         _us(ours["us_per_call_median"]), _us(tbx["us_per_call_median"]) if tbx else "-", rss, want,
                         met])
        torch_ours = by_lib.get(TORCH_OURS)
        if torch_ours and "targets" in torch_ours:
            missed = [k for k, ok in torch_ours["targets"].items() if not ok]
            rows.append([f"{workload}: {LABELS[TORCH_OURS]}", _secs(torch_ours), "", _secs(torch), "",
                         _ratio(torch_ours, "torch"), _us(torch_ours["us_per_call_median"]), "",
                         (f"{torch_ours['rss_delta_median_mb']:.1f}/-/{torch['rss_delta_median_mb']:.1f}"
                          if torch else "-"),
                         f"≥{TORCH_OURS_TARGETS[workload]:g}× torch on upstream's core",
                         "YES" if not missed else "NO: " + ", ".join(missed)])
        if with_refs and ours:
            for ref in REFS:
                if ref in by_lib:
                    r = by_lib[ref]
                    rows.append([f"  {LABELS[ref]}", _secs(r), "", "", f"{tbx['e2e_median_s'] / r['e2e_median_s']:.3g}×"
                                 if tbx else "-", "", _us(r["us_per_call_median"]), "",
                                 f"{r['rss_delta_median_mb']:.1f}", "", ""])
    return head, rows


def render_text(head, rows) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    fmt = lambda cells: " | ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    return "\n".join([fmt(head), "-+-".join("-" * w for w in widths)] + [fmt(r) for r in rows])


def render_markdown(head, rows) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def machine() -> dict:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem_gb = None
    try:
        mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    except (ValueError, OSError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "mem_gb": round(mem_gb, 1) if mem_gb else None,
            "os": platform.platform(), "python": platform.python_version(), "numpy": _version_of("numpy"),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "git_commit": git_commit(),
            "loadavg_start": os.getloadavg() if hasattr(os, "getloadavg") else None}


def _version_of(distribution: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def git_commit() -> str | None:
    """The checkout's commit, with "+changes" when the working tree differs from it (None outside git)."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=30)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3, help="fresh-process repetitions per measurement (median)")
    parser.add_argument("--workloads", nargs="+", choices=list(WORKLOADS), default=list(WORKLOADS))
    parser.add_argument("--libs", nargs="+", choices=list(LIBS) + [TORCH_OURS], default=list(LIBS) + [TORCH_OURS])
    parser.add_argument("--no-refs", action="store_true", help="skip the plain-loop reference rows")
    parser.add_argument("--no-extras", action="store_true", help="skip bench/startup.py, soak.py, read.py, "
                        "histogram_dists.py, async_log.py and jax_step_overhead.py")
    parser.add_argument("--extras-reps", type=int, default=3,
                        help="fresh processes per measurement of read.py, histogram_dists.py and async_log.py "
                             "(jax_step_overhead.py: 10x as many pairs); default 3")
    parser.add_argument("--crc", choices=("installed", "python"), default="installed",
                        help="installed: each library with the CRC-32C its environment gives it (default); "
                             "python: hide native crc32c so all use pure Python (what a bare pip install gives)")
    parser.add_argument("--out", default=os.path.join(REPO, "artifacts", "bench"),
                        help="directory for results.json and table.md (default artifacts/bench)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per measurement")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    machine_info = machine()
    libs, env_info = preflight(args.libs)
    lib_order = libs + ([] if args.no_refs else list(REFS))
    if TORCH_OURS in libs and "torch" not in libs:
        print(f"!! {TORCH_OURS} is measured against torch on upstream's core: add --libs torch")
    os.makedirs(args.out, exist_ok=True)
    tmp_root = tempfile.mkdtemp(prefix="tb-bench-")
    print(f"bench: {', '.join(f'{k}={v}' for k, v in env_info.items())}")
    print(f"bench: {args.reps} rep(s) x {len(args.workloads)} workloads, crc={args.crc}, interpreter {sys.executable}")
    runs = []
    try:
        for rep in range(args.reps):
            for workload in args.workloads:
                order = [lib for lib in lib_order
                         if (lib in libs and (lib != TORCH_OURS or workload in TORCH_OURS_TARGETS))
                         or (lib in REFS and workload in SCALAR_WORKLOADS)]
                order = order[rep % len(order):] + order[:rep % len(order)]  # rotate: spread drift across libs
                for lib in order:
                    r = run_one(lib, workload, args.crc, check=(rep == 0), tmp_root=tmp_root, timeout=args.timeout)
                    r["rep"] = rep
                    runs.append(r)
                    if "error" in r:
                        print(f"  rep {rep + 1} {workload:16s} {lib:9s} ERROR {r['error']}", flush=True)
                    else:
                        bad = f"  PROBLEMS: {r['problems']}" if r.get("problems") else ""
                        print(f"  rep {rep + 1} {workload:16s} {lib:9s} e2e {r['e2e_s']:8.3f} s  "
                              f"{_us(r['us_per_call']):>10s}/call  ΔRSS {r['rss_delta_mb']:6.1f} MB  "
                              f"crc={r.get('crc32c')}{bad}", flush=True)
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)

    extras = {}
    if not args.no_extras:
        for name, extra_args, timeout in extras_plan(args.extras_reps):
            result = run_extra(name, extra_args, timeout)
            if result is not None:
                extras[name] = result
                print(f"  {name}: {json.dumps(result)[:400]}", flush=True)

    summary = summarise(runs)
    head, rows = table_rows(summary, args.workloads, with_refs=not args.no_refs)
    text = render_text(head, rows)
    crcs = {lib: summary[w][lib]["crc32c"] for w in summary for lib in summary[w] if lib in LIBS + (TORCH_OURS,)}
    notes = [f"e2e = writer creation .. close() returned, median of {args.reps} fresh processes (± half the min-max "
             f"spread); × = tbx or torch e2e / ours (medians; best = fastest run of each); "
             f"µs/call = time inside add_* per call; ΔRSS = peak RSS growth over the post-import, "
             f"post-data baseline. CRC-32C: " + ", ".join(f"{k}={v}" for k, v in crcs.items()) + "."]
    if len(set(crcs.values())) > 1:
        notes.append("NOTE: the libraries used different CRC-32C implementations; `--crc python` compares them "
                     "on equal footing.")
    errors = [r for r in runs if "error" in r]
    problems = {(w, lib): s["problems"] for w, by in summary.items() for lib, s in by.items() if s["problems"]}
    print()
    print(text)
    for note in notes:
        print(note)
    for (w, lib), p in problems.items():
        print(f"DATA PROBLEM {w} {lib}: {p}")
    if errors:
        print(f"{len(errors)} measurement(s) failed (see above)")
    for name, result in extras.items():
        print(f"{name}: {json.dumps(result)}")

    elapsed = time.perf_counter() - started
    results = {"machine": machine_info, "environments": env_info, "config": vars(args), "elapsed_s": elapsed,
               "summary": summary, "runs": runs, "extras": extras, "notes": notes}
    results["machine"]["loadavg_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(render_markdown(head, rows) + "\n\n" + "\n\n".join(notes) + "\n")
    print(f"bench: wrote {os.path.relpath(args.out, REPO)}/results.json and table.md in {elapsed:.0f} s")
    all_met = all(all(s.get("targets", {}).values()) for by in summary.values()
                  for s in [by.get("ours", {}), by.get(TORCH_OURS, {})])
    extras_ok = all("error" not in r and r.get("target_met", True) and not r.get("exit_status")
                    for r in extras.values())
    return 0 if all_met and extras_ok and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
