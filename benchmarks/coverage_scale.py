"""Time ``driftguard coverage`` against ``driftguard check`` on one 3.9 MB document.

``coverage`` judges the same rules as ``check`` and then reads every claim-shaped span of
each document the rules read, so its cost should stay close to ``check``'s (the aim: at
most 1.5x, in time and in peak memory). Both run on the same generated tree, in the same
run, each round ``check`` then ``coverage``, so a ratio holds when the machine's speed
drifts. Every figure is a whole process (interpreter start included), the median of
``--repeat`` runs after one warm-up round, with its own peak resident set (``VmHWM``,
recorded by the child under ``peak.py``):

- cold: each run with a fresh, empty cache folder (``DRIFTGUARD_CACHE_DIR``), so facts and
  the document are parsed in every run;
- warm: each run with the cache folder the warm-up round filled (``check`` then reads its
  claims from the cache, ``coverage`` its claims and the document's spans: neither parses).

The tree (``generate``) is one markdown document of about ``--mb`` MB shaped as real docs:
sections and subsections, prose with quantities ("every 30 seconds", "4 MiB", "75%") and
code spans naming the sources' symbols, bullet lists, tables with row labels, and fenced
code blocks; and two small sources, Go and Python. The config's rules over it: a table
(``State``), the code spans of a section (``Modes``), two phrases (each in its section:
over the whole document a phrase costs ``check`` sentences x code spans, see the README),
a table's rows, a ``mentions`` rule and a ``references`` rule over every code span. One
reference in fifty names a symbol the sources no longer declare, so ``check`` finds drift
(exit 1) and ``coverage`` marks drifted spans; any other exit code of either is a failure.

    python benchmarks/coverage_scale.py [--mb 3.9] [--repeat 3] [--repo DIR] [--json out.json]

``--repo`` times another checkout of driftguard (a "before") on the same tree.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from padding import NOTES, VERBS, WORDS  # noqa: E402

GO = """package service

import "time"

// State is where a poller is in its life.
type State string

const (
\tStateIdle     State = "idle"
\tStateBusy     State = "busy"
\tStateDraining State = "draining"
\tStateStopped  State = "stopped"
)

// RetryTimeout bounds how long a failed poll is retried.
const RetryTimeout = 15 * time.Minute

// MaxWorkers caps the pollers that run at once.
const MaxWorkers = 8

// Poller polls one target.
type Poller struct {
\tInterval time.Duration
\tTarget   string
}

// NewPoller makes a poller for target.
func NewPoller(target string) *Poller { return &Poller{Target: target, Interval: 30 * time.Second} }

// Run polls until stopped.
func (p *Poller) Run() error { return nil }

// Stop ends the polling.
func (p *Poller) Stop() {}

// Drain waits for the running poll.
func (p *Poller) Drain() {}
"""

PY = '''"""Limits of the service."""
import enum


class Mode(enum.Enum):
    FAST = "fast"
    SAFE = "safe"
    AUDIT = "audit"


WARN_PERCENT = 75
CRITICAL_PERCENT = 90


def flush_queue(limit: int = 20) -> int:
    """Flush up to ``limit`` entries."""
    return limit


def load_config(path: str) -> dict:
    return {"path": path}
'''

CONFIG = """version: 1
facts:
  states: {file: src/poller.go, constants: {type: State}}
  retry: {file: src/poller.go, constant: RetryTimeout}
  workers: {file: src/poller.go, constant: MaxWorkers}
  modes: {file: src/limits.py, constants: {type: Mode}}
  warn: {file: src/limits.py, constant: WARN_PERCENT}
  critical: {file: src/limits.py, constant: CRITICAL_PERCENT}
  symbols: {file: ['src/*.go', 'src/*.py'], symbols: true}
rules:
  - {id: states, fact: states, doc: docs/guide.md, section: States, table: State}
  - {id: modes, fact: modes, doc: docs/guide.md, section: Modes, code_spans: '^[a-z]+$'}
  - {id: retry, fact: retry, doc: docs/guide.md, section: Workers, phrase: 'retries stop after {value}'}
  - {id: workers, fact: workers, doc: docs/guide.md, section: Workers, phrase: 'at most {value} pollers'}
  - id: thresholds
    doc: docs/guide.md
    table: Threshold
    column: Default
    rows: {Storage warning: warn, Storage critical: critical}
  - {id: states-mentioned, fact: states, doc: docs/guide.md, mentions: true}
  - {id: references, fact: symbols, doc: docs/guide.md, references: true}
