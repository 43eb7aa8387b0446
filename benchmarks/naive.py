"""The naive baseline: for every rule, read its files again and regex the raw text.

    python benchmarks/naive.py --config F [--root DIR] [--json OUT]

It reads the same driftguard.yaml, and for each rule re-reads every source
file of the rule's facts and the rule's document (no cache across rules),
finds the constants with regexes over the comment-stripped text and the
claims with regexes over the markdown source. Verdicts are pass, fail (drift,
or a claim/fact it could not find), error (a file it could not read) and n/a
(a selector it does not implement). Exit codes follow driftguard's.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml
from naive_sources import Missing, Unsupported, read_fact
from naive_values import QUANTITY, Value, canonical, quantity, same


class Reader:
    """Reads files without caching and counts the bytes."""

    def __init__(self, root: Path) -> None:
        self.root, self.bytes, self.reads = root, 0, 0

    def text(self, rel: str) -> str:
        data = (self.root / rel).read_bytes()
        self.bytes += len(data)
        self.reads += 1
        return data.decode("utf-8")


def fold(text: str) -> str:
    return " ".join(text.split()).casefold()


# -- documents ------------------------------------------------------------------

def strip_fences(text: str) -> str:
    return re.sub(r"^(```|~~~).*?^\1[ \t]*$", "", text, flags=re.M | re.S)


def section(text: str, title: str) -> str:
    heads = list(re.finditer(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", text, re.M))
    for n, m in enumerate(heads):
        if fold(m.group(2)) == fold(title):
            level = len(m.group(1))
            end = next((h.start() for h in heads[n + 1:] if len(h.group(1)) <= level), len(text))
            return text[m.end():end]
    raise Missing(f"section {title}")


def table(text: str, name: str) -> tuple[list[str], list[list[str]]]:
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        cells = _cells(line)
        if cells and fold(cells[0]) == fold(name) and re.match(r"^\s*\|?\s*:?-+", lines[i + 1]):
            rows = []
            for row in lines[i + 2:]:
                if not row.strip().startswith("|"):
                    break
                rows.append(_cells(row))
            return cells, rows
    raise Missing(f"table {name}")


def _cells(line: str) -> list[str]:
    line = line.strip()
    if not line.startswith("|"):
        return []
    return [c.strip() for c in line.strip("|").split("|")]


def _spans(cell: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", cell)


def _plain(text: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(re.sub(r"[*`]|(?<!\w)_+|_+(?!\w)", "", text).split())


def read_claim(text: str, rule: dict[str, Any]) -> list[Value] | dict[str, Value]:
    text = strip_fences(text)
    if "table" in rule:
        scope = section(text, rule["section"]) if rule.get("section") else text
        header, rows = table(scope, rule["table"])
        col = [fold(h) for h in header].index(fold(rule["column"])) if rule.get("column") else None
        if rule.get("rows"):
            col = 1 if col is None else col
            return {fold(_plain(r[0])): quantity(_plain(r[col])) for r in rows if len(r) > col}
        col = col or 0
        values = [v for r in rows if len(r) > col for v in (_spans(r[col]) or [_plain(r[col])]) if v]
        return [("str", v) for v in values]
    if "phrase" in rule:
        scope = section(text, rule["section"]) if rule.get("section") else text
        before, _, after = rule["phrase"].partition("{value}")
        regex = re.compile(_literal(before) + f"({QUANTITY})" + _literal(after), re.I)
        found = [quantity(m.group(1)) for m in regex.finditer(_plain(scope))]
        if not found:
            raise Missing("phrase")
        return found
    if "mentions" in rule:
        scope = section(text, rule["section"]) if rule.get("section") else text
        return [("str", s) for s in _spans(scope)]
    scope = section(text, rule["section"])
    if rule.get("list"):
        items = re.findall(r"^[ \t]*[-*+][ \t]+(.+)$", scope, re.M)
        return [("str", (_spans(i) or [_plain(i)])[0]) for i in items]
    wanted = re.compile(rule.get("code_spans") or "")
    return [("str", s) for s in _spans(scope) if wanted.search(s)]


def _literal(text: str) -> str:
    return "".join(r"\s+" if p.isspace() else re.escape(p) for p in re.split(r"(\s+)", text) if p)


# -- judging --------------------------------------------------------------------

def judge(rule: dict[str, Any], facts: dict[str, Any], reader: Reader) -> str:
    if "references" in rule or "links" in rule:
        return "n/a"  # the hand-written guard never had these
    names = list(rule.get("facts") or ([rule["fact"]] if "fact" in rule else []))
    if rule.get("rows"):
        names = list(rule["rows"].values())
    try:
        code = {}
        for name in names:
            spec = facts[name]
            if not isinstance(spec["file"], str):
                return "n/a"
            code[name] = read_fact(reader.text(spec["file"]), spec, spec["file"].endswith(".go"))
        claim = read_claim(reader.text(rule["doc"]), rule)
    except Unsupported:
        return "n/a"
    except (Missing, ValueError, KeyError, IndexError, re.error):
        return "fail"
    except OSError:
        return "error"
    if isinstance(claim, dict):
        return "pass" if all(fold(label) in claim and same(claim[fold(label)], code[name][0])
                             for label, name in rule["rows"].items()) else "fail"
    if facts[names[0]].get("constant") or facts[names[0]].get("call") or \
            (facts[names[0]].get("pattern") and facts[names[0]].get("scalar")):
        return "pass" if claim and all(same(v, code[names[0]][0]) for v in claim) else "fail"
    have = {canonical(v) for name in names for v in code[name]}
    said = {canonical(v) for v in claim}
    direction = rule.get("direction", "both")
    ok = (direction == "doc-to-code" or have <= said) and (direction == "code-to-doc" or said <= have)
    return "pass" if ok else "fail"


def run(config: Path, root: Path | None = None) -> dict[str, Any]:
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    if root is None:
        root = (config.parent / data.get("root", ".")).resolve()
    reader = Reader(root)
    reader.bytes += config.stat().st_size
    verdicts = {rule["id"]: judge(rule, data.get("facts") or {}, reader) for rule in data.get("rules") or []}
    return {"rules": verdicts, "bytes_read": reader.bytes, "reads": reader.reads}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="naive", description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True)
    parser.add_argument("--root")
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    result = run(Path(args.config), Path(args.root).resolve() if args.root else None)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, sort_keys=True), encoding="utf-8")
    counts = {s: sum(1 for v in result["rules"].values() if v == s) for s in ("pass", "fail", "error", "n/a")}
    print(f"naive: {len(result['rules'])} rules: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n))
    return 2 if counts["error"] else 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
