"""Where argparse, click and typer programs define their command-line options.

Each definition becomes a ``Flag``: its long name without dashes, the node a
finding points at, and its default expression (or the default the library
implies). The rules:

- **argparse**: every ``X.add_argument(...)`` call (a parser, a group, a
  subparser alike). Its option strings are the positional string arguments
  starting with a dash; one with none (``add_argument("report_dir")``) is a
  positional argument, not a flag, and is not read. The default is
  ``default=``, else ``False`` for ``action="store_true"`` and ``True`` for
  ``"store_false"``.
- **click**: ``click.option(...)`` (as a decorator or not; ``cloup`` and
  ``rich_click`` alike) and ``click.Option([...])``. A declaration without a
  dash (``"timeout"``) names the parameter, not a flag; ``--shout/--no-shout``
  is the flag ``shout``. The default is ``default=``, else ``False`` for
  ``is_flag=True`` or an on/off pair. ``click.version_option``,
  ``help_option``, ``confirmation_option`` and ``password_option`` define
  ``--version``, ``--help``, ``--yes`` and ``--password`` unless given names.
- **typer**: ``name: int = typer.Option(5, "--name")`` (the first argument is
  the default), ``name: Annotated[int, typer.Option("--name")] = 5`` (the
  parameter's default is), and a parameter of a command (a function decorated
  ``@app.command()`` or ``@app.callback()`` of an ``app = typer.Typer()``, or
  passed to ``typer.run``) that has a default and no ``typer.Argument``: typer
  makes it an option (a ``typer.Context`` parameter is none). An option given no name is ``--some-name`` from
  parameter ``some_name``, as typer names it. ``...`` as a default means
  required: no default.

The long name is the first option string starting with ``--``; an option with
short names only is named by its first (``-v`` is ``v``). An option string that
is not a literal leaves the flag without a name (``name`` None), which the
``flags`` selector lists as left out.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from driftguard.model import Kind, Value
from driftguard.sources.python.calls import argument, positional
from driftguard.sources.python.evaluate import EvalError, dotted_name, fold, last_name
from driftguard.sources.python.params import parameters
from driftguard.sources.python.tree import PyTree

__all__ = ["Flag", "declared_flags"]

_CLICK_OPTIONS = frozenset(f"{lib}.option" for lib in ("click", "click.decorators", "cloup", "rich_click"))
_CLICK_CLASSES = frozenset(f"{lib}.Option" for lib in ("click", "click.core", "cloup", "rich_click"))
_CLICK_BUILTIN = {"version_option": "--version", "help_option": "--help", "confirmation_option": "--yes",
                  "password_option": "--password"}


@dataclass(frozen=True)
class Flag:
    name: str | None  # the long name without dashes; None where an option string is not a literal
    at: cst.CSTNode  # the name's literal, else the definition
    default: cst.BaseExpression | None  # the default expression; None where it has none
    implied: Value | None  # the default the library gives where the code writes none (store_true: False)
    site: cst.CSTNode  # the call or parameter that defines it


def declared_flags(tree: PyTree) -> list[Flag]:
    """Every option the module defines, in source order."""
    found = [flag for call in tree.all_calls() for flag in _from_call(tree, call)]
    found += list(_typer_parameters(tree))
    return sorted(found, key=lambda f: tree.offset(f.site))


def _from_call(tree: PyTree, call: cst.Call) -> list[Flag]:
    callee = dotted_name(call.func)
    if callee is None:
        return []
    origin = tree.names.imports.canonical(callee)
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_argument":
        return _flag(tree, call, [a.value for a in positional(call)], _argparse_implied(tree, call), split=False)
    if origin in _CLICK_OPTIONS:
        return _flag(tree, call, [a.value for a in positional(call)], _click_implied(tree, call), split=True)
    if origin in _CLICK_CLASSES:
        decls = argument(call, 0) or argument(call, "param_decls")
        elements = [e.value for e in decls.elements] if isinstance(decls, (cst.List, cst.Tuple)) else []
        return _flag(tree, call, elements, _click_implied(tree, call), split=True)
    builtin = origin.rpartition(".")[2]
    if origin.startswith("click.") and builtin in _CLICK_BUILTIN:
        names = [a.value for a in positional(call)][1 if builtin == "version_option" else 0:]
        return _flag(tree, call, names, None, split=True) if names else [
            Flag(_CLICK_BUILTIN[builtin][2:], call, None, None, call)]
    return []


def _flag(tree: PyTree, site: cst.Call | cst.Param, decls: Sequence[cst.BaseExpression], implied: Value | None,
          split: bool, implicit: str | None = None) -> list[Flag]:
    """The flag declared by option strings ``decls`` (none when they are all parameter names)."""
    default = argument(site, "default") if isinstance(site, cst.Call) else None
    named: list[tuple[str, cst.BaseExpression]] = []
    for decl in decls:
        try:
            value = tree.names.evaluate(decl)
        except EvalError:
            return [Flag(None, decl, default, implied, site)]
        if value.kind is not Kind.STRING:
            return [Flag(None, decl, default, implied, site)]
        for part in (str(value.data).split("/") if split else [str(value.data)]):
            if part.strip().startswith("-"):
                named.append((part.strip(), decl))
    if not named and implicit is None:
        return []
    if not named:
        return [Flag(implicit, site, default, implied, site)]
    written, at = next(((n, d) for n, d in named if n.startswith("--")), named[0])
    return [Flag(written.lstrip("-"), at, default, implied, site)]


def _argparse_implied(tree: PyTree, call: cst.Call) -> Value | None:
    action = _literal(tree, argument(call, "action"))
    return {"store_true": Value(Kind.BOOL, False), "store_false": Value(Kind.BOOL, True)}.get(str(action))


def _click_implied(tree: PyTree, call: cst.Call) -> Value | None:
    on_off = any("/" in str(_literal(tree, a.value)) for a in positional(call))
    return Value(Kind.BOOL, False) if on_off or _literal(tree, argument(call, "is_flag")) is True else None


def _literal(tree: PyTree, node: cst.BaseExpression | None) -> object:
    """A literal's value (``"store_true"``, ``True``), else None."""
    try:
        return tree.names.evaluate(node).data if node is not None else None
    except EvalError:
        return None


