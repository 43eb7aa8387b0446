"""The Python source reader, on libcst: ``extract`` reads one selector from a
``PyTree`` (``driftguard.sources.python.tree``, which ``parse`` builds), and
``skipped`` says what it left out (a ``__str__`` branch or a call whose value is
no literal). The enum, constant, ``__str__`` and dict selectors live here; each
other selector in a module of its own (``calls``, ``params`` for ``default``,
``flags``, ``env``, ``fields``, ``cases``, ``hierarchy`` for ``classes``,
``lists``), key paths in ``keyed``, the lookups they share in ``lookups``. A
fact's ``unwrap:`` is in force while its selector is read."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from driftguard.config.specs import (
    SELECTOR_KEYS,
    Call,
    Calls,
    Cases,
    Classes,
    Constant,
    Constants,
    Default,
    Env,
    Fields,
    Flags,
    ListOf,
    MapKeys,
    Pattern,
    Selector,
    StringMethod,
    Symbols,
)
from driftguard.model import DriftguardError, FactNotFound, Item, Kind, Location, ParseError, Value
from driftguard.sources import unique_items
from driftguard.sources.base import unsupported
from driftguard.sources.python import calls, cases, env, fields, flags, hierarchy, lists, params
from driftguard.sources.python.evaluate import EvalError, block_statements, dotted_name, last_name, nested_blocks
from driftguard.sources.python.keyed import keyed_constant, unwrapped
from driftguard.sources.python.lookups import evaluate_binding, local_binding, one_binding, one_class
from driftguard.sources.python.scopes import Binding, class_bindings
from driftguard.sources.python.symbols import symbols
from driftguard.sources.python.tree import PyTree
from driftguard.sources.text import reader as text
from driftguard.user_regex import Compiled, compile_user_regex, search_each

# -- selectors ----------------------------------------------------------------


def extract(tree: PyTree, selector: Selector, path: str) -> Sequence[Item]:
    """The items ``selector`` reads from ``tree``."""
    if isinstance(selector, Pattern):
        return text.extract(text.parse(path, tree.text), selector, path)
    handler = _HANDLERS.get(type(selector))
    if handler is None:
        raise unsupported("Python", selector, path, [key for key, kind in SELECTOR_KEYS.items() if kind in _HANDLERS])
    try:
        with tree.names.unwrapping(selector.unwrap):
            return handler(tree, selector)
    except RecursionError:  # libcst walks nodes recursively: code generation, positions
        raise ParseError(f"{path} is nested too deeply to read", Location(path)) from None


def _named(bindings: list[Binding], pattern: Compiled[str] | None, path: str) -> list[Binding]:
    """The bindings whose name ``pattern`` finds, matched within the user-regex time bound."""
    if pattern is None:
        return bindings
    hits = search_each(pattern, [b.name for b in bindings], Location(path))
    return [b for b, hit in zip(bindings, hits) if hit]


def _constants(tree: PyTree, sel: Constants) -> list[Item]:
    pattern = _regex(sel.name, tree.path) if sel.name else None
    if sel.type:
        klass = one_class(tree, sel.type)
        found = _named(list(_members(klass)), pattern, tree.path)
        what = f"class {sel.type} has no members" + (f" matching {sel.name!r}" if pattern else "")
    else:
        assert pattern is not None, "a constants selector names a type or a name pattern"
        klass, what = None, f"no module-level assignment matches {sel.name!r}"
        found = _named(list(tree.names.module_bindings), pattern, tree.path)
    if not found:
        raise FactNotFound(what, Location(tree.path))
    if sel.values == "names":
        return unique_items([Item(Value.string(b.name), tree.location(b.target)) for b in found])
    return unique_items([_member_item(tree, b, klass) for b in found])


def _member_item(tree: PyTree, binding: Binding, klass: cst.ClassDef | None) -> Item:
    where = f"{binding.name} (line {tree.line(binding.target)})"
    if isinstance(binding.value, cst.Call) and last_name(binding.value.func) == "auto":
        raise FactNotFound(f"{where} is auto(): its value cannot be evaluated; use `values: names`",
                           Location(tree.path))
    return Item(evaluate_binding(tree, binding, klass, where), tree.location(binding.target))


_NOT_MEMBERS = {"property", "staticmethod", "classmethod", "nonmember"}


def _members(klass: cst.ClassDef) -> list[Binding]:
    """Enum members: plain assignments in the class body, without _sunder_ and
    __dunder__ names, names listed in ``_ignore_`` and descriptors."""
    found = class_bindings(klass)
    ignored: set[str] = set()
    for binding in found:
        if binding.name == "_ignore_" and binding.value is not None:
            text = cst.Module([]).code_for_node(binding.value)
            ignored.update(re.findall(r"[A-Za-z_]\w*", text))
    return [
        b for b in found
        if not (b.name.startswith("_") and b.name.endswith("_")) and b.name not in ignored
        and not isinstance(b.value, cst.Lambda)
        and not (isinstance(b.value, cst.Call) and last_name(b.value.func) in _NOT_MEMBERS)
    ]


def _constant(tree: PyTree, sel: Constant) -> list[Item]:
    if sel.keys:
        return keyed_constant(tree, sel)
    binding, klass = one_binding(tree, sel.name)
    where = f"{sel.name} (line {tree.line(binding.target)})"
    return [Item(evaluate_binding(tree, binding, klass, where), tree.location(binding.target))]


def _string_method(tree: PyTree, sel: StringMethod) -> list[Item]:
    items, _ = _string_returns(tree, sel)
    if not items:
        raise FactNotFound(f"{sel.type}.__str__ returns no string literal", Location(tree.path))
    return unique_items(items)


def _string_returns(tree: PyTree, sel: StringMethod) -> tuple[list[Item], list[str]]:
    """The strings ``T.__str__`` returns, and a note for each branch left out for
    returning no string literal (a sentinel's f-string or call)."""
    klass = one_class(tree, sel.type)
    methods = [s for s in block_statements(klass.body)
               if isinstance(s, cst.FunctionDef) and s.name.value == "__str__"]
    if not methods:
        raise FactNotFound(f"class {sel.type} defines no __str__", tree.location(klass.name))
    returned: list[cst.BaseExpression] = []
    _returns(block_statements(methods[-1].body), returned)
    items: list[Item] = []
    notes: list[str] = []
    for expr in returned:
        attribute = dotted_name(expr)
        if attribute in ("self.value", "self.name") and _is_enum(klass):
            values = "names" if attribute == "self.name" else "values"
            items += _constants(tree, Constants(type=sel.type, values=values))
            continue
        try:
            value = tree.names.evaluate(expr, klass)
        except EvalError:
            value = None
        if value is not None and value.kind is Kind.STRING:
            items.append(Item(value, tree.location(expr)))
        else:
            what = "not a literal" if value is None else f"a {value.kind.value}, not a string"
            notes.append(f"line {tree.line(expr)}: returns {_code(tree, expr)}, {what}; left out")
    return items, notes


def skipped(tree: PyTree, selector: Selector, path: str) -> list[str]:
    """What ``extract`` saw and left out, one short note each (``line 31: returns
    f"invalid {self.value}", not a literal; left out``); nothing where the selector
    leaves nothing out or cannot be read."""
    left_out = _LEFT_OUT.get(type(selector))
    try:
        with tree.names.unwrapping(selector.unwrap):
            return left_out(tree, selector) if left_out is not None else []
    except (DriftguardError, RecursionError):
        return []


def _code(tree: PyTree, node: cst.CSTNode) -> str:
    return " ".join(tree.module.code_for_node(node).split())


def _returns(statements: Sequence[cst.CSTNode], out: list[cst.BaseExpression]) -> None:
    """Returned expressions, leaving out defaults: ``case _``, ``else`` and a
    return that follows the branches in the same block."""
    branched = False
    for statement in statements:
        if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            out += [s.value for s in statement.body
                    if isinstance(s, cst.Return) and s.value is not None and not branched]
        elif isinstance(statement, cst.If):
            branch: cst.CSTNode | None = statement
            while isinstance(branch, cst.If):
                _returns(block_statements(branch.body), out)
                branch = branch.orelse
            branched = True
        elif isinstance(statement, cst.Match):
            for case in statement.cases:
                if case.guard is not None or not _irrefutable(case.pattern):
                    _returns(block_statements(case.body), out)
            branched = True
        elif not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            for block in nested_blocks(statement):
                _returns(block, out)


def _irrefutable(pattern: cst.MatchPattern) -> bool:
    if isinstance(pattern, cst.MatchOr):
        return any(_irrefutable(p.pattern) for p in pattern.patterns)
    return isinstance(pattern, cst.MatchAs) and (pattern.pattern is None or _irrefutable(pattern.pattern))


def _is_enum(klass: cst.ClassDef) -> bool:
    names = [last_name(arg.value) or "" for arg in klass.bases]
    return any(n.endswith(("Enum", "Flag")) for n in names)


def _map_keys(tree: PyTree, sel: MapKeys) -> list[Item]:
    """The keys of the dict bound to ``sel.name``, or with ``within`` of the one bound
    inside that function or method (a local of a property)."""
    binding = local_binding(tree, sel.within, sel.name) if sel.within else one_binding(tree, sel.name)[0]
    items = _dict_keys(tree, binding, sel.name, (), sel.resolve)
    if not items:
        where = f" inside {sel.within}" if sel.within else ""
        raise FactNotFound(f"{sel.name}{where} is an empty dict", tree.location(binding.target))
    return unique_items(items)


def _dict_keys(
    tree: PyTree, binding: Binding, name: str, outer: tuple[str, ...], resolve: bool = False
) -> list[Item]:
    """The keys of the dict bound to ``name``; ``**OTHER`` entries add OTHER's keys."""
    node, where = binding.value, f"{name} (line {tree.line(binding.target)})"
    node = unwrapped(node) if node is not None else None  # MappingProxyType({...}), dict({...})
    if not isinstance(node, cst.Dict):
        raise FactNotFound(f"{where} is not a dict literal", Location(tree.path))
    items: list[Item] = []
    for element in node.elements:
        if isinstance(element, cst.StarredDictElement):
            inner = dotted_name(element.value)
            if inner is None or inner in outer + (name,):
                problem = "includes itself" if inner else "unpacks something that is not a name"
                raise FactNotFound(f"{where} {problem}", Location(tree.path))
            items += _dict_keys(tree, one_binding(tree, inner)[0], inner, outer + (name,), resolve)
        elif (isinstance(element, cst.DictElement) and isinstance(element.key, (cst.Name, cst.Attribute))
              and not resolve):
            items.append(Item(Value.string(last_name(element.key) or ""), tree.location(element.key)))
        elif isinstance(element, cst.DictElement):
            what = f"a key of {name} (line {tree.line(element.key)})"
            value = evaluate_binding(tree, Binding(name, binding.target, element.key), None, what)
            items.append(Item(value, tree.location(element.key)))
    return items


def _regex(pattern: str, path: str) -> Compiled[str]:
    return compile_user_regex(pattern, Location(path), what="name pattern")


_HANDLERS: dict[type, Callable[[PyTree, Any], Sequence[Item]]] = {
    Constants: _constants,
    Constant: _constant,
    StringMethod: _string_method,
    MapKeys: _map_keys,
    Call: calls.call,
    Calls: calls.calls,
    Symbols: lambda tree, _: symbols(tree, tree.path),
    Default: params.default,
    Flags: flags.flags,
    Env: env.env,
    Fields: fields.fields,
    Cases: cases.cases,
    Classes: hierarchy.classes,
    ListOf: lists.listed,
}

_LEFT_OUT: dict[type, Callable[[PyTree, Any], list[str]]] = {
    StringMethod: lambda tree, sel: _string_returns(tree, sel)[1],
    Calls: calls.left_out,
    Flags: flags.left_out,
    Env: env.left_out,
    Fields: fields.left_out,
    Cases: cases.left_out,
    ListOf: lists.left_out,
}
"""What each selector saw and left out, where it leaves anything out."""
