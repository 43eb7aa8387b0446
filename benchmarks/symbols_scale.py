"""Time the ``symbols`` fact against the bare tree-sitter parse of the same files.

A synthetic tree shaped like upstream Pulse is written to a temporary folder:
``--go`` Go files under ``internal/`` (about 15 kB each, as Pulse's 46 MB over
3,000 files: tagged structs, const blocks, methods with control flow, calls,
struct literals and a string literal every 150 to 200 bytes, as real service
code has) and ``--ts`` TypeScript/TSX files under ``frontend-modern/src/``
(interfaces, enums, exported consts and components). Timings, each the best of
``--repeat``, in one process:

- bare: tree-sitter parses every file with its grammar (the floor any reader pays);
- cold: a fresh ``Engine`` judges a ``references`` rule over the ``symbols``
  fact of every file, no cache;
- cached: the same through a ``FactCache`` that a previous run filled;
- one file changed: the cached run after one Go file is edited.

The report gives cold / bare (issue 12's aim: at most 1.5) and the cached
seconds (aim: under 1 s).

    python benchmarks/symbols_scale.py [--go 3000] [--ts 800] [--repeat 2]
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

_FIELDS = ("ID", "Name", "Node", "Instance", "Status", "Type", "Total", "Used", "Free", "Usage", "Enabled",
           "LastSeen")


def go_file(i: int) -> str:
    """About 15 kB of Go in the shapes a service has; deterministic in ``i``."""
    pkg = f"pkg{i % 40}"
    out = [f"package {pkg}\n", 'import (\n\t"context"\n\t"fmt"\n\t"strings"\n\t"time"\n\n'
           '\t"github.com/example/service/internal/models"\n\t"github.com/rs/zerolog/log"\n)\n']
    for t in range(2):
        fields = "\n".join(f'\t{f} {"string" if k % 3 else "int64"} `json:"{f.lower()}{t},omitempty"`'
                           for k, f in enumerate(_FIELDS))
        out.append(f"// Record{i}x{t} is one row the poller keeps.\ntype Record{i}x{t} struct {{\n{fields}\n}}\n")
    consts = "\n".join(f'\tState{i}x{k} = "state-{k}"' for k in range(6))
    out.append(f"const (\n{consts}\n\tpollTimeout{i} = 15 * time.Second\n)\n")
    for m in range(12):
        out.append(f"""// poll{m} gathers what the node reports and keeps it when it changed.
