"""The predicates of a tree-sitter query, applied by driftguard itself.

py-tree-sitter treats a predicate it does not know as true, so a typo
(``#eqq?``) would silently keep every match, and its own ``#not-any-of?``
keeps every match once it is given two strings (py-tree-sitter 0.25 and
0.26). So ``prepare`` reads every ``(#name args...)`` of the query (outside
strings and ``;`` comments), refuses a name it does not know or arguments of
the wrong shape, and renames each predicate (``#driftguard-eq?``) so that
tree-sitter hands it to ``Prepared.holds``. The text predicates mean what
tree-sitter's documentation says, over the source text of the captured nodes
(a string literal's quotes included):

- ``#eq? @a "text"`` and ``#eq? @a @b``, ``#not-eq?``, ``#any-eq?``,
  ``#any-not-eq?``;
- ``#match? @a "regex"`` (an unanchored search), ``#not-match?``,
  ``#any-match?``, ``#any-not-match?``, through ``driftguard.user_regex``: a
  regex that does not compile is a ``PatternError`` when the query is read,
  and each search runs under the time bound every user regex has;
- ``#any-of? @a "x" "y"...``, ``#not-any-of?``.

A capture that holds several nodes (a quantified ``@a+``) must satisfy the
predicate with every node, or with one node for the ``any-`` forms; one with
no node satisfies every predicate but the ``any-`` forms.

Strings in a query are unescaped as tree-sitter does: ``\\n``, ``\\r``, ``\\t``
and ``\\0`` are control characters and a backslash before any other character
stands for that character, so a regex's ``\\d`` is written ``\\\\d``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from driftguard.model import ConfigError, Location
from driftguard.user_regex import Compiled, compile_user_regex, search_each

if TYPE_CHECKING:
    from tree_sitter import Node

EQUALS = ("eq?", "not-eq?", "any-eq?", "any-not-eq?")
MATCHES = ("match?", "not-match?", "any-match?", "any-not-match?")
ONE_OF = ("any-of?", "not-any-of?")
KNOWN = (*EQUALS, *MATCHES, *ONE_OF)

PREFIX = "driftguard-"

_TOKEN = re.compile(r';[^\n]*|"(?:[^"\\]|\\.)*"?|\(\s*#([^\s()"]*)|\)|\(', re.S)
_ARGUMENT = re.compile(r'\s*(?:@([^\s()"]+)|"((?:[^"\\]|\\.)*)"|([^\s()";]+))', re.S)
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "0": "\0"}

Args = Sequence[tuple[str, str]]


@dataclass(frozen=True)
class Predicate:
    name: str  # without the ``#``
    start: int  # offset of its ``#`` in the query
    args: tuple[tuple[str, str], ...]  # ("capture", name) or ("string", value)


@dataclass
class Prepared:
    """The query text tree-sitter compiles, and what ``holds`` needs to apply its predicates."""

    text: str
    where: Location
    regexes: dict[str, Compiled[str]] = field(default_factory=dict)  # pattern -> compiled
    failure: Exception | None = None  # raised inside ``holds``, re-raised after the matches

    def holds(self, predicate: str, args: list[tuple[str, Literal["capture", "string"]]], pattern_index: int,
              captures: dict[str, list[Node]]) -> bool:
        """The callback py-tree-sitter calls for each predicate of a candidate match."""
        if self.failure is not None:
            return False
        try:
            return self._holds(predicate.removeprefix(PREFIX), args, captures)
        except Exception as exc:  # py-tree-sitter would turn it into a SystemError
            self.failure = exc
            return False

    def _holds(self, name: str, args: Args, captures: dict[str, list[Node]]) -> bool:
        """``args`` as py-tree-sitter gives them: (capture name or text, "capture" or "string")."""
        (first, _), (second, kind) = args[0], args[1]
        texts = [_text(node) for node in captures.get(first, [])]
        every = not name.startswith("any-") or name == "any-of?"
        positive = "not-" not in name
        if name in MATCHES:
            found = search_each(self.regexes[second], texts, self.where)
        elif name in ONE_OF:
            strings = {value for value, _ in args[1:]}
            found = [text in strings for text in texts]
        elif kind == "capture":
            found = [a == _text(b) for a, b in zip(texts, captures.get(second, []))]
        else:
            found = [text == second for text in texts]
        wanted = [hit == positive for hit in found]
        return all(wanted) if every else any(wanted)

    def raise_failure(self) -> None:
        failure, self.failure = self.failure, None
        if failure is not None:
            raise failure


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def scan(query: str) -> list[Predicate]:
    """Every ``(#name args...)`` of ``query``, outside strings and comments."""
    found = []
    for m in _TOKEN.finditer(query):
        if m.group(1) is None:
            continue
        args, at = [], m.end()
        while (arg := _ARGUMENT.match(query, at)) is not None:
            capture, string, bare = arg.groups()
            if capture is not None:
                args.append(("capture", capture))
            else:
                args.append(("string", unescape(string) if string is not None else bare))
            at = arg.end()
        found.append(Predicate(m.group(1), m.start(1) - 1, tuple(args)))
    return found


def unescape(text: str) -> str:
    """A query string's contents as tree-sitter reads them."""
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text, flags=re.S)


def prepare(query: str, where: Location, language: str) -> Prepared:
    """``query`` with every predicate renamed for ``Prepared.holds``, checked, and its regexes
    compiled; a ``ConfigError`` for a predicate driftguard does not apply or arguments it cannot."""
    out, last = [], 0
    prepared = Prepared("", where)
    for predicate in scan(query):
        if predicate.name not in KNOWN:
            raise ConfigError(f"the {language} query uses the predicate `#{predicate.name}`, which driftguard "
                              "does not apply (tree-sitter would keep every match); it applies "
                              + ", ".join(f"#{n}" for n in KNOWN), where)
        _check(predicate, where)
        if predicate.name in MATCHES:
            pattern = predicate.args[1][1]
            prepared.regexes[pattern] = compile_user_regex(pattern, where, what=f"#{predicate.name} regex")
        out += [query[last:predicate.start + 1], PREFIX]
        last = predicate.start + 1
    prepared.text = "".join([*out, query[last:]])
    return prepared


_SHAPES = {
    EQUALS: ("a capture and a quoted text or another capture", r"capture (capture|string)"),
    MATCHES: ("a capture and a quoted regex", r"capture string"),
    ONE_OF: ("a capture and one or more quoted texts", r"capture( string)+"),
}


def _check(predicate: Predicate, where: Location) -> None:
    kinds = " ".join(kind for kind, _ in predicate.args)
    for names, (wanted, shape) in _SHAPES.items():
        if predicate.name in names and not re.fullmatch(shape, kinds):
            raise ConfigError(f"`#{predicate.name}` takes {wanted} (`(#{predicate.name} @name "
                              + ('"^K_"' if names is MATCHES else '"K_A"') + ")`)", where)
