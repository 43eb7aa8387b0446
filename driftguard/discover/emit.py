"""Write a discovery as a driftguard config: YAML whose comments carry the evidence.

The output is written by hand (not dumped) so that each fact and rule sits
under its own comments: what the fact holds and where, and for each rule its
confidence, the evidence it rests on, and what proposed it. Rules come best
first. Suggestions (rules that pass but that selftest cannot show to fail) follow
as commented-out YAML, each with the facts it needs and the reason. Scalars are
quoted only when YAML would otherwise read them differently.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from driftguard.config.specs import (
    Call,
    Constant,
    Constants,
    Default,
    Env,
    Fields,
    Flags,
    ListOf,
    MapKeys,
    StringMethod,
)
from driftguard.discover.draft import describe_fact, short_list
from driftguard.discover.model import CodeScalar, CodeSet, Discovery, FactRef, Proposal

SUGGESTIONS_SHOWN = 5
"""Suggestions written out in full by a run with a limit; the rest are counted."""

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_ ./()+-]*")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain where safe, else single-quoted, else double-quoted with escapes."""
    if (_PLAIN.fullmatch(text) and text.lower() not in _RESERVED and text == text.strip()
            and " #" not in text and ": " not in text):
        return text
    if text and all(c.isprintable() for c in text):
        return "'" + text.replace("'", "''") + "'"
    return '"' + "".join(_escape(c) for c in text) + '"'


def _escape(c: str) -> str:
    """One character inside a YAML double-quoted scalar."""
    if c in '"\\':
        return "\\" + c
    if c.isprintable():
        return c
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def comment(text: str, indent: str = "") -> str:
    """``text`` as comment lines; characters YAML does not allow in a stream are replaced."""
    text = "".join(c if c.isprintable() or c in "\n\t" else "\ufffd" for c in text)
    lines = [" ".join(part.split()) for part in text.splitlines()] or [""]
    return "\n".join(f"{indent}# {line}".rstrip() for line in lines)


def confidence_word(confidence: float) -> str:
    return "high" if confidence >= 0.85 else "medium" if confidence >= 0.65 else "low"


def render_config(discovery: Discovery) -> str:
    proposals = discovery.proposals
    stats = discovery.stats
    out = [
        comment("driftguard config proposed by `driftguard discover`."),
        comment(f"{len(proposals)} rules from {stats.files} files scanned, best first"
                + ("; every one passes on this tree and selftest showed it can fail." if discovery.proved else ".")
                + " Review each one before relying on it."),
        comment("Paths are relative to the repository root: place this file there (or set `root:`)."),
        "version: 1",
        "",
    ]
    out += _facts(proposals, "")
    out.append("")
    if proposals:
        out.append("rules:")
        for p in proposals:
            out += _rule(p)
    else:
        out.append("rules: []")
    if discovery.more:
        out += ["", comment(f"{discovery.more} more candidates below these were not shown; "
                            "`driftguard discover --all` proves and lists every one.")]
    out += _suggestions(discovery)
    if discovery.near_misses:
        out += ["", comment("Not proposed: overlaps no rule could pass on the tree as it stands (possible drift):")]
        for miss in discovery.near_misses:
            where = f"'{miss.claim.table.title}'" if miss.claim.table else f"'{miss.claim.section}'"
            out.append(comment(
                f"  {miss.claim.doc}:{miss.claim.line} {miss.claim.kind} {where} vs {describe_fact(miss.fact)}: "
                f"overlap {short_list(miss.overlap, 5)}; only in the document: {short_list(miss.doc_only, 5)}; "
                f"only in code: {short_list(miss.code_only, 5)}"))
    return "\n".join(out) + "\n"


def config_parts(discovery: Discovery) -> tuple[list[str], list[str]]:
    """The proposals as YAML lines: the entries under ``facts:`` and those under ``rules:``
    (for ``driftguard init``, which writes rules of its own beside them)."""
    facts = _facts(discovery.proposals, "")
    return facts[1:] if facts and facts[0] == "facts:" else [], [line for p in discovery.proposals
                                                                  for line in _rule(p)]


def _facts(proposals: tuple[Proposal, ...] | list[Proposal], indent: str) -> list[str]:
    facts: dict[str, FactRef] = {}
    for p in proposals:
        for ref in p.facts:
            facts.setdefault(ref.name, ref)
    if not facts:
        return [indent + "facts: {}"]
    lines = ["facts:"]
    for ref in sorted(facts.values(), key=lambda r: (r.fact.file, r.fact.line, r.name)):
        lines += _fact(ref)
    return [indent + line if indent else line for line in lines]


def _suggestions(discovery: Discovery) -> list[str]:
    """Commented-out rules selftest could not show to fail, with the facts each needs."""
    found = discovery.suggestions
    if not found:
        return []
    shown = found if discovery.limit is None else found[:SUGGESTIONS_SHOWN]
    out = ["", comment(f"Suggestions, not rules: {len(found)} that pass on this tree but that selftest cannot "
                       "show to fail (a rule that cannot fail guards nothing). Each would need a change first.")]
    for proposal, why in shown:
        out.append(comment(f"--- {proposal.id}: {why}"))
        block = _facts([proposal], "") + ["rules:"] + _rule(proposal)
        out += [f"# {line}".rstrip() for line in block]  # lines built by this module: indentation kept
    if len(shown) < len(found):
        out.append(comment(f"... and {len(found) - len(shown)} more; `driftguard discover --all` writes every one."))
    return out


