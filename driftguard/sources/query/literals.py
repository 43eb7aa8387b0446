"""What a captured node reads as: a literal's value, else its source text.

- A string or character literal (``string_literal``, ``raw_string_literal``,
  ``string``, ``interpreted_string_literal``, ``char_literal``,
  ``character_literal``, ``rune_literal``, a ``template_string`` without
  substitutions, C's ``concatenated_string`` joined) reads as its contents,
  unquoted, with the escapes the grammar marks (``escape_sequence`` nodes)
  decoded: ``\\n``, ``\\t``, ``\\"``, ``\\x41``, ``\\u{1F600}``, ``\\u00e9``,
  octal ``\\101``; an escape it does not know stays as written. Raw strings
  (Rust ``r#"..."#``, Go back quotes, C++ ``R"(...)"``, Ruby single quotes)
  have no escape nodes and read exactly as written. A string with an
  interpolation (``"d#{x}"``, ``f"{x}"``, ``\\`${x}\\```) is no literal: it
  reads as its source text, quotes included.
- A Ruby symbol reads without its colon (``:fast`` and ``fast:`` are
  ``fast``); the words of ``%w[...]`` are ``bare_string`` literals.
- A C ``#define``'s value (``preproc_arg``) loses its comments and surrounding
  blanks; a lone string literal there is unquoted like any other.
- Anything else reads as its source text.

As a scalar or a map's value, the text is read as a quantity where it is one
(``driftguard.quantities.read_value``: ``10 minutes``, ``75%``, ``true``),
and a number literal as a number: digit separators (``1_000``, ``1'000``),
``0x``/``0o``/``0b`` prefixes and type suffixes (``8080u16``, ``100L``,
``1.5f``, ``10ULL``) are understood. ``017`` reads as 15 where the grammar's
language makes it octal (C, C++, Java, Ruby, Go, JavaScript) and as 17 in Rust
and Python. A set's members stay strings, as ``pattern``'s do.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from driftguard.model import Kind, Value
from driftguard.quantities import read_value

if TYPE_CHECKING:
    from tree_sitter import Node

    from driftguard.sources.query.source import QuerySource

STRINGS = frozenset({"string_literal", "raw_string_literal", "string", "interpreted_string_literal",
                     "char_literal", "character_literal", "rune_literal", "template_string", "bare_string",
                     "delimited_symbol", "concatenated_string", "text_block"})
"""Node types read as their unquoted contents."""

CONTENTS = frozenset({"string_content", "string_fragment", "interpreted_string_literal_content",
                      "raw_string_literal_content", "raw_string_content", "multiline_string_fragment", "character"})
"""Children holding a literal's text as written."""

DELIMITERS = frozenset({"string_start", "string_end"})
"""Named children that are only quotes (Python's)."""

SYMBOLS = frozenset({"simple_symbol", "hash_key_symbol"})

_ESCAPE = re.compile(r"\\(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{1,2})"
                     r"|([0-7]{1,3})|(\r\n|[\s\S]))")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b", "s": " ",
           "\\": "\\", '"': '"', "'": "'", "`": "`", "?": "?", "$": "$", "#": "#", "{": "{", "}": "}",
           "\n": "", "\r\n": ""}
_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|(/\*.*?\*/|//[^\n]*)', re.S)
_LONE_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)
_NUMBER = re.compile(
    r"""(?P<sign>[-+]?)\s*(?:
        0[xX](?P<hex>[0-9a-fA-F](?:[0-9a-fA-F_']*[0-9a-fA-F])?)
      | 0[oO](?P<oct>[0-7](?:[0-7_']*[0-7])?)
      | 0[bB](?P<bin>[01](?:[01_']*[01])?)
      | (?P<dec>(?:[0-9](?:[0-9_']*[0-9])?(?:\.(?:[0-9](?:[0-9_']*[0-9])?)?)?|\.[0-9](?:[0-9_']*[0-9])?)
               (?:[eE][-+]?[0-9]+)?)
    )(?P<suffix>[uU]?[lL]{0,2}[uU]?|[uUiI](?:8|16|32|64|128|size)|[fF](?:32|64)?|[dDn])""", re.X)
_FLOAT_SUFFIXES = ("f", "F", "f32", "f64", "d", "D")


def text_of(source: QuerySource, node: Node) -> str:
    """The capture's text: a literal's contents unquoted, else its source text."""
    if node.type in STRINGS:
        contents = unquoted(source, node)
        if contents is not None:
            return contents
    elif node.type in SYMBOLS:
        return source.node_text(node).removeprefix(":").removesuffix(":")
    elif node.type == "preproc_arg":
        return define_value(source.node_text(node))
    return source.node_text(node)


