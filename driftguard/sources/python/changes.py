"""Selftest changes of one Python value: a scalar fact's, or one entry of a map.

A scalar changes the first number literal of its expression, located with
``ast`` (``timedelta(minutes=10)`` -> ``timedelta(minutes=11)``), following a
named constant to its definition; a boolean flips, a string changes, and so does
the literal default of ``os.getenv`` / ``os.environ.get``. The expression is the
one at the fact's location: an assignment's value, a call's argument (by
position, keyword or key path), a parameter's default.

A map entry (``flags`` or ``env`` with defaults) is found by its label, the
name, since an entry the code gives no default has no value to point at: its
default changes as a scalar does; a flag implied ``False`` by ``store_true``, or
one without a default, gains ``default=...``; a ``getenv``/``get`` without a
default gains one.
"""

from __future__ import annotations

import ast
import re
from typing import cast

import libcst as cst

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Env, Flags
from driftguard.model import Fact, Location
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit, NotApplicable, line_starts
from driftguard.sources.python.edits import Source, quotes
from driftguard.sources.python.env import env_reads
from driftguard.sources.python.evaluate import EvalError
from driftguard.sources.python.flags import selected_flags
from driftguard.sources.python.tree import PyTree

__all__ = ["change_scalar"]


def change_scalar(text: str, spec: FactSpec, fact: Fact) -> Edit:
    sel = spec.selector
    if isinstance(sel, (Flags, Env)) and sel.defaults:
        return _change_entry(Source(text), sel, fact.items[0].label)
    return _change_at(text, fact.items[0].location)


def _change_at(text: str, location: Location | None) -> Edit:
    """The value whose expression is at ``location`` changed."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise CannotApply(f"the file is not valid Python: {exc.msg}") from None
    starts = line_starts(text)
    expr, owner = _expression_at(tree, text, starts, location)
    context = f"{owner} = {ast.unparse(expr)}" if owner else ast.unparse(expr)
    literal = _env_default(expr) or expr
    if isinstance(literal, ast.Constant) and type(literal.value) in (bool, str, int, float):
        begin, end = _bounds(text, starts, literal)
        return _replace(text, starts, literal, _changed(literal.value, text[begin:end]), context)
    return _bump(tree, text, starts, expr, {owner} if owner else set(), owner)


_CONVERSIONS = ("int", "float", "str", "bool")
_ENV_LOOKUPS = ("os.getenv", "getenv", "os.environ.get", "environ.get")


def _env_default(expr: ast.expr) -> ast.expr | None:
    """The default argument of ``os.getenv(NAME, DEFAULT)``, inside ``int(...)`` and the like, else None."""
    while (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in _CONVERSIONS
           and len(expr.args) == 1):
        expr = expr.args[0]
    if not isinstance(expr, ast.Call) or ast.unparse(expr.func) not in _ENV_LOOKUPS:
        return None
    found = expr.args[1:2] or [k.value for k in expr.keywords if k.arg == "default"]
    return found[0] if found else None


def _changed(value: object, old: str) -> str:
    """Another literal: a number + 1, a boolean flipped, a string changed in ``old``'s quotes."""
    if isinstance(value, bool):
        return repr(not value)
    if isinstance(value, (int, float)):
        return repr(value + 1)
    text = str(value).strip()
    kind = int if re.fullmatch(r"-?\d+", text) else float if re.fullmatch(r"-?\d*\.\d+", text) else None
    new = repr(kind(text) + 1) if kind else SELFTEST
    prefix, quote = quotes(old)
    return f"{prefix}{quote}{new}{quote}"