def _fact(ref: FactRef) -> list[str]:
    fact = ref.fact
    if isinstance(fact, CodeScalar):
        about = describe_fact(fact)
    else:
        about = f"{describe_fact(fact)}: {len(fact.values)} values ({short_list(fact.values, 6)})"
    lines = [comment(about, "  "), f"  {scalar(ref.name)}:", f"    file: {scalar(fact.file)}"]
    return lines + [f"    {line}" for line in _selector(fact)]


def _selector(fact: CodeScalar | CodeSet) -> list[str]:
    """The fact's selector as the YAML lines ``driftguard.config`` reads back into it."""
    sel = fact.selector
    lines = _SELECTORS[type(sel)](sel)
    if sel.unwrap:
        lines.append("unwrap: [" + ", ".join(scalar(u) for u in sel.unwrap) + "]")
    return lines


def _constants(sel: Constants) -> list[str]:
    key, value = ("type", sel.type) if sel.type else ("name", sel.name)
    return [f"constants: {{{key}: {scalar(str(value))}}}"]


def _map_keys(sel: MapKeys) -> list[str]:
    if sel.resolve:
        return [f"map_keys: {{name: {scalar(sel.name)}, resolve: true}}"]
    return [f"map_keys: {scalar(sel.name)}"]


def _call(sel: Call) -> list[str]:
    inside = {"function": sel.function, **({"within": sel.within} if sel.within else {}),
              **({"where": {f"arg{i}": text for i, text in sel.where}} if sel.where else {}), "arg": sel.arg}
    return ["call: " + _mapping(inside)]


def _written(sel: Constant) -> str:
    """``NAME`` or ``NAME["key"][0]``: the constant and its key path, as a config writes it."""
    return sel.name + "".join(f'["{k}"]' if isinstance(k, str) and '"' not in k else f"[{k!r}]"
                              for k in sel.keys)


def _mapping(values: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{scalar(k)}: {_mapping(v) if isinstance(v, dict) else _flow(v)}"
                           for k, v in values.items()) + "}"


_SELECTORS: dict[type, Callable[[Any], list[str]]] = {
    Constant: lambda sel: [f"constant: {scalar(_written(sel))}"],
    Constants: _constants,
    StringMethod: lambda sel: [f"string_method: {scalar(sel.type)}"],
    MapKeys: _map_keys,
    Call: _call,
    Default: lambda sel: ["default: " + _mapping({"function": sel.function, "param": sel.param})],
    Flags: lambda sel: ["flags: " + _mapping({**({"within": sel.within} if sel.within else {}),
                                              **({"defaults": True} if sel.defaults else {})}) if sel.within
                        or sel.defaults else "flags: true"],
    Env: lambda sel: ["env: {defaults: true}" if sel.defaults else "env: true"],
    Fields: lambda sel: ["fields: " + _mapping({"type": sel.type, **({"tag": sel.tag} if sel.tag else {})})],
    ListOf: lambda sel: [f"list: {scalar(sel.name)}"],
}
"""How each selector discover proposes is written."""


def _rule(p: Proposal) -> list[str]:
    basis = f": {p.basis}" if p.basis else ""
    lines = [comment(f"confidence {p.confidence:.2f} ({confidence_word(p.confidence)}){basis}", "  ")]
    lines += [comment(e, "  ") for e in p.evidence]
    lines.append(f"  - id: {p.id}")
    body: list[str] = []
    if not p.claim.labelled:
        if len(p.facts) == 1:
            body.append(f"fact: {scalar(p.facts[0].name)}")
        else:
            body.append("facts: [" + ", ".join(scalar(r.name) for r in p.facts) + "]")
    body.append(f"doc: {doc_value(p)}")
    if p.entry is not None:
        body.append(f"entry: {scalar(p.entry)}")
    for key, value in p.claim.to_config().items():
        body += yaml_entry(key, value)
    if p.direction:
        body.append(f"direction: {p.direction}")
    if p.case_insensitive:
        body.append("case: insensitive")
    if p.ignore:
        body.append(f"ignore: {_flow(list(p.ignore))}")
    return lines + [f"    {line}" for line in body]


def doc_value(p: Proposal) -> str:
    """``doc:`` as YAML: the one document, a glob matching exactly its documents, or their list."""
    if len(p.documents) == 1:
        return scalar(p.doc)
    return scalar(p.doc_key) if p.doc_key else _flow(list(p.documents))


def yaml_entry(key: str, value: object) -> list[str]:
    """``key: value`` as YAML lines, for the values a claim form's ``to_config`` holds:
    text, booleans, numbers, lists of text (flow style) and mappings (a block)."""
    if isinstance(value, dict):
        return [f"{scalar(key)}:"] + [f"  {line}" for k, v in value.items() for line in yaml_entry(str(k), v)]
    return [f"{scalar(key)}: {_flow(value)}"]


def _flow(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return scalar(str(value))
