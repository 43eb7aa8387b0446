"""Selftest mutations of Python source: ``add_member`` and ``change_scalar``.

New members are written with libcst, so the file stays valid: an Enum member
or a module constant is a copy of the last member's statement with a new name
and value, inserted after it; a dict gains an entry after its last one (and,
for a name key, the constant it names, at the top level); a ``calls`` set gains
a copy of its last call with a new literal argument, next to it. The other
sets (flags, environment reads, fields, cases, classes, list elements) grow in
``additions``; scalars (and a map's entries) change in ``changes``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

import libcst as cst

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Calls, Constants, MapKeys, StringMethod
from driftguard.model import Fact, Kind, Value
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit, NotApplicable, last_line, new_name
from driftguard.sources.python import additions
from driftguard.sources.python.calls import argument
from driftguard.sources.python.changes import change_scalar
from driftguard.sources.python.edits import Source, all_nodes, insert_after, new_literal, placed, string_like

__all__ = ["add_member", "change_scalar"]




def _small(statement: cst.CSTNode) -> cst.Assign | cst.AnnAssign | None:
    if isinstance(statement, cst.SimpleStatementLine) and statement.body:
        first = statement.body[0]
        if isinstance(first, (cst.Assign, cst.AnnAssign)):
            return first
    return None


def _target(small: cst.Assign | cst.AnnAssign) -> str | None:
    target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
    return target.value if isinstance(target, cst.Name) else None


def _renamed(statement: cst.SimpleStatementLine, name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    """A copy of ``NAME = ...`` as ``name = value``, without its comments."""
    small = _small(statement)
    assert small is not None
    if isinstance(small, cst.Assign):
        changed: cst.BaseSmallStatement = small.with_changes(targets=[cst.AssignTarget(cst.Name(name))], value=value)
    else:
        changed = small.with_changes(target=cst.Name(name), value=value)
    return statement.with_changes(body=[changed], leading_lines=[], trailing_whitespace=cst.TrailingWhitespace())






def _new_value(old: cst.BaseExpression | None, fact: Fact, name: str, old_name: str, names: bool,
               siblings: Sequence[cst.BaseStatement]) -> tuple[cst.BaseExpression, str | None]:
    """The new member's value, like its neighbour's and distinct from its siblings' (an
    Enum member with a repeated value would be an alias), and the value the reader reads."""
    if isinstance(old, cst.SimpleString):
        same = old.evaluated_value == old_name  # values equal to names stay so
        value = name if same else SELFTEST
        return string_like(old, value), (name if names else value)
    numbers = [float(i.value.data) for i in fact.items if i.value.kind is Kind.NUMBER]
    for statement in siblings:
        small = _small(statement)
        if small is not None and isinstance(small.value, (cst.Integer, cst.Float)):
            numbers.append(float(small.value.evaluated_value))
    if isinstance(old, (cst.Integer, cst.Float)) and numbers:
        amount = int(max(numbers)) + 1
        node = cst.Integer(str(amount)) if isinstance(old, cst.Integer) else cst.Float(f"{amount}.0")
        return node, (name if names else Value(Kind.NUMBER, float(amount)).canonical)
    if names and old is not None:
        return old.deep_clone(), name
    raise NotApplicable("the members' values are neither string nor number literals; "
                        "the selftest cannot write a new distinct one")


# -- sets -----------------------------------------------------------------------


def add_member(text: str, spec: FactSpec, fact: Fact) -> Edit:
    sel = spec.selector
    if isinstance(sel, Constants):
        return _add_assignment(Source(text), sel.type, sel.name, sel.values == "names", fact)
    if isinstance(sel, StringMethod):
        if not re.search(r"return\s+self\.(value|name)\b", text):
            raise NotApplicable(f"{sel.type}.__str__ does not return self.value or self.name; "
                                "the selftest adds members only to Enum classes")
        names = bool(re.search(r"return\s+self\.name\b", text))
        return _add_assignment(Source(text), sel.type, None, names, fact)
    if isinstance(sel, MapKeys):
        return _add_key(Source(text), sel, fact)
    if isinstance(sel, Calls):
        return _add_call(Source(text), sel, fact)
    return additions.add_member(Source(text), sel, fact)


def _add_assignment(mod: Source, klass_name: str | None, regex: str | None, names: bool, fact: Fact) -> Edit:
    """A new Enum member of ``klass_name`` (or module constant) after the last one."""
    line = last_line(fact)
    owner: cst.CSTNode = mod.module
    body: Sequence[cst.BaseStatement] = mod.module.body
    if klass_name:
        classes = [c for c in mod.classes(klass_name) if mod.holds(c, line)]
        if not classes or not isinstance(classes[-1].body, cst.IndentedBlock):
            raise CannotApply(f"no class {klass_name} around line {line}")
        owner = classes[-1].body
        body = classes[-1].body.body
    index = mod.statement_at(body, line)
    small = _small(body[index]) if index is not None else None
    old_name = _target(small) if small is not None else None
    if index is None or small is None or old_name is None:
        raise CannotApply(f"no plain assignment at line {line}")
    name = new_name(old_name, mod.text, regex)
    value, expect = _new_value(small.value, fact, name, old_name, names, body)
    line_statement = body[index]
    if not isinstance(line_statement, cst.SimpleStatementLine):
        raise CannotApply(f"no plain assignment at line {line}")
    statement = _renamed(line_statement, name, value)
    new_body = [*body[:index + 1], statement, *body[index + 1:]]
    new_owner = owner.with_changes(body=new_body)
    shown = cst.Module([]).code_for_node(statement).strip()
    where = f"class {klass_name}" if klass_name else "the module"
    return mod.edit(owner, new_owner, f"added `{shown}` to {where}", line + 1, expect)


def _add_key(mod: Source, sel: MapKeys, fact: Fact) -> Edit:
    """An entry after the last one of the dict holding the last key read (anywhere)."""
    line, column = placed(fact)
    node = next((d for d in all_nodes(mod.module) if isinstance(d, cst.Dict) and any(
        isinstance(e, cst.DictElement) and mod.tree.position(e.key) == (line, column) for e in d.elements)), None)
    if node is None:
        raise CannotApply(f"no dict literal assigned at line {line}")
    last = node.elements[-1]
    if not isinstance(last, cst.DictElement):
        raise CannotApply(f"the dict at line {line} does not end with a plain entry")
    key, expect, constant = _new_key(mod, last.key, sel.resolve)
    added = last.with_changes(key=key, value=last.value.deep_clone())
    new_dict = node.with_changes(elements=insert_after(list(node.elements), len(node.elements) - 1, added))
    module = cast(cst.Module, mod.module.deep_replace(node, new_dict))
    what = f"added the entry `{cst.Module([]).code_for_node(key)}: ...`"
    if constant is not None:  # the constant a name key refers to, before the statement holding the dict
        index = mod.statement_at(mod.module.body, line) or 0
        statement = cst.parse_statement(f"{constant} = \"{SELFTEST}\"\n")
        module = module.with_changes(body=[*module.body[:index], statement, *module.body[index:]])
        what += f" and `{constant} = \"{SELFTEST}\"`"
    return Edit(module.code, what, line + 1, (expect,))


def _add_call(mod: Source, sel: Calls, fact: Fact) -> Edit:
    """A copy of the last call read with a new argument ``sel.arg`` (or, with a path, a new value
    inside it), next in its list, else as a statement after the one holding it."""
    line, column = placed(fact)
    node = mod.at(line, column)
    call = next((c for c in reversed(mod.tree.all_calls()) if _holds(mod, argument(c, sel.arg), node)), None)
    if call is None:
        raise CannotApply(f"no call of {sel.function} at line {line}")
    value, expect = new_literal(cast(cst.BaseExpression, node), fact)
    copy = cast(cst.Call, call.deep_replace(node, value))
    what = f"added `{cst.Module([]).code_for_node(copy)}`"
    holder = mod.parent(call)
    literal = mod.parent(holder) if isinstance(holder, cst.Element) else None
    if isinstance(holder, cst.Element) and isinstance(literal, (cst.List, cst.Tuple, cst.Set)):
        at = next(i for i, e in enumerate(literal.elements) if e is holder)
        elements = insert_after(list(literal.elements), at, holder.with_changes(value=copy))
        return mod.edit(literal, literal.with_changes(elements=elements), what, line + 1, expect)
    return mod.insert_after(call, cst.SimpleStatementLine([cst.Expr(copy)]), what, expect)


def _holds(mod: Source, argument: cst.BaseExpression | None, node: cst.CSTNode) -> bool:
    """Whether ``node`` is ``argument`` or lies inside it."""
    inner: cst.CSTNode | None = node
    while inner is not None and argument is not None:
        if inner is argument:
            return True
        inner = mod.parent(inner)
    return False


def _new_key(mod: Source, like: cst.BaseExpression, resolve: bool) -> tuple[cst.BaseExpression, str, str | None]:
    """(key, value the reader reads from it, constant to define for it)."""
    if isinstance(like, cst.SimpleString):
        return string_like(like, SELFTEST), SELFTEST, None
    if isinstance(like, cst.Name):
        name = new_name(like.value, mod.text)
        return cst.Name(name), (SELFTEST if resolve else name), name
    if isinstance(like, cst.Attribute) and not resolve:
        name = new_name(like.attr.value, mod.text)
        return like.with_changes(attr=cst.Name(name)), name, None
    if isinstance(like, cst.Integer):
        return cst.Integer("987654321"), "987654321", None
    raise CannotApply(f"cannot write a new key like `{cst.Module([]).code_for_node(like)}`")
