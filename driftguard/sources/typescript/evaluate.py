"""Evaluate TypeScript and JavaScript constant expressions.

Covers what guarded constants are written in: numbers (``1_000``, ``0x10``,
``1e3``, ``10n``), strings (quoted, and template strings whose substitutions
evaluate), ``true``/``false``, unary and binary operators (``jsops``), the
conditional operator, references to top-level ``const``s of the file and to
the consts of the blocks around the expression, enum members (``Mode.Spa``,
auto-incremented ones included), static fields (``Config.PORT``), keys and
indexes of object and array literals (``DEFAULTS.server.port``,
``PORTS[0]``), and the conversions ``Number()``, ``String()``,
``Boolean()``, ``parseInt()`` and ``parseFloat()``. A value is read through
parentheses, ``as T``, ``as const``, ``satisfies T``, ``x!``,
``Object.freeze(...)`` and the calls the fact names in ``unwrap:``.

An environment read with a fallback, ``process.env.PORT ?? 5173`` or
``import.meta.env.X || 'def'``, is the fallback: what the code uses when the
variable is unset (as Python's ``os.getenv("X", 15)`` is 15). ``null`` and
``undefined`` evaluate, but are no value to compare. A ``let`` or ``var``, an
imported name, a call and anything else raise ``Unevaluable`` with the reason,
so a value is never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from driftguard.model import ParseError, Value
from driftguard.sources.typescript.jsops import (
    Js,
    JsError,
    binary,
    checked_length,
    number_literal,
    parse_float,
    parse_int,
    to_number,
    to_string,
    truthy,
    unary,
)
from driftguard.sources.typescript.literal import Entry, Missing, entries, index_elements
from driftguard.sources.typescript.nodes import (
    CLASSES,
    WRAPPERS,
    callee_matches,
    env_key,
    fold,
    key_name,
    named,
    short,
    string_value,
    text,
    unescape,
    unwrapped,
)
from driftguard.sources.typescript.tree import TsTree
from driftguard.sources.typescript.values import Unevaluable, as_value, member_text, scope_consts, unset

MAX_DEPTH = 100
PASS_THROUGH = ("Object.freeze",)
_IDENTIFIERS = frozenset({"identifier", "shorthand_property_identifier"})
_FIELDS = frozenset({"public_field_definition", "field_definition"})
CONVERSIONS = frozenset({"Number", "String", "Boolean", "parseInt", "parseFloat", "Number.parseInt",
                          "Number.parseFloat"})


@dataclass
class Evaluator:
    """Evaluates expressions of one file; ``local`` maps names of the blocks around an
    expression to their values' nodes, ``names`` names to values already known (the
    members of the enum being read)."""

    tree: TsTree
    unwrap: tuple[str, ...] = ()
    local: dict[str, Node] = field(default_factory=dict)
    names: dict[str, Js] = field(default_factory=dict)
    consulted: list[Node] = field(default_factory=list)  # the top-level declarations read
    _depth: int = 0
    _active: set[str] = field(default_factory=set)
    _memo: dict[int, Js] = field(default_factory=dict)  # a const's value, by its value node
    _enums: dict[int, list[tuple[Node, str, Js | Unevaluable]]] = field(default_factory=dict)

    # -- values ------------------------------------------------------------------

    def value(self, node: Node) -> Value:
        """The ``Value`` of ``node``, written as its folded source text."""
        return as_value(self.eval(node), node)

    def eval(self, node: Node) -> Js:
        if self._depth > MAX_DEPTH:
            raise ParseError(f"driftguard gives up on `{short(node)}`: the expression is nested more than "
                             f"{MAX_DEPTH} deep", self.tree.loc(node))
        self._depth += 1
        try:
            return self._eval(node)
        except JsError as exc:
            raise Unevaluable(f"`{short(node)}` {exc}", node) from None
        finally:
            self._depth -= 1

    def _eval(self, node: Node) -> Js:
        kind = node.type
        if kind == "number":
            return number_literal(text(node))
        if kind in ("string", "template_string"):
            return self._string(node)
        if kind in ("true", "false"):
            return kind == "true"
        if kind in ("null", "undefined"):
            return None
        if kind in _IDENTIFIERS:
            return self._name(node)
        if kind in WRAPPERS:
            return self.eval(unwrapped(node))
        if kind == "unary_expression":
            return unary(text(node.child_by_field_name("operator")), self.eval(_part(node, "argument")))
        if kind == "binary_expression":
            return self._binary(node)
        if kind == "ternary_expression":
            chosen = "consequence" if truthy(self.eval(_part(node, "condition"))) else "alternative"
            return self.eval(_part(node, chosen))
        if kind in ("member_expression", "subscript_expression"):
            return self._member(node)
        if kind == "call_expression":
            return self._call(node)
        if kind in ("object", "array"):
            raise Unevaluable(f"`{short(node)}` is an {kind} literal, not one value", node)
        raise Unevaluable(f"`{short(node)}` is not a constant expression", node)

    def _string(self, node: Node) -> str:
        plain = string_value(node)
        if plain is not None:
            return plain
        parts = []
        for child in node.children:
            if child.type == "template_substitution":
                parts.append(to_string(self.eval(named(child)[0])))
            elif child.type == "string_fragment":
                parts.append(text(child))
            elif child.type == "escape_sequence":
                parts.append(unescape(text(child)))
        return checked_length("".join(parts))

    def _name(self, node: Node) -> Js:
        name = text(node)
        if name in self.names:
            return self.names[name]
        if name == "undefined":
            return None
        if name in self._active:
            raise Unevaluable(f"`{name}` is defined in terms of itself", node)
        target = self.bound(node)
        if target.id in self._memo:
            return self._memo[target.id]
        self._active.add(name)
        try:
            self._memo[target.id] = self.eval(target)
        finally:
            self._active.discard(name)
        return self._memo[target.id]

    def _binary(self, node: Node) -> Js:
        op = text(node.child_by_field_name("operator"))
        left, right = _part(node, "left"), _part(node, "right")
        if op in ("??", "||") and unset(left):
            return self.eval(right)
        if op == "??":
            first = self.eval(left)
            return self.eval(right) if first is None else first
        if op in ("||", "&&"):
            first = self.eval(left)
            return first if truthy(first) == (op == "||") else self.eval(right)
        return binary(op, self.eval(left), self.eval(right))

    def _member(self, node: Node) -> Js:
        key = env_key(node)
        if key is not None:
            raise Unevaluable(f"`{short(node)}` reads the environment and gives no default here", node)
        owner = unwrapped(_part(node, "object"))
        if owner.type == "identifier" and text(owner) in self.tree.index.enums and text(owner) not in self.local:
            return self._enum_member(owner, self.key_of(node))
        return self.eval(self.deref(node))

    def _call(self, node: Node) -> Js:
        callee = _part(node, "function")
        args = named(node.child_by_field_name("arguments"))
        name = fold(callee)
        if self.passes_through(node):
            return self.eval(args[0])
        if name not in CONVERSIONS:
            raise Unevaluable(f"`{short(node)}` is a call of {short(callee, 40)}, not a constant expression", node)
        given = [self.eval(a) for a in args]
        if name == "Number":
            return to_number(given[0]) if given else 0
        if name == "String":
            return to_string(given[0]) if given else ""
        if name == "Boolean":
            return truthy(given[0]) if given else False
        if not given:
            raise Unevaluable(f"`{short(node)}` has nothing to parse", node)
        if name.endswith("parseInt"):
            return parse_int(given[0], int(to_number(given[1])) if len(given) > 1 else None)
        return parse_float(given[0])

    # -- nodes -------------------------------------------------------------------

    def bound(self, ident: Node) -> Node:
        """The value node of the const ``ident`` names: a const of the blocks around the
        expression, else a top-level one."""
        name = text(ident)
        if name in self.local:
            return self.local[name]
        index = self.tree.index
        found = index.bindings.get(name, [])
        if len(found) > 1:
            raise Unevaluable(f"`{name}` is declared more than once", ident)
        if found:
            binding = found[0]
            if binding.keyword != "const":
                raise Unevaluable(f"`{name}` is declared with `{binding.keyword}`, so it may change; "
                                  "only a `const` is read", ident)
            if binding.value is None:
                raise Unevaluable(f"`{name}` has no value", ident)
            self.consulted.append(binding.statement)
            return binding.value
        if name in index.imports:
            raise Unevaluable(f"`{name}` is imported from '{index.imports[name]}'; only constants of this file "
                              "are read", ident)
        raise Unevaluable(f"`{name}` is not a constant of this file", ident)

    def deref(self, node: Node) -> Node:
        """The literal or expression ``node`` stands for: read through the wrappers, the
        consts it names, ``Object.freeze`` and the ``unwrap`` calls, and the keys and
        indexes it reads of a literal."""
        for _ in range(MAX_DEPTH):
            node = unwrapped(node)
            if node.type in _IDENTIFIERS and text(node) not in self.names and text(node) != "undefined":
                node = self.bound(node)
            elif node.type == "call_expression" and self.passes_through(node):
                node = named(node.child_by_field_name("arguments"))[0]
            elif node.type in ("member_expression", "subscript_expression") and env_key(node) is None:
                owner = unwrapped(_part(node, "object"))
                if owner.type == "identifier" and text(owner) in self.tree.index.enums:
                    return node
                if owner.type == "identifier" and text(owner) in self.tree.index.classes \
                        and text(owner) not in self.tree.index.bindings:
                    owner = self.tree.index.classes[text(owner)][0]
                try:
                    node = self.step(owner, self.key_of(node))
                except Missing as exc:
                    raise Unevaluable(f"`{short(node)}`: `{short(owner, 40)}` {exc.message}", exc.node) from None
            else:
                return node
        raise Unevaluable(f"`{short(node)}` refers to itself", node)

    def passes_through(self, call: Node) -> bool:
        """Whether ``call`` is ``Object.freeze(x)`` or a call ``unwrap:`` names, whose value is ``x``."""
        callee = call.child_by_field_name("function")
        if callee is None or not named(call.child_by_field_name("arguments")):
            return False
        return any(callee_matches(callee, name) for name in (*PASS_THROUGH, *self.unwrap))

    def key_of(self, access: Node) -> str | int:
        """The key a member or subscript expression reads: ``b`` of ``a.b``, ``0`` of ``a[0]``."""
        if access.type == "member_expression":
            return text(access.child_by_field_name("property"))
        index = self.eval(_part(access, "index"))
        if isinstance(index, (int, str)) and not isinstance(index, bool):
            return index
        raise Unevaluable(f"`{short(access)}` is not indexed by a string or a whole number", access)

    def step(self, node: Node, key: str | int) -> Node:
        """The value node at ``key`` of the object or array literal ``node`` stands for;
        raises ``Missing`` saying what is there instead."""
        target = node if node.type in CLASSES else self.deref(node)
        if target.type in CLASSES:
            return self._static(target, str(key))
        if target.type == "array" and isinstance(key, int):
            elements = index_elements(target)
            position = key if key >= 0 else len(elements) + key
            if not 0 <= position < len(elements) or elements[position] is None:
                raise Missing(f"has no element {key} (it has {len(elements)})", target)
            found = elements[position]
            assert found is not None
            return found
        if target.type != "object":
            raise Missing(f"is not an object or array literal: `{short(target)}`", target)
        listed = self.entries(target)
        wanted = str(key)
        hit = [e for e in listed if e.name == wanted and e.value is not None]
        if hit:
            value = hit[-1].value  # a repeated key: the last, as JavaScript
            assert value is not None
            return value
        keys = ", ".join(e.name for e in listed if e.name is not None) or "none, it is empty"
        spread = next((e for e in listed if e.kind == "spread"), None)
        more = f"; the spread `{short(spread.node, 30)}` may hold it" if spread is not None else ""
        raise Missing(f"has no key {_shown(key)} (its keys: {keys}{more})", target)

    def _static(self, cls: Node, key: str) -> Node:
        fields = [m for m in named(cls.child_by_field_name("body")) if m.type in _FIELDS
                  and any(c.type == "static" for c in m.children)]
        for member in fields:
            name = member.child_by_field_name("name") or member.child_by_field_name("property")
            value = member.child_by_field_name("value")
            if name is not None and key_name(name) == key and value is not None:
                self.consulted.append(cls)
                return value
        shown = ", ".join(text(m.child_by_field_name("name") or m.child_by_field_name("property")) for m in fields)
        raise Missing(f"has no static field {key} with a value (its static fields: {shown or 'none'})", cls)

    def enum_member(self, owner: str, key: str | int) -> tuple[Node, Js]:
        """(name node, value) of member ``key`` of enum ``owner``."""
        for enum in self.tree.index.enums.get(owner, []):
            for name_node, name, value in self.enum_values(enum):
                if name == str(key):
                    if isinstance(value, Unevaluable):
                        raise value
                    self.consulted.append(enum)
                    return name_node, value
        raise Unevaluable(f"enum {owner} has no member {key}")

    def entries(self, obj: Node) -> list[Entry]:
        """The entries of an object literal, each computed key evaluated where it can be."""
        return entries(obj, self._computed)

    def _computed(self, key: Node) -> str | None:
        try:
            value = self.eval(key)
        except Unevaluable:
            return None
        return None if value is None or isinstance(value, bool) else to_string(value)

    # -- enums -------------------------------------------------------------------

    def enum_values(self, enum: Node) -> list[tuple[Node, str, Js | Unevaluable]]:
        """(name node, name, value or why it has none) of each member of ``enum``: an
        initializer evaluated with the members before it in scope, else the previous
        number plus one."""
        if enum.id in self._enums:
            return self._enums[enum.id]
        out: list[tuple[Node, str, Js | Unevaluable]] = []
        known: dict[str, Js] = {}
        previous: Js | Unevaluable = -1
        for member in named(enum.child_by_field_name("body")):
            name_node = member.child_by_field_name("name") if member.type == "enum_assignment" else member
            if name_node is None:
                continue
            name = key_name(name_node) or text(name_node)
            value: Js | Unevaluable
            if member.type == "enum_assignment":
                inner = Evaluator(self.tree, self.unwrap, names={**self.names, **known}, consulted=self.consulted)
                try:
                    value = inner.eval(_part(member, "value"))
                except Unevaluable as exc:
                    value = exc
            elif isinstance(previous, int) and not isinstance(previous, bool):
                value = previous + 1
            else:
                value = Unevaluable(f"`{name}` follows a member that is not a number, and has no value", name_node)
            if not isinstance(value, Unevaluable):
                known[name] = value
            out.append((name_node, name, value))
            previous = value
        self._enums[enum.id] = out
        return out

    def _enum_member(self, owner: Node, key: str | int) -> Js:
        try:
            return self.enum_member(text(owner), key)[1]
        except Unevaluable as exc:
            raise Unevaluable(exc.message, exc.node or owner) from None


def _part(node: Node, name: str) -> Node:
    found = node.child_by_field_name(name)
    if found is None:
        raise Unevaluable(f"`{short(node)}` is incomplete (no {name})", node)
    return found


def _shown(key: str | int) -> str:
    return f'"{key}"' if isinstance(key, str) else str(key)


__all__ = ["CONVERSIONS", "Entry", "Evaluator", "Missing", "Unevaluable", "as_value", "member_text", "scope_consts",
           "unset"]