def _char_col(text: str, starts: list[int], line: int, byte_col: int) -> int:
    row = text[starts[line - 1]:starts[line] if line < len(starts) else len(text)]
    return len(row.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


def _expression_at(tree: ast.Module, text: str, starts: list[int], loc: Location | None) -> tuple[ast.expr, str]:
    """The value of the assignment whose target is at ``loc`` (and the name it defines),
    or the outermost expression there."""
    if loc is None or loc.line is None:
        raise CannotApply("the fact's value has no location")
    column = (loc.column or 1) - 1
    here = [n for n in ast.walk(tree) if isinstance(n, ast.expr) and n.lineno == loc.line
            and _char_col(text, starts, n.lineno, n.col_offset) == column]
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.targets and node.targets[0] in here:
            return node.value, ast.unparse(node.targets[0])
        if isinstance(node, ast.AnnAssign) and node.target in here and node.value is not None:
            return node.value, ast.unparse(node.target)
    if not here:
        raise CannotApply(f"no expression at {loc}")
    return max(here, key=lambda n: (n.end_lineno or 0, n.end_col_offset or 0)), ""


def _ordered(expr: ast.expr) -> list[ast.expr]:
    return sorted((n for n in ast.walk(expr) if isinstance(n, ast.expr)), key=lambda n: (n.lineno, n.col_offset))


def _bump(tree: ast.Module, text: str, starts: list[int], expr: ast.expr, seen: set[str], owner: str) -> Edit:
    """The first number literal of ``expr`` changed, else the module constant it names;
    ``owner`` names the constant ``expr`` defines."""
    context = f"{owner} = {ast.unparse(expr)}" if owner else ast.unparse(expr)
    if isinstance(expr, ast.Constant) and type(expr.value) in (bool, str, int, float):  # a named constant's literal
        begin, end = _bounds(text, starts, expr)
        return _replace(text, starts, expr, _changed(expr.value, text[begin:end]), context)
    for node in _ordered(expr):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            new = repr(cast(float, node.value) + 1)
            return _replace(text, starts, node, new, context)
    for node in _ordered(expr):
        if isinstance(node, ast.Name) and node.id not in seen:
            found = [s.value for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                     and isinstance(s.targets[0], ast.Name) and s.targets[0].id == node.id]
            found += [s.value for s in tree.body if isinstance(s, ast.AnnAssign) and s.value is not None
                      and isinstance(s.target, ast.Name) and s.target.id == node.id]
            if len(found) == 1:
                return _bump(tree, text, starts, found[0], seen | {node.id}, node.id)
    raise CannotApply(f"no number literal or module constant to change in `{context}`")


def _bounds(text: str, starts: list[int], node: ast.expr) -> tuple[int, int]:
    """The character offsets of ``node``'s source."""
    last, end_col = node.end_lineno or node.lineno, node.end_col_offset or 0
    begin = starts[node.lineno - 1] + _char_col(text, starts, node.lineno, node.col_offset)
    return begin, starts[last - 1] + _char_col(text, starts, last, end_col)


def _replace(text: str, starts: list[int], node: ast.expr, new: str, context: str) -> Edit:
    begin, end = _bounds(text, starts, node)
    old = text[begin:end]
    changed = text[:begin] + new + text[end:]
    try:
        ast.parse(changed)
    except SyntaxError:
        raise CannotApply(f"changing `{old}` to `{new}` would break the file") from None
    where = f" in `{context}`" if context != old else ""
    return Edit(changed, f"`{old}` -> `{new}`{where}", node.lineno)


# -- map entries ------------------------------------------------------------------


def _change_entry(mod: Source, sel: Flags | Env, label: str) -> Edit:
    """The default of entry ``label`` changed, or given where the code gives none."""
    tree = mod.tree
    if isinstance(sel, Flags):
        found = [(f.default, f.site, f.implied) for f in selected_flags(tree, sel) if f.name == label]
    else:
        found = [(r.default, r.node, None) for r in env_reads(tree) if _evaluates_to(tree, r.name, label)]
    if not found:
        raise CannotApply(f"no {'flag' if isinstance(sel, Flags) else 'read of'} {label} to change")
    with_default = [f for f in found if f[0] is not None]
    if with_default:
        default = cast(cst.BaseExpression, with_default[0][0])
        return _change_at(mod.text, tree.location(default))
    _, site, implied = found[0]
    if not isinstance(site, cst.Call):
        raise NotApplicable(f"{label} is read without a default, and the selftest cannot give it one there")
    value = repr(not implied.data) if implied is not None else f'"{SELFTEST}"'
    added = cst.Arg(cst.parse_expression(value), keyword=cst.Name("default") if isinstance(sel, Flags) else None,
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
                    if isinstance(sel, Flags) else cst.MaybeSentinel.DEFAULT)
    args = list(site.args)
    if args and isinstance(args[-1].comma, cst.Comma):  # a trailing comma: the new argument goes after it
        return mod.edit(site, site.with_changes(args=[*args, added.with_changes(comma=args[-1].comma)]),
                        f"gave {label} the default {value}", tree.line(site), None)
    if isinstance(sel, Env) and len(args) != 1:
        raise NotApplicable(f"the read of {label} at line {tree.line(site)} takes no default the selftest can add")
    return mod.edit(site, site.with_changes(args=[*args, added]), f"gave {label} the default {value}",
                    tree.line(site), None)


def _evaluates_to(tree: PyTree, node: cst.BaseExpression, name: str) -> bool:
    try:
        return tree.names.evaluate(node).data == name
    except EvalError:
        return False
