"""Render the benchmark results (the dict ``run.py`` builds) as markdown."""

from __future__ import annotations

from typing import Any


def _mb(n: float) -> str:
    return f"{n / 1e6:.2f}"


def _s(run: dict[str, Any] | None) -> str:
    return f"{run['median_s']:.3f}" if run else "-"


def _mem(run: dict[str, Any] | None) -> str:
    return f"{run['median_peak_kb'] / 1024:.0f}" if run else "-"


def cases_table(rows: list[dict[str, Any]]) -> list[str]:
    out = ["| Case | Rules | Files | MB read (driftguard / baseline) | driftguard s | baseline s | "
           "time ratio | driftguard peak MB | baseline peak MB | memory ratio | verdicts agree |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        a = r["agreement"]
        agree = f"{a['agree']}/{a['compared']}"
        if a["differ"]:
            agree += " (differ: " + ", ".join(a["differ"][:5]) + ("..." if len(a["differ"]) > 5 else "") + ")"
        if a["unsupported_by_baseline"]:
            agree += f"; {len(a['unsupported_by_baseline'])} n/a in baseline"
        if "driftguard_as_expected" in a:
            agree += "; driftguard as expected" if a["driftguard_as_expected"] else "; driftguard NOT as expected"
        dg, base = r.get("driftguard"), r.get("baseline")
        ratio = f"{r['time_ratio']:.2f}x" if "time_ratio" in r else "-"
        mem_ratio = f"{r['memory_ratio']:.2f}x" if "memory_ratio" in r else "-"
        out.append(f"| {r['case']} | {r['rules']} | {r['files']} | {_mb(r['driftguard_bytes_read'])} / "
                   f"{_mb(r['baseline_bytes_read'])} | {_s(dg)} | {_s(base)} | {ratio} | {_mem(dg)} | "
                   f"{_mem(base)} | {mem_ratio} | {agree} |")
    return out


def growth_table(growth: dict[str, dict[str, Any]]) -> list[str]:
    out = ["| Tool | Rules | MB read | median ms | ms per MB | marginal ms per MB (vs previous size) | "
           "marginal ratio |", "|---|---:|---:|---:|---:|---:|---:|"]
    for tool, g in growth.items():
        steps = {s["to"]: s for s in g["steps"]}
        for p in g["points"]:
            step = steps.get(p["rules"], {})
            marginal = f"{step['marginal_ms_per_mb']}" if step else "-"
            ratio = f"{step['ratio_to_previous']}" if "ratio_to_previous" in step else "-"
            out.append(f"| {tool} | {p['rules']} | {p['mb_read']:.2f} | {p['median_ms']:.0f} | {p['ms_per_mb']:.0f} "
                       f"| {marginal} | {ratio} |")
    out.append("")
    for tool, g in growth.items():
        fit = g["fit"]
        if fit:
            out.append(f"- {tool}: time = {fit['fixed_ms']:.0f} ms + {fit['ms_per_mb']:.0f} ms/MB "
                       f"x MB read (least squares, R^2 = {fit['r2']})")
    return out


def aim_lines(aim: dict[str, Any]) -> list[str]:
    verdict = "meets" if aim["met"] else "misses"
    return [f"- Pulse-like check (`python -m driftguard check`, interpreter start included): "
            f"**{aim['median_s']:.3f} s** median, which {verdict} the {aim['target_s']} s aim "
            f"({aim['cores']} cores; bare interpreter start `python -c pass`: {aim['interpreter_s']:.3f} s).",
            f"- Runs: {', '.join(f'{x:.3f}' for x in aim['runs_s'])} s."]


def profile_lines(profile: dict[str, Any]) -> list[str]:
    out = ["", "### Where the Pulse-like check's time goes", "",
           "Stages of one check in a fresh interpreter (exclusive ms; each library imported on its own clock):",
           "", "| Stage | ms |", "|---|---:|"]
    out += [f"| {k} | {v:.1f} |" for k, v in sorted(profile["phases"].items(), key=lambda kv: -kv[1])
            if k != "total in process"]
    out.append(f"| **total in process** | {profile['phases'].get('total in process', 0):.1f} |")
    out += ["", "`python -X importtime` (cumulative ms, inflated by the measurement itself):", ""]
    out += [f"- {k}: {v:.1f}" for k, v in sorted(profile["imports"]["groups"].items(), key=lambda kv: -kv[1])]
    own = profile["imports"].get("own_top", [])
    if own:
        out.append("- driftguard's costliest own modules (self ms): "
                   + ", ".join(f"{m['module']} {m['self_ms']}" for m in own))
    out += ["", "cProfile, by exclusive time:", "", "| Function | calls | tottime ms | cumtime ms |", "|---|---:|---:|---:|"]
    out += [f"| `{h['function']}` | {h['calls']} | {h['tottime_ms']} | {h['cumtime_ms']} |" for h in profile["hot_spots"]]
    return out


def render(result: dict[str, Any]) -> str:
    env = result["environment"]
    lines = ["# driftguard benchmarks", "",
             f"{env['cores']} cores, Python {env['python']}, {env['platform']}; median of {env['repeat']} runs "
             f"per figure, each run a fresh process; load average {env['load_before']} before, "
             f"{env['load_after']} after; bytecode cache: {env['bytecode_cache']}.", "",
             "## Cases", ""]
    lines += cases_table(result["cases"])
    lines += ["", "Time and memory ratios are driftguard / baseline, measured in this run.", "",
              "## Growth with size (synthetic trees)", ""]
    lines += growth_table(result["growth"])
    lines += ["", "## The Pulse-like aim", ""]
    lines += aim_lines(result["aim"])
    if result.get("profile"):
        lines += profile_lines(result["profile"])
    return "\n".join(lines) + "\n"
