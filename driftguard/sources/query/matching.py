"""A ``query`` selector compiled for its grammar, and its matches over one file.

Compiled once per (grammar, query) and process; ``Query(...)`` raising
``QueryError`` (a bad node type, field or syntax) is a ``ConfigError`` naming
the file, with tree-sitter's message (``Invalid node type at row 0, column 1:
enum_varient``). The query must capture ``@value``; a query that mentions
``@name`` must capture it (a map), and a map is not also a scalar.

Matches are paired through ``QueryCursor.matches`` (``captures()`` lists each
capture name in its own order, py-tree-sitter#450) and sorted by where their
first captured node starts. A match that touches a part of the file the
parser could not read is not trusted: ``run`` returns it apart.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from driftguard.config.specs import Query
from driftguard.model import ConfigError, Location
from driftguard.sources.query.grammars import Grammar, load
from driftguard.sources.query.predicates import Prepared, prepare
from driftguard.sources.query.source import Broken, QuerySource

if TYPE_CHECKING:
    import tree_sitter
    from tree_sitter import Node

VALUE, NAME = "value", "name"


@dataclass(frozen=True)
class Match:
    captures: dict[str, list[Node]]
    start: int  # bytes spanned by every captured node
    end: int

    @property
    def values(self) -> list[Node]:
        return self.captures.get(VALUE, [])

    @property
    def names(self) -> list[Node]:
        return self.captures.get(NAME, [])


@dataclass(frozen=True)
class Compiled:
    query: tree_sitter.Query
    prepared: Prepared
    captures: frozenset[str]


@dataclass(frozen=True)
class Reading:
    """What a query finds in one file: the trusted matches, and those left out with the
    broken part each touches."""

    matches: list[Match]
    left_out: list[tuple[Match, Broken]]


_compiled: dict[tuple[str, str], Compiled] = {}


def compile_query(grammar: Grammar, selector: Query, path: str) -> Compiled:
    key = (grammar.name, selector.query)
    found = _compiled.get(key)
    if found is None:
        found = _compile(grammar, selector, path)
        _compiled[key] = found
    _check_shape(found, selector, path)
    return found


def _compile(grammar: Grammar, selector: Query, path: str) -> Compiled:
    from tree_sitter import Query as TsQuery
    from tree_sitter import QueryError

    language = load(grammar, path)
    prepared = prepare(selector.query, Location(path), grammar.name)
    try:
        query = TsQuery(language, prepared.text)
    except QueryError as exc:
        raise ConfigError(f"the {grammar.name} query does not compile: {exc} "
                          f"(query {selector.query!r})", Location(path)) from None
    names = frozenset(query.capture_name(i) for i in range(query.capture_count))
    return Compiled(query, prepared, names)


def _check_shape(compiled: Compiled, selector: Query, path: str) -> None:
    if VALUE not in compiled.captures:
        raise ConfigError("the query captures no `@value` (it captures "
                          + (", ".join(f"@{c}" for c in sorted(compiled.captures)) or "nothing") + ")",
                          Location(path))
    if selector.map and NAME not in compiled.captures:
        raise ConfigError("the query mentions `@name` but captures none (a map needs a capture named "
                          "exactly `@name`; rename the capture it is part of)", Location(path))
    if selector.map and selector.scalar:
        raise ConfigError("a query capturing `@name` yields a map, not a scalar: drop `scalar: true` "
                          "and name an entry with `entry:` on the rule", Location(path))


def run(source: QuerySource, grammar: Grammar, compiled: Compiled) -> Reading:
    """Every match of ``compiled`` over ``source``, split by whether it touches a broken part;
    a regex predicate that fails (a timeout) is raised."""
    from tree_sitter import QueryCursor

    root = source.tree(grammar).root_node
    prepared = compiled.prepared
    prepared.where = Location(source.path)
    found = QueryCursor(compiled.query).matches(root, prepared.holds)
    prepared.raise_failure()
    matches = sorted((_match(captures) for _, captures in found if any(captures.values())),
                     key=lambda m: (m.start, m.end))
    broken = source.broken(grammar)
    ends = [b.end for b in broken]  # the parts are disjoint and in file order, so their ends are sorted
    kept, left_out = [], []
    for match in matches:
        touched = None
        for part in itertools.islice(broken, bisect.bisect_left(ends, match.start), None):
            if part.start > match.end:
                break
            if part.overlaps(match.start, match.end):
                touched = part
                break
        if touched is None:
            kept.append(match)
        else:
            left_out.append((match, touched))
    return Reading(kept, left_out)


def _match(captures: dict[str, list[Node]]) -> Match:
    nodes = [node for group in captures.values() for node in group]
    return Match(captures, min(n.start_byte for n in nodes), max(n.end_byte for n in nodes))
