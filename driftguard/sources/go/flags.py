"""``flags``: the command-line flags a Go file defines (``flag_shapes`` finds them).

Without ``defaults`` the fact is the set of long names, each at its name's
place. With ``defaults: true`` it is a map: one item per flag, labelled with
its name, whose value is its default as the evaluator reads it (kingpin's
``Default("4")`` is the string "4", pflag's ``IntVar(&n, "n", 4, "")`` the
number 4, ``5*time.Second`` a duration), at the default's place. A flag whose
definition gives no default (kingpin without ``.Default``, ``Var``, ``Count``)
maps to the empty string, as does one whose default is not a literal nor a
constant of the file; ``skipped`` lists the latter.

Left out, and listed by ``skipped``: a flag whose name is not a literal or a
constant of the file, and a flag hidden from help (it is absent from generated
documentation). A name defined twice is taken once, the first time; with
defaults ``skipped`` lists the second when its default differs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from driftguard.config.specs import Flags
from driftguard.model import FactNotFound, Item, Location, Value
from driftguard.sources.go.calls import in_scope
from driftguard.sources.go.flag_shapes import FlagDef, definitions, hidden_names
from driftguard.sources.go.syntax import check_hidden, check_path, not_found
from driftguard.sources.go.values import NoValue, local_value, short, value_or_note

if TYPE_CHECKING:
    from driftguard.sources.go.reader import GoTree

NO_DEFAULT = Value.string("")
"""What a flag maps to when no default is known."""

_WORDS = re.compile(rb"\w*Flags?\b|\b(?:Bool|U?Int|Float|String|Duration|Var|Func|BoolFunc|TextVar|Count|IP|Bytes)\w*"
                    rb"\s*\(")


@dataclass
class FlagRead:
    """What ``flags`` read: the items, and a note for each flag left out or without a known default."""

    items: list[Item] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    defs: dict[str, FlagDef] = field(default_factory=dict)  # name -> the definition taken


def flags(tree: GoTree, sel: Flags) -> list[Item]:
    read = read_flags(tree, sel)
    if not read.items:
        raise FactNotFound(f"no {describe(sel)} has a literal name shown in help: " + "; ".join(read.notes),
                           Location(tree.path))
    return read.items


def left_out(tree: GoTree, sel: Flags) -> list[str]:
    return read_flags(tree, sel).notes


def describe(sel: Flags) -> str:
    return "command-line flag definition" + (f" within {sel.within}" if sel.within else "")


def mentions(text: bytes) -> bool:
    """Whether a text may define a flag: it names a flag type, a flag set or calls a flag method."""
    return _WORDS.search(text) is not None


def read_flags(tree: GoTree, sel: Flags) -> FlagRead:
    """Every flag ``sel`` reads, checked for syntax errors on its path."""
    what = describe(sel)
    scopes = in_scope(tree, sel.within, "command-line flags")
    defs = definitions(tree.root, scopes)
    check_path(tree, [d.site for d in defs], what)
    check_hidden(tree, mentions, [d.site for d in defs], what, scopes)
    if not defs and sel.within:
        raise FactNotFound(f"no command-line flag definition within {sel.within}", tree.loc(scopes[0]))
    if not defs:
        raise not_found(tree, what + " (flag, pflag or cobra, kingpin, urfave/cli)", mentions)
    hidden = set()
    for node in hidden_names(tree.root):
        try:
            hidden.add(str(local_value(tree, node, what).data))
        except NoValue:
            continue
    read = FlagRead()
    first: dict[str, Value] = {}
    for flag in defs:
        name = _name(tree, flag, what, read.notes)
        if name is None:
            continue
        how = flag.hidden or ("`MarkHidden`" if name in hidden else "")
        if how:
            read.notes.append(f"line {tree.line(flag.name)}: --{name} is hidden from help ({how}); left out")
            continue
        value = _default(tree, flag, name, what, read.notes) if sel.defaults else Value.string(name)
        if name in first:
            if sel.defaults and not value.same(first[name]):
                read.notes.append(f"line {tree.line(flag.name)}: --{name} is defined again, with the default "
                                  f"{value.canonical or '(none)'}; the first (line "
                                  f"{tree.line(read.defs[name].name)}) is kept")
            continue
        first[name], read.defs[name] = value, flag
        at = flag.default if sel.defaults and flag.default is not None else flag.name
        read.items.append(Item(value, tree.loc(at), label=name if sel.defaults else ""))
    return read


def _name(tree: GoTree, flag: FlagDef, what: str, notes: list[str]) -> str | None:
    try:
        value = local_value(tree, flag.name, what)
    except NoValue as exc:
        notes.append(f"line {tree.line(flag.name)}: a flag named by `{short(flag.name)}`, not a literal "
                     f"({exc.reason}); left out")
        return None
    name = str(value.data)
    if flag.library == "urfave":  # v1 writes aliases in the name: "config, c"
        name = name.split(",")[0].strip()
    if not isinstance(value.data, str) or not name:
        notes.append(f"line {tree.line(flag.name)}: a flag named by `{short(flag.name)}`, not a string; left out")
        return None
    return name.lstrip("-")


def _default(tree: GoTree, flag: FlagDef, name: str, what: str, notes: list[str]) -> Value:
    if flag.several:
        notes.append(f"line {tree.line(flag.site)}: --{name} has several defaults or a spread; no default known")
        return NO_DEFAULT
    if flag.default is None:
        return NO_DEFAULT
    value = value_or_note(tree, flag.default, what, notes, f"the default of --{name}, `{short(flag.default)}`,",
                          "no default known")
    return NO_DEFAULT if value is None else value
