"""Selftest mutations of Python source.

New members are written with libcst, so the file stays valid: an Enum member
or a module constant is a copy of the last member's statement with a new name
and value, inserted after it; a dict gains an entry after its last one (and,
for a name key, the constant it names, at the top level); a ``calls`` set gains
a copy of its last call with a new literal argument, next to it. Scalars change
the first number literal of their expression, located with ``ast``
(``timedelta(minutes=10)`` -> ``timedelta(minutes=11)``), following a named
constant to its definition; a boolean flips, a string changes, and so does the
literal default of ``os.getenv`` / ``os.environ.get``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from typing import cast

import libcst as cst

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Calls, Constants, MapKeys, StringMethod
from driftguard.model import Fact, Kind, Location, Value
from driftguard.sources.mutation import (
    SELFTEST,
    CannotApply,
    Edit,
    NotApplicable,
    last_item,
    last_line,
    line_starts,
    new_name,
)


class _Module:
    """A module parsed once, with the Python reader's positions, for finding the
    statement at a line."""

    def __init__(self, text: str) -> None:
        from driftguard.sources.python.tree import PyTree

        try:
            self.module = cst.parse_module(text)
        except cst.ParserSyntaxError as exc:
            raise CannotApply(f"the file is not valid Python: {exc.message}") from None
        self.tree = PyTree("", text, self.module)
        self.text = text

    def line(self, node: cst.CSTNode) -> int:
        return self.tree.line(node)

    def holds(self, klass: cst.ClassDef, line: int) -> bool:
        end = self.tree.end_offset(klass)
        return self.line(klass) <= line <= self.text.count("\n", 0, end) + 1

    def statement_at(self, body: Sequence[cst.BaseStatement], line: int) -> int | None:
        """The index of the statement of ``body`` that ``line`` falls in (from its first
        line, comments included, to the next statement)."""
        found = None
        for i, statement in enumerate(body):
            if self.line(statement) > line:
                break
            found = i
        return found

    def classes(self, name: str) -> list[cst.ClassDef]:
        return self.tree.classes(name)

    def edit(self, old: cst.CSTNode, new: cst.CSTNode, what: str, line: int | None, expect: str | None) -> Edit:
        code = cast(cst.Module, self.module.deep_replace(old, new)).code
        return Edit(code, what, line, (expect,) if expect is not None else ())


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


def _string(like: cst.SimpleString, value: str) -> cst.SimpleString:
    prefix, quote = _quotes(like.value)
    return cst.SimpleString(f"{prefix}{quote}{value}{quote}")


def _quotes(spelling: str) -> tuple[str, str]:
    """The prefix and quotes of a string literal's spelling."""
    m = re.match(r"([A-Za-z]*)('''|\"\"\"|'|\")", spelling)
    return (m.group(1), m.group(2)) if m else ("", '"')


def _new_value(old: cst.BaseExpression | None, fact: Fact, name: str, old_name: str, names: bool,
               siblings: Sequence[cst.BaseStatement]) -> tuple[cst.BaseExpression, str | None]:
    """The new member's value, like its neighbour's and distinct from its siblings' (an
    Enum member with a repeated value would be an alias), and the value the reader reads."""
    if isinstance(old, cst.SimpleString):
        same = old.evaluated_value == old_name  # values equal to names stay so
        value = name if same else SELFTEST
        return _string(old, value), (name if names else value)
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
        return _add_assignment(_Module(text), sel.type, sel.name, sel.values == "names", fact)
    if isinstance(sel, StringMethod):
        if not re.search(r"return\s+self\.(value|name)\b", text):
            raise NotApplicable(f"{sel.type}.__str__ does not return self.value or self.name; "
                                "the selftest adds members only to Enum classes")
        names = bool(re.search(r"return\s+self\.name\b", text))
        return _add_assignment(_Module(text), sel.type, None, names, fact)
    if isinstance(sel, MapKeys):
        return _add_key(_Module(text), sel, fact)
    if isinstance(sel, Calls):
        return _add_call(_Module(text), sel, fact)
    raise NotApplicable(f"a {type(sel).__name__} selector is not a set")


def _add_assignment(mod: _Module, klass_name: str | None, regex: str | None, names: bool, fact: Fact) -> Edit:
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


def _add_key(mod: _Module, sel: MapKeys, fact: Fact) -> Edit:
    """An entry after the last one of the dict holding the last key read (anywhere)."""
    line, column = _placed(fact)
    node = next((d for d in _nodes(mod.module) if isinstance(d, cst.Dict) and any(
        isinstance(e, cst.DictElement) and mod.tree.position(e.key) == (line, column) for e in d.elements)), None)
    if node is None:
        raise CannotApply(f"no dict literal assigned at line {line}")
    last = node.elements[-1]
    if not isinstance(last, cst.DictElement):
        raise CannotApply(f"the dict at line {line} does not end with a plain entry")
    key, expect, constant = _new_key(mod, last.key, sel.resolve)
    added = last.with_changes(key=key, value=last.value.deep_clone())
    new_dict = node.with_changes(elements=_insert_after(list(node.elements), len(node.elements) - 1, added))
    module = cast(cst.Module, mod.module.deep_replace(node, new_dict))
    what = f"added the entry `{cst.Module([]).code_for_node(key)}: ...`"
    if constant is not None:  # the constant a name key refers to, before the statement holding the dict
        index = mod.statement_at(mod.module.body, line) or 0
        statement = cst.parse_statement(f"{constant} = \"{SELFTEST}\"\n")
        module = module.with_changes(body=[*module.body[:index], statement, *module.body[index:]])
        what += f" and `{constant} = \"{SELFTEST}\"`"
    return Edit(module.code, what, line + 1, (expect,))