def is_string(node: Node) -> bool:
    """Whether ``node`` reads as a literal's unquoted contents."""
    return node.type in STRINGS or node.type in SYMBOLS


def is_quoted(source: QuerySource, node: Node) -> bool:
    """Whether ``node`` reads as a literal's contents: a string literal, a symbol, or a
    ``#define`` whose value is a lone string."""
    if node.type == "preproc_arg":
        return _LONE_STRING.fullmatch(_COMMENT.sub(_blank, source.node_text(node)).strip()) is not None
    return is_string(node)


def value_of(source: QuerySource, node: Node, zero_octal: bool) -> Value:
    """The capture as a scalar: a number literal as a number, else its text read as a quantity
    where it is one."""
    text = text_of(source, node)
    if not is_string(node):
        number = code_number(text, zero_octal)
        if number is not None:
            return number
    return read_value(text)


def unquoted(source: QuerySource, node: Node) -> str | None:
    """The contents of string literal ``node``; None when it interpolates."""
    if node.type == "concatenated_string":
        parts = [unquoted(source, child) for child in node.named_children]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    if node.type == "delimited_symbol":
        return _pieces(source, node)
    if not node.named_children and node.type not in ("string", "bare_string"):  # 'x': the quotes are the node's
        text = source.node_text(node)
        body = re.sub(r"^[A-Za-z0-9]*['\"`]|['\"`]$", "", text)
        return unescape(body)
    return _pieces(source, node)


def _pieces(source: QuerySource, node: Node) -> str | None:
    out = []
    for child in node.children:
        if not child.is_named or child.type in DELIMITERS:
            continue
        if child.type == "escape_sequence":
            out.append(unescape(source.node_text(child)))
        elif child.type in CONTENTS:
            out.append(_content(source, child))
        else:
            return None  # an interpolation, a substitution: no literal
    return "".join(out)


def _content(source: QuerySource, node: Node) -> str:
    """A content node's text, with the escape nodes it holds (Python's) decoded."""
    out, at = [], node.start_byte
    for child in node.named_children:
        if child.type == "escape_sequence":
            out += [source.text[source.char(at):source.char(child.start_byte)], unescape(source.node_text(child))]
            at = child.end_byte
    out.append(source.text[source.char(at):source.char(node.end_byte)])
    return "".join(out)


def unescape(text: str) -> str:
    """``text`` with its backslash escapes decoded; an unknown one stays as written."""
    return _ESCAPE.sub(_decoded, text)


def _decoded(m: re.Match[str]) -> str:
    braced, four, eight, hexa, octal, simple = m.groups()
    digits = braced or four or eight or hexa
    if digits is not None:
        code = int(digits, 16)
        return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else m.group()
    if octal is not None:
        return chr(int(octal, 8))
    return _SIMPLE.get(simple, m.group())


def define_value(text: str) -> str:
    """A ``#define``'s value: comments and surrounding blanks dropped, a lone string unquoted."""
    bare = _COMMENT.sub(_blank, text).strip()
    lone = _LONE_STRING.fullmatch(bare)
    return unescape(lone.group(1)) if lone else bare


def _blank(m: re.Match[str]) -> str:
    """A comment becomes a blank; a string stays."""
    return " " if m.group(1) else m.group()


def code_number(text: str, zero_octal: bool) -> Value | None:
    """A number literal as source code writes it; None when ``text`` is none."""
    m = _NUMBER.fullmatch(text.strip())
    if m is None:
        return None
    sign = -1 if m.group("sign") == "-" else 1
    for group, base in (("hex", 16), ("oct", 8), ("bin", 2)):
        if m.group(group):
            return Value(Kind.NUMBER, sign * int(_digits(m.group(group)), base), text)
    dec = _digits(m.group("dec"))
    if not re.fullmatch(r"[0-9]+", dec) or m.group("suffix") in _FLOAT_SUFFIXES:
        return Value(Kind.NUMBER, sign * float(dec), text)
    if len(dec) > 1 and dec.startswith("0") and zero_octal:
        return Value(Kind.NUMBER, sign * int(dec, 8), text) if re.fullmatch(r"[0-7]+", dec) else None
    return Value(Kind.NUMBER, sign * int(dec), text)


def digits_span(text: str) -> tuple[int, int] | None:
    """Where the digits of number literal ``text`` are (``1_000`` of ``1_000u32``)."""
    m = _NUMBER.fullmatch(text)
    group = None if m is None else next((g for g in ("hex", "oct", "bin", "dec") if m.group(g)), None)
    return None if m is None or group is None else m.span(group)


def _digits(text: str) -> str:
    return text.replace("_", "").replace("'", "")
