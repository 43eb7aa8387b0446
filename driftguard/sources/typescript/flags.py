"""The ``flags`` selector: the command-line options a program defines with commander,
cac or yargs.

An option is a call of a method ``option`` or ``requiredOption`` whose first
argument is the flags text, a ``new Option(flags, ...)``, or a key of the
object given to ``.options({...})`` (yargs). Its name is the first long name
of the flags text without dashes (``'-p, --port <number>'`` is ``port``), a
negated ``--no-color`` is ``color``, a text with only a short name gives it
(``-v`` is ``v``), and a text without dashes is the name as written (yargs'
``.option('port', {...})``). A flags text that is no constant is left out and
listed by ``skipped``.

The default, with ``defaults: true``, is: the ``default`` property of an object
argument after the flags (cac's ``{ default: 5173 }``, yargs' options
object); else commander's third argument, or its fourth when the third is a
parser function (``.option('-n <n>', 'count', parseInt, 3)``); for ``new
Option(...)``, the argument of a ``.default(v)`` chained on it. A default is
evaluated like a constant; an option without one, or whose default has no
value, maps to ``""`` and is listed by ``skipped``. A default written in the
description ("(default: 4096)") is text, not read. A name defined twice keeps
its first default.

``within: F`` reads the options defined inside function or method ``F``; when
the file has no such function, ``F`` names a command, and the options chained
after ``.command('F ...')`` are read (``vite build``'s options with ``within:
build``, the default command's with ``within: '[root]'``); failing that, ``F``
names the program, and the options chained on it outside any command are read
(cac's global options, ``cli.option(...)``, with ``within: cli``). Without
``within`` every option of the file is read: a chain at the top level of a
module needs none.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from driftguard.config.specs import Flags
from driftguard.model import Item, Value
from driftguard.sources.typescript.errors import check_hidden, check_path, not_found
from driftguard.sources.typescript.evaluate import Evaluator, Unevaluable, scope_consts
from driftguard.sources.typescript.gather import Read, reason, scopes_named
from driftguard.sources.typescript.literal import entries
from driftguard.sources.typescript.nodes import FUNCTIONS, callee_matches, field, named, short, text, unwrapped
from driftguard.sources.typescript.tree import TsTree

_METHODS = frozenset({"option", "requiredOption", "options"})
_SPLIT = re.compile(r"[\s,|]+")
_MENTION = re.compile(rb"\.\s*(?:option|requiredOption|options)\s*\(|\bOption\s*\(")

Option = tuple[Node, str, Node | None]  # (where the name is written, the name, the default's node)


def flags(tree: TsTree, sel: Flags) -> Read:
    what = "command-line options" + (f" of {sel.within}" if sel.within else "")
    options, notes = _options(tree, sel, what)
    items: list[Item] = []
    seen: dict[str, Item] = {}
    for at, name, default in options:
        if name in seen:
            continue
        if not sel.defaults:
            seen[name] = Item(Value.string(name), tree.loc(at))
        else:
            seen[name] = _entry(tree, sel, at, name, default, notes)
        items.append(seen[name])
    return items, notes


def _entry(tree: TsTree, sel: Flags, at: Node, name: str, default: Node | None, notes: list[str]) -> Item:
    if default is None:
        notes.append(f"line {tree.line(at)}: option {name} has no default; it maps to \"\"")
        return Item(Value.string(""), tree.loc(at), label=name)
    ev = Evaluator(tree, sel.unwrap, local=scope_consts(default))
    try:
        return Item(ev.value(default), tree.loc(default), label=name)
    except Unevaluable as exc:
        notes.append(f"line {tree.line(default)}: the default `{short(default, 40)}` of option {name} has no value "
                     f"({reason(exc, default)}); it maps to \"\"")
        return Item(Value.string(""), tree.loc(at), label=name)


def _options(tree: TsTree, sel: Flags, what: str) -> tuple[list[Option], list[str]]:
    calls = tree.nodes(tree.root, "call_expression", "new_expression")
    if sel.within:
        scopes = scopes_named(tree, sel.within)
        if scopes:
            check_path(tree, scopes, what)
            calls = [c for scope in scopes for c in tree.nodes(scope, "call_expression", "new_expression")]
        else:
            calls = [c for c in calls if command_of(c) == sel.within] or [
                c for c in calls if command_of(c) is None and chain_root(c) == sel.within]
            if not calls:
                raise not_found(tree, f"function, method, command or program {sel.within} (looked for its "
                                "options)", sel.within)
    out: list[Option] = []
    notes: list[str] = []
    ev = Evaluator(tree, sel.unwrap)
    defining = []
    for call in calls:
        if not _defines(call):
            continue
        check_path(tree, [call], what)
        defining.append(call)
        out += _defined(ev, call, notes, tree)
    if not sel.within:
        check_hidden(tree, _MENTION, defining, what)
    if not out and not notes:
        raise not_found(tree, what, "option")
    return out, notes


def _defines(call: Node) -> bool:
    """Whether ``call`` is shaped as an option's definition: ``x.option(...)``,
    ``x.requiredOption(...)``, ``x.options(...)`` or ``new Option(...)``, with arguments."""
    if not named(field(call, "arguments")):
        return False
    if call.type == "new_expression":
        callee = field(call, "constructor")
        return callee is not None and callee_matches(callee, "Option")
    callee = field(call, "function")
    return callee is not None and callee.type == "member_expression" and text(field(callee, "property")) in _METHODS


def _defined(ev: Evaluator, call: Node, notes: list[str], tree: TsTree) -> list[Option]:
    """The options ``call`` (shaped as a definition) defines."""
    args = named(field(call, "arguments"))
    if call.type == "new_expression":
        return _named(ev, args[0], _chained_default(call), notes, tree)
    first = unwrapped(args[0])
    callee = field(call, "function")
    if callee is not None and text(field(callee, "property")) == "options" and first.type == "object":
        out: list[Option] = []
        for entry in entries(first, lambda key: None):
            if entry.name is not None and entry.key is not None and entry.value is not None:
                out.append((entry.key, entry.name, _property(unwrapped(entry.value), "default")))
        return out
    return _named(ev, args[0], _default(args), notes, tree)


def _named(ev: Evaluator, flag: Node, default: Node | None, notes: list[str], tree: TsTree) -> list[Option]:
    try:
        written = ev.eval(flag)
    except Unevaluable as exc:
        notes.append(f"line {tree.line(flag)}: the option `{short(flag, 40)}` has no constant name "
                     f"({reason(exc, flag)}); left out")
        return []
    if not isinstance(written, str) or not written.strip():
        return []
    return [(flag, long_name(written), default)]


def long_name(written: str) -> str:
    """``port`` for ``'-p, --port <number>'``, ``color`` for ``--no-color``, ``v`` for ``-v``."""
    tokens = [t.split("=", 1)[0] for t in _SPLIT.split(written.strip()) if t.startswith("-")]
    long = next((t for t in tokens if t.startswith("--")), None)
    if long is not None:
        bare = long[2:]
        return bare[3:] if bare.startswith("no-") and len(bare) > 3 else bare
    if tokens:
        return tokens[0].lstrip("-")
    return written.strip().split()[0]


def _default(args: list[Node]) -> Node | None:
    """The default of ``.option(flags, ...)``: an object argument's ``default``, else
    commander's positional default."""
    for arg in args[1:]:
        literal = unwrapped(arg)
        if literal.type == "object":
            return _property(literal, "default")
    if len(args) >= 4:
        return args[3]
    if len(args) == 3 and unwrapped(args[2]).type not in FUNCTIONS:
        return args[2]
    return None


