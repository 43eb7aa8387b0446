"""A proposal before it has names: what the matchers produce and ``naming`` finishes."""

from __future__ import annotations

from dataclasses import dataclass, field

from driftguard.config.specs import Form
from driftguard.discover.model import CodeFact, CodeScalar, CodeSet

PROPOSE_AT = 0.5
"""Proposals below this confidence are not kept."""


@dataclass
class Draft:
    claim: Form  # a labelled form names its row facts ``#0``, ``#1``... until ``name_drafts``
    subject: str  # the words a rule id is made of, when not the first fact's name
    doc: str
    line: int
    facts: list[CodeFact]
    confidence: float
    evidence: list[str]
    direction: str | None = None
    rows: list[tuple[str, CodeScalar]] = field(default_factory=list)
    overlap: tuple[str, ...] = ()
    doc_only: tuple[str, ...] = ()
    code_only: tuple[str, ...] = ()
    basis: str = ""
    case_insensitive: bool = False
    entry: str | None = None  # the entry of a map fact a scalar claim states
    ignore: tuple[str, ...] = ()  # members left out on both sides: a CLI library's own ``-h, --help``
    template: str = ""  # the sentence template a scalar draft reads by: a copy on another page may share it

    @property
    def claim_key(self) -> tuple[object, ...]:
        """What the rule reads from the document; no two proposals share one."""
        return (self.doc, self.line, self.claim.renamed({fact: "" for _, fact in self.claim.row_facts}),
                self.entry)


def row_placeholders(labels: list[str]) -> tuple[tuple[str, str], ...]:
    """The rows of a labelled draft before its facts have names: label -> ``#i``."""
    return tuple((label, f"#{i}") for i, label in enumerate(labels))


def describe_fact(fact: CodeFact) -> str:
    """``SessionState consts in fsm.go:12`` and the like, for evidence comments."""
    where = f"{fact.file}:{fact.line}"
    if isinstance(fact, CodeScalar):
        return f"{fact.name} = {fact.value.text or fact.value.canonical} ({fact.value.canonical}) at {where}"
    return f"{what_set(fact)} at {where}"


def what_set(fact: CodeSet) -> str:
    """What a set candidate reads: ``cases of State.String()``, ``keys of routes``."""
    return {
        "type": f"consts of type {fact.label}",
        "enum": f"members of enum {fact.label}",
        "string_method": f"cases of {fact.label}.String()",
        "prefix": f"consts named {fact.label}*",
        "suffix": f"consts named *{fact.label}",
        "map_keys": f"keys of {fact.label}",
        "flags": f"flags of {fact.file}",
        "env": f"environment variables {fact.file} reads",
        "fields": f"fields of {fact.label}",
    }.get(fact.origin, fact.label)


def short_list(values: tuple[str, ...] | list[str], limit: int = 8) -> str:
    shown = ", ".join(values[:limit])
    more = len(values) - limit
    return shown + (f", ... (+{more})" if more > 0 else "") if values else "none"