def _add_call(mod: _Module, sel: Calls, fact: Fact) -> Edit:
    """A copy of the last call read with a new argument ``sel.arg``, next in its list or block."""
    from driftguard.sources.python.calls import argument

    line, column = _placed(fact)
    found = [(c, a) for c in mod.tree.all_calls() for a in c.args
             if a.value is argument(c, sel.arg) and mod.tree.position(a.value) == (line, column)]
    if not found:
        raise CannotApply(f"no call of {sel.function} at line {line}")
    call, arg = found[-1]
    value, expect = _new_argument(arg.value, fact)
    copy = call.with_changes(args=[a.with_changes(value=value) if a is arg else a for a in call.args])
    what = f"added `{cst.Module([]).code_for_node(copy)}`"
    for node in _nodes(mod.module):
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            at = next((i for i, e in enumerate(node.elements) if e.value is call), None)
            if at is not None:
                elements = _insert_after(list(node.elements), at, node.elements[at].with_changes(value=copy))
                return mod.edit(node, node.with_changes(elements=elements), what, line + 1, expect)
        if isinstance(node, (cst.Module, cst.IndentedBlock)):
            at = next((i for i, s in enumerate(node.body) if isinstance(s, cst.SimpleStatementLine)
                       and len(s.body) == 1 and isinstance(s.body[0], cst.Expr) and s.body[0].value is call), None)
            if at is not None:
                statement = node.body[at].with_changes(body=[cst.Expr(copy)], leading_lines=[])
                body = [*node.body[:at + 1], statement, *node.body[at + 1:]]
                return mod.edit(node, node.with_changes(body=body), what, line + 1, expect)
    raise CannotApply(f"the call at line {line} is neither an element of a list nor a statement of its own")


def _new_argument(old: cst.BaseExpression, fact: Fact) -> tuple[cst.BaseExpression, str]:
    """A literal like ``old`` no item has (``dry-run`` -> ``driftguard-selftest``), and its value."""
    taken = {i.value.canonical for i in fact.items}
    if isinstance(old, cst.SimpleString):
        dashed = any("-" in t for t in taken) and not any("_" in t for t in taken)
        base = SELFTEST.replace("_", "-") if dashed else SELFTEST
        value = next(f"{base}{n}" for n in ("", *range(2, 100)) if f"{base}{n}" not in taken)
        return _string(old, value), value
    if isinstance(old, cst.Integer):
        amount = int(max((float(i.value.data) for i in fact.items if i.value.kind is Kind.NUMBER), default=0)) + 1
        return cst.Integer(str(amount)), Value(Kind.NUMBER, amount).canonical
    raise NotApplicable("the calls' arguments are neither string nor integer literals; "
                        "the selftest cannot write a new distinct one")


def _insert_after(elements: list, at: int, added: cst.CSTNode) -> list:
    """``elements`` of a literal with ``added`` after element ``at``, commas laid out like the neighbours'."""
    current = elements[at]
    if at + 1 < len(elements):
        return [*elements[:at + 1], added.with_changes(comma=current.comma), *elements[at + 1:]]
    sep = elements[at - 1].comma if at > 0 else cst.MaybeSentinel.DEFAULT
    if not isinstance(sep, cst.Comma):
        sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [*elements[:at], current.with_changes(comma=sep), added.with_changes(comma=current.comma)]


def _placed(fact: Fact) -> tuple[int, int]:
    """The (line, column) of the member read last in the source (``last_item`` keeps placed items only)."""
    loc = cast(Location, last_item(fact).location)
    return cast(int, loc.line), loc.column or 1


def _nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node inside it, outermost first."""
    yield node
    for child in node.children:
        yield from _nodes(child)


def _new_key(mod: _Module, like: cst.BaseExpression, resolve: bool) -> tuple[cst.BaseExpression, str, str | None]:
    """(key, value the reader reads from it, constant to define for it)."""
    if isinstance(like, cst.SimpleString):
        return _string(like, SELFTEST), SELFTEST, None
    if isinstance(like, cst.Name):
        name = new_name(like.value, mod.text)
        return cst.Name(name), (SELFTEST if resolve else name), name
    if isinstance(like, cst.Attribute) and not resolve:
        name = new_name(like.attr.value, mod.text)
        return like.with_changes(attr=cst.Name(name)), name, None
    if isinstance(like, cst.Integer):
        return cst.Integer("987654321"), "987654321", None
    raise CannotApply(f"cannot write a new key like `{cst.Module([]).code_for_node(like)}`")


# -- scalars --------------------------------------------------------------------


def change_scalar(text: str, spec: FactSpec, fact: Fact) -> Edit:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise CannotApply(f"the file is not valid Python: {exc.msg}") from None
    starts = line_starts(text)
    expr, owner = _expression_at(tree, text, starts, fact.items[0].location)
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
    prefix, quote = _quotes(old)
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
