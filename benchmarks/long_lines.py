"""Time facts read from one long line against the same declarations on separate lines.

The issue's case: a Go file of ``--constants`` consts of type K written on one
line, ``package p; type K int; const (ConstValue000000 K = 0; ...;);`` (145000 consts,
about 4.1 MB, 3.9 MiB), against the same consts one per line. Each case is one fact,
extracted by a fresh ``Engine`` (read, parse, index, evaluate, locate). The two
layouts run in turn (one line, separate lines, one line, ...) after a small
warm-up, and the report gives the median seconds of each and the median of the
pairwise ratios: near 1 when cost is linear in bytes, whatever the line length.
The other cases: the same Go with non-ASCII text early on the line, Python
module constants (libcst), and a ``pattern`` fact over the Go file. Every run's
columns are checked against a naive count on the text.

    python benchmarks/long_lines.py [--constants 145000] [--repeat 3] [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Case:
    name: str
    file: str
    selector: str  # the fact's selector, as YAML
    write: Callable[[int, bool], str]  # (constants, one line?) -> source text
    needle: Callable[[int], str]  # where the i-th item's location points


def go_source(prefix: str) -> Callable[[int, bool], str]:
    def write(count: int, one_line: bool) -> str:
        specs = [f"ConstValue{i:06d} K = {i}" for i in range(count)]
        if one_line:
            return f"package p; type K int; {prefix}const (" + "; ".join(specs) + ";);\n"
        return f"package p\ntype K int\n{prefix}\nconst (\n" + "".join(f"\t{s}\n" for s in specs) + ")\n"
    return write


def py_source(count: int, one_line: bool) -> str:
    return ("; " if one_line else "\n").join(f"ConstValue{i:06d} = {i}" for i in range(count)) + "\n"


CASES = (
    Case("Go constants", "k.go", "constants: {type: K}", go_source(""), lambda i: f"ConstValue{i:06d} K"),
    Case("Go constants, non-ASCII line", "k.go", "constants: {type: K}",
         go_source('const S = "été ☃ 雪"; '), lambda i: f"ConstValue{i:06d} K"),
    Case("Go pattern", "k.go", r"pattern: '(ConstValue\d+) K'", go_source(""), lambda i: f"ConstValue{i:06d} K"),
    Case("Python constants", "k.py", "constants: {name: '^C'}", py_source, lambda i: f"ConstValue{i:06d} ="),
)


def naive_positions(text: str, needles: list[str]) -> list[tuple[int, int]]:
    """(line, 1-based character column) of each needle, found in order."""
    out, at, line, line_start = [], 0, 1, 0
    for needle in needles:
        found = text.index(needle, at)
        breaks = text.count("\n", at, found)
        if breaks:
            line += breaks
            line_start = text.rindex("\n", at, found) + 1
        out.append((line, found - line_start + 1))
        at = found + len(needle)
    return out


def write_tree(root: Path, case: Case, count: int, one_line: bool) -> tuple[Path, str]:
    root.mkdir(parents=True)
    text = case.write(count, one_line)
    (root / case.file).write_text(text, encoding="utf-8")
    (root / "d.md").write_text("# T\n\n| Name |\n|---|\n| x |\n", encoding="utf-8")
    (root / "driftguard.yaml").write_text(
        f"version: 1\nmax_file_size: {2 * len(text.encode('utf-8')) + 1000}\n"
        f"facts:\n  f:\n    file: {case.file}\n    {case.selector}\n"
        "rules:\n  - {id: r, fact: f, doc: d.md, table: Name}\n", encoding="utf-8")
    return root / "driftguard.yaml", text


def run_once(config_path: Path) -> tuple[float, list[tuple[int, int]]]:
    """Seconds to extract the fact with a fresh engine, and its items' positions."""
    from driftguard.config.loader import load_config
    from driftguard.judging.engine import Engine

    config = load_config(config_path)
    start = time.perf_counter()
    fact = Engine(config).fact(config.facts["f"])
    elapsed = time.perf_counter() - start
    return elapsed, [(i.location.line or 0, i.location.column or 0) for i in fact.items if i.location is not None]


def measure(case: Case, count: int, repeat: int, work: Path) -> dict[str, Any]:
    layouts: dict[bool, tuple[Path, str]] = {
        one: write_tree(work / f"{case.name}-{one}".replace(" ", "_"), case, count, one) for one in (True, False)}
    expected = {one: naive_positions(text, [case.needle(i) for i in range(count)])
                for one, (_, text) in layouts.items()}
    warm, _ = write_tree(work / f"{case.name}-warm".replace(" ", "_"), case, 50, True)
    run_once(warm)
    pairs, columns_ok = [], True
    for _ in range(repeat):
        pair = []
        for one in (True, False):
            seconds, found = run_once(layouts[one][0])
            columns_ok = columns_ok and found == expected[one]
            pair.append(seconds)
        pairs.append((pair[0], pair[1]))
    one_line = [a for a, _ in pairs]
    separate = [b for _, b in pairs]
    size = {one: len(text.encode("utf-8")) for one, (_, text) in layouts.items()}
    return {
        "case": case.name,
        "constants": count,
        "one_line_bytes": size[True],
        "separate_bytes": size[False],
        "one_line_s": round(statistics.median(one_line), 4),
        "separate_s": round(statistics.median(separate), 4),
        "ratio": round(statistics.median(a / b for a, b in pairs), 2),
        "ratio_per_byte": round(statistics.median(a / size[True] / (b / size[False]) for a, b in pairs), 2),
        "runs": repeat,
        "columns_ok": columns_ok,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--constants", type=int, default=145_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="2000 constants, one run per layout")
    parser.add_argument("--cases", help="comma-separated case names (default: all)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    count, repeat = (2000, 1) if args.quick else (args.constants, args.repeat)
    wanted = set(args.cases.split(",")) if args.cases else {c.name for c in CASES}
    results = []
    print("| case | constants | one line | separate lines | ratio | per byte | columns |")
    print("|---|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for case in (c for c in CASES if c.name in wanted):
            r = measure(case, count, repeat, Path(tmp))
            results.append(r)
            print(f"| {r['case']} | {count} | {r['one_line_s']:.2f} s ({r['one_line_bytes'] / 1e6:.1f} MB) "
                  f"| {r['separate_s']:.2f} s ({r['separate_bytes'] / 1e6:.1f} MB) | {r['ratio']}x "
                  f"| {r['ratio_per_byte']}x | {'ok' if r['columns_ok'] else 'WRONG'} |", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"cases": results}, indent=2) + "\n")
    return 0 if all(r["columns_ok"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
