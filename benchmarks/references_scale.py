"""Time a ``references`` check, cold and warm, against a bare parse of the same files.

The floor is a Python process that parses every source file of the rule's facts with
tree-sitter and every document with markdown-it (blocks and inline content), and does
nothing else: what a cold check cannot go below while it reads with those parsers. Each
round times, in turn, a cold check (a fresh cache folder), a warm check (the cache the
first round filled), the floor, and, for issue 22's history evidence, a warm check of
the same tree outside git (no history is asked) beside the warm check inside it. Every
figure is a whole process, interpreter start included; peak memory is each process's own
(``VmHWM``, recorded by ``peak.py``). The report gives medians of ``--repeat`` rounds
after one warm-up round, and each figure's ratio to its floor or peer from the same run.

The tree is generated (``--pages`` long documents shaped as Pulse's: sections, prose with
code spans naming the code's functions, types, members and files, a few stale names,
other products' settings, tables, lists, code blocks and links; Go packages and
TypeScript modules of ``--sources`` files each; a git history in which a function was
renamed, so a stale name has history evidence), or ``--tree DIR --config FILE`` names a
real one (its own git history, if any, is what it is).

    python benchmarks/references_scale.py [--pages 60] [--sources 400] [--repeat 5] [--json out.json]
    python benchmarks/references_scale.py --tree /path/to/pulse --config refs.yaml
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rounds import Run, child_env, ratio, rounds

REPO = Path(__file__).resolve().parent.parent
WORDS = ("agent session patrol finding storage backup alert node cluster guest token policy relay "
         "metric threshold window retry cooldown schedule report host proxy route").split()
PACKAGES = ("alerts", "monitoring", "api", "config", "ai", "models", "websocket", "notifications")

CONFIG = """version: 1
facts:
  symbols:
    file: ['internal/**/*.go', 'frontend/src/**/*.ts']
    symbols: true
rules:
  - id: references
    fact: symbols
    doc: 'docs/**/*.md'
    references: true
"""

_FLOOR = """import sys
from pathlib import Path
import tree_sitter, tree_sitter_go, tree_sitter_typescript
from markdown_it import MarkdownIt
parsers = {".go": tree_sitter.Parser(tree_sitter.Language(tree_sitter_go.language())),
           ".ts": tree_sitter.Parser(tree_sitter.Language(tree_sitter_typescript.language_typescript())),
           ".tsx": tree_sitter.Parser(tree_sitter.Language(tree_sitter_typescript.language_tsx()))}
for name in Path(sys.argv[1]).read_text().split("\\n"):
    if name:
        parsers[Path(name).suffix].parse(Path(name).read_bytes())
md = MarkdownIt("commonmark").enable("table")
for page in sorted(Path(".").glob(sys.argv[2])):
    md.parse(page.read_text(encoding="utf-8"))
