"""Compare facts with claims and word each finding, one wording per kind."""

from __future__ import annotations

from collections.abc import Iterable

from driftguard.config.loader import Rule
from driftguard.config.specs import TableClaim
from driftguard.model import (
    CLAIM_NOT_FOUND,
    FACT_NOT_FOUND,
    FINDING_KINDS,
    MISSING_IN_CODE,
    MISSING_IN_DOC,
    VALUE_MISMATCH,
    Claim,
    Direction,
    DriftguardError,
    Fact,
    Finding,
    Item,
    Kind,
    Location,
    Value,
)


def describe_claim(rule: Rule) -> str:
    """How a message names where the document states the claim."""
    return rule.claim.describe()


def compare_set(rule: Rule, facts: list[Fact], claim: Claim) -> list[Finding]:
    code = _by_key(item for fact in facts for item in fact.items)
    doc = _by_key(claim.items)
    where = describe_claim(rule)
    names = ", ".join(rule.facts)
    findings = []
    if rule.direction in (Direction.BOTH, Direction.CODE_TO_DOC):
        for key, item in code.items():
            if key not in doc:
                findings.append(Finding(
                    MISSING_IN_DOC, rule.id,
                    f"`{key}` is declared in code but missing from {where}",
                    value=key, doc=claim.location, source=item.location,
                ))
    if rule.direction in (Direction.BOTH, Direction.DOC_TO_CODE):
        anchor = facts[0].location if facts else None
        for key, item in doc.items():
            if key not in code:
                findings.append(Finding(
                    MISSING_IN_CODE, rule.id,
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
                CLAIM_NOT_FOUND, rule.id,
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
        VALUE_MISMATCH, rule.id,
        f"{where} says '{stated.text or stated.canonical}' ({_code_form(stated)}) but the code has "
        f"`{actual.text or actual.canonical}` ({_code_form(actual)}){_advice(actual, stated)}",
        value=stated.text or stated.canonical, doc=item.location, source=code_item.location,
    )


def _code_form(value: Value) -> str:
    return f"{value.kind.value} {value.canonical}"


def _advice(actual: Value, stated: Value) -> str:
    """The code's value in the document's own words, where the kinds agree."""
    if actual.kind is not stated.kind or actual.kind is Kind.STRING:
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
        if FINDING_KINDS[exc.kind] is FACT_NOT_FOUND:
            message += " (the source changed shape and this guard no longer reads it)"
    return Finding(
        kind, rule.id, message, value=fact,
        doc=loc if on_doc else Location(rule.doc),
        source=None if on_doc else loc,
    )
