"""Peak memory of ``report`` and the machine formats of ``check`` against a plain ``check``.

A ``references`` rule over a ``symbols`` fact of a whole tree: the fact holds every name
the code declares (142,678 on upstream Pulse), the rule one document per item. ``report
--format json`` once listed every name of the fact in every document's record and was
killed at 15 GB; the goal is a peak under 1 GB and memory that grows with the findings
and claims a report lists, not with the fact's names. Each round runs, in turn, ``check``
(the peer every ratio is against), ``check --format json|sarif`` and ``report --format
json|text|markdown``, all warm (from the fact cache the warm-up round filled: no source
is parsed, so the figures are what the formats cost, not the parse); and, for the
"not names" half, ``check`` and ``report --format json`` of the same rule over a fact of
few names (``--small-config``; by default Pulse's ``pkg/`` and ``cmd/`` only), whose
report holds the same claims. ``--cold`` adds a ``check`` and a ``report --format json``
with ``--no-cache`` and ``DRIFTGUARD_JOBS=1`` (every parse in the measured process).
Peak memory is each process's own ``VmHWM``; medians of ``--repeat`` rounds after a
warm-up round. The commands must agree: the same rule results and the same findings.

    python benchmarks/report_memory.py [--tree /work/trees/pulse] [--config refs.yaml] [--repeat 3] [--cold]
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from rounds import Run, child_env, ratio, rounds

REPO = Path(__file__).resolve().parent.parent
PULSE = Path("/work/trees/pulse")
CONFIG = """version: 1
facts:
  symbols:
    file: {files}
    symbols: true
rules:
  - id: references
    fact: symbols
    doc: 'docs/**/*.md'
    references: true
"""
ALL_FILES = ["internal/**/*.go", "pkg/**/*.go", "cmd/**/*.go", "frontend-modern/src/**/*.ts",
             "frontend-modern/src/**/*.tsx"]
FEW_FILES = ["pkg/**/*.go", "cmd/**/*.go"]
COMMANDS = {"check": ["check"], "check json": ["check", "--format", "json"],
            "check sarif": ["check", "--format", "sarif"], "report json": ["report", "--format", "json"],
            "report text": ["report", "--format", "text"], "report markdown": ["report", "--format", "markdown"]}


def write_config(path: Path, files: list[str]) -> Path:
    path.write_text(CONFIG.format(files=json.dumps(files)), encoding="utf-8")
    return path


def runs(root: Path, config: Path, small: Path | None, work: Path, repo: Path, cold: bool) -> dict[str, Run]:
    """One round's runs: the warm ones share a cache; a cold one has none and one process."""
    env = child_env(repo, work, DRIFTGUARD_CACHE_DIR=str(work / "cache"))
    base = ["-m", "driftguard"]
    out = {name: Run([*base, *args, "--config", str(config), "--root", str(root)], root, env)
           for name, args in COMMANDS.items()}
    if small is not None:
        for name in ("check", "report json"):
            out[f"{name}, few names"] = Run([*base, *COMMANDS[name], "--config", str(small), "--root", str(root)],
                                            root, env)
    if cold:
        one = child_env(repo, work, DRIFTGUARD_JOBS="1")
        for name in ("check", "report json"):
            out[f"{name}, cold"] = Run([*base, *COMMANDS[name], "--no-cache", "--config", str(config),
                                        "--root", str(root)], root, one)
    return out


def counts(outputs: dict[str, str]) -> dict[str, Any]:
    """What the outputs say, and whether the commands agree on it: the same number of
    findings in each format, and the same rule results in check's summary and report's."""
    report, checked, sarif = (json.loads(outputs[k]) for k in ("report json", "check json", "check sarif"))
    found = {len(report["findings"]), len(checked["findings"]), sum(len(run["results"]) for run in sarif["runs"]),
             len(re.findall(r"^\S+:\d+: [\w-]+: ", outputs["check"], re.M))}
    line = re.search(r"(\d+) rules?: (\d+) passed, (\d+) failed", outputs["check"])
    summary = tuple(report["summary"][k] for k in ("rules", "passed", "failed"))
    same = line is not None and tuple(int(n) for n in line.groups()) == summary
    return {"rules": summary[0], **listed(report), "agree": len(found) == 1 and same}


def listed(report: dict[str, Any]) -> dict[str, int]:
    """The names of the largest fact, the claims and the findings a JSON report holds."""
    return {"names": max((f["count"] for r in report["rules"] for f in r["facts"]), default=0),
            "claims": sum(len(r.get("claims", [])) for r in report["rules"]), "findings": len(report["findings"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=PULSE)
    parser.add_argument("--config", type=Path, help="default: the symbols fact and references rule above")
    parser.add_argument("--small-config", type=Path, help="the same rule over a fact of few names")
    parser.add_argument("--cold", action="store_true", help="also a cold check and report json, one process")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repo", type=Path, default=REPO, help="the driftguard checkout to time")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    root = args.tree.resolve()
    with tempfile.TemporaryDirectory(prefix="report-memory-") as tmp:
        work = Path(tmp)
        config = args.config.resolve() if args.config else write_config(work / "refs.yaml", ALL_FILES)
        small = args.small_config.resolve() if args.small_config else None
        if small is None and args.config is None:
            small = write_config(work / "few.yaml", FEW_FILES)
        result = rounds(lambda _: runs(root, config, small, work, args.repo.resolve(), args.cold), args.repeat)
    outputs = result.pop("outputs")
    result.update(counts(outputs), tree=str(root), repeat=args.repeat)
    med, mb = result["median_s"], result["peak_mb"]
    result["time_ratio"] = {k: ratio(v, med["check"]) for k, v in med.items()}
    result["memory_ratio"] = {k: ratio(v, mb["check"]) for k, v in mb.items()}
    if small is not None:
        result["few"] = listed(json.loads(outputs["report json, few names"]))
    result["under_1_gb"] = max(mb.values()) < 1024
    print(f"{root}: {result['rules']} documents, {result['names']:,} names, {result['claims']:,} claims, "
          f"{result['findings']} findings; warm unless marked, median of {args.repeat}\n")
    print("| run | median s | against check | peak MB | against check |\n|---|---:|---:|---:|---:|")
    for name in med:
        print(f"| {name} | {med[name]} | {result['time_ratio'][name]}x | {mb[name]} | {result['memory_ratio'][name]}x |")
    if small is not None:
        few = result["few"]
        print(f"\nfew names: {few['names']:,} names, {few['claims']:,} claims, {few['findings']} findings; "
              f"report json over check: "
              f"{round(mb['report json'] - mb['check'], 1)} MB with every name, "
              f"{round(mb['report json, few names'] - mb['check, few names'], 1)} MB with few")
    print(f"\nevery peak under 1 GB: {result['under_1_gb']}; the commands agree: {result['agree']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["agree"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
