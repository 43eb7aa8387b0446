"""A large generated repository for timing ``driftguard discover``, with known couplings.

``make_tree(root, go_files=3000, md_files=450)`` writes Go packages (about 15 KB
per file, so 45 MB at the default size) and markdown documents into ``root``.
Every Go file declares a typed string const block, a String() method of an iota
type, and a block of scalar limits (numbers, percentages and durations with
names made of ordinary words), padded with functions, comments and
commented-out constants. Each document describes some of those files: a table
of one file's states, a table of another's kinds, sentences stating some limits
and a table of thresholds, in between paragraphs of noise (numbers, code spans,
tables that match nothing). ``make_tree`` returns the couplings it planted, so
the benchmark can report recall at scale too.

Run ``python benchmarks/discover_tree.py [--go-files N] [--md-files N] [--jobs N]``
to build a tree in a temporary folder and time ``discover`` on it.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

NOUNS = ("account agent alert archive audit backup batch bucket cache channel cluster cursor digest "
         "disk domain engine event export feed fleet gauge guest host image index invoice job journal "
         "ledger lease mailbox metric mirror node order policy pool probe quota relay replica report "
         "route sample schedule session shard signal snapshot socket storage stream target task tenant "
         "ticket token tunnel upload vault volume webhook window worker zone").split()
ADJECTIVES = ("amber azure brisk calm coral crisp dusty eager fading gentle golden hollow icy jade keen lunar "
              "mellow misty noble olive pale quiet rapid rustic scarlet silver sleek solar stark steady "
              "stormy sunny swift tawny tidal umber vivid warm wild windy young zesty bold bright cobalt "
              "dawn ember frost").split()
STATES = ("active archived blocked cooling degraded draining expired fenced frozen idle leased migrating "
          "offline paused pending queued ready retired running sealed stale stopped syncing warming").split()
LIMIT_WORDS = (("max", "retries", "count"), ("max", "batch", "size"), ("flush", "interval", "duration"),
               ("idle", "timeout", "duration"), ("warning", "usage", "percent"), ("critical", "usage", "percent"),
               ("max", "parallel", "workers"), ("lease", "ttl", "duration"))
VERBS = "apply build check collect compute decode drain emit fetch filter flush load merge parse prune " \
        "rank record refresh render scan sort split trim update validate".split()
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 8: "eight", 10: "ten", 12: "twelve"}


@dataclass
class Planted:
    """The couplings ``make_tree`` wrote, by document: (claim kind, document, what it names)."""

    couplings: list[tuple[str, str, str]] = field(default_factory=list)
    files: int = 0
    bytes: int = 0


def _camel(*words: str) -> str:
    return "".join(w.capitalize() for w in words)


def _go_limit(rng: random.Random, noun: str, words: tuple[str, str, str]) -> tuple[str, str, str, str]:
    """(name, Go expression, how a document says it, kind) for one limit constant."""
    first, second, unit = words
    name = first + noun + _camel(second) + ("" if unit in ("count", "size", "workers") else _camel(unit))
    if unit == "percent":
        value = rng.choice((60, 65, 70, 75, 80, 85, 90, 95))
        return name, f"{value}.0", f"{value}%", "percent"
    if unit == "duration":
        amount, spelled, go_unit = rng.choice(((10, "ten minutes", "Minute"), (30, "30 seconds", "Second"),
                                               (2, "two hours", "Hour"), (45, "45 minutes", "Minute")))
        return name, f"{amount} * time.{go_unit}", spelled, "duration"
    value = rng.choice(sorted(NUMBER_WORDS))
    return name, str(value), NUMBER_WORDS[value], "number"


def _filler_function(rng: random.Random, name: str) -> str:
    noun = rng.choice(NOUNS)
    lines = [f"// {name} {rng.choice(VERBS)}s the {noun} entries it is given.",
             "// Callers hold no lock here; the order of the result is stable.",
             f"// const {name}Limit = {rng.randrange(2, 99)} // commented out: not a constant",
             f"func {name}(items []string, limit int) ([]string, error) {{",
             "\tif limit <= 0 {",
             f"\t\treturn nil, fmt.Errorf(\"{name}: limit must be positive, got %d\", limit)",
             "\t}",
             "\tout := make([]string, 0, len(items))",
             "\tseen := make(map[string]int, len(items))",
             "\tfor i, item := range items {",
             "\t\titem = strings.TrimSpace(item)",
             "\t\tif item == \"\" || seen[item] > 0 {",
             "\t\t\tcontinue",
             "\t\t}",
             "\t\tseen[item] = i + 1",
             "\t\tswitch strings.ToLower(item) {",
             f"\t\tcase \"{rng.choice(NOUNS)}\", \"{rng.choice(NOUNS)}\":",
             "\t\t\titem = strings.ToUpper(item)",
             "\t\tdefault:",
             f"\t\t\titem = fmt.Sprintf(\"%s-%d\", item, {rng.randrange(1, 999)})",
             "\t\t}",
             "\t\tout = append(out, item)",
             "\t}",
             "\tsort.Strings(out)",
             "\tif len(out) > limit {",
             "\t\tout = out[:limit]",
             "\t}",
             "\treturn out, nil",
             "}", ""]
    return "\n".join(lines) + "\n"


def _go_file(rng: random.Random, package: str, index: int, size: int) -> tuple[str, dict]:
    noun = NOUNS[index % len(NOUNS)]
    adjective = ADJECTIVES[(index // len(NOUNS)) % len(ADJECTIVES)]
    tag = _camel(adjective, noun)
    states = rng.sample(STATES, rng.randint(5, 7))
    kinds = rng.sample(NOUNS, 4)
    limits = [_go_limit(rng, tag, w) for w in rng.sample(LIMIT_WORDS, 3)]
    out = [f"// Package {package} is generated for the discover benchmark.", f"package {package}", "",
           "import (", "\t\"fmt\"", "\t\"sort\"", "\t\"strings\"", "\t\"time\"", ")", "",
           f"// {tag}State is the lifecycle of one {noun}.", f"type {tag}State string", "", "const ("]
    for s in states:
        out += [f"\t// {tag}{_camel(s)}: the {noun} is {s}.", f"\t{tag}{_camel(s)} {tag}State = \"{s}\""]
    out += [")", "", f"// {tag}Kind says what a {noun} carries.", f"type {tag}Kind int", "", "const ("]
    out += [f"\t{tag}Kind{_camel(k)} {tag}Kind = iota" if i == 0 else f"\t{tag}Kind{_camel(k)}"
            for i, k in enumerate(kinds)]
    out += [")", "", f"func (k {tag}Kind) String() string {{", "\tswitch k {"]
    for k in kinds:
        out += [f"\tcase {tag}Kind{_camel(k)}:", f"\t\treturn \"{adjective}_{noun}_{k}\""]
    out += ["\tdefault:", "\t\treturn \"unknown\"", "\t}", "}", "", "const ("]
    width = max(len(n) for n, *_ in limits)
    out += [f"\t{n.ljust(width)} = {expr} // documented" for n, expr, _, _ in limits]
    out += [")", "", "var _ = time.Second", ""]
    text = "\n".join(out) + "\n"
    names: set[str] = set()
    while len(text) < size:
        name = f"{rng.choice(VERBS)}{_camel(rng.choice(NOUNS), rng.choice(NOUNS))}{rng.randrange(1000)}"
        if name not in names:
            names.add(name)
            text += _filler_function(rng, name)
    facts = {"tag": tag, "noun": noun, "adjective": adjective, "states": states,
             "kinds": [f"{adjective}_{noun}_{k}" for k in kinds], "limits": limits}
    return text, facts


def _noise(rng: random.Random, size: int) -> str:
    parts = []
    total = 0
    while total < size:
        a, b = rng.sample(NOUNS, 2)
        para = (f"The {a} layer hands each {b} to the next step once it is complete, and "
                f"`{rng.choice(VERBS)}{_camel(b)}` keeps the result for {rng.randrange(2, 40)} rounds. "
                f"Nothing here waits on the network; a slow {a} only delays its own {b}. "
                f"Version {rng.randrange(1, 9)}.{rng.randrange(10)} changed the layout of the "
                f"`{a}_{b}` records.\n\n")
        if rng.random() < 0.15:
            para += (f"| Option | Effect |\n|--------|--------|\n| `--{a}` | Shows the {a}. |\n"
                     f"| `--{b}-only` | Skips everything but the {b}. |\n\n")
        parts.append(para)
        total += len(para)
    return "".join(parts)


def _doc(rng: random.Random, described: list[tuple[str, dict]], size: int, planted: Planted, path: str) -> str:
    out = [f"# {described[0][1]['noun'].capitalize()} notes", ""]
    for file, facts in described:
        noun, tag, adjective = facts["noun"], facts["tag"], facts["adjective"]
        out += [f"## The {adjective} {noun} lifecycle", "", f"Declared in `{file}`.", "",
                "| State | Meaning |", "|-------|---------|"]
        out += [f"| `{s}` | The {noun} is {s}. |" for s in facts["states"]]
        out += ["", "| Kind | Carries |", "|------|---------|"]
        out += [f"| `{k}` | One {k.rsplit('_', 1)[1]}. |" for k in facts["kinds"]]
        planted.couplings += [("table", path, f"{tag}State"), ("table", path, f"{tag}Kind")]
        out.append("")
        for name, _expr, said, _kind in facts["limits"]:
            words = " ".join(w for w in _split(name) if w not in (noun, adjective))
            out.append(f"For the {adjective} {noun}, the {words} is set to {said}.")
            planted.couplings.append(("phrase", path, name))
        out += ["", _noise(rng, size // (2 * len(described)))]
    return "\n".join(out)


def _split(name: str) -> list[str]:
    import re
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[0-9]+", name)]


def make_tree(root: Path, go_files: int = 3000, md_files: int = 450, seed: int = 11) -> Planted:
    """Write the tree into ``root`` (created if missing) and return the couplings it planted."""
    rng = random.Random(seed)
    root = Path(root)
    planted = Planted()
    facts: list[tuple[str, dict]] = []
    per_package = 12
    for i in range(go_files):
        package = f"pkg{i // per_package:04d}"
        rel = f"internal/{package}/{NOUNS[i % len(NOUNS)]}_{i}.go"
        text, found = _go_file(rng, package, i, rng.randint(12_000, 18_000))
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        planted.files += 1
        planted.bytes += len(text)
        facts.append((rel, found))
    documented = facts[: min(len(facts), md_files * 2)]
    for d in range(md_files):
        described = documented[2 * d: 2 * d + 2] if 2 * d < len(documented) else []
        rel = f"docs/area{d // 50:02d}/notes_{d:04d}.md"
        if described:
            text = _doc(rng, described, 9_000, planted, rel)
        else:
            text = "# Notes\n\n" + _noise(rng, 9_000)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        planted.files += 1
        planted.bytes += len(text)
    return planted


def _covered(proposals: list) -> list[set[tuple[str, str]]]:
    """Per proposal, the (document, fact identifier) pairs it binds."""
    out = []
    for p in proposals:
        out.append({(p.doc, getattr(ref.fact, "name", None) or ref.fact.label) for ref in p.facts})
    return out


def recall(planted: Planted, proposals: list) -> float:
    """The share of planted couplings some proposal covers (same document, fact named)."""
    covered = set().union(*_covered(proposals)) if proposals else set()
    found = sum(1 for _, doc, name in planted.couplings if (doc, name) in covered)
    return found / len(planted.couplings) if planted.couplings else 1.0


def precision(planted: Planted, proposals: list) -> float:
    """The share of proposals that bind only planted couplings."""
    known = {(doc, name) for _, doc, name in planted.couplings}
    pairs = _covered(proposals)
    return sum(1 for p in pairs if p <= known) / len(pairs) if pairs else 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--go-files", type=int, default=3000)
    parser.add_argument("--md-files", type=int, default=450)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--check", action="store_true", help="also run the emitted config with the engine")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from driftguard.discover import discover, render_config

    with tempfile.TemporaryDirectory(prefix="dg-discover-") as tmp:
        started = time.perf_counter()
        planted = make_tree(Path(tmp), args.go_files, args.md_files)
        built = time.perf_counter() - started
        started = time.perf_counter()
        found = discover(Path(tmp), jobs=args.jobs, limit=None)
        seconds = time.perf_counter() - started
        s = found.stats
        print(f"tree: {planted.files} files, {planted.bytes / 1e6:.1f} MB (built in {built:.1f} s)")
        print(f"discover: {seconds:.2f} s with {s.jobs} process{'es' if s.jobs != 1 else ''}; "
              f"{len(found.proposals)} proposals; "
              f"recall {recall(planted, list(found.proposals)):.3f}, "
              f"precision {precision(planted, list(found.proposals)):.3f} against the planted couplings")
        print("phases: " + ", ".join(f"{k} {v:.2f} s" for k, v in s.phases.items()))
        if args.check:
            from driftguard.config.loader import load_config
            from driftguard.judging.engine import Engine

            config_path = Path(tmp) / "driftguard.yaml"
            config_path.write_text(render_config(found), encoding="utf-8")
            started = time.perf_counter()
            result = Engine(load_config(config_path)).run()
            print(f"engine check of the emitted config: {len(result.rules)} rules, "
                  f"{sum(1 for r in result.rules if r.status.value == 'pass')} pass "
                  f"({time.perf_counter() - started:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
