"""The literal values of a JavaScript or TypeScript config (``.vitepress/config.ts``,
``docusaurus.config.js``), read with the tree-sitter grammars the TypeScript reader
uses; the file is never run.

The config is what the module exports (``export default``, ``module.exports =``,
or what an exported function returns), seen through the wrappers configs use:
a call (``defineConfig({...})``, ``withMermaid(defineConfig(config))``: its first
argument that is an object), ``satisfies``/``as``, parentheses and ``await``, and a
top-level ``const`` named by an identifier or a shorthand property. Objects become
dicts, arrays lists, strings (a template without ``${}``), numbers, booleans and
``null`` their Python values; anything else (a function, a call whose arguments
hold no object, an import, a computed key) is a ``NotLiteral``, which the
generator replaces with its default and says so. Imported here only when a site
has such a config, so a run without one never loads tree-sitter.
"""

from __future__ import annotations

import re

from tree_sitter import Node, Parser

from driftguard.judging.sites.configs import NotLiteral
from driftguard.sources.typescript.grammar import grammar_of

MAX_NODES = 50_000
MAX_DEPTH = 60
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
                       "await_expression", "type_assertion"})


def exported(text: str, path: str) -> object:
    """The config ``path`` (content ``text``) exports, as plain values."""
    tree = Parser(grammar_of(path).language).parse(text.encode("utf-8"))
    consts: dict[str, Node] = {}
    export: Node | None = None
    for child in tree.root_node.named_children:
        if child.type in ("lexical_declaration", "variable_declaration"):
            for declarator in child.named_children:
                name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                if declarator.type == "variable_declarator" and name is not None and value is not None:
                    consts[_text(name)] = value
        elif child.type == "export_statement" and _text(child).startswith("export default"):
            export = child.child_by_field_name("value") or child.child_by_field_name("declaration")
        elif child.type == "expression_statement" and child.named_children:
            assignment = child.named_children[0]
            left = assignment.child_by_field_name("left")
            if assignment.type == "assignment_expression" and left is not None and _text(left) == "module.exports":
                export = assignment.child_by_field_name("right")
    if export is None:
        return NotLiteral("no `export default` or `module.exports`")
    return _Reader(consts).value(export, 0)


class _Reader:
    def __init__(self, consts: dict[str, Node]) -> None:
        self.consts = consts
        self.left = MAX_NODES

    def value(self, node: Node, depth: int) -> object:
        self.left -= 1
        if self.left < 0 or depth > MAX_DEPTH:
            return NotLiteral("too large to read")
        kind = node.type
        if kind in _WRAPPERS:
            inner = node.named_children
            return self.value(inner[0], depth + 1) if inner else NotLiteral(_text(node)[:60])
        if kind == "object":
            return self._object(node, depth)
        if kind == "array":
            return [self.value(item, depth + 1) for item in node.named_children if item.type != "comment"]
        if kind in ("string", "template_string"):
            return _string(node)
        if kind == "number":
            return _number(_text(node))
        if kind in ("true", "false"):
            return kind == "true"
        if kind in ("null", "undefined"):
            return None
        if kind in ("identifier", "shorthand_property_identifier"):
            found = self.consts.get(_text(node))
            return self.value(found, depth + 1) if found is not None else NotLiteral(_text(node))
        if kind == "call_expression":
            return self._call(node, depth)
        if kind in ("function_declaration", "function_expression", "arrow_function", "function"):
            return self._returned(node, depth)
        return NotLiteral(_text(node)[:60])

    def _object(self, node: Node, depth: int) -> object:
        found: dict[str, object] = {}
        for member in node.named_children:
            if member.type == "pair":
                key, value = member.child_by_field_name("key"), member.child_by_field_name("value")
                if key is None or value is None or key.type == "computed_property_name":
                    continue
                name = _string(key) if key.type == "string" else _text(key)
                if isinstance(name, str):
                    found[name] = self.value(value, depth + 1)
            elif member.type == "shorthand_property_identifier":
                found[_text(member)] = self.value(member, depth + 1)
            elif member.type == "method_definition":
                name_node = member.child_by_field_name("name")
                if name_node is not None:
                    found[_text(name_node)] = NotLiteral(f"{_text(name_node)}()")
        return found

    def _call(self, node: Node, depth: int) -> object:
        arguments = node.child_by_field_name("arguments")
        for argument in arguments.named_children if arguments is not None else []:
            value = self.value(argument, depth + 1)
            if isinstance(value, dict):
                return value
        return NotLiteral(_text(node)[:60])

    def _returned(self, node: Node, depth: int) -> object:
        body = node.child_by_field_name("body")
        if body is None:
            return NotLiteral(_text(node)[:60])
        if body.type != "statement_block":
            return self.value(body, depth + 1)  # an arrow function's expression body
        for statement in body.named_children:
            if statement.type == "lexical_declaration":
                for declarator in statement.named_children:
                    name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                    if name is not None and value is not None:
                        self.consts.setdefault(_text(name), value)
            if statement.type == "return_statement" and statement.named_children:
                return self.value(statement.named_children[0], depth + 1)
        return NotLiteral("a function that returns no literal")


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _string(node: Node) -> object:
    if any(child.type == "template_substitution" for child in node.named_children):
        return NotLiteral(_text(node)[:60])
    raw = _text(node)[1:-1]
    return _ESCAPE.sub(_unescape, raw)


def _unescape(m: re.Match[str]) -> str:
    code = m.group(1)
    if code.startswith("u{"):
        return chr(min(int(code[2:-1], 16), 0x10FFFF))
    if code[0] in "ux" and len(code) > 1:
        return chr(int(code[1:], 16))
    return _SIMPLE.get(code, "" if code in "\r\n" else code)


def _number(text: str) -> object:
    try:
        value = float(text.replace("_", "")) if not text.lower().startswith("0x") else float(int(text, 16))
    except ValueError:
        return NotLiteral(text)
    return int(value) if value.is_integer() else value
