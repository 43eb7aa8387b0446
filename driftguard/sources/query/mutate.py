"""Selftest mutations of files read by a ``query`` fact: a capture is copied or rewritten.

- A set (or a map's keys) gains a member: the capture of its last member
  (``@value``, or ``@name`` for a map) is climbed to the list element holding
  it (the nearest ancestor with a sibling of its own type: an enum variant, a
  hash pair, a ``#define``, a field declaration), and a copy of that element
  with a new name in the capture is written after it, with the separator the
  element's neighbour uses (``Fast, Slow`` -> ``Fast, Slow, SlowSelftest``).
  Where no such element is found, the lines of the match are copied below it.
  The new name keeps the old one's style (``new_name``); a string literal keeps
  its quotes and gets new contents.
- A scalar's capture is rewritten at every place the query captures that
  value: a number literal moved by one in its own spelling (``8080u16`` ->
  ``8081u16``, ``0x1F`` -> ``0x2F``), a string's contents changed (a quantity
  in its own style, ``10m`` -> ``20m``), ``true`` flipped. A map's entries are
  each rewritten so.

Every edit is re-parsed and re-read with the fact's own query before it is
written: it must not add a part that does not parse, and the set must gain
exactly the new member (the scalar must read as a different value). When no
candidate passes, ``NotApplicable`` says what was tried.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Query
from driftguard.model import DriftguardError, Fact, Item, Kind, Value
from driftguard.quantities import QuantityError, format_like, read_value
from driftguard.sources.mutation import IDENTIFIER, CannotApply, Edit, NotApplicable, bumped, last_item, new_name
from driftguard.sources.query.grammars import Grammar
from driftguard.sources.query.literals import code_number, digits_span, is_quoted, text_of, value_of
from driftguard.sources.query.matching import Reading
from driftguard.sources.query.placing import below, beside_sibling
from driftguard.sources.query.reader import read, value_nodes
from driftguard.sources.query.source import QuerySource
from driftguard.sources.text.samples import CANDIDATES, derived, variants

if TYPE_CHECKING:
    from tree_sitter import Node

    from driftguard.sources.query.matching import Match

QUOTE = re.compile(r"[\"'`]")


def add_member(text: str, spec: FactSpec, fact: Fact) -> Edit:
    """A copy of the last member's element, with a new name in its capture."""
    selector = _query(spec)
    source, grammar, reading = _read(text, spec)
    match, node = _find(source, reading, last_item(fact))
    if selector.map:
        node = match.names[0]
    taken = _members(source, reading, selector)
    old = text_of(source, node)
    places = [p for p in (beside_sibling(source, node), below(source, match, node)) if p is not None]
    candidates = _new_members(source, old, taken)
    broken = len(source.broken(grammar))
    for place in places:
        for candidate in candidates:
            written = _spell(source, node, candidate)
            if written is None:
                continue
            new, what, line = place(written)
            after = _reread(new, spec, broken)
            found = set() if after is None else _members(*after, selector)
            if found - taken == {candidate} and taken <= found:
                return Edit(new, what, line, (candidate,))
    raise NotApplicable(f"no copy of `{old}` with a new name is read by the query as one more member "
                        f"({_tried(candidates)})")


def change_scalar(text: str, spec: FactSpec, fact: Fact) -> Edit:
    """The captured value rewritten at every place the query captures it (each entry of a map)."""
    selector = _query(spec)
    source, grammar, reading = _read(text, spec)
    spots = _spots(source, reading, fact, selector)
    if not spots:
        raise CannotApply(f"the query captures none of the values of fact '{fact.name}'")
    choices = [_changes(source, node, grammar) for node in spots]
    broken = len(source.broken(grammar))
    before = {n.start_byte: value_of(source, n, grammar.zero_octal) for n in spots}
    for index in range(max(len(c) for c in choices)):
        edits = sorted(((n, c[min(index, len(c) - 1)]) for n, c in zip(spots, choices) if c),
                       key=lambda e: e[0].start_byte, reverse=True)
        new = text
        for node, written in edits:
            new = new[:source.char(node.start_byte)] + written + new[source.char(node.end_byte):]
        after = _reread(new, spec, broken)
        if after is not None and _changed(after, selector, fact, before, grammar):
            node, written = edits[-1]
            return Edit(new, f"`{source.node_text(node).strip()}` -> `{written.strip()}`{_others(edits, selector)}",
                        source.location(node.start_byte).line)
    raise NotApplicable(f"no changed value the selftest can write is read back by the query "
                        f"({_tried([c for each in choices for c in each])})")


def _others(edits: list[tuple[Node, str]], selector: Query) -> str:
    if len(edits) == 1:
        return ""
    if selector.map:
        return f" (and {_count(len(edits) - 1, 'other entry', 'other entries')})"
    return f" (at all {len(edits)} places the query captures it)"


