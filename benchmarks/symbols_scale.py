"""Time the ``symbols`` fact against the bare tree-sitter parse of the same Go files.

A synthetic package tree of ``--files`` Go files (types with tagged fields,
interfaces, consts, methods full of string literals; deterministic) is written
to a temporary folder. Three timings, each the best of ``--repeat``:

- bare: tree-sitter-go parses every file (the floor any reader pays);
- cold: a fresh ``Engine`` extracts the ``symbols`` fact over ``**/*.go``, no cache;
- cached: the same through a ``FactCache`` that a previous run filled.

The report gives cold / bare (the issue's aim: at most 1.5) and the cached
seconds (aim: under 1 s).

    python benchmarks/symbols_scale.py [--files 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def go_file(i: int) -> str:
    parts = [f"package pkg{i % 7}", 'import (\n\t"fmt"\n\t"strings"\n)']
    for t in range(8):
        fields = "\n".join(f'\tField{f} string `json:"field_{f},omitempty"`' for f in range(12))
        parts.append(f"type Type{t} struct {{\n{fields}\n}}")
        parts.append(f"type Iface{t} interface {{\n\tDo{t}(x int) error\n}}")
        parts.append(f'const (\n\tState{t}A = "state_{t}_a"\n\tState{t}B = "state_{t}_b"\n)')
        for m in range(6):
            body = "\n".join(f'\tif x := strings.TrimSpace("v {m} {k}"); x != "" {{\n\t\tfmt.Println("line", x)\n\t}}'
                             for k in range(6))
            parts.append(f"func (t *Type{t}) Method{m}(a int) (string, error) {{\n{body}\n\treturn \"done\", nil\n}}")
    return "\n\n".join(parts) + "\n"


def build(root: Path, count: int) -> int:
    size = 0
    for i in range(count):
        path = root / f"internal/pkg{i % 7}/file{i:04d}.go"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = go_file(i)
        path.write_text(text, encoding="utf-8")
        size += len(text.encode())
    (root / "docs").mkdir()
    (root / "docs/a.md").write_text("# A\n\nCall `Type0.Method0()`.\n", encoding="utf-8")
    (root / "driftguard.yaml").write_text(
        "version: 1\nfacts:\n  symbols: {file: 'internal/**/*.go', symbols: true}\n"
        "rules:\n  - {id: references, fact: symbols, doc: docs/a.md, references: {repository: false}}\n",
        encoding="utf-8")
    return size


def best(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from tree_sitter import Parser

    from driftguard.config.loader import load_config
    from driftguard.judging.cache import FactCache
    from driftguard.judging.engine import Engine
    from driftguard.sources.go.index import LANGUAGE

    with tempfile.TemporaryDirectory(prefix="driftguard-symbols-") as tmp:
        root = Path(tmp) / "tree"
        size = build(root, args.files)
        config = load_config(root / "driftguard.yaml")
        sources = [(root / f).read_bytes() for f in config.facts["symbols"].files]
        go = Parser(LANGUAGE)
        bare = best(args.repeat, lambda: [go.parse(s) for s in sources])
        cold = best(args.repeat, lambda: Engine(config).run())
        cache = FactCache(Path(tmp) / "cache")
        Engine(config, cache).run()
        cached = best(args.repeat, lambda: Engine(config, FactCache(Path(tmp) / "cache")).run())
        result = Engine(config).run()
    print(f"{args.files} Go files, {size / 1e6:.1f} MB; rule status {result.rules[0].status.value}")
    print(f"bare tree-sitter parse  {bare:7.2f} s")
    print(f"cold symbols fact       {cold:7.2f} s   {cold / bare:.2f}x the bare parse (aim: at most 1.5x)")
    print(f"cached run              {cached:7.2f} s   (aim: under 1 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
