"""Selftest members added to the sets the newer Python selectors read.

Each is written with libcst next to the member read last, shaped like it, and
the module is re-parsed (``Source.edit``), so an edit that would break the file
is refused:

- ``flags``: a copy of the last option's call (an ``add_argument`` statement, a
  ``@click.option`` decorator, a ``click.Option`` in a list) named
  ``--driftguard-selftest``, its other option strings dropped; a typer
  parameter is copied as ``driftguard_selftest``.
- ``env``: a copy of the last read (``os.getenv(...)``, ``os.environ[...]``)
  of ``DRIFTGUARD_SELFTEST``, as a statement after the one holding it.
- ``fields``: a copy of the last field's statement named ``driftguard_selftest``;
  a functional ``TypedDict``/``namedtuple`` gains an entry.
- ``cases``: a copy of the last literal case (or ``elif`` branch) with a new label.
- ``classes``: ``class DriftguardSelftest(Last): pass`` after the last subclass.
- ``list``: a new element after the last one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import libcst as cst

from driftguard.config.specs import Cases, Classes, Env, Fields, Flags, ListOf, Selector
from driftguard.model import Fact
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit, NotApplicable, new_name
from driftguard.sources.python.cases import one_switch
from driftguard.sources.python.edits import Source, insert_after, new_literal, placed, shown, string_like
from driftguard.sources.python.env import env_reads
from driftguard.sources.python.flags import selected_flags

__all__ = ["add_member"]

_FLAG = SELFTEST.replace("_", "-")
_VARIABLE = SELFTEST.upper()


def add_member(mod: Source, sel: Selector, fact: Fact) -> Edit:
    add = _ADDERS.get(type(sel))
    if add is None:
        raise NotApplicable(f"a {type(sel).__name__} selector is not a set")
    return add(mod, sel, fact)


def _add_flag(mod: Source, sel: Flags, fact: Fact) -> Edit:
    line, column = placed(fact)
    flag = next((f for f in selected_flags(mod.tree, sel) if mod.tree.position(f.at) == (line, column)
                 or f.default is not None and mod.tree.position(f.default) == (line, column)), None)
    if flag is None:
        raise CannotApply(f"no option defined at line {line}")
    expect = _FLAG
    if isinstance(flag.site, cst.Param):
        param = flag.site
        name = new_name("driftguard", mod.text)
        renamed = isinstance(flag.at, cst.SimpleString)
        renamed_param = _renamed_option(param, flag.at) if isinstance(flag.at, cst.SimpleString) else param
        copy = cast(cst.Param, renamed_param).with_changes(name=cst.Name(name))
        expect = _FLAG if renamed else name.replace("_", "-")
        params = mod.parent(param)
        if not isinstance(params, cst.Parameters):
            raise CannotApply(f"the parameter at line {line} is in no parameter list")
        return mod.edit(params, _with_param(params, param, copy), f"added the parameter `{shown(copy)}`",
                        line + 1, expect)
    if not isinstance(flag.at, cst.SimpleString):
        raise NotApplicable(f"the option at line {line} is named by its library, not by a literal to copy")
    option = _renamed_option(flag.site, flag.at)
    holder = mod.parent(flag.site)
    what = f"added `{shown(option)}`"
    if isinstance(holder, cst.Decorator):
        function = mod.parent(holder)
        assert isinstance(function, (cst.FunctionDef, cst.ClassDef))
        at = next(i for i, d in enumerate(function.decorators) if d is holder)
        decorators = [*function.decorators[:at + 1], holder.with_changes(decorator=option),
                      *function.decorators[at + 1:]]
        return mod.edit(function, function.with_changes(decorators=decorators), what, line + 1, expect)
    if isinstance(holder, cst.Element):
        return _next_element(mod, holder, holder.with_changes(value=option), what, expect)
    return mod.insert_after(flag.site, cst.SimpleStatementLine([cst.Expr(cast(cst.Call, option))]), what, expect)


def _renamed_option(site: cst.CSTNode, at: cst.SimpleString) -> cst.CSTNode:
    """``site`` with option string ``at`` renamed and its other option strings dropped."""
    new = string_like(at, f"--{_FLAG}")

    class Rename(cst.CSTTransformer):
        def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.SimpleString:
            return new if original is at else updated

        def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg | cst.RemovalSentinel:
            return cst.RemoveFromParent() if _other_name(original, at) else updated

        def leave_Element(self, original: cst.Element, updated: cst.Element) -> cst.Element | cst.RemovalSentinel:
            return cst.RemoveFromParent() if _other_name(original, at) else updated

    renamed = site.visit(Rename())
    assert isinstance(renamed, cst.CSTNode)  # the site itself is never removed
    return renamed


def _other_name(node: cst.Arg | cst.Element, at: cst.SimpleString) -> bool:
    """Another option string than ``at``: a positional string literal starting with a dash (``"-n"``)."""
    keyword = isinstance(node, cst.Arg) and node.keyword is not None
    value = node.value.evaluated_value if isinstance(node.value, cst.SimpleString) else None
    return not keyword and node.value is not at and isinstance(value, str) and value.startswith("-")


def _with_param(params: cst.Parameters, param: cst.Param, copy: cst.CSTNode) -> cst.Parameters:
    for field in ("params", "kwonly_params", "posonly_params"):
        group = list(getattr(params, field))
        if param in group:
            at = group.index(param)
            comma = param.comma if isinstance(param.comma, cst.Comma) else cst.Comma(
                whitespace_after=cst.SimpleWhitespace(" "))
            group[at:at + 1] = [param.with_changes(comma=comma), cast(cst.Param, copy).with_changes(comma=param.comma)]
            return params.with_changes(**{field: group})
    raise CannotApply("the parameter is in no parameter group")


def _next_element(mod: Source, element: cst.Element, added: cst.Element, what: str, expect: str) -> Edit:
    literal = mod.parent(element)
    if not isinstance(literal, (cst.List, cst.Tuple, cst.Set)):
        raise CannotApply(f"the element at line {mod.line(element)} is in no list")
    at = next(i for i, e in enumerate(literal.elements) if e is element)
    elements = insert_after(list(literal.elements), at, added)
    return mod.edit(literal, literal.with_changes(elements=elements), what, mod.line(element), expect)


def _add_read(mod: Source, sel: Env, fact: Fact) -> Edit:
    line, column = placed(fact)
    read = next((r for r in env_reads(mod.tree) if mod.tree.position(r.name) == (line, column)
                 or r.default is not None and mod.tree.position(r.default) == (line, column)), None)
    if read is None:
        raise CannotApply(f"no environment read at line {line}")
    like = read.name if isinstance(read.name, cst.SimpleString) else cst.SimpleString('""')
    name = string_like(like, _VARIABLE)
    copy = cast(cst.BaseExpression, read.node.deep_replace(read.name, name))
    statement = cst.SimpleStatementLine([cst.Expr(copy)])
    return mod.insert_after(read.node, statement, f"added the read `{shown(copy)}`", _VARIABLE)


def _add_field(mod: Source, sel: Fields, fact: Fact) -> Edit:
    line, column = placed(fact)
    node = mod.at(line, column)
    holder = mod.parent(node)
    name = new_name("driftguard", mod.text)
    what = f"added the field `{name}`"
    if isinstance(holder, (cst.AnnAssign, cst.AssignTarget)):  # class syntax: copy the field's statement
        return _copy_statement(mod, node, cst.Name(name), "the field", name)
    if isinstance(node, cst.Name) and isinstance(holder, cst.Arg):  # TypedDict("T", a=int)
        call = cast(cst.Call, mod.parent(holder))
        added = holder.with_changes(keyword=cst.Name(name))
        at = next(i for i, a in enumerate(call.args) if a is holder)
        return mod.edit(call, call.with_changes(args=insert_after(list(call.args), at, added)), what, line, name)
    if not isinstance(node, cst.SimpleString):
        raise CannotApply(f"no field the selftest can copy at line {line}")
    new = string_like(node, name)
    if isinstance(holder, cst.DictElement):  # TypedDict("T", {"a": int})
        literal = cast(cst.Dict, mod.parent(holder))
        at = next(i for i, e in enumerate(literal.elements) if e is holder)
        elements = insert_after(list(literal.elements), at, holder.with_changes(key=new))
        return mod.edit(literal, literal.with_changes(elements=elements), what, line, name)
    pair = mod.parent(holder) if isinstance(holder, cst.Element) else None
    outer = mod.parent(pair) if isinstance(pair, cst.Tuple) else None
    if isinstance(pair, cst.Tuple) and isinstance(outer, cst.Element):  # NamedTuple("T", [("a", int)])
        return _next_element(mod, outer, outer.with_changes(value=pair.deep_replace(node, new)), what, name)
    if isinstance(holder, cst.Element):  # namedtuple("T", ["a", "b"])
        return _next_element(mod, holder, holder.with_changes(value=new), what, name)
    value = cast(str, node.evaluated_value)  # namedtuple("T", "a b")
    return mod.edit(node, string_like(node, f"{value.rstrip()}{', ' if ',' in value else ' '}{name}"), what, line,
                    name)


def _add_case(mod: Source, sel: Cases, fact: Fact) -> Edit:
    switch = one_switch(mod.tree, sel)
    line, column = placed(fact)
    label = mod.at(line, column)
    value, expect = new_literal(cast(cst.BaseExpression, label), fact)
    if isinstance(switch.node, cst.Match):
        case = next(c for c in switch.node.cases if any(node is label for node in _inside(c.pattern)))
        added = case.with_changes(pattern=cst.MatchValue(value), leading_lines=[])
        at = switch.node.cases.index(case)
        cases = [*switch.node.cases[:at + 1], added, *switch.node.cases[at + 1:]]
        return mod.edit(switch.node, switch.node.with_changes(cases=cases), f"added `case {shown(value)}:`",
                        mod.line(case) + 1, expect)
    branch: cst.BaseSuite | cst.If | cst.Else | None = switch.node
    while isinstance(branch, cst.If) and not any(node is label for node in _inside(branch.test)):
        branch = branch.orelse
    if not isinstance(branch, cst.If):
        raise CannotApply(f"no branch of the chain at line {mod.line(switch.node)} tests line {line}")
    test = cst.parse_expression(f"{switch.subject} == {shown(value)}")
    branch_copy = branch.with_changes(test=test)
    return mod.edit(branch, branch.with_changes(orelse=branch_copy), f"added `elif {shown(test)}:`",
                    mod.line(branch) + 1, expect)


def _inside(node: cst.CSTNode) -> list[cst.CSTNode]:
    return [node, *(n for child in node.children for n in _inside(child))]


def _add_class(mod: Source, sel: Classes, fact: Fact) -> Edit:
    line, column = placed(fact)
    klass = mod.parent(mod.at(line, column, cst.Name))
    if not isinstance(klass, cst.ClassDef):
        raise CannotApply(f"no class at line {line}")
    name = new_name("Driftguard", mod.text)
    statement = cst.parse_statement(f"class {name}({klass.name.value}):\n    pass\n")
    return mod.insert_after(klass, statement, f"added `class {name}({klass.name.value})`", name)


def _add_element(mod: Source, sel: ListOf, fact: Fact) -> Edit:
    line, column = placed(fact)
    node = mod.at(line, column)
    value, expect = new_literal(cast(cst.BaseExpression, node), fact)
    holder = mod.parent(node)
    if isinstance(holder, cst.Element) and isinstance(mod.parent(holder), (cst.List, cst.Tuple, cst.Set)):
        return _next_element(mod, holder, holder.with_changes(value=value), f"added the element {shown(value)}",
                             expect)
    return _copy_statement(mod, node, value, "the statement", expect)  # ``NAME.append(x)``


def _copy_statement(mod: Source, node: cst.CSTNode, new: cst.CSTNode, what: str, expect: str) -> Edit:
    """A copy of the statement holding ``node``, with ``new`` in its place, after it."""
    statement: cst.CSTNode | None = node
    while statement is not None and not isinstance(statement, cst.SimpleStatementLine):
        statement = mod.parent(statement)
    if statement is None:
        raise CannotApply(f"no statement of its own holds line {mod.line(node)}")
    copy = cast(cst.SimpleStatementLine, statement.deep_replace(node, new)).with_changes(leading_lines=[])
    return mod.insert_after(statement, copy, f"added {what} `{shown(copy)}`", expect)


_ADDERS: dict[type, Callable[[Source, Any, Fact], Edit]] = {
    Flags: _add_flag,
    Env: _add_read,
    Fields: _add_field,
    Cases: _add_case,
    Classes: _add_class,
    ListOf: _add_element,
}
"""How each set selector gains a member."""
