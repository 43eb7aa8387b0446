"""``env``: the environment variables a Go file reads, by name.

A read is a call of ``os.Getenv``, ``os.LookupEnv`` or ``syscall.Getenv`` whose
argument is a literal or a constant of the file, and a call of one of these
the code routes through:

- a wrapper: a function of the same file that passes one of its parameters to a
  read (or to another wrapper), such as ``envOr(key, fallback string)`` or
  ``envBool(key string)``; each call names the variable by the argument in that
  parameter's place. When the wrapper also returns another of its parameters
  as is (``return fallback``), that argument is the variable's default;
- an injected reader: a call of a parameter typed ``func(string) string`` (or
  ``func(string) (string, bool)``) whose name holds ``env`` (``getenv``), the
  way code passes ``os.Getenv`` in for tests.

With ``defaults: true`` the fact is a map from name to that default, and to the
empty string where no read gives one: a default the code computes after a
plain ``os.Getenv`` is not read. A name read several ways maps to the first
default given; ``skipped`` lists a read whose name is not a literal and a
second, different default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tree_sitter import Node

from driftguard.config.specs import Env
from driftguard.model import FactNotFound, Item, Location, Value
from driftguard.sources.go.evaluate import named
from driftguard.sources.go.imports import names_of
from driftguard.sources.go.index import nodes_of, text
from driftguard.sources.go.syntax import Mentions, calling, check_hidden, check_path, not_found
from driftguard.sources.go.values import NoValue, local_value, short, value_or_note

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree

_READERS = (("os", "Getenv"), ("os", "LookupEnv"), ("syscall", "Getenv"))
_INJECTED = ("func(string) string", "func(string) (string, bool)")
NO_DEFAULT = Value.string("")


@dataclass(frozen=True)
class EnvRead:
    """One read: the argument naming the variable, the default's expression (None
    when the read gives none), the call, and what it calls."""

    name: Node
    default: Node | None
    call: Node
    via: str


@dataclass
class EnvFound:
    """What ``env`` read: the items, a note for each read left out or default set aside,
    and the read each item comes from, by name."""

    items: list[Item] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reads: dict[str, EnvRead] = field(default_factory=dict)


def env(tree: GoTree, sel: Env) -> list[Item]:
    found = read_env(tree, sel)
    if not found.items:
        raise FactNotFound("no environment variable read has a literal name: " + "; ".join(found.notes),
                           Location(tree.path))
    return found.items


def left_out(tree: GoTree, sel: Env) -> list[str]:
    return read_env(tree, sel).notes


def read_env(tree: GoTree, sel: Env) -> EnvFound:
    what = "environment variable read"
    reads, wrappers = env_reads(tree.root)
    word: Mentions = calling("Getenv", "LookupEnv", *wrappers)
    check_path(tree, [r.call for r in reads], what)
    check_hidden(tree, word, [r.call for r in reads], what)
    if not reads:
        raise not_found(tree, what + " (os.Getenv, os.LookupEnv)", word)
    found = EnvFound()
    items, notes = found.items, found.notes
    first: dict[str, tuple[int, Value, bool]] = {}  # name -> (item index, default, given)
    for read in reads:
        try:
            value = local_value(tree, read.name, what)
        except NoValue as exc:
            notes.append(f"line {tree.line(read.name)}: `{short(read.call)}` names no literal ({exc.reason}); "
                         "left out")
            continue
        if not isinstance(value.data, str) or not value.data:
            notes.append(f"line {tree.line(read.name)}: `{short(read.call)}` names no string; left out")
            continue
        name = value.data
        default = _default(tree, read, name, what, notes) if sel.defaults else None
        if not sel.defaults:
            item = Item(Value.string(name), tree.loc(read.name))
        elif default is not None and read.default is not None:
            item = Item(default, tree.loc(read.default), label=name)
        else:
            item = Item(NO_DEFAULT, tree.loc(read.name), label=name)
        if name not in first:
            first[name] = (len(items), item.value, default is not None)
            items.append(item)
            found.reads[name] = read
        elif default is not None and not first[name][2]:  # the first read that gives a default wins
            first[name] = (first[name][0], default, True)
            items[first[name][0]] = item
            found.reads[name] = read
        elif default is not None and not default.same(first[name][1]):
            notes.append(f"line {tree.line(read.default or read.name)}: {name} is read again with the default "
                         f"{default.canonical}; the first default, {first[name][1].canonical}, is kept")
    return found


def _default(tree: GoTree, read: EnvRead, name: str, what: str, notes: list[str]) -> Value | None:
    if read.default is None:
        return None
    return value_or_note(tree, read.default, what, notes, f"the default of {name}, `{short(read.default)}`,",
                         "no default known")


def env_reads(root: Node) -> tuple[list[EnvRead], dict[str, tuple[int, int | None]]]:
    """Every read of the file in source order, and its wrappers: name -> (position of
    the name, position of the default or None)."""
    readers = {f"{alias}.{fn}" for pkg, fn in _READERS for alias in names_of(root, pkg)}
    wrappers = _wrappers(root, readers)
    inside = [fn for fn in root.children if fn.type == "function_declaration"
              and text(fn.child_by_field_name("name")) in wrappers]
    injected = _injected(root)
    out = []
    for call in nodes_of(root, ("call_expression",)):
        if any(fn.start_byte <= call.start_byte < fn.end_byte for fn in inside):
            continue
        callee, args = text(call.child_by_field_name("function")), named(call.child_by_field_name("arguments"))
        if callee in readers or (callee in injected and _injected_here(call, callee)):
            if len(args) == 1:
                out.append(EnvRead(args[0], None, call, callee))
        elif callee in wrappers:
            at, default_at = wrappers[callee]
            if at < len(args):
                default = args[default_at] if default_at is not None and default_at < len(args) else None
                out.append(EnvRead(args[at], default, call, callee))
    return out, wrappers


def _wrappers(root: Node, readers: set[str]) -> dict[str, tuple[int, int | None]]:
    """The functions of the file that pass a parameter on to a read, found until none is added."""
    functions = [fn for fn in root.children if fn.type == "function_declaration"]
    found: dict[str, tuple[int, int | None]] = {}
    grew = True
    while grew:
        grew = False
        for fn in functions:
            name = text(fn.child_by_field_name("name"))
            if name in found:
                continue
            params = _params(fn)
            for call in nodes_of(fn, ("call_expression",)):
                callee = text(call.child_by_field_name("function"))
                args = named(call.child_by_field_name("arguments"))
                at = 0 if callee in readers else found[callee][0] if callee in found else None
                if at is not None and at < len(args) and args[at].type == "identifier" and text(args[at]) in params:
                    found[name] = (params.index(text(args[at])), _returned(fn, params, text(args[at])))
                    grew = True
                    break
    return found


def _params(fn: Node) -> list[str]:
    return [text(n) for p in named(fn.child_by_field_name("parameters")) for n in p.children_by_field_name("name")]


def _returned(fn: Node, params: list[str], key: str) -> int | None:
    """The position of the parameter (other than ``key``) that ``fn`` returns as is, if one."""
    for ret in nodes_of(fn, ("return_statement",)):
        exprs = [e for group in named(ret) for e in named(group)]
        if exprs and exprs[0].type == "identifier" and text(exprs[0]) in params and text(exprs[0]) != key:
            return params.index(text(exprs[0]))
    return None


def _injected(root: Node) -> set[str]:
    """Names of parameters typed as an environment reader."""
    names = set()
    for param in nodes_of(root, ("parameter_declaration",)):
        type_text = " ".join(text(param.child_by_field_name("type")).split())
        for name in (text(n) for n in param.children_by_field_name("name")):
            if type_text in _INJECTED and "env" in name.lower():
                names.add(name)
    return names


def _injected_here(call: Node, name: str) -> bool:
    """Whether ``name`` is a parameter of a function holding ``call``."""
    node = call.parent
    while node is not None:
        if node.type in ("function_declaration", "method_declaration", "func_literal"):
            params = node.child_by_field_name("parameters")
            if params is not None and any(text(n) == name for p in named(params)
                                          for n in p.children_by_field_name("name")):
                return True
        node = node.parent
    return False