"""


def _camel(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(WORDS).title() for _ in range(parts))


def generate(root: Path, pages: int, sources: int, seed: int = 11) -> None:
    """Sources (Go and TypeScript, ``sources`` files in all) and ``pages`` documents under
    ``root``, committed to git in two commits: the second renames ``LoadSessionFile``."""
    rng = random.Random(seed)
    names: list[tuple[str, str, str]] = []  # (how a document names it, name, file)
    for i in range(sources):
        if i % 4 == 3:
            file = f"frontend/src/{rng.choice(WORDS)}/{rng.choice(WORDS)}{i}.ts"
            body = []
            for k in range(30):
                fn = f"use{_camel(rng, 2)}{i}x{k}"
                names.append((f"{fn}()", fn, file))
                body.append(f"export function {fn}(value: number): number {{\n  return value * {k} + {i};\n}}\n")
            body.append(f"export const {rng.choice(WORDS).upper()}_LIMIT_{i} = {i};\n")
        else:
            pkg = PACKAGES[i % len(PACKAGES)]
            file = f"internal/{pkg}/{rng.choice(WORDS)}_{i}.go"
            body = [f"package {pkg}\n\n"]
            kind = f"{_camel(rng, 2)}{i}"
            body.append(f"type {kind} struct {{\n\tName string\n\tCount int\n}}\n\n")
            names.append((f"{pkg}.{kind}", kind, file))
            for k in range(30):
                fn = f"{_camel(rng, 2)}{i}x{k}"
                names.append((f"{kind}.{fn}()" if k % 2 else f"{fn}()", fn, file))
                body.append(f"// {fn} handles the {rng.choice(WORDS)} of a {rng.choice(WORDS)}.\n"
                            f"func (s *{kind}) {fn}(n int) int {{\n\tif n > {k} {{\n\t\treturn n - {k}\n\t}}\n"
                            f"\treturn s.Count + n\n}}\n\n")
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        (root / file).write_text("".join(body), encoding="utf-8")
    loader = root / "internal" / "config" / "loader.go"
    loader.parent.mkdir(parents=True, exist_ok=True)
    loader.write_text("package config\n\nfunc LoadSessionFile(path string) error {\n\treturn nil\n}\n", encoding="utf-8")
    (root / "docs").mkdir(parents=True, exist_ok=True)
    for p in range(pages):
        out = [f"# {rng.choice(WORDS).title()} {rng.choice(WORDS)} guide {p}\n"]
        for s in range(14):
            out.append(f"\n## {rng.choice(WORDS).title()} {rng.choice(WORDS)} {s}\n")
            for _ in range(5):
                named, _, file = rng.choice(names)
                prose = " ".join(rng.choice(WORDS) for _ in range(45))
                out.append(f"\nThe `{named}` in `{file}` {prose}; set `NET_RAW` or `customRequestHeaders` "
                           f"and see [the page](guide{(p + 1) % pages}.md).\n")
            out.append("\n| Field | Meaning |\n| --- | --- |\n" + "".join(
                f"| `{rng.choice(names)[1]}` | {' '.join(rng.choice(WORDS) for _ in range(8))} |\n" for _ in range(6)))
            out.append("\n" + "".join(f"- `{rng.choice(WORDS)}_{n}.yaml`: {rng.choice(WORDS)}\n" for n in range(4)))
            out.append("\n```go\nvalue := " + rng.choice(names)[1] + "(1)\n```\n")
        out.append("\nStale: `LoadSessionFile` keeps the session, `gone_helper()` and `internal/config/gone.go`.\n")
        (root / "docs" / f"guide{p}.md").write_text("".join(out), encoding="utf-8")
    (root / "driftguard.yaml").write_text(CONFIG, encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "The tree")
    loader.write_text("package config\n\nfunc LoadSessionConfigFile(path string) error {\n\treturn nil\n}\n",
                      encoding="utf-8")
    _git(root, "commit", "-q", "-am", "Rename the session loader")


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}
    subprocess.run(["git", *args], cwd=root, env=env, check=True)


def _fact_files(root: Path, config: Path, repo: Path, work: Path) -> Path:
    """The files the config's facts read, one per line, for the floor."""
    listing = work / "files.txt"
    code = ("import sys; from pathlib import Path; from driftguard.config.loader import load_config\n"
            "c = load_config(Path(sys.argv[1]), root=Path(sys.argv[2]))\n"
            "print('\\n'.join(sorted({f for s in c.facts.values() for f in s.files})))")
    done = subprocess.run([sys.executable, "-c", code, str(config), str(root)], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(repo)})
    listing.write_text(done.stdout, encoding="utf-8")
    return listing


