"""Read facts from TypeScript, TSX and JavaScript with tree-sitter.

``.ts``/``.mts``/``.cts`` are parsed as TypeScript, ``.tsx`` as TSX, and
``.js``/``.jsx``/``.mjs``/``.cjs`` as JavaScript (whose grammar includes JSX).
``extract`` reads every selector but ``string_method`` (TypeScript has no
``String()`` method convention) and ``query`` (read by the query reader); a
``pattern`` selector never reaches it.

Each selector lives in the module named for what it reads: ``keyed``
(``constant``, ``map_keys``, ``list``), ``sets`` (``constants``, ``fields``,
``classes``), ``calls``, ``functions`` (``default``, ``cases``), ``flags``,
``env``, ``symbols``; ``evaluate`` folds the values they share and ``errors``
says what a file the grammar cannot fully read yields (a fact is read from
the parts that parse; one whose target holds an error fails with
``ParseError`` naming the file and line). ``skipped`` lists what a set
selector saw and left out; ``declaration`` says where the file declares the
set, for a ``missing-in-code`` finding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tree_sitter import Node

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
    Selector,
    Symbols,
)
from driftguard.model import DriftguardError, Item, Location
from driftguard.sources.base import unsupported
from driftguard.sources.typescript import calls, env, flags, functions, keyed, sets
from driftguard.sources.typescript.evaluate import Evaluator
from driftguard.sources.typescript.gather import Read, finish, scopes_named
from driftguard.sources.typescript.symbols import symbols
from driftguard.sources.typescript.tree import TsTree, parse

__all__ = ["TsTree", "declaration", "extract", "parse", "skipped"]

SETS: dict[type, Callable[[TsTree, Any], Read]] = {
    Constants: sets.constants,
    MapKeys: keyed.map_keys,
    ListOf: keyed.list_of,
    Calls: calls.calls,
    Fields: sets.fields,
    Classes: sets.classes,
    Cases: functions.cases,
    Flags: flags.flags,
    Env: env.env,
}
SCALARS: dict[type, Callable[[TsTree, Any], list[Item]]] = {
    Constant: keyed.constant,
    Call: calls.call,
    Default: functions.default,
}


def extract(tree: TsTree, selector: Selector, path: str) -> Sequence[Item]:
    """The items ``selector`` reads from ``tree``."""
    if isinstance(selector, Symbols):
        return symbols(tree, path)
    scalar = SCALARS.get(type(selector))
    if scalar is not None:
        return scalar(tree, selector)
    handler = SETS.get(type(selector))
    if handler is None:
        reads = [key for key, kind in SELECTOR_KEYS.items() if kind in SETS or kind in SCALARS or kind is Symbols]
        raise unsupported("TypeScript", selector, path, reads)
    read = handler(tree, selector)
    if selector.map:  # one entry a name, already
        return finish(read, describe(selector), Location(path), unique=False)
    return finish(read, describe(selector), Location(path))


def skipped(tree: TsTree, selector: Selector, path: str) -> list[str]:
    """What ``extract`` saw and left out, one short note each; nothing where the
    selector leaves nothing out or cannot be read."""
    handler = SETS.get(type(selector))
    if handler is None:
        return []
    try:
        return handler(tree, selector)[1]
    except DriftguardError:
        return []


def describe(selector: Selector) -> str:
    """What a set selector reads, for messages."""
    if isinstance(selector, Constants):
        return f"{selector.type}" if selector.type else f"the consts named /{selector.name}/"
    if isinstance(selector, (MapKeys, ListOf)):
        return f"the literal bound to {selector.name}"
    if isinstance(selector, Calls):
        return calls.describe(selector)
    if isinstance(selector, (Fields, Classes)):
        return f"{selector_name(selector)}"
    if isinstance(selector, Cases):
        return f"the switch in {selector.within}"
    return "the file's " + ("command-line options" if isinstance(selector, Flags) else "environment reads")


def selector_name(selector: Fields | Classes) -> str:
    return f"type {selector.type}" if isinstance(selector, Fields) else f"the classes extending {selector.base}"


def declaration(tree: TsTree, selector: Selector, path: str) -> tuple[Location, str] | None:
    """Where the file declares the set ``selector`` reads (``enum Mode``, ``interface
    Options``, ``const DEFAULTS``), or None."""
    try:
        found = _declared(tree, selector)
    except DriftguardError:
        return None
    if found is None:
        return None
    node, label = found
    return tree.loc(node), label


def _declared(tree: TsTree, selector: Selector) -> tuple[Node, str] | None:
    index = tree.index
    if isinstance(selector, (Constants, Fields)) and selector.type:
        name = selector.type
        for kind, word in (("enums", "enum"), ("interfaces", "interface"), ("aliases", "type"),
                           ("classes", "class")):
            nodes = getattr(index, kind).get(name)
            if nodes:
                return nodes[0], f"{word} {name}"
        binding = index.const(name)
        return (binding.statement, f"const {name}") if binding is not None else None
    if isinstance(selector, (MapKeys, ListOf)):
        name, keys = keyed.written(selector.name)
        holder, _, reached = keyed.bound(tree, Evaluator(tree), name, keys, selector.within)
        inside = f" in {selector.within}" if selector.within else ""
        return holder, f"{reached}{inside}"
    if isinstance(selector, Classes):
        nodes = index.classes.get(selector.base.rsplit(".", 1)[-1])
        return (nodes[0], f"class {selector.base}") if nodes else None
    within = selector.within if isinstance(selector, (Calls, Cases, Flags)) else None
    if within:
        scopes = scopes_named(tree, within)
        return (scopes[0], within) if scopes else None
    return None
