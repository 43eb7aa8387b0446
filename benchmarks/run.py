"""Benchmark driftguard against a naive baseline, side by side, in one run.

    python benchmarks/run.py [--quick] [--sizes 10,100,1000] [--repeat 5] [--json F]

Measures ``driftguard check`` on this repository, on examples/pulse with its
fixtures, on a Pulse-like tree at upstream's size, and on synthetic trees of
each size; the naive baseline (benchmarks/naive.py) on the same configs; and
checks that both tools give the same verdicts. Every timed run is a fresh
process (interpreter start included); figures are medians. Prints markdown;
``--json`` also writes every figure. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cases  # noqa: E402
import measure  # noqa: E402
import profiling  # noqa: E402
import report  # noqa: E402

AIM_SECONDS = 0.15
PULSE_LIKE = "Pulse-like scale (9 Go x 300 KB)"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="benchmarks/run.py", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes 10 and 100, 3 runs each (for CI)")
    parser.add_argument("--sizes", help="comma-separated synthetic sizes in rules (default 10,100,1000)")
    parser.add_argument("--repeat", type=int, help="timed runs per figure (default 5, 3 with --quick)")
    parser.add_argument("--json", metavar="F", help="also write every figure as JSON to F")
    parser.add_argument("--source-bytes", type=int, default=8000, help="size of each synthetic source")
    parser.add_argument("--profile", choices=("auto", "always", "never"), default="auto",
                        help="profile the Pulse-like check (auto: only when it misses the aim)")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="run children with the environment as it is (else: a temporary pyc cache)")
    parser.add_argument("--work", metavar="DIR", help="generate the trees here and keep them")
    args = parser.parse_args(argv)
    default_sizes = "10,100" if args.quick else "10,100,1000"
    args.sizes = [int(s) for s in (args.sizes or default_sizes).split(",") if s.strip()]
    args.repeat = args.repeat or (3 if args.quick else 5)
    if args.repeat < 1 or any(n < 1 for n in args.sizes):
        parser.error("--repeat and --sizes must be positive")
    return args


def environment(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Set the children's environment and describe the machine."""
    cache = "as the environment has it"
    # every figure is a cold run: driftguard's own fact cache would make repeats warm
    os.environ["DRIFTGUARD_NO_CACHE"] = "1"
    if not args.no_bytecode_cache:  # a normal install has .pyc files; never write them into the repo
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        cache = "warm (temporary PYTHONPYCACHEPREFIX)"
    return {"cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
            "repeat": args.repeat, "sizes": args.sizes, "bytecode_cache": cache, "load_before": _load()}


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def aim(outcomes: list[cases.Outcome], repeat: int) -> dict[str, Any]:
    """The Pulse-like check timed bare (no memory wrapper), beside a bare interpreter start."""
    case = next(o for o in outcomes if o.case.name == PULSE_LIKE).case
    bare = measure.series(measure.driftguard_argv(case.config, case.root), repeat, peak=False)
    floor = measure.series(measure.interpreter_argv(), repeat, peak=False)
    return {"target_s": AIM_SECONDS, "median_s": round(bare.median_s, 4), "met": bare.median_s < AIM_SECONDS,
            "runs_s": [round(s.seconds, 4) for s in bare.samples], "cores": os.cpu_count(),
            "interpreter_s": round(floor.median_s, 4)}


def profile(outcomes: list[cases.Outcome]) -> dict[str, Any]:
    case = next(o for o in outcomes if o.case.name == PULSE_LIKE).case
    tail = ["check", "--config", str(case.config)] + (["--root", str(case.root)] if case.root else [])
    return {"phases": profiling.phases(case.config, case.root), "imports": profiling.import_times(tail),
            "hot_spots": profiling.hot_spots(tail, top=10)}


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    env = environment(args, work)
    measure.run_once(measure.interpreter_argv(), peak=False)  # fill the bytecode cache for the stdlib
    outcomes = []
    for case in cases.build_cases(work / "trees", args.sizes, args.source_bytes):
        print(f"measuring {case.name} ...", file=sys.stderr, flush=True)
        outcomes.append(cases.measure_case(case, args.repeat))
    result: dict[str, Any] = {
        "environment": env,
        "cases": [o.to_json() for o in outcomes],
        "growth": {tool: cases.growth(outcomes, tool) for tool in ("driftguard", "baseline")},
        "aim": aim(outcomes, args.repeat),
        "verdicts_agree": all(o.all_agree for o in outcomes if o.case.expected is not None),
    }
    if args.profile == "always" or (args.profile == "auto" and not result["aim"]["met"]):
        print("profiling the Pulse-like check ...", file=sys.stderr, flush=True)
        result["profile"] = profile(outcomes)
    env["load_after"] = _load()
    return result


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.work:
        work = Path(args.work).resolve()
        work.mkdir(parents=True, exist_ok=False)
        result = run(args, work)
    else:
        with tempfile.TemporaryDirectory(prefix="driftguard-bench-") as tmp:
            result = run(args, Path(tmp))
    sys.stdout.write(report.render(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["verdicts_agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
