"""Compare facts with claims and word each finding, one wording per kind."""

from __future__ import annotations

from typing import Iterable

from driftguard.config.loader import Rule
from driftguard.model import (
    FINDING_KINDS,
    Claim,
    DriftguardError,
    Fact,
    Finding,
    Item,
    Location,
    Value,
)
from driftguard.config.specs import MentionsClaim, PhraseClaim, SectionClaim, TableClaim


def describe_claim(rule: Rule) -> str:
    """How a message names where the document states the claim."""
    form = rule.claim
    if isinstance(form, TableClaim):
        column = f", column '{form.column}'" if form.column else ""
        return f"the '{form.table}' table{column}"
    if isinstance(form, SectionClaim):
        return f"section '{form.section}'"
    if isinstance(form, PhraseClaim):
        return f"the sentence '{form.template}'"
    if isinstance(form, MentionsClaim):
        return f"section '{form.section}'" if form.section else "the document"
    return "the document"  # pragma: no cover


def compare_set(rule: Rule, facts: list[Fact], claim: Claim) -> list[Finding]:
    code = _by_key(item for fact in facts for item in fact.items)
    doc = _by_key(claim.items)
    where = describe_claim(rule)
    names = ", ".join(rule.facts)
    findings = []
    if rule.direction.value in ("both", "code-to-doc"):
        for key, item in code.items():
            if key not in doc:
                findings.append(Finding(
                    FINDING_KINDS["missing-in-doc"], rule.id,
                    f"`{key}` is declared in code but missing from {where}",
                    value=key, doc=claim.location, source=item.location,
                ))
    if rule.direction.value in ("both", "doc-to-code"):
        anchor = facts[0].location if facts else None
        for key, item in doc.items():
            if key not in code:
                findings.append(Finding(
                    FINDING_KINDS["missing-in-code"], rule.id,
                    f"`{key}` is stated in {where} but not declared in code (facts: {names})",
                    value=key, doc=item.location, source=anchor,
                ))
    return findings


def _by_key(items: Iterable[Item]) -> dict[str, Item]:
    """Items by canonical value, the first of equal values kept."""
    out: dict[str, Item] = {}
    for item in items:
        out.setdefault(item.value.canonical, item)
    return out


def compare_scalar(rule: Rule, fact: Fact, claim: Claim) -> list[Finding]:
    return [f for item in claim.items if (f := _mismatch(rule, fact, item, describe_claim(rule)))]


def compare_rows(rule: Rule, facts: dict[str, Fact], claim: Claim) -> list[Finding]:
    assert isinstance(rule.claim, TableClaim)
    by_label = {item.label.casefold(): item for item in claim.items}
    findings = []
    for label, name in rule.claim.rows:
        item = by_label.get(label.casefold())
        if item is None:
            findings.append(Finding(
                FINDING_KINDS["claim-not-found"], rule.id,
                f"the document no longer states it: no row '{label}' in {describe_claim(rule)}",
                value=label, doc=claim.location, source=facts[name].location if name in facts else None,
            ))
        elif name in facts:
            found = _mismatch(rule, facts[name], item, f"row '{label}' of {describe_claim(rule)}")
            if found:
                findings.append(found)
    return findings


def _mismatch(rule: Rule, fact: Fact, item: Item, where: str) -> Finding | None:
    code_item = fact.items[0]
    stated, actual = item.value, code_item.value
    if stated.same(actual):
        return None
    return Finding(
        FINDING_KINDS["value-mismatch"], rule.id,
        f"{where} says '{stated.text or stated.canonical}' ({_code_form(stated)}) but the code has "
        f"`{actual.text or actual.canonical}` ({_code_form(actual)}){_advice(actual, stated)}",
        value=stated.text or stated.canonical, doc=item.location, source=code_item.location,
    )


def _code_form(value: Value) -> str:
    from driftguard.quantities import code_form

    return f"{value.kind.value} {code_form(value)}"


def _advice(actual: Value, stated: Value) -> str:
    """The code's value in the document's own words, where the kinds agree."""
    if actual.kind is not stated.kind or actual.kind.value == "string":
        return ""
    from driftguard.quantities import format_like

    try:
        return f"; the document should say '{format_like(actual, stated)}'"
    except ValueError:
        return ""


def error_finding(rule: Rule, exc: DriftguardError, fact: str | None = None) -> Finding:
    """A finding for a problem that kept the rule from being compared."""
    kind = FINDING_KINDS[exc.kind]
    loc = exc.location
    on_doc = loc is not None and loc.path == rule.doc and fact is None
    message = exc.message
    if fact is not None:
        message = f"fact '{fact}': {message}"
        if exc.kind == "fact-not-found":
            message += " (the source changed shape and this guard no longer reads it)"
    return Finding(
        kind, rule.id, message, value=fact,
        doc=loc if on_doc else Location(rule.doc),
        source=None if on_doc else loc,
    )
