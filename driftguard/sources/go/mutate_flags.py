"""Selftest mutations of the flags and environment variables a Go file reads.

A new flag is a copy of the last definition the fact read, in its library's
style, with a new name (in the names' style: ``driftguard-selftest`` among
dashed names) and, for a pflag ``P`` method, no shorthand: a statement after
its statement (``_ =`` where it was assigned), or an element after it in a
urfave ``Flags: []cli.Flag{...}`` list. A new environment read is the last read
copied with a new name (``DRIFTGUARD_SELFTEST``), as a statement before the
statement holding it. A changed default is the default of the entry the fact
names (its label) bumped: a number + 1, a bool flipped, a string replaced,
following a constant to its definition.
"""

from __future__ import annotations

from tree_sitter import Node

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Env, Flags
from driftguard.model import Fact
from driftguard.sources.go.editing import STRINGS, GoSource, bump, place_copy, quoted
from driftguard.sources.go.env import EnvRead, read_env
from driftguard.sources.go.flag_shapes import FlagDef
from driftguard.sources.go.flags import read_flags
from driftguard.sources.go.reader import parse
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit, NotApplicable


def add_flag(text_: str, spec: FactSpec, sel: Flags) -> Edit:
    go = GoSource(text_)
    read = read_flags(parse(spec.file, text_), sel)
    if not read.defs:
        raise CannotApply(f"{spec.file} defines no flag the fact reads")
    flag = max(read.defs.values(), key=lambda d: d.site.start_byte)
    name = _new_name(list(read.defs))
    parts = [(flag.name, _literal(flag.name, name))]
    if flag.shorthand is not None:
        parts.append((flag.shorthand, '""'))
    site = flag.site.parent if flag.site.parent is not None and flag.site.parent.type == "unary_expression" \
        else flag.site
    copy = _replaced(go, site, parts)
    return place_copy(go, site, copy, f"added the flag --{name} (`{_first_line(copy)}`)", (name,))


def add_env(text_: str, spec: FactSpec, sel: Env) -> Edit:
    go = GoSource(text_)
    found = read_env(parse(spec.file, text_), sel)
    if not found.reads:
        raise CannotApply(f"{spec.file} reads no environment variable the fact reads")
    last = max(found.reads.values(), key=lambda r: r.call.start_byte)
    name = next(n for n in (f"{SELFTEST.upper()}{i}" for i in ("", *range(2, 100))) if n not in found.reads)
    literal = quoted(last.name if last.name.type in STRINGS else None, name)
    return _before_statement(go, last, _replaced(go, last.call, [(last.name, literal)]), name)


def change_default(text_: str, spec: FactSpec, fact: Fact) -> Edit:
    """The default of the entry ``fact.items[0]`` names (its label) changed."""
    go = GoSource(text_)
    label = fact.items[0].label if fact.items else ""
    default = _default_of(go, spec, label, text_)
    if default is None:
        raise NotApplicable(f"the code gives no default for `{label}` to change")
    return bump(go, default, set())


def _default_of(go: GoSource, spec: FactSpec, label: str, text_: str) -> Node | None:
    sel = spec.selector
    if isinstance(sel, Flags):
        found: FlagDef | None = read_flags(parse(spec.file, text_), sel).defs.get(label)
        if found is None:
            raise CannotApply(f"no flag --{label} in {spec.file}")
        return found.default  # of another parse of the same text: its offsets hold in ``go``
    read = read_env(parse(spec.file, text_), sel).reads.get(label) if isinstance(sel, Env) else None
    if read is None:
        raise CannotApply(f"no read of {label} in {spec.file}")
    return read.default


def _new_name(taken: list[str]) -> str:
    dashed = any("-" in t or "." in t for t in taken) and not any("_" in t for t in taken)
    base = SELFTEST.replace("_", "-") if dashed else SELFTEST
    return next(n for n in (f"{base}{i}" for i in ("", *range(2, 100))) if n not in taken)


def _literal(like: Node, value: str) -> str:
    return quoted(like if like.type in STRINGS else None, value)


def _replaced(go: GoSource, expr: Node, parts: list[tuple[Node, str]]) -> str:
    """The source of ``expr`` with each part (a node inside it) replaced."""
    out = go.src[expr.start_byte:expr.end_byte]
    for node, new in sorted(parts, key=lambda p: -p[0].start_byte):
        a, b = node.start_byte - expr.start_byte, node.end_byte - expr.start_byte
        out = out[:a] + new.encode() + out[b:]
    return out.decode("utf-8")


def _first_line(code: str) -> str:
    line = code.splitlines()[0] if code else ""
    return line if len(line) <= 80 else line[:77] + "..."


def _before_statement(go: GoSource, read: EnvRead, copy: str, name: str) -> Edit:
    """``copy`` as a statement of its own just before the statement holding ``read``
    (after the declaration, as ``var _ =``, at the top level)."""
    node = read.call
    while node.parent is not None and node.parent.type not in ("statement_list", "block", "source_file"):
        node = node.parent
    lead = "_, _ = " if read.via.endswith("LookupEnv") else "_ = "
    what = f"added the read of {name} (`{copy}`)"
    if node.parent is None or node.parent.type == "source_file":
        at = go.after_line(node.end_byte)
        return go.edit(at, at, f"var {lead}{copy}{go.nl}", what, (name,))
    indent = go.indent(node)
    if indent is None:
        raise CannotApply(f"the statement at line {go.line(node.start_byte)} does not start its line")
    at = go.line_start(node.start_byte)
    return go.edit(at, at, f"{indent}{lead}{copy}{go.nl}", what, (name,))
