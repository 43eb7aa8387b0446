"""The index of a file's top-level declarations, built in one pass on first use.

Top level means the statements of the file, read through ``export`` and
``declare``, and the statements tree-sitter recovered inside a top-level ERROR
node (indexed so that a fact aimed at them fails with a parse error rather than
being missed). Namespaces and ``declare module`` blocks are not entered.

``bindings`` holds every name a ``const``, ``let`` or ``var`` declarator binds to
a value (destructured names are left out: they bind no literal); the others
hold enums, type aliases, interfaces, classes and functions by name, and
``imports`` the module each imported name comes from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from driftguard.sources.typescript.nodes import CLASSES, named, text

_WRAPPERS = frozenset({"export_statement", "ambient_declaration", "ERROR"})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})


@dataclass(frozen=True)
class Binding:
    """One name a top-level ``const``/``let``/``var`` declares."""

    name: str
    node: Node  # the identifier
    value: Node | None
    statement: Node  # the declaration (its ``export`` included)
    keyword: str  # const, let or var


@dataclass
class Index:
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    enums: dict[str, list[Node]] = field(default_factory=dict)
    aliases: dict[str, list[Node]] = field(default_factory=dict)
    interfaces: dict[str, list[Node]] = field(default_factory=dict)
    classes: dict[str, list[Node]] = field(default_factory=dict)
    functions: dict[str, list[Node]] = field(default_factory=dict)  # declarations, and consts bound to one
    imports: dict[str, str] = field(default_factory=dict)  # local name -> module

    def const(self, name: str) -> Binding | None:
        """The one top-level binding ``name`` (None when there is none or several)."""
        found = self.bindings.get(name, [])
        return found[0] if len(found) == 1 else None


def build_index(root: Node) -> Index:
    index = Index()
    for statement, outer in _statements(root):
        _add(index, statement, outer)
    return index


def _statements(root: Node) -> list[tuple[Node, Node]]:
    """(statement, the top-level node holding it) for every top-level statement."""
    out = []
    stack = [(c, c) for c in reversed(named(root))]
    while stack:
        node, outer = stack.pop()
        if node.type in _WRAPPERS:
            inner = node.child_by_field_name("declaration")
            stack += [(c, outer) for c in reversed([inner] if inner is not None else named(node))]
        else:
            out.append((node, outer))
    return out


def _add(index: Index, node: Node, outer: Node) -> None:
    kind = node.type
    name = text(node.child_by_field_name("name"))
    if kind in ("lexical_declaration", "variable_declaration"):
        keyword = text(node.child_by_field_name("kind")) or ("var" if kind == "variable_declaration" else "const")
        for declarator in named(node):
            ident = declarator.child_by_field_name("name")
            if declarator.type != "variable_declarator" or ident is None or ident.type != "identifier":
                continue
            value = declarator.child_by_field_name("value")
            index.bindings.setdefault(text(ident), []).append(Binding(text(ident), ident, value, outer, keyword))
            if value is not None and value.type in _FUNCTION_VALUES:
                index.functions.setdefault(text(ident), []).append(value)
    elif kind == "enum_declaration":
        index.enums.setdefault(name, []).append(node)
    elif kind == "type_alias_declaration":
        index.aliases.setdefault(name, []).append(node)
    elif kind == "interface_declaration":
        index.interfaces.setdefault(name, []).append(node)
    elif kind in CLASSES:
        index.classes.setdefault(name, []).append(node)
    elif kind in ("function_declaration", "generator_function_declaration"):
        index.functions.setdefault(name, []).append(node)
    elif kind == "import_statement":
        _imports(index, node)


def _imports(index: Index, node: Node) -> None:
    source = node.child_by_field_name("source")
    module = text(source)[1:-1] if source is not None else ""
    for clause in (c for c in named(node) if c.type == "import_clause"):
        for part in named(clause):
            if part.type == "identifier":
                index.imports[text(part)] = module
            for spec in [part] if part.type == "namespace_import" else named(part):
                local = spec.child_by_field_name("alias") or spec.child_by_field_name("name") or (
                    named(spec)[0] if named(spec) else None)
                if local is not None:
                    index.imports[text(local)] = module