def _query(spec: FactSpec) -> Query:
    if not isinstance(spec.selector, Query):
        raise CannotApply(f"fact '{spec.name}' is not a `query` fact")
    return spec.selector


def _read(text: str, spec: FactSpec) -> tuple[QuerySource, Grammar, Reading]:
    try:
        return read(QuerySource(spec.files[0], text), spec.selector, spec.files[0])
    except DriftguardError as exc:
        raise CannotApply(str(exc)) from None


def _reread(text: str, spec: FactSpec, broken: int) -> tuple[QuerySource, Reading] | None:
    """The mutated text read again, or None when it parses worse than the original did."""
    try:
        source, grammar, reading = read(QuerySource(spec.files[0], text), spec.selector, spec.files[0])
    except DriftguardError:
        return None
    return None if len(source.broken(grammar)) > broken else (source, reading)


def _members(source: QuerySource, reading: Reading, selector: Query) -> set[str]:
    if selector.map:
        return {text_of(source, n) for m in reading.matches for n in m.names}
    return {text_of(source, n) for n in value_nodes(reading.matches)}


def _find(source: QuerySource, reading: Reading, item: Item) -> tuple[Match, Node]:
    """The match and ``@value`` node the clean run read ``item`` from."""
    loc = item.location
    for match in reading.matches:
        for node in match.values:
            if loc is not None and source.location(node.start_byte) == loc:
                return match, node
    raise CannotApply(f"the query captures nothing at {loc}")


def _spots(source: QuerySource, reading: Reading, fact: Fact, selector: Query) -> list[Node]:
    if selector.map:
        wanted = {i.location for i in fact.items}
        return [n for n in value_nodes(reading.matches) if source.location(n.start_byte) in wanted]
    _, node = _find(source, reading, fact.items[0])
    old = text_of(source, node)
    return [n for n in value_nodes(reading.matches) if text_of(source, n) == old]


def _changed(after: tuple[QuerySource, Reading], selector: Query, fact: Fact, before: dict[int, Value],
             grammar: Grammar) -> bool:
    source, reading = after
    if selector.map:
        new = {text_of(source, m.names[0]): value_of(source, m.values[0], grammar.zero_octal)
               for m in reading.matches if m.names and m.values}
        old = {i.label: i.value for i in fact.items}
        return set(old) <= set(new) and all(not new[k].same(v) for k, v in old.items())
    values = {text_of(source, n) for n in value_nodes(reading.matches)}
    if len(values) != 1:
        return False
    node = value_nodes(reading.matches)[0]
    return not any(value_of(source, node, grammar.zero_octal).same(v) for v in before.values())


def _spell(source: QuerySource, node: Node, new: str) -> str | None:
    """``node``'s source text with its value written as ``new``: a literal's contents
    replaced inside its quotes, anything else replaced whole."""
    whole = source.node_text(node)
    if not is_quoted(source, node):
        return new
    old = text_of(source, node)
    quote = QUOTE.search(whole)  # contents start after the first quote (``b"b"``), a symbol's at once
    at = whole.find(old, quote.end() if quote else 0) if old else -1
    return None if at < 0 else whole[:at] + new + whole[at + len(old):]


def _new_members(source: QuerySource, old: str, taken: set[str]) -> list[str]:
    pool = list(CANDIDATES)
    if IDENTIFIER.fullmatch(old):
        pool.insert(0, new_name(old, taken | set(IDENTIFIER.findall(source.text))))
    pool += derived(sorted(taken)) + variants(old)
    return [c for c in dict.fromkeys(pool) if c and c not in taken]


def _changes(source: QuerySource, node: Node, grammar: Grammar) -> list[str]:
    """New source texts for ``node``, most natural first."""
    text = source.node_text(node)
    if is_quoted(source, node):
        contents = text_of(source, node)
        shapes = derived([contents])  # ``pulse`` -> ``zzzzz``: the last resort
        tries = [*_quantity(contents), *(v for v in variants(contents) if v not in shapes), contents + "_selftest",
                 *shapes]
        return [w for t in dict.fromkeys(tries) if t != contents and (w := _spell(source, node, t)) is not None]
    span = digits_span(text)
    if span is not None and code_number(text, grammar.zero_octal) is not None:
        start, end = span
        tries = [text[:start] + v + text[end:] for v in variants(text[start:end]) if v[:1].isdigit()]
    else:
        tries = [*variants(text), text + "_selftest"]
    return [t for t in dict.fromkeys(tries) if t != text]


def _quantity(contents: str) -> list[str]:
    value = read_value(contents)
    if value.kind not in (Kind.NUMBER, Kind.DURATION, Kind.BYTES):
        return []
    try:
        return [format_like(bumped(value), value)]
    except (QuantityError, ValueError, NotApplicable):
        return []


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _tried(values: list[str], shown: int = 6) -> str:
    if not values:
        return "every value the selftest could derive is taken"
    more = f" and {len(values) - shown} more" if len(values) > shown else ""
    return "tried " + ", ".join(values[:shown]) + more