func (p *Poller{i}) poll{m}(ctx context.Context, instance string, limit int) ([]models.Storage, error) {{
\tctx, cancel := context.WithTimeout(ctx, pollTimeout{i})
\tdefer cancel()
\tstatus, err := p.client.Status(ctx, instance)
\tif err != nil {{
\t\tlog.Debug().Err(err).Str("instance", instance).Msg("status unavailable, keeping the previous state")
\t\treturn nil, fmt.Errorf("poll {m} of %s: %w", instance, err)
\t}}
\ttargets := make([]models.Storage, 0, len(status.Pools))
\tfor idx, pool := range status.Pools {{
\t\tname := strings.TrimSpace(pool.Name)
\t\tif name == "" {{
\t\t\tname = fmt.Sprintf("pool-%d", idx)
\t\t}}
\t\tif idx >= limit {{
\t\t\tbreak
\t\t}}
\t\tswitch strings.ToLower(pool.Kind) {{
\t\tcase "rbd", "cephfs":
\t\t\tpool.Shared = true
\t\tdefault:
\t\t\tpool.Shared = false
\t\t}}
\t\ttargets = append(targets, models.Storage{{
\t\t\tID:     fmt.Sprintf("%s-{m}-%s", instance, name),
\t\t\tName:   name,
\t\t\tNode:   "cluster",
\t\t\tTotal:  pool.Used + pool.Free,
\t\t\tUsed:   pool.Used,
\t\t\tUsage:  ratio(pool.Used, pool.Used+pool.Free),
\t\t\tActive: pool.Active && !p.paused,
\t\t}})
\t}}
\tp.last[instance] = time.Now()
\treturn targets, nil
}}
""")
    return "\n".join(out)


def ts_file(i: int) -> str:
    """About 8 kB of TypeScript: an interface, an enum, exported consts and functions."""
    members = "\n".join(f"  {f[0].lower() + f[1:]}{i}: {'string' if k % 2 else 'number'};"
                        for k, f in enumerate(_FIELDS))
    out = ["import { createSignal } from 'solid-js';\nimport type { Guest } from '@/types/api';\n",
           f"export interface Row{i} {{\n{members}\n}}\n",
           f"export enum Mode{i} {{\n  Compact = 'compact',\n  Full = 'full',\n  Hidden = 'hidden',\n}}\n",
           f"export const LIMIT_{i} = 250;\n"]
    for f in range(9):
        out.append(f"""export function format{i}x{f}(row: Row{i}, guests: Guest[]): string {{
  const [open, setOpen] = createSignal(false);
  if (!row || guests.length === 0) {{
    return 'no guests';
  }}
  const names = guests.filter((g) => g.status === 'running').map((g) => g.name.trim());
  setOpen(names.length > LIMIT_{i});
  return open() ? `${{names.join(', ')}} (${{row.name{i} ?? 'unnamed'}})` : 'collapsed';
}}
""")
    return "\n".join(out)


def build(root: Path, go: int, ts: int) -> tuple[int, int]:
    size = files = 0
    for i in range(go):
        path = root / f"internal/pkg{i % 40}/file{i:04d}.go"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = go_file(i)
        path.write_text(text, encoding="utf-8")
        size, files = size + len(text.encode()), files + 1
    for i in range(ts):
        path = root / f"frontend-modern/src/components/part{i % 25}/View{i:04d}.{'tsx' if i % 3 == 0 else 'ts'}"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = ts_file(i)
        path.write_text(text, encoding="utf-8")
        size, files = size + len(text.encode()), files + 1
    (root / "docs").mkdir()
    (root / "docs/a.md").write_text("# A\n\nCall `Poller0.poll0()`, read `Row0`, see `LIMIT_0`.\n", encoding="utf-8")
    (root / "driftguard.yaml").write_text(
        "version: 1\nfacts:\n  symbols:\n    file: ['internal/**/*.go', 'frontend-modern/src/**/*.ts',"
        " 'frontend-modern/src/**/*.tsx']\n    symbols: true\n"
        "rules:\n  - {id: references, fact: symbols, doc: docs/a.md, references: {repository: false}}\n",
        encoding="utf-8")
    return files, size


def best(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--go", type=int, default=3000)
    parser.add_argument("--ts", type=int, default=800)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    from tree_sitter import Parser

    from driftguard.config.loader import load_config
    from driftguard.judging.cache import FactCache
    from driftguard.judging.engine import Engine
    from driftguard.sources.typescript.grammar import grammar_of

    with tempfile.TemporaryDirectory(prefix="driftguard-symbols-") as tmp:
        root = Path(tmp) / "tree"
        files, size = build(root, args.go, args.ts)
        config = load_config(root / "driftguard.yaml")
        sources = [(f, (root / f).read_bytes()) for f in config.facts["symbols"].files]
        from driftguard.sources.go.index import LANGUAGE as GO

        parsers = {".go": Parser(GO)}
        for f, _ in sources:
            suffix = Path(f).suffix
            if suffix not in parsers:
                parsers[suffix] = Parser(grammar_of(f).language)
        bare = best(args.repeat, lambda: [parsers[Path(f).suffix].parse(s) for f, s in sources])
        cold = best(args.repeat, lambda: Engine(config).run())
        folder = Path(tmp) / "cache"
        result = Engine(config, FactCache(folder)).run()
        cached = best(args.repeat, lambda: Engine(config, FactCache(folder)).run())
        edited = root / "internal/pkg0/file0000.go"
        edited.write_text(edited.read_text(encoding="utf-8") + "\nfunc Added() {}\n", encoding="utf-8")
        start = time.perf_counter()
        Engine(config, FactCache(folder)).run()
        changed = time.perf_counter() - start
        names = len(result.rules[0].facts[0].items)
    print(f"{files} files ({args.go} Go, {args.ts} TypeScript), {size / 1e6:.1f} MB, {names} names; "
          f"rule status {result.rules[0].status.value}")
    print(f"bare tree-sitter parse  {bare:7.2f} s")
    print(f"cold symbols fact       {cold:7.2f} s   {cold / bare:.2f}x the bare parse (aim: at most 1.5x)")
    print(f"cached run              {cached:7.2f} s   (aim: under 1 s)")
    print(f"cached, one file edited {changed:7.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