# -- typer ------------------------------------------------------------------------


def _typer_parameters(tree: PyTree) -> Iterator[Flag]:
    imports = tree.names.imports
    if not imports.imports("typer"):
        return
    commands = _typer_commands(tree)
    for function in tree.all_functions():
        for param in parameters(function):
            flag = _typer_parameter(tree, param, id(function) in commands)
            if flag is not None:
                yield flag


def _typer_parameter(tree: PyTree, param: cst.Param, is_command: bool) -> Flag | None:
    if param.annotation is not None and last_name(param.annotation.annotation) == "Context":
        return None  # typer passes its context there
    implicit = param.name.value.replace("_", "-")
    option = _typer_call(tree, param.default)
    if option is not None and option[0] == "Option":
        call = option[1]
        args = [a.value for a in positional(call)]
        default = argument(call, "default") or (args[0] if args else None)
        decls = args[1:]
        return _typer_flag(tree, param, decls, _required(default), implicit)
    annotated = _annotated_option(tree, param)
    if annotated is not None:
        if annotated[0] != "Option":
            return None
        return _typer_flag(tree, param, [a.value for a in positional(annotated[1])], _required(param.default), implicit)
    if is_command and param.default is not None and option is None:
        return _typer_flag(tree, param, [], param.default, implicit)
    return None


def _typer_flag(tree: PyTree, param: cst.Param, decls: Sequence[cst.BaseExpression],
                default: cst.BaseExpression | None, implicit: str) -> Flag | None:
    found = _flag(tree, param, decls, None, split=True, implicit=implicit)
    return Flag(found[0].name, found[0].at, default, None, param) if found else None


def _required(node: cst.BaseExpression | None) -> cst.BaseExpression | None:
    return None if node is None or isinstance(node, cst.Ellipsis) else node


def _typer_call(tree: PyTree, node: cst.BaseExpression | None) -> tuple[str, cst.Call] | None:
    """(``Option`` or ``Argument``, the call) for ``typer.Option(...)``/``typer.Argument(...)``."""
    if not isinstance(node, cst.Call) or (callee := dotted_name(node.func)) is None:
        return None
    origin = tree.names.imports.canonical(callee)
    kind = origin.rpartition(".")[2]
    return (kind, node) if origin.startswith("typer.") and kind in ("Option", "Argument") else None


def _annotated_option(tree: PyTree, param: cst.Param) -> tuple[str, cst.Call] | None:
    """The ``typer.Option(...)`` inside ``Annotated[int, typer.Option(...)]``."""
    annotation = param.annotation.annotation if param.annotation is not None else None
    if not isinstance(annotation, cst.Subscript) or last_name(annotation.value) != "Annotated":
        return None
    for element in annotation.slice:
        if isinstance(element.slice, cst.Index):
            found = _typer_call(tree, element.slice.value)
            if found is not None:
                return found
    return None


def _typer_commands(tree: PyTree) -> set[int]:
    """The functions typer runs as commands: decorated ``@app.command()``/``@app.callback()`` of an
    ``app = typer.Typer()``, or passed to ``typer.run``."""
    apps = {b.name for b in tree.names.module_bindings if isinstance(b.value, cst.Call)
            and tree.names.imports.canonical(dotted_name(b.value.func) or "") == "typer.Typer"}
    found: set[int] = set()
    for function in tree.all_functions():
        for decorator in function.decorators:
            call = decorator.decorator
            func = call.func if isinstance(call, cst.Call) else call
            if isinstance(func, cst.Attribute) and fold(tree.module.code_for_node(func.value)) in apps \
                    and func.attr.value in ("command", "callback"):
                found.add(id(function))
    for call in tree.all_calls():
        if tree.names.imports.canonical(dotted_name(call.func) or "") == "typer.run":
            target = argument(call, 0)
            name = dotted_name(target) if target is not None else None
            found.update(id(f) for f in tree.functions(name or "") if name)
    return found
