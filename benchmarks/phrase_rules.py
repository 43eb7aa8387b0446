"""Time many ``phrase`` rules over one document against the same check with few rules.

The issue: 3,000 phrase rules over one document took minutes, each rule compiling its
own regex around the ~4.7 kB quantity grammar (~35 ms a rule, ~105 s for 3,000). The
tree is generated once: one Go file of ``--sentences`` constants (half durations, half
counts) and one document stating each of them in a sentence of its own, in sections of
ten, each closed by a sentence of prose (with ``--code-spans`` that sentence holds three
code spans, as real documents do). A config of N rules binds the first N
constants (one ``constant:`` fact each) to their sentences (``phrase: 'agent cache disk
timeout is {value}'``). Every size runs ``driftguard check --no-cache`` on the same
tree, so the document and the source are parsed alike at every size and the difference
between two sizes is what the extra rules cost. The floor is the smallest size (30 rules
by default); the report gives each size's ratio to it and the marginal cost of a rule
between consecutive sizes (equal marginals: linear in rules). Sizes run in turn in each
round; medians of ``--repeat`` rounds after a warm-up round.

    python benchmarks/phrase_rules.py [--sizes 30,300,3000] [--sentences 3000] [--code-spans] [--repeat 3] [--json out.json]

``--repo DIR`` times another checkout of driftguard (a "before").
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from padding import WORDS
from rounds import Run, child_env, ratio, rounds

REPO = Path(__file__).resolve().parent.parent
SOURCE = "internal/limits/limits.go"
DOC = "docs/limits.md"
NUMBER_WORDS = {2: "two", 3: "three", 5: "five", 10: "ten", 30: "thirty"}
UNITS = ("Second", "Minute", "Hour")


def _subjects(count: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """``count`` distinct word triples, so no template matches another's sentence."""
    picks = rng.sample(range(len(WORDS) ** 3), count)
    n = len(WORDS)
    return [(WORDS[p // (n * n)], WORDS[p // n % n], WORDS[p % n]) for p in picks]


def generate(root: Path, sentences: int, code_spans: bool = False, seed: int = 5) -> list[tuple[str, str, str]]:
    """The source and the document; each constant as ``(name, template, value as written)``.
    With ``code_spans`` the sentence closing each section names a file, a flag and a type
    as code spans (the same words without backticks otherwise)."""
    rng = random.Random(seed)
    consts: list[tuple[str, str, str]] = []
    go = ["package limits\n\nimport \"time\"\n\nconst ("]
    doc = ["# Limits\n\nEvery limit the service enforces, by subsystem.\n"]
    for i, words in enumerate(_subjects(sentences, rng)):
        camel, plain = "".join(w.title() for w in words), " ".join(words)
        amount = rng.choice((2, 3, 5, 10, 12, 30, 45, 90))
        said = NUMBER_WORDS.get(amount, str(amount)) if i % 3 == 0 else str(amount)
        if i % 10 == 0:
            doc.append(f"\n## {plain.capitalize()} and the next nine\n\n")
        if i % 2 == 0:
            unit = UNITS[i // 2 % 3]
            go.append(f"\t// {camel}Timeout bounds one {plain} request.\n\t{camel}Timeout = {amount} * time.{unit}")
            template, stated = f"{plain} timeout is {{value}}", f"{said} {unit.lower()}s"
            doc.append(f"The {plain} timeout is {stated}, after which the request is dropped. ")
            consts.append((f"{camel}Timeout", template, stated))
        else:
            go.append(f"\t// {camel}Retries caps the attempts of one {plain} call.\n\t{camel}Retries = {amount}")
            template = f"{plain} client retries up to {{value}} times"
            doc.append(f"The {plain} client retries up to {said} times before it gives up.\n")
            consts.append((f"{camel}Retries", template, said))
        if i % 10 == 9:
            tick = "`" if code_spans else ""
            doc.append(f"\nSet these in {tick}{words[0]}.yaml{tick} or with {tick}--{words[1]}-{words[2]}{tick}; "
                       f"see the {tick}{camel}{tick} type for what each one guards.\n")
    (root / SOURCE).parent.mkdir(parents=True, exist_ok=True)
    (root / SOURCE).write_text("\n".join(go) + "\n)\n", encoding="utf-8")
    (root / DOC).parent.mkdir(parents=True, exist_ok=True)
    (root / DOC).write_text("".join(doc), encoding="utf-8")
    return consts


def config(consts: list[tuple[str, str, str]], rules: int) -> str:
    """A config binding the first ``rules`` constants to their sentences."""
    facts = [f"  c{i:04d}: {{file: {SOURCE}, constant: {name}}}" for i, (name, _, _) in enumerate(consts[:rules])]
    checks = [f"  - {{id: p{i:04d}, fact: c{i:04d}, doc: {DOC}, phrase: '{template}'}}"
              for i, (_, template, _) in enumerate(consts[:rules])]
    return "version: 1\nfacts:\n" + "\n".join(facts) + "\nrules:\n" + "\n".join(checks) + "\n"


def summary(output: str) -> tuple[int, int] | None:
    """``(rules, passed)`` from a check's last line, None when it has none."""
    found = re.search(r"(\d+) rules?: (\d+) passed", output)
    return (int(found[1]), int(found[2])) if found else None


def measure(root: Path, consts: list[tuple[str, str, str]], sizes: list[int], repeat: int, work: Path,
            repo: Path = REPO) -> dict[str, Any]:
    env = child_env(repo, work)
    runs = {}
    for n in sizes:
        path = work / f"rules-{n}.yaml"
        path.write_text(config(consts, n), encoding="utf-8")
        runs[str(n)] = Run(["-m", "driftguard", "check", "--no-cache", "--config", str(path), "--root", str(root)],
                           root, env)
    result = rounds(lambda _: runs, repeat)
    med, floor = result["median_s"], str(sizes[0])
    result["ratio_to_floor"] = {str(n): ratio(med[str(n)], med[floor]) for n in sizes}
    result["marginal_ms_per_rule"] = {f"{a}-{b}": round((med[str(b)] - med[str(a)]) * 1000 / (b - a), 2)
                                      for a, b in zip(sizes, sizes[1:])}
    result["summaries"] = {k: summary(v) for k, v in result["outputs"].items()}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="30,300,3000", help="rule counts, the first is the floor")
    parser.add_argument("--sentences", type=int, default=3000, help="constants and sentences in the tree")
    parser.add_argument("--code-spans", action="store_true", help="three code spans closing each section")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repo", type=Path, default=REPO, help="the driftguard checkout to time")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if sizes[-1] > args.sentences:
        parser.error("a size is larger than --sentences")
    with tempfile.TemporaryDirectory(prefix="phrase-rules-") as tmp:
        work = Path(tmp)
        consts = generate(work / "tree", args.sentences, args.code_spans)
        size = (work / "tree" / DOC).stat().st_size
        result = measure(work / "tree", consts, sizes, args.repeat, work, args.repo.resolve())
    result.pop("outputs")
    result.update({"sizes": sizes, "sentences": args.sentences, "code_spans": args.code_spans, "doc_bytes": size,
                   "repo": str(args.repo)})
    agree = all(s is not None and s[0] == s[1] == n for n, s in zip(sizes, result["summaries"].values()))
    result["all_pass"] = agree
    spans = ", code spans closing each section" if args.code_spans else ""
    print(f"{args.repo}: one document of {args.sentences} stated limits ({size / 1e3:.0f} kB{spans}), "
          f"check --no-cache, median of {args.repeat}\n")
    print("| run | median s | peak MB | against the floor |\n|---|---:|---:|---:|")
    for n in sizes:
        label = f"{n} phrase rules" + (" (floor)" if n == sizes[0] else "")
        print(f"| {label} | {result['median_s'][str(n)]} | {result['peak_mb'][str(n)]} | "
              f"{result['ratio_to_floor'][str(n)]}x |")
    print("\nmarginal cost of a rule: " + ", ".join(f"{k} rules {v} ms" for k, v in result["marginal_ms_per_rule"].items()))
    print(f"every rule passes at every size: {agree}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