def measure(root: Path, config: Path, glob: str, repeat: int, work: Path, repo: Path = REPO,
            outside: Path | None = None) -> dict[str, Any]:
    """Medians of each run (seconds and peak MB) and their ratios; ``outside`` is a copy
    of the tree without its git history (a warm check there asks git nothing)."""
    env = child_env(repo, work)
    listing = _fact_files(root, config, repo, work)
    floor = work / "floor.py"
    floor.write_text(_FLOOR, encoding="utf-8")

    def check(tree: Path, cache: str) -> Run:
        return Run(["-m", "driftguard", "check", "--config", str(config), "--root", str(tree)], tree,
                   {**env, "DRIFTGUARD_CACHE_DIR": str(work / cache)})

    def round_(i: int) -> dict[str, Run]:  # the first round fills the page, bytecode and warm caches
        shutil.rmtree(work / f"cold-cache-{i - 1}", ignore_errors=True)
        runs = {"cold": check(root, f"cold-cache-{i}"), "warm": check(root, "warm-cache"),
                "floor": Run([str(floor), str(listing), glob], root, env, codes=(0,))}
        if outside is not None:
            runs["warm_outside_git"] = check(outside, "outside-cache")
        return runs

    result = {"repeat": repeat, **rounds(round_, repeat)}
    med, mb = result["median_s"], result["peak_mb"]
    result.update({"cold_ratio": ratio(med["cold"], med["floor"]), "warm_ratio": ratio(med["warm"], med["floor"]),
                   "cold_memory_ratio": ratio(mb["cold"], mb["floor"])})
    if outside is not None:
        result["history_ratio"] = ratio(med["warm"], med["warm_outside_git"])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--sources", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tree", type=Path, help="a real tree instead of a generated one")
    parser.add_argument("--config", type=Path, help="the config for --tree")
    parser.add_argument("--glob", default="docs/**/*.md", help="the documents the floor parses")
    parser.add_argument("--repo", type=Path, default=REPO, help="the driftguard checkout to time")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.tree is not None and args.config is None:
        parser.error("--tree needs --config")
    with tempfile.TemporaryDirectory(prefix="references-scale-") as tmp:
        work = Path(tmp)
        outside = None
        if args.tree is None:
            root = work / "tree"
            generate(root, args.pages, args.sources)
            config = root / "driftguard.yaml"
            outside = work / "outside"
            shutil.copytree(root, outside, ignore=shutil.ignore_patterns(".git"))
        else:
            root, config = args.tree.resolve(), args.config.resolve()
        pages = sorted(root.glob(args.glob))
        size = sum(p.stat().st_size for p in pages)
        result = measure(root, config, args.glob, args.repeat, work, args.repo.resolve(), outside)
    outputs = result.pop("outputs")
    result.update({"tree": "generated" if args.tree is None else str(args.tree), "pages": len(pages),
                   "bytes": size,
                   "findings": outputs["cold"].count(": references: "),
                   "same_findings_warm": outputs["cold"] == outputs["warm"]})
    m, mb = result["median_s"], result["peak_mb"]
    print(f"{result['tree']}: {len(pages)} documents ({result['bytes'] / 1e6:.2f} MB), "
          f"{result['findings']} findings, median of {args.repeat}\n")
    print("| run | median s | against the floor | peak MB | against the floor |\n|---|---:|---:|---:|---:|")
    print(f"| driftguard cold | {m['cold']} | {result['cold_ratio']}x | {mb['cold']} | {result['cold_memory_ratio']}x |")
    print(f"| driftguard warm | {m['warm']} | {result['warm_ratio']}x | {mb['warm']} | "
          f"{round(mb['warm'] / mb['floor'], 2)}x |")
    print(f"| floor: tree-sitter and markdown-it parse every file | {m['floor']} | 1.00x | {mb['floor']} | 1.00x |")
    if "history_ratio" in result:
        print(f"\nwarm in a git work tree (history evidence) {m['warm']} s against {m['warm_outside_git']} s "
              f"outside git: {result['history_ratio']}x")
    print(f"\nwarm findings the same as cold: {result['same_findings_warm']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["same_findings_warm"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