"""

HEAD = """# Service guide

The service polls its targets and keeps what they report.

## States

| State | Meaning |
|---|---|
| `idle` | waiting for the next poll |
| `busy` | polling |
| `draining` | finishing the running poll |
| `stopped` | not polling |

## Modes

Each poller runs in `fast`, `safe` or `audit` mode.

## Workers

The service runs at most eight pollers at once; retries stop after 15 minutes.

## Thresholds

| Threshold | Default | Notes |
|---|---|---|
| Storage warning | 75% | a finding is raised |
| Storage critical | 90% | the target is paused |

"""

SYMBOLS = ("NewPoller", "Poller.Run", "Poller.Stop", "Poller.Drain", "flush_queue()", "load_config",
           "RetryTimeout", "MaxWorkers", "Poller", "State", "Mode")
STALE = ("Poller.Pause", "reset_queue()", "OldPoller")  # names the sources no longer declare: drift
QUANTITIES = ("30 seconds", "every 5 minutes", "2 hours", "48h", "10 minutes", "4 MiB", "512 KiB", "1 GiB",
              "75%", "a day", "250ms", "3 days")
LABELS = ("Poll interval", "Queue size", "Cache budget", "Retry window", "Batch size", "Report period")


def _symbol(rng: random.Random) -> str:
    """A name the sources declare, or one time in fifty a stale one."""
    return rng.choice(STALE) if rng.random() < 0.02 else rng.choice(SYMBOLS)


def _sentence(rng: random.Random) -> str:
    a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
    shape = rng.randrange(5)
    if shape == 0:
        return f"The {a} {rng.choice(VERBS)}s each {b} within {rng.choice(QUANTITIES)} before the {c} step sees it."
    if shape == 1:
        return f"`{_symbol(rng)}` keeps the {a} {b} and {rng.choice(VERBS)}s it once the {c} is ready."
    if shape == 2:
        return f"Above {rng.choice(QUANTITIES)} of its {a} quota, the {b} calls `{_symbol(rng)}` on the {c}."
    if shape == 3:
        return f"A {a} {rng.choice(VERBS)}s the `{b}_{c}` field, and the {rng.choice(WORDS)} follows it."
    return rng.choice(NOTES)


def _paragraph(rng: random.Random) -> str:
    words = " ".join(_sentence(rng) for _ in range(rng.randint(3, 6))).split(" ")
    lines, line = [], ""
    for word in words:
        if line and len(line) + len(word) + 1 > 78:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "\n".join([*lines, line]) + "\n"


def _section(rng: random.Random, k: int) -> str:
    noun = rng.choice(WORDS)
    out = [f"## The {noun} {rng.choice(WORDS)} ({k})\n", _paragraph(rng), _paragraph(rng)]
    out.append("".join(f"- `{_symbol(rng)}` {rng.choice(VERBS)}s the {rng.choice(WORDS)} "
                       f"in {rng.choice(QUANTITIES)}.\n" for _ in range(rng.randint(3, 5))))
    out.append(f"### Settings of the {noun} ({k})\n")
    out.append(_paragraph(rng))
    out.append("| Setting | Default | Notes |\n|---|---|---|\n")
    out.append("".join(f"| {label} | {rng.choice(QUANTITIES)} | {rng.choice(VERBS)}ed by `{_symbol(rng)}` |\n"
                       for label in rng.sample(LABELS, 3)))
    out.append(f"| `{noun}_limit` | {rng.randrange(2, 64)} | per {rng.choice(WORDS)} |\n")
    out.append(f"\n```yaml\n{noun}:\n  interval: {rng.choice(('30s', '5m', '1h'))}\n"
               f"  limit: {rng.randrange(2, 64)}  # 50% of the pool\n```\n")
    out.append(_paragraph(rng))
    return "\n".join(out) + "\n"


def generate(root: Path, size: int, seed: int = 11) -> Path:
    """The tree under ``root`` (made), with a document of about ``size`` bytes; its config."""
    rng = random.Random(seed)
    (root / "docs").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "poller.go").write_text(GO, encoding="utf-8")
    (root / "src" / "limits.py").write_text(PY, encoding="utf-8")
    parts, total, k = [HEAD], len(HEAD), 0
    while total < size:
        part = _section(rng, k)
        parts.append(part)
        total += len(part)
        k += 1
    (root / "docs" / "guide.md").write_text("".join(parts), encoding="utf-8")
    config = root / "driftguard.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    return config


def _run(command: str, config: Path, repo: Path, env: dict[str, str], work: Path) -> tuple[float, int, int, str]:
    """One whole process of ``driftguard COMMAND``: seconds, peak kB, exit code, output."""
    mark = work / "peak"
    argv = [sys.executable, str(BENCH / "peak.py"), str(mark), "-m", "driftguard", command,
            "--config", str(config)]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    return seconds, int(mark.read_text()), done.returncode, done.stdout + done.stderr


def measure(config: Path, repeat: int, work: Path, repo: Path = REPO, warm: bool = True) -> dict[str, Any]:
    """Median seconds and peak MB of ``check`` and ``coverage``, cold and warm, and the ratios."""
    env = {**os.environ, "PYTHONPATH": str(repo), "PYTHONPYCACHEPREFIX": str(work / "pycache")}
    env.pop("DRIFTGUARD_NO_CACHE", None)
    warm_env = {**env, "DRIFTGUARD_CACHE_DIR": str(work / "warm-cache")}
    modes = ("cold", "warm") if warm else ("cold",)
    runs: dict[str, list[tuple[float, int]]] = {f"{c} {m}": [] for m in modes for c in ("check", "coverage")}
    outputs: dict[str, tuple[int, str]] = {}
    for i in range(repeat + 1):  # the first round warms the page, bytecode and warm caches
        for mode in modes:
            for command in ("check", "coverage"):
                cold = work / f"cold-{i}-{command}"  # never one another's: each cold run fills its own
                run_env = warm_env if mode == "warm" else {**env, "DRIFTGUARD_CACHE_DIR": str(cold)}
                seconds, kb, code, out = _run(command, config, repo, run_env, work)
                outputs[f"{command} {mode}"] = (code, out)
                if i:
                    runs[f"{command} {mode}"].append((seconds, kb))
    median = {name: (round(statistics.median(s for s, _ in got), 3), round(statistics.median(k for _, k in got) / 1024))
              for name, got in runs.items()}
    ratios = {mode: {"time": round(median[f"coverage {mode}"][0] / median[f"check {mode}"][0], 2),
                     "memory": round(median[f"coverage {mode}"][1] / median[f"check {mode}"][1], 2)} for mode in modes}
    return {"repeat": repeat, "median": {k: {"s": s, "peak_mb": mb} for k, (s, mb) in median.items()},
            "ratios": ratios, "exit_codes": {k: code for k, (code, _) in outputs.items()},
            "outputs": {k: out for k, (_, out) in outputs.items()}}


def summaries(outputs: dict[str, str]) -> dict[str, str]:
    """The last line of each command's output (``check``'s verdicts, ``coverage``'s total):
    both read the same document."""
    return {name: (out.strip().splitlines() or [""])[-1] for name, out in outputs.items()}


def report(result: dict[str, Any]) -> str:
    lines = [f"{result['bytes'] / 1e6:.2f} MB document, median of {result['repeat']}\n",
             "| run | check s | coverage s | time ratio | check peak MB | coverage peak MB | memory ratio |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for mode, ratio in result["ratios"].items():
        check, cover = result["median"][f"check {mode}"], result["median"][f"coverage {mode}"]
        lines.append(f"| {mode} | {check['s']} | {cover['s']} | {ratio['time']}x | {check['peak_mb']} | "
                     f"{cover['peak_mb']} | {ratio['memory']}x |")
    lines.append("")
    lines += [f"{name} (exit {result['exit_codes'][name]}): {last}" for name, last in result["summaries"].items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=3.9, help="size of the document, in MB")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-warm", action="store_true", help="time only cold runs")
    parser.add_argument("--repo", type=Path, default=REPO, help="the driftguard checkout to time (another for a before)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="coverage-scale-") as tmp:
        work = Path(tmp)
        config = generate(work / "tree", int(args.mb * 1e6))
        size = (work / "tree" / "docs" / "guide.md").stat().st_size
        result = measure(config, args.repeat, work, args.repo.resolve(), warm=not args.no_warm)
    result["bytes"] = size
    outputs = result.pop("outputs")
    result["summaries"] = summaries(outputs)
    print(report(result), end="")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    unread = [name for name, code in result["exit_codes"].items() if code not in (0, 1)]  # 1: check found drift
    for name in unread:
        print(f"\n{name} exited {result['exit_codes'][name]}:\n{outputs[name][-2000:]}", file=sys.stderr)
    return 1 if unread else 0


if __name__ == "__main__":
    raise SystemExit(main())
