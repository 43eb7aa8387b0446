"""A small parser of the regular-expression syntax ``re`` reads, as far as the
selftest's samples need it (``samples.examples``): literals and escapes, ``.``,
classes, groups (numbered as ``re`` numbers them), alternation, quantifiers
(greedy, lazy, possessive), anchors, lookarounds, comments and inline flags,
``(?x)`` included.

Backreferences and conditionals are read (so the groups around and inside them
are found and numbered) but become ``Opaque`` nodes no sample is written
through. Anything else, syntax only the ``regex`` library reads
(``\\p{L}``, ``(?<name>...)``), or a pattern that is not well formed, raises
``Unsupported``: the caller proposes nothing for it. The tree is for proposing
strings only: it is never used to match, so where it reads more loosely than
``re`` (global flags past the start, say) nothing is at stake. ``re``'s private
parser is never touched.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Union

MAXREPEAT = 1 << 32
"""The upper bound of an open repeat (``*``, ``+``, ``{2,}``)."""

CATEGORY_LETTERS = "dDwWsS"


class Unsupported(Exception):
    """What this parser does not read, or a pattern that is not well formed."""


@dataclass(frozen=True)
class Category:
    letter: str  # one of CATEGORY_LETTERS


@dataclass(frozen=True)
class Range:
    low: str
    high: str


@dataclass(frozen=True)
class Class:
    """One character of ``[...]``, ``[^...]`` or ``\\d``; a member is a character, a range or a category."""

    negated: bool
    members: tuple[str | Range | Category, ...]


@dataclass(frozen=True)
class Literal:
    char: str


@dataclass(frozen=True)
class Dot:
    pass


@dataclass(frozen=True)
class Anchor:
    pass


@dataclass(frozen=True)
class Look:
    """A lookaround: it consumes nothing, but its body may hold a group."""

    body: tuple[Node, ...]


@dataclass(frozen=True)
class Group:
    number: int | None  # None: not capturing (``(?:...)``, ``(?>...)``, ``(?i:...)``)
    body: tuple[Node, ...]


@dataclass(frozen=True)
class Either:
    branches: tuple[tuple[Node, ...], ...]


@dataclass(frozen=True)
class Repeat:
    low: int
    high: int
    item: tuple[Node, ...]


@dataclass(frozen=True)
class Opaque:
    """A backreference or a conditional (whose branches are its ``children``)."""

    what: str
    children: tuple[tuple[Node, ...], ...] = ()


Node = Union[Literal, Dot, Class, Anchor, Look, Group, Either, Repeat, Opaque]


def parse(pattern: str) -> tuple[Node, ...]:
    """The sequence of nodes ``pattern`` is; ``Unsupported`` (or ``RecursionError``, for
    nesting deeper than the interpreter's stack) where it cannot be read."""
    return _Parser(pattern).parse()


def group(nodes: tuple[Node, ...], number: int) -> tuple[Node, ...] | None:
    """The body of capture group ``number``, searched at any depth; None when there is none."""
    for node in nodes:
        if isinstance(node, Group) and node.number == number:
            return node.body
        for child in _children(node):
            found = group(child, number)
            if found is not None:
                return found
    return None


def _children(node: Node) -> tuple[tuple[Node, ...], ...]:
    if isinstance(node, (Group, Look)):
        return (node.body,)
    if isinstance(node, Repeat):
        return (node.item,)
    if isinstance(node, Either):
        return node.branches
    return node.children if isinstance(node, Opaque) else ()


def _either(branches: list[tuple[Node, ...]]) -> tuple[Node, ...]:
    """Alternatives shaped as ``re``'s parser shapes them, so samples come in its order: a
    prefix every branch shares is moved out, and branches of one character each are one class."""
    prefix: list[Node] = []
    while all(branches) and all(branch[0] == branches[0][0] for branch in branches):
        prefix.append(branches[0][0])
        branches = [branch[1:] for branch in branches]
    members: list[str | Range | Category] = []
    for branch in branches:
        if len(branch) != 1 or not isinstance(branch[0], (Literal, Class)):
            return (*prefix, Either(tuple(branches)))
        if isinstance(branch[0], Class) and branch[0].negated:
            return (*prefix, Either(tuple(branches)))
        members += [branch[0].char] if isinstance(branch[0], Literal) else branch[0].members
    return (*prefix, Class(False, tuple(dict.fromkeys(members))))


_CONTROLS = {"a": "\a", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_HEX = {"x": re.compile(r"[0-9a-fA-F]{2}"), "u": re.compile(r"[0-9a-fA-F]{4}"), "U": re.compile(r"[0-9a-fA-F]{8}")}
_BRACES = re.compile(r"\{([0-9]*)(,([0-9]*))?\}")
_FLAGS = re.compile(r"([aiLmsux]*)(?:-([imsx]*))?([:)])")
_LEADING_FLAGS = re.compile(r"(?:\(\?[aiLmsux]+\))*")
_LEADING_VERBOSE = re.compile(r"(?:\(\?[aiLmsux]+\)|\s+|#[^\n]*\n)*")
_SKIPPED = re.compile(r"(?:\s+|#(?:\\[\s\S]|[^\\\n])*(?:\n|\Z))*")
"""What verbose mode skips: white space, and comments to the end of the line (``re`` reads a
backslash and the character after it as one, even in a comment)."""
_SIMPLE_REPEATS = {"*": (0, MAXREPEAT), "+": (1, MAXREPEAT), "?": (0, 1)}


class _Parser:
    """A recursive descent over the pattern's text, raising ``Unsupported`` where it stops."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.groups = 0
        self.verbose = False  # (?x): white space and comments outside classes are skipped
        self.names: set[str] = set()

    def parse(self) -> tuple[Node, ...]:
        if re.search(r"(?<!\\)(?:\\\\)*\\\Z", self.text):
            raise Unsupported("a lone backslash at the end")  # even in a verbose comment
        nodes = self._alternation()
        if self.at < len(self.text):  # a ")" that closes nothing
            raise Unsupported("unbalanced parenthesis")
        return nodes

    def _peek(self) -> str:
        return self.text[self.at:self.at + 1]

    def _take(self) -> str:
        if self.at >= len(self.text):
            raise Unsupported("unexpected end of pattern")
        self.at += 1
        return self.text[self.at - 1]

    def _match(self, pattern: str | re.Pattern[str]) -> re.Match[str] | None:
        """``pattern`` matched here, and consumed when it matches."""
        found = re.compile(pattern).match(self.text, self.at)
        if found is not None:
            self.at = found.end()
        return found

    def _expect(self, text: str) -> None:
        if not self.text.startswith(text, self.at):
            raise Unsupported(f"expected {text!r}")
        self.at += len(text)

    def _alternation(self) -> tuple[Node, ...]:
        branches = [self._sequence()]
        while self._match(r"\|"):
            branches.append(self._sequence())
        return branches[0] if len(branches) == 1 else _either(branches)

    def _sequence(self) -> tuple[Node, ...]:
        nodes: list[Node] = []
        while True:
            if self.verbose:
                self._match(_SKIPPED)
            if self._peek() in ("", "|", ")"):
                return tuple(nodes)
            bounds = self._quantifier()
            if bounds is None:
                node = self._atom()
                nodes += [] if node is None else [node]
                continue
            if not nodes or isinstance(nodes[-1], (Anchor, Repeat)):
                raise Unsupported("nothing to repeat")  # or a repeat of a repeat, as re says
            self._match(r"[?+]")  # lazy or possessive: the same strings
            nodes[-1] = Repeat(bounds[0], bounds[1], (nodes[-1],))

    def _quantifier(self) -> tuple[int, int] | None:
        """The bounds of the quantifier here (consumed), or None; a ``{`` that opens no
        well-formed ``{m}``, ``{m,}``, ``{,n}`` or ``{m,n}`` is a literal, as in ``re``."""
        simple = _SIMPLE_REPEATS.get(self._peek())
        if simple is not None:
            self.at += 1
            return simple
        found = _BRACES.match(self.text, self.at)
        if found is None or found.group() == "{}":
            return None
        self.at = found.end()
        low = int(found.group(1) or 0)
        high = int(found.group(3) or MAXREPEAT) if found.group(2) else low
        if not low <= high <= MAXREPEAT:
            raise Unsupported("bad repeat bounds")
        return low, high

    def _atom(self) -> Node | None:
        char = self._take()
        if char == "(":
            return self._group()
        if char == "[":
            return self._class()
        if char == "\\":
            return self._escape()
        if char == ".":
            return Dot()
        return Anchor() if char in "^$" else Literal(char)

    def _escape(self) -> Node:
        if self._peek() and self._peek() in CATEGORY_LETTERS:
            return Class(False, (Category(self._take()),))
        if self._match("[bBAZ]"):
            return Anchor()
        reference = self._match("[1-9](?![0-7]{2})[0-9]?" if re.match("[1-7]", self._peek()) else "[89][0-9]?")
        if reference is not None:  # \12 is group 12; \123 is an octal escape
            if int(reference.group()) > self.groups:
                raise Unsupported("a reference to a group not opened yet")
            return Opaque("backreference")
        return Literal(self._character(in_class=False))

    def _character(self, in_class: bool) -> str:
        """The one character an escape stands for, its backslash already read."""
        char = self._take()
        if char in _CONTROLS:
            return _CONTROLS[char]
        if char in _HEX:
            digits = self._match(_HEX[char])
            if digits is None:
                raise Unsupported("bad hexadecimal escape")
            return self._code(int(digits.group(), 16), 0x10FFFF)
        if char in "01234567":  # outside a class: \0 and up to two more, or three digits (else a group)
            self.at -= 1
            digits = self._match("[0-7]{1,3}" if in_class else "0[0-7]{0,2}|[1-7][0-7]{2}")
            if digits is None:
                raise Unsupported("bad octal escape")
            return self._code(int(digits.group(), 8), 0o377)
        if char == "N" and (name := self._match(r"\{([^}]*)\}")):
            try:
                return unicodedata.lookup(name.group(1))
            except KeyError:
                raise Unsupported("no such character name") from None
        if char.isascii() and char.isalnum():
            raise Unsupported(f"escape \\{char}")  # \p{L}, \z...: not read here
        return char

    @staticmethod
    def _code(number: int, most: int) -> str:
        if number > most:
            raise Unsupported("no such character")
        return chr(number)

    def _class(self) -> Class | Literal:
        negated = bool(self._match(r"\^"))
        members: list[str | Range | Category] = []
        while not (members and self._match("]")):  # a "]" first is a member
            low = self._class_member()
            if not self._match("-(?!])"):
                members.append(low)
            elif isinstance(low, str) and isinstance(high := self._class_member(), str) and low <= high:
                members.append(Range(low, high))
            else:
                raise Unsupported("bad character range")
        if not negated and len(members) == 1 and isinstance(members[0], str):
            return Literal(members[0])  # [a] is a, as re reads it
        return Class(negated, tuple(members))

    def _class_member(self) -> str | Category:
        char = self._take()
        if char != "\\":
            return char
        if self._peek() and self._peek() in CATEGORY_LETTERS:
            return Category(self._take())
        return "\b" if self._match("b") else self._character(in_class=True)

    def _group(self) -> Node | None:
        if not self._match(r"\?"):
            self.groups += 1
            number = self.groups  # numbered at its "(", before the groups it holds
            return Group(number, self._closed())
        if self._match("[:>]"):  # not capturing, or atomic
            return Group(None, self._closed())
        if self._match("<?[=!]"):
            return Look(self._closed())
        if self._match(r"#[^)]*\)"):
            return None  # a comment
        if (name := self._match(r"P=(\w+)\)")) is not None:
            if name.group(1) not in self.names:
                raise Unsupported("a reference to an unknown group name")
            return Opaque("backreference")
        if (name := self._match(r"P<([^\W\d]\w*)>")) is not None:
            if name.group(1) in self.names:
                raise Unsupported("a group name given twice")
            self.names.add(name.group(1))
            self.groups += 1
            number = self.groups
            return Group(number, self._closed())
        if self._match(r"\(\w+\)"):  # (?(1)yes|no)
            branches = [self._sequence()]
            if self._match(r"\|"):
                branches.append(self._sequence())
            self._expect(")")
            return Opaque("conditional", tuple(branches))
        return self._flags()

    def _flags(self) -> Group | None:
        found = self._match(_FLAGS)
        if found is None or (found.group(3) == ")" and (found.group(2) is not None or not found.group(1))):
            raise Unsupported("unknown extension")
        if found.group(3) == ")":  # flags for the whole pattern: at its start only, as re says
            if not (_LEADING_VERBOSE if self.verbose else _LEADING_FLAGS).fullmatch(self.text, 0, found.start() - 2):
                raise Unsupported("global flags not at the start")
            self.verbose = self.verbose or "x" in found.group(1)
            return None
        if "x" in found.group():
            raise Unsupported("verbose mode for one group")
        return Group(None, self._closed())

    def _closed(self) -> tuple[Node, ...]:
        """A group's body, up to and past its ``)``."""
        body = self._alternation()
        self._expect(")")
        return body
