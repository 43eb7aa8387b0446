"""The benchmark cases and what is measured for each.

A ``Case`` is a config (and optional root). ``measure_case`` times
``driftguard check`` and the naive baseline on it in fresh processes, and
takes both tools' verdicts and bytes read from one extra, untimed run each.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import measure
import naive
import pulse_scale
import synth

REPO = measure.REPO


@dataclass
class Case:
    name: str
    config: Path
    root: Path | None = None
    files: int = 0
    expected: dict[str, str] | None = None  # synthetic trees know their verdicts
    timed: bool = True
    size: int | None = None  # rules, for the synthetic growth fit


@dataclass
class Outcome:
    case: Case
    rules: int = 0
    dg_bytes: int = 0
    naive_bytes: int = 0
    dg: measure.Series | None = None
    base: measure.Series | None = None
    dg_verdicts: dict[str, str] = field(default_factory=dict)
    naive_verdicts: dict[str, str] = field(default_factory=dict)

    @property
    def agreement(self) -> dict[str, Any]:
        common = [r for r in self.dg_verdicts if self.naive_verdicts.get(r) not in (None, "n/a")]
        differ = sorted(r for r in common if self.dg_verdicts[r] != self.naive_verdicts[r])
        unsupported = sorted(r for r in self.dg_verdicts if self.naive_verdicts.get(r) in (None, "n/a"))
        out: dict[str, Any] = {"compared": len(common), "agree": len(common) - len(differ),
                               "differ": differ, "unsupported_by_baseline": unsupported}
        if self.case.expected is not None:
            out["driftguard_as_expected"] = self.dg_verdicts == self.case.expected
        return out

    @property
    def all_agree(self) -> bool:
        a = self.agreement
        return not a["differ"] and not a["unsupported_by_baseline"] and a.get("driftguard_as_expected", True)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"case": self.case.name, "rules": self.rules, "files": self.case.files,
                               "driftguard_bytes_read": self.dg_bytes, "baseline_bytes_read": self.naive_bytes,
                               "agreement": self.agreement,
                               "driftguard_verdicts": _counts(self.dg_verdicts),
                               "baseline_verdicts": _counts(self.naive_verdicts)}
        for label, s in (("driftguard", self.dg), ("baseline", self.base)):
            if s is not None:
                out[label] = {"median_s": round(s.median_s, 4), "median_peak_kb": s.median_kb,
                              "runs_s": [round(x.seconds, 4) for x in s.samples], "exit_codes": s.exit_codes}
        if self.dg and self.base:
            out["time_ratio"] = round(self.dg.median_s / self.base.median_s, 2)
            out["memory_ratio"] = round(self.dg.median_kb / self.base.median_kb, 2)
        return out


def _counts(verdicts: dict[str, str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in verdicts.values():
        out[v] = out.get(v, 0) + 1
    return out


def build_cases(work: Path, sizes: list[int], source_bytes: int = 8000) -> list[Case]:
    """The shipped configs, the Pulse-like scale tree and the synthetic trees (written under ``work``)."""
    pulse_cfg = pulse_scale.CONFIG
    fixture = pulse_scale.FIXTURE
    scale = pulse_scale.build(work / "pulse-like")
    own = _comparable(REPO / "driftguard.yaml", work / "own-driftguard.yaml")
    pulse_cfg = _comparable(pulse_cfg, work / "pulse-driftguard.yaml")
    cases = [
        Case("this repository", own, REPO, files=_config_files(own, REPO)),
        Case("examples/pulse on fixtures", pulse_cfg, fixture, files=_config_files(pulse_cfg, fixture)),
        Case("Pulse-like scale (9 Go x 300 KB)", pulse_cfg, scale, files=_config_files(pulse_cfg, scale)),
    ]
    for n in sizes:
        for drift in (False, True):
            tree = synth.generate(work / f"synth-{n}{'-drift' if drift else ''}", n, drift=drift,
                                  source_bytes=source_bytes)
            name = f"synthetic {n} rules" + (" (drifted, verdicts only)" if drift else "")
            cases.append(Case(name, tree.root / "driftguard.yaml", files=tree.files - 1, expected=tree.expected,
                              timed=not drift, size=None if drift else n))
    return cases


def _comparable(config: Path, path: Path) -> Path:
    """``config`` written to ``path`` without the rules the hand-written baseline has no
    counterpart for (``references``, ``links``), so both tools judge the same rules."""
    import yaml

    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data["rules"] = [r for r in data["rules"] if not {"references", "links"} & r.keys()]
    used = {n for r in data["rules"] for n in [r.get("fact"), *(r.get("facts") or []), *(r.get("rows") or {}).values()]}
    data["facts"] = {k: v for k, v in data["facts"].items() if k in used}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _config_files(config: Path, root: Path | None) -> int:
    from driftguard.config.loader import load_config

    cfg = load_config(config, root=root)
    return len({r.doc for r in cfg.rules} | {p for f in cfg.facts.values() for p in f.files})


def verdicts(case: Case) -> tuple[dict[str, str], int, dict[str, str], int]:
    """Both tools' verdicts and bytes read (config included), from one in-process run each."""
    from driftguard.config.loader import load_config
    from driftguard.judging.engine import Engine

    engine = Engine(load_config(case.config, root=case.root))
    result = engine.run()
    dg = {r.rule.id: r.status.value for r in result.rules}
    dg_bytes = engine.workspace.bytes_read + case.config.stat().st_size
    base = naive.run(case.config, case.root)
    return dg, dg_bytes, base["rules"], base["bytes_read"]


