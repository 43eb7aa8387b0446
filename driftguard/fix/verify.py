"""Prove a fixed document safe before it is written, as trusted formatters do.

Two checks, both on the candidate text in memory: (1) markdown-it's token
stream of the new document equals the old one token for token (type, tag,
markup, nesting, content, and the same for inline children), except for the
content of the tokens on the lines a value edit touched and for the rows that
were added, which must hold exactly the planned cells; (2) every rule that
reads the document, judged again on the candidate, reports nothing it did not
report before except the findings the changes fix.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from markdown_it.token import Token

from driftguard.config.loader import Config
from driftguard.documents.parser import block_tokens
from driftguard.fix.changes import Change
from driftguard.fix.plan import DocPlan
from driftguard.judging.engine import Engine
from driftguard.judging.workspace import Workspace
from driftguard.model import Finding
from driftguard.text import line_starts


class Unsafe(Exception):
    """The candidate document fails a check; the message says why."""


def apply_changes(text: str, changes: Sequence[Change]) -> tuple[str, list[int]]:
    """The new text, and the new text's offset of each change's splice (in order)."""
    out: list[str] = []
    at: list[int] = []
    cursor = size = 0
    for change in changes:
        s = change.splice
        out.append(text[cursor:s.start])
        size += s.start - cursor
        at.append(size)
        out.append(s.new)
        size += len(s.new)
        cursor = s.end
    out.append(text[cursor:])
    return "".join(out), at


def verify(config: Config, plan: DocPlan, new: str, offsets: list[int]) -> None:
    """Raise Unsafe unless ``new`` differs from ``plan.text`` only where the changes say."""
    check_tokens(plan.text, new, plan.changes, offsets)
    check_rules(config, plan, new)


# -- tokens ---------------------------------------------------------------------


def check_tokens(old: str, new: str, changes: Sequence[Change], offsets: list[int]) -> None:
    old_tokens, new_tokens = _parse(old), _parse(new)
    old_starts, new_starts = line_starts(old), line_starts(new)
    touched: set[int] = set()
    added: dict[int, tuple[str, ...]] = {}
    for change, at in zip(changes, offsets):
        s = change.splice
        if change.rows:
            first = bisect_right(new_starts, at) - 1 + 1  # the rows begin after the line break
            added.update({first + k: cells for k, cells in enumerate(change.rows)})
        else:
            touched.update(range(_line(old_starts, s.start), _line(old_starts, max(s.end - 1, s.start)) + 1))
    kept = _drop_rows(new_tokens, added)
    if len(kept) != len(old_tokens):
        raise Unsafe(f"the document's structure would change ({len(old_tokens)} blocks before, "
                     f"{len(kept)} after, not counting added rows)")
    for a, b in zip(old_tokens, kept):
        span = a.map
        free = bool(span) and span is not None and any(span[0] <= line < span[1] for line in touched)
        _same(a, b, free)


def _parse(text: str) -> list[Token]:
    try:
        return block_tokens(text)
    except Exception as exc:  # markdown-it on hostile input
        raise Unsafe(f"the new document could not be parsed: {exc}") from None


def _line(starts: list[int], offset: int) -> int:
    return bisect_right(starts, offset) - 1


def _same(a: Token, b: Token, free: bool) -> None:
    """``b`` is ``a``; with ``free``, only the text may differ."""
    if _shape(a) != _shape(b) or (not free and a.content != b.content):
        line = a.map[0] + 1 if a.map else "?"
        raise Unsafe(f"the edit would change the document outside the fixed value (near line {line}: "
                     f"{a.type} {a.content[:40]!r})")
    kids_a, kids_b = a.children or [], b.children or []
    if len(kids_a) != len(kids_b):
        raise Unsafe(f"the edit would change the inline markup of line {a.map[0] + 1 if a.map else '?'}")
    for x, y in zip(kids_a, kids_b):
        _same(x, y, free and x.type in ("text", "code_inline"))


def _shape(t: Token) -> tuple[object, ...]:
    return (t.type, t.tag, t.markup, t.nesting, t.info, tuple(sorted((t.attrs or {}).items())))


def _drop_rows(tokens: list[Token], added: dict[int, tuple[str, ...]]) -> list[Token]:
    """``tokens`` without the rows at the lines of ``added``, after checking each holds its cells."""
    out: list[Token] = []
    i, seen = 0, set()
    while i < len(tokens):
        tok = tokens[i]
        line = tok.map[0] if tok.map else None
        if tok.type == "tr_open" and line in added:
            j = next(k for k in range(i, len(tokens)) if tokens[k].type == "tr_close")
            cells = tuple(t.content for t in tokens[i:j] if t.type == "inline")
            if cells != added[line]:
                raise Unsafe(f"the added row would read {list(cells)}, not {list(added[line])}")
            seen.add(line)
            i = j + 1
            continue
        out.append(tok)
        i += 1
    if seen != set(added):
        raise Unsafe("an added row would not be part of the table")
    return out


# -- rules ----------------------------------------------------------------------


class _Overlay(Workspace):
    """The root as it is, except for documents given as text."""

    def __init__(self, root: Path, max_file_size: int, texts: dict[str, str]) -> None:
        super().__init__(root, max_file_size)
        self.texts = texts

    def read_text(self, relpath: str) -> str:
        if relpath in self.texts:
            return self.cached("text", relpath, lambda: self.texts[relpath])
        return super().read_text(relpath)


def check_rules(config: Config, plan: DocPlan, new: str) -> None:
    engine = Engine(config)
    engine.workspace = _Overlay(config.root, config.max_file_size, {plan.path: new})
    fixed = Counter(_key(f) for change in plan.changes for f in change.findings)
    for before in plan.before:
        after = engine.judge(before.rule)
        expected = Counter(_keys(before.findings)) - fixed
        extra = Counter(_keys(after.findings)) - expected
        if extra:
            worst = next(f for f in after.findings if _key(f) in extra)
            raise Unsafe(f"rule '{before.rule.id}' would still fail after the fix: {worst.message}")


def _key(finding: Finding) -> tuple[str, str, str | None]:
    return (finding.rule, finding.kind.kind, finding.value)


def _keys(findings: Iterable[Finding]) -> list[tuple[str, str, str | None]]:
    return [_key(f) for f in findings]

