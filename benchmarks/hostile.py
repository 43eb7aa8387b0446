"""Time driftguard on hostile input, each figure against a floor measured in the same run.

The test suite counts the work these inputs cost (tests/work.py) and never times them;
this script gives the seconds, at the sizes markdown-it-py's own benchmarks use:

- markdown: every claim form of ``tests/hostile/test_hostile_markdown.py`` over each shape
  of ``tests/hostile/shapes.py`` at its full size, against markdown-it parsing the same text
  (the floor: the parser driftguard builds on);
- phrases: the phrase templates of ``test_hostile_regex.py`` over each hostile sentence,
  against markdown-it parsing the same document;
- the regex bound: how long a catastrophic user pattern runs before it is stopped, against
  the bound it was given (``DRIFTGUARD_REGEX_TIMEOUT``);
- headroom: whether this repository's and the Pulse example's configs pass with a bound
  of 0.1 s on every user regex (they did under a test's clock before; here it is reported).

Each figure is the median of ``--repeat`` runs, the case and its floor in turn.

    python benchmarks/hostile.py [--repeat 3] [--scale 1] [--quick] [--only NAME ...] [--json out.json]

``--scale N`` divides every size by N. At full size the shapes the tests mark quadratic
(``long-line-code``, ``nul-and-controls``) take many minutes each.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from driftguard import user_regex  # noqa: E402
from driftguard.config.specs import MentionsClaim, PhraseClaim, SectionClaim, TableClaim  # noqa: E402
from driftguard.documents.claims import read_claim  # noqa: E402
from driftguard.documents.reader import parse_document  # noqa: E402
from driftguard.model import DriftguardError, Location  # noqa: E402
from tests.hostile.shapes import SENTENCES, SHAPES  # noqa: E402

FORMS = [
    TableClaim(table="T"), TableClaim(table="a", column="a"), TableClaim(table="T", column="V", rows=(("a", "f"),)),
    SectionClaim(section="T"), SectionClaim(section="T", code_spans=r"^[a-z]+$"), SectionClaim(section="T", list=True),
    PhraseClaim(template="limit is {value} requests"), PhraseClaim(template="after {value} requests", section="T"),
    MentionsClaim(),
]
TEMPLATES = ("after {value}", "{value} later", "after {value} of")
QUICK = 32
"""``--quick`` divides every size by this (for the smoke test)."""


def _markdown_it(text: str) -> None:
    from markdown_it import MarkdownIt

    MarkdownIt("commonmark").enable("table").parse(text)


def _every_form(text: str) -> None:
    doc = parse_document("hostile.md", text)
    for form in FORMS:
        try:
            read_claim(doc, form)
        except DriftguardError:
            pass


def _phrases(text: str) -> None:
    doc = parse_document("p.md", text)
    for template in TEMPLATES:
        try:
            read_claim(doc, PhraseClaim(template=template))
        except DriftguardError:
            pass


def _paired(case: Callable[[str], None], floor: Callable[[str], None], text: str, repeat: int) -> dict[str, Any]:
    """Median seconds of ``case(text)`` and of ``floor(text)``, run in turn, and their ratio."""
    ours, floors = [], []
    for _ in range(repeat):
        for fn, out in ((case, ours), (floor, floors)):
            start = time.perf_counter()
            fn(text)
            out.append(time.perf_counter() - start)
    case_s, floor_s = statistics.median(ours), statistics.median(floors)
    return {"chars": len(text), "case_s": round(case_s, 4), "floor_s": round(floor_s, 4),
            "ratio": round(case_s / max(floor_s, 1e-6), 2)}


def _bound(repeat: int, bound: float) -> dict[str, Any]:
    """Seconds from the start of a catastrophic match to its PatternError, against ``bound``."""
    compiled = user_regex.compile_user_regex(r"^((?:a|a)+)$", Location("big.txt"), flags=user_regex.MULTILINE)
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            user_regex.first_groups(compiled, "a" * 60 + "!", Location("big.txt"), seconds=bound)
        except DriftguardError:
            pass
        runs.append(time.perf_counter() - start)
    stopped = statistics.median(runs)
    return {"bound_s": bound, "stopped_s": round(stopped, 4), "ratio": round(stopped / bound, 2)}


def _headroom() -> list[dict[str, Any]]:
    out = []
    for config, root in (("driftguard.yaml", []), ("examples/pulse/driftguard.yaml", ["--root", "tests/fixtures/pulse"])):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "driftguard", "check", "--no-cache", "--config", config, *root],
                              cwd=REPO, capture_output=True, text=True, check=False,
                              env={**os.environ, user_regex.TIMEOUT_ENV: "0.1"})
        out.append({"config": config, "passes_at_0.1_s": done.returncode == 0,
                    "check_s": round(time.perf_counter() - start, 2)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=int, default=1, help="every size divided by this")
    parser.add_argument("--quick", action="store_true", help=f"every size divided by {QUICK}, one run")
    parser.add_argument("--only", nargs="*", default=[], help="shape or sentence names")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    scale = QUICK if args.quick else max(1, args.scale)
    result: dict[str, Any] = {"repeat": repeat, "scale": scale, "markdown": {}, "phrases": {}}
    print("| markdown shape | chars | every form s | markdown-it s | ratio |\n|---|---:|---:|---:|---:|")
    for name, shape in SHAPES.items():
        if args.only and name not in args.only:
            continue
        row = result["markdown"][name] = _paired(_every_form, _markdown_it, shape.build(max(1, shape.full // scale)),
                                                 repeat)
        print(f"| {name} | {row['chars']} | {row['case_s']} | {row['floor_s']} | {row['ratio']}x |", flush=True)
    print("\n| phrase sentence | chars | phrases s | markdown-it s | ratio |\n|---|---:|---:|---:|---:|")
    for name, shape in SENTENCES.items():
        if args.only and name not in args.only:
            continue
        text = "after " + shape.build(max(1, shape.full // scale)) + " of\n"
        row = result["phrases"][name] = _paired(_phrases, _markdown_it, text, repeat)
        print(f"| {name} | {row['chars']} | {row['case_s']} | {row['floor_s']} | {row['ratio']}x |", flush=True)
    result["bound"] = _bound(repeat, 0.05 if args.quick else 0.5)
    print(f"\nregex bound {result['bound']['bound_s']} s: stopped after {result['bound']['stopped_s']} s "
          f"({result['bound']['ratio']}x the bound)")
    if not args.quick:
        result["headroom"] = _headroom()
        for row in result["headroom"]:
            print(f"{row['config']}: {'passes' if row['passes_at_0.1_s'] else 'FAILS'} with a 0.1 s regex bound "
                  f"({row['check_s']} s)")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