def measure_case(case: Case, repeat: int) -> Outcome:
    out = Outcome(case)
    out.dg_verdicts, out.dg_bytes, out.naive_verdicts, out.naive_bytes = verdicts(case)
    out.rules = len(out.dg_verdicts)
    if case.timed:
        out.dg = measure.series(measure.driftguard_argv(case.config, case.root), repeat)
        out.base = measure.series(measure.naive_argv(case.config, case.root), repeat)
    return out


def growth(outcomes: list[Outcome], tool: str) -> dict[str, Any]:
    """Time against MB read over the synthetic sizes: a least-squares line and the
    marginal cost per MB between consecutive sizes (equal marginal costs = linear)."""
    points = []
    for o in outcomes:
        series = o.dg if tool == "driftguard" else o.base
        if o.case.size is None or series is None:
            continue
        mb = (o.dg_bytes if tool == "driftguard" else o.naive_bytes) / 1e6
        points.append((o.case.size, mb, series.median_s * 1000))
    points.sort()
    steps = []
    for (n0, b0, t0), (n1, b1, t1) in zip(points, points[1:]):
        steps.append({"from": n0, "to": n1, "marginal_ms_per_mb": round((t1 - t0) / (b1 - b0), 1)})
    for earlier, later in zip(steps, steps[1:]):
        later["ratio_to_previous"] = round(later["marginal_ms_per_mb"] / earlier["marginal_ms_per_mb"], 2)
    fit: dict[str, Any] = {}
    if len(points) >= 2:
        xs, ys = [p[1] for p in points], [p[2] for p in points]
        slope, intercept = statistics.linear_regression(xs, ys)
        mean = statistics.fmean(ys)
        total = sum((y - mean) ** 2 for y in ys)
        resid = sum((y - (intercept + slope * x)) ** 2 for x, y in zip(xs, ys))
        fit = {"ms_per_mb": round(slope, 1), "fixed_ms": round(intercept, 1),
               "r2": round(1 - resid / total, 4) if total else 1.0}
    return {"points": [{"rules": n, "mb_read": round(b, 3), "median_ms": round(t, 1),
                        "ms_per_mb": round(t / b, 1)} for n, b, t in points],
            "steps": steps, "fit": fit}
