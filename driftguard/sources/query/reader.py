"""The ``query`` reader: the ``@value`` captures of a tree-sitter query, in any language
a grammar package reads (``driftguard.sources.query.grammars``).

- A set: the text of every ``@value`` capture (``literals.text_of``: a
  literal's contents unquoted), the first of each distinct value kept, in file
  order; members are strings.
- ``scalar: true``: the one distinct value the query captures (at one place
  or several), read as a quantity or number where it is one; two different
  values are ``ambiguous``, naming their lines.
- A map, when the query captures ``@name``: one entry per match, labelled by
  the ``@name`` text, valued by the ``@value`` capture as a scalar is. A match
  must capture one of each; a name given two different values is
  ``ambiguous``.

Other captures (``@_kind``) and predicates narrow the matches only. A match
touching a part of the file that does not parse is left out (``skipped``
names it); when that leaves nothing the fact is a ``ParseError`` naming the
broken line. A query that matches nothing is ``FactNotFound`` naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from driftguard.config.specs import Query, Selector
from driftguard.model import (
    AmbiguousFact,
    ConfigError,
    DriftguardError,
    FactNotFound,
    Item,
    Location,
    ParseError,
    Value,
)
from driftguard.sources.query.grammars import GRAMMARS, Grammar, grammar_of
from driftguard.sources.query.literals import text_of, value_of
from driftguard.sources.query.matching import Reading, compile_query, run
from driftguard.sources.query.source import QuerySource

if TYPE_CHECKING:
    from tree_sitter import Node

    from driftguard.sources.query.matching import Match


def parse(path: str, text: str) -> QuerySource:
    """The file, parsed when a fact names its grammar."""
    return QuerySource(path, text)


def extract(tree: object, selector: Selector, path: str) -> Sequence[Item]:
    source, grammar, reading = read(tree, selector, path)
    assert isinstance(selector, Query)
    if not reading.matches:
        if reading.left_out:
            _, broken = reading.left_out[0]
            raise ParseError(f"the file does not parse where the query matches: line {broken.line}: {broken.what} "
                             f"({_count(len(reading.left_out), 'match', 'matches')} left out)",
                             Location(path, broken.line))
        raise FactNotFound(f"the {grammar.name} query {selector.query!r} matches nothing"
                           + _broken_note(source, grammar), Location(path))
    if selector.map:
        return entries(source, grammar, reading.matches)
    if selector.scalar:
        return scalar(source, grammar, reading.matches)
    return members(source, reading.matches)


def read(tree: object, selector: Selector, path: str) -> tuple[QuerySource, Grammar, Reading]:
    """The source, its grammar and the query's matches over it, computed once per file and query."""
    if not isinstance(tree, QuerySource) or not isinstance(selector, Query):
        raise ConfigError("the query reader reads only `query` facts", Location(path))
    grammar = grammar_of(selector.language, path)
    compiled = compile_query(grammar, selector, path)
    key = (grammar.name, selector.query)
    found = tree.results.get(key)
    if not isinstance(found, Reading):
        found = run(tree, grammar, compiled)
        tree.results[key] = found
    return tree, grammar, found


def members(source: QuerySource, matches: list[Match]) -> list[Item]:
    seen: dict[str, Item] = {}
    for node in value_nodes(matches):
        text = text_of(source, node)
        if text not in seen:
            seen[text] = Item(Value.string(text), source.location(node.start_byte))
    return list(seen.values())


def scalar(source: QuerySource, grammar: Grammar, matches: list[Match]) -> list[Item]:
    found: dict[str, Node] = {}
    for node in value_nodes(matches):
        found.setdefault(text_of(source, node), node)
    node = next(iter(found.values()))
    if len(found) > 1:
        lines = ", ".join(str(source.location(n.start_byte).line) for n in found.values())
        raise AmbiguousFact(f"the query captures {len(found)} different values (lines {lines}): "
                            + ", ".join(f"`{t}`" for t in found), source.location(node.start_byte))
    return [Item(value_of(source, node, grammar.zero_octal), source.location(node.start_byte))]


def entries(source: QuerySource, grammar: Grammar, matches: list[Match]) -> list[Item]:
    out: dict[str, Item] = {}
    for match in matches:
        if len(match.names) != 1 or len(match.values) != 1:
            where = source.location(match.start)
            raise ConfigError(f"a map's match captures one `@name` and one `@value`; the match at "
                              f"line {where.line} captures {len(match.names)} and {len(match.values)}", where)
        label = text_of(source, match.names[0])
        node = match.values[0]
        item = Item(value_of(source, node, grammar.zero_octal), source.location(node.start_byte), label=label)
        before = out.setdefault(label, item)
        if not before.value.same(item.value):
            raise AmbiguousFact(f"the query gives `{label}` two values: `{before.value}` (line "
                                f"{before.location.line if before.location else '?'}) and `{item.value}` "
                                f"(line {item.location.line if item.location else '?'})", item.location)
    return list(out.values())


def value_nodes(matches: list[Match]) -> list[Node]:
    return sorted((node for match in matches for node in match.values), key=lambda n: n.start_byte)


def skipped(tree: object, selector: Selector, path: str) -> list[str]:
    """The matches left out because they touch a part of the file that does not parse."""
    try:
        source, _, reading = read(tree, selector, path)
    except DriftguardError:
        return []
    notes = []
    for match, broken in reading.left_out:
        shown = ", ".join(f"`{text_of(source, n)}`" for n in match.values) or "a match"
        notes.append(f"line {source.location(match.start).line}: {shown} left out: line {broken.line}: "
                     f"{broken.what}")
    return notes


def problems(tree: object, path: str) -> list[tuple[int, str]]:
    """The parts of the file that do not parse, for each grammar a fact parsed it with."""
    if not isinstance(tree, QuerySource):
        return []
    return [(b.line, b.what) for name in tree.parsed() for b in tree.broken(GRAMMARS[name])]


def _broken_note(source: QuerySource, grammar: Grammar) -> str:
    broken = source.broken(grammar)
    if not broken:
        return ""
    first = broken[0]
    return f" (the file does not fully parse: line {first.line}: {first.what})"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
