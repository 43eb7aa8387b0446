"""Small helpers on tree-sitter nodes of the TypeScript and JavaScript grammars (a leaf
module: every other module of the reader uses it).

The two grammars name most nodes alike; where they differ the helpers take both
spellings (a TypeScript ``public_field_definition`` and a JavaScript
``field_definition``; a TypeScript ``required_parameter`` and a JavaScript
``assignment_pattern``). ``WRAPPERS`` are the expression nodes a value is read
through without change: parentheses, ``as T``, ``satisfies T``, ``x!`` and
``<T>x``.
"""

from __future__ import annotations

import re

from tree_sitter import Node

WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
                      "type_assertion"})
"""Expressions whose value is their first named child's."""

FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "function_expression",
                       "generator_function", "arrow_function", "method_definition", "function"})
"""Nodes that open a function scope."""

CLASSES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
STRINGS = frozenset({"string", "template_string"})

_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|.)", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0",
           "\n": "", "\r": "", "\r\n": "", "\u2028": "", "\u2029": ""}
_SPACE = re.compile(r"\s+")


def text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", errors="replace") if node is not None else ""


def fold(node: Node | None) -> str:
    """``node``'s source text with each run of white space folded to one space."""
    return _SPACE.sub(" ", text(node)).strip()


def short(node: Node | None, limit: int = 60) -> str:
    """``node``'s folded source text, cut to ``limit`` characters."""
    written = fold(node)
    return written if len(written) <= limit else written[:limit - 3].rstrip() + "..."


def named(node: Node | None) -> list[Node]:
    """The named children of ``node``, comments left out."""
    return [c for c in node.named_children if c.type != "comment"] if node is not None else []


def field(node: Node, name: str) -> Node | None:
    return node.child_by_field_name(name)


def unwrapped(node: Node) -> Node:
    """``node`` read through parentheses, ``as``, ``satisfies``, ``!`` and ``<T>x``."""
    while node.type in WRAPPERS:
        inner = named(node)
        if not inner:
            break
        node = inner[0] if node.type != "type_assertion" else inner[-1]
    return node


def string_value(node: Node) -> str | None:
    """The text a string literal (or a template string without substitutions) holds,
    its escapes decoded; None for anything else."""
    if node.type not in STRINGS:
        return None
    if node.type == "template_string" and any(c.type == "template_substitution" for c in node.named_children):
        return None
    raw = (node.text or b"")[1:-1].decode("utf-8", errors="replace")
    return unescape(raw) if "\\" in raw else raw


def unescape(body: str) -> str:
    """Decode JavaScript escapes; a lone surrogate becomes U+FFFD."""
    decoded = _ESCAPE.sub(_escape, body)
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _escape(m: re.Match[str]) -> str:
    code = m.group(1)
    if code in _SIMPLE:
        return _SIMPLE[code]
    if len(code) > 1 and code[0] in "ux":
        number = int(code.strip("u{}x"), 16)
        return chr(number) if number <= 0x10FFFF else "\ufffd"
    return code


def key_name(key: Node) -> str | None:
    """The name a property key spells: an identifier's name, a string's text, a number's
    digits; None for a computed key (``[k]``)."""
    if key.type in ("property_identifier", "identifier", "shorthand_property_identifier",
                    "private_property_identifier", "type_identifier"):
        return text(key)
    if key.type == "number":
        return text(key)
    return string_value(key)


def enclosing(node: Node, kinds: frozenset[str]) -> Node | None:
    """The nearest ancestor of ``node`` of one of ``kinds``."""
    parent = node.parent
    while parent is not None and parent.type not in kinds:
        parent = parent.parent
    return parent


def callee_matches(callee: Node, function: str) -> bool:
    """``function`` names the callee: its whole text (``cli.option``) or its last part (``option``)."""
    if fold(callee) == function:
        return True
    if callee.type == "member_expression":
        prop = field(callee, "property")
        return prop is not None and text(prop) == function
    return False


def is_env(node: Node) -> bool:
    """Whether ``node`` is ``process.env`` or ``import.meta.env`` (read through wrappers)."""
    node = unwrapped(node)
    if node.type != "member_expression" or text(field(node, "property")) != "env":
        return False
    owner = field(node, "object")
    return owner is not None and (fold(owner) == "process" or owner.type == "meta_property" or fold(owner) ==
                                  "import.meta")


def env_key(node: Node) -> Node | None:
    """The key node of an environment read (``FOO`` of ``process.env.FOO``, ``'FOO'`` of
    ``import.meta.env['FOO']``), or None when ``node`` reads no environment variable."""
    if node.type not in ("member_expression", "subscript_expression"):
        return None
    owner = field(node, "object")
    if owner is None or not is_env(owner):
        return None
    return field(node, "property") if node.type == "member_expression" else field(node, "index")