def _property(obj: Node, name: str) -> Node | None:
    if obj.type != "object":
        return None
    hit = [e.value for e in entries(obj, lambda key: None) if e.name == name and e.value is not None]
    return hit[-1] if hit else None


def _chained_default(node: Node) -> Node | None:
    """The argument of a ``.default(v)`` chained on ``node``."""
    while node.parent is not None and node.parent.type == "member_expression" and node.parent.parent is not None \
            and node.parent.parent.type == "call_expression":
        call = node.parent.parent
        if text(field(node.parent, "property")) == "default":
            args = named(field(call, "arguments"))
            return args[0] if args else None
        node = call
    return None


def chain_root(call: Node) -> str:
    """The name a chain of calls starts at: ``cli`` for ``cli.option(...).option(...)``."""
    node: Node | None = call
    while node is not None and node.type in ("call_expression", "member_expression"):
        node = field(node, "function") if node.type == "call_expression" else field(node, "object")
    return text(node) if node is not None and node.type == "identifier" else ""


def command_of(call: Node) -> str | None:
    """The command an option call is chained after: ``build`` for
    ``cli.command('build [root]').option(...)``."""
    node = field(call, "function")
    while node is not None and node.type == "member_expression":
        owner = field(node, "object")
        if owner is None or owner.type != "call_expression":
            return None
        callee = field(owner, "function")
        if callee is not None and callee.type == "member_expression" and text(field(callee, "property")) == "command":
            args = named(field(owner, "arguments"))
            words = _SPLIT.split(text(args[0]).strip("'\"`").strip()) if args else []
            return words[0] if words else None
        node = callee
    return None
