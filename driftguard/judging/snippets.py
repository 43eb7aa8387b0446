"""Judge a ``snippet`` rule: each marked block equals the code its marker names.

A target is ``path#L10-L20`` (lines 10 to 20), ``path#L10`` (one line), ``path
symbol=NAME`` (the whole declaration the file's language reader finds for NAME) or a
bare ``path`` (the whole file), relative to the root. Both sides are compared after
common indentation, trailing spaces and surrounding blank lines are removed. A block
that differs is a ``value-mismatch`` at the first line that differs, quoting both; a
target that names no file, line or symbol is ``fact-not-found``. The code read is the
rule's fact (``snippets``), each value labelled with its target, so ``fix`` can write
it back into the block.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from driftguard.config.loader import Rule
from driftguard.documents.snippets import normal
from driftguard.judging.workspace import Workspace
from driftguard.model import (
    FINDING_KINDS,
    VALUE_MISMATCH,
    Claim,
    ConfigError,
    DriftguardError,
    Fact,
    FactNotFound,
    Finding,
    Item,
    Location,
    Value,
)

_TARGET = re.compile(r"(?P<path>[^\s#]+)(?:#L(?P<first>\d+)(?:-L?(?P<last>\d+))?)?(?:\s+symbol=(?P<symbol>\S+))?\Z")
Lines = Callable[[str, str], "tuple[int, int] | None"]
"""(path, symbol) -> the declaration's first and last line."""


@dataclass(frozen=True)
class Target:
    path: str
    first: int | None = None
    last: int | None = None
    symbol: str | None = None


def parse_target(label: str) -> Target | None:
    m = _TARGET.match(label.strip())
    if m is None:
        return None
    first = int(m.group("first")) if m.group("first") else None
    last = int(m.group("last")) if m.group("last") else first
    return Target(m.group("path"), first, last, m.group("symbol"))


def judge_snippets(rule: Rule, claim: Claim, workspace: Workspace, lines_of: Lines) -> tuple[Fact, list[Finding]]:
    """The code each block names, as a fact, and a finding for each block that differs."""
    found: list[Item] = []
    findings: list[Finding] = []
    for item in claim.items:
        try:
            code = _code(item.label, workspace, lines_of)
        except DriftguardError as exc:
            findings.append(Finding(FINDING_KINDS[exc.kind], rule.id, f"snippet {item.label}: {exc.message}",
                                    value=item.label, doc=item.location, source=exc.location))
            continue
        found.append(code)
        if code.value.data != item.value.data:
            findings.append(_differs(rule, item, code))
    return Fact("snippets", tuple(found), False, Location(rule.doc)), findings


def _code(label: str, workspace: Workspace, lines_of: Lines) -> Item:
    target = parse_target(label)
    if target is None:
        raise ConfigError(f"the marker names {label!r}; expected PATH#L10-L20, PATH#L10, PATH symbol=NAME or PATH")
    text = workspace.read_text(target.path)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first, last = target.first, target.last
    if target.symbol is not None:
        span = lines_of(target.path, target.symbol)
        if span is None:
            raise FactNotFound(f"{target.path} declares no one `{target.symbol}`", Location(target.path))
        first, last = span
    if first is None or last is None:
        first, last = 1, len(lines)
    if not 1 <= first <= last <= len(lines):
        raise FactNotFound(f"{target.path} has {len(lines)} lines, not {first} to {last}", Location(target.path))
    return Item(Value.string(normal("\n".join(lines[first - 1:last]))), Location(target.path, first), label=label)


def _differs(rule: Rule, item: Item, code: Item) -> Finding:
    doc_lines, code_lines = str(item.value.data).split("\n"), str(code.value.data).split("\n")
    at = next((i for i, (a, b) in enumerate(zip(doc_lines, code_lines)) if a != b), min(len(doc_lines),
                                                                                         len(code_lines)))
    said = doc_lines[at] if at < len(doc_lines) else "(nothing: the block ends)"
    has = code_lines[at] if at < len(code_lines) else "(nothing: the code ends)"
    line = (item.location.line or 1) + at if item.location and item.location.line else None
    where = Location(rule.doc, line)
    source = Location(code.location.path, (code.location.line or 1) + at) if code.location else None
    return Finding(VALUE_MISMATCH, rule.id, f"the snippet of {item.label} differs from the code at its line "
                   f"{at + 1}: the document has `{said.strip()}`, the code has `{has.strip()}`",
                   value=item.label, doc=where, source=source)
