"""Compare facts with claims and word each finding, one wording per kind."""

from __future__ import annotations

from collections.abc import Iterable

from driftguard.config.loader import Rule
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


def ignored(member: str, ignore: tuple[str, ...]) -> bool:
    """Whether ``member`` is one of ``ignore`` (leading dashes aside: ``--help`` is ``help``)."""
    return bool(ignore) and (member in ignore or member.lstrip("-") in {i.lstrip("-") for i in ignore})


def member_of(item: Item, entry: bool = False) -> str:
    """What identifies ``item`` in a set: its key for a map entry, else its canonical value."""
    return item.label if entry else item.value.canonical


def compare_set(rule: Rule, facts: list[Fact], claim: Claim) -> list[Finding]:
    """Members missing on either side; with ``case: insensitive`` members compare case-folded.
    Members the rule's ``ignore`` names are left out on both sides."""
    fold = rule.case_insensitive
    code = _by_key((item for fact in facts for item in fact.items if not ignored(member_of(item), rule.ignore)),
                   fold)
    doc = _by_key((item for item in claim.items if not ignored(member_of(item), rule.ignore)), fold)
    where = describe_claim(rule)
    names = ", ".join(rule.facts)
    findings = []
    if rule.direction in (Direction.BOTH, Direction.CODE_TO_DOC):
        near = _by_key(claim.items, True)
        for key, item in code.items():
            if key not in doc:
                shown = item.value.canonical
                findings.append(Finding(
                    MISSING_IN_DOC, rule.id,
                    f"`{shown}` is declared in code but missing from {where}{_case_hint(shown, near, 'document')}",
                    value=shown, doc=claim.location, source=item.location,
                ))
    if rule.direction in (Direction.BOTH, Direction.DOC_TO_CODE):
        anchor = facts[0].location if facts else None
        near = _by_key((item for fact in facts for item in fact.items), True)
        for key, item in doc.items():
            if key not in code:
                shown = item.value.canonical
                findings.append(Finding(
                    MISSING_IN_CODE, rule.id,
                    f"`{shown}` is stated in {where} but not declared in code (facts: {names})"
                    f"{_case_hint(shown, near, 'code')}",
                    value=shown, doc=item.location, source=anchor,
                ))
    return findings


def _by_key(items: Iterable[Item], fold: bool = False) -> dict[str, Item]:
    """Items by canonical value (case-folded with ``fold``), the first of equal values kept."""
    out: dict[str, Item] = {}
    for item in items:
        key = item.value.canonical
        out.setdefault(key.casefold() if fold else key, item)
    return out


def _case_hint(shown: str, other: dict[str, Item], side: str) -> str:
    """Both spellings, where the other side holds the member in another case only."""
    twin = other.get(shown.casefold())
    if twin is None or twin.value.canonical == shown:
        return ""
    return (f"; the {side} has `{twin.value.canonical}`, which differs in case only "
            "(`case: insensitive` on the rule compares ignoring case)")


def compare_scalar(rule: Rule, fact: Fact, claim: Claim) -> list[Finding]:
    """Every occurrence of the claim against the fact's one value."""
    return [f for item in claim.items if (f := _mismatch(rule, fact, item, describe_claim(rule)))]


def compare_rows(rule: Rule, facts: dict[str, Fact], claim: Claim) -> list[Finding]:
    by_label = {item.label.casefold(): item for item in claim.items}  # labels always compare case-folded
    findings = []
    for label, name in rule.claim.row_facts:
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


def compare_entries(rule: Rule, facts: list[Fact], claim: Claim) -> list[Finding]:
    """A map fact against a table read as entries (key cell -> value cell): keys missing on
    either side, in the rule's direction, and each common key's value compared. Keys compare
    with leading dashes aside (``--port`` is the flag ``port``); an entry whose code value is
    empty (no default the reader could read) is compared by key only."""
    fold = rule.case_insensitive

    def key(label: str) -> str:
        bare = label.strip().lstrip("-")
        return bare.casefold() if fold else bare

    code = {key(i.label): i for fact in facts for i in fact.items if not ignored(i.label, rule.ignore)}
    doc = {key(i.label): i for i in claim.items if not ignored(i.label, rule.ignore)}
    where = describe_claim(rule)
    findings = []
    if rule.direction in (Direction.BOTH, Direction.CODE_TO_DOC):
        findings += [Finding(MISSING_IN_DOC, rule.id, f"`{i.label}` is declared in code but has no row in {where}",
                             value=i.label, doc=claim.location, source=i.location)
                     for k, i in code.items() if k not in doc]
    if rule.direction in (Direction.BOTH, Direction.DOC_TO_CODE):
        anchor = facts[0].location if facts else None
        findings += [Finding(MISSING_IN_CODE, rule.id, f"`{i.label}` has a row in {where} but is not declared in "
                             f"code (facts: {', '.join(rule.facts)})", value=i.label, doc=i.location, source=anchor)
                     for k, i in doc.items() if k not in code]
    for k, stated in doc.items():
        actual = code.get(k)
        if actual is not None and not (actual.value.kind is Kind.STRING and actual.value.data == ""):
            found = _differs(rule, actual, stated, f"row '{stated.label}' of {where}")
            if found:
                findings.append(found)
    return findings


def _mismatch(rule: Rule, fact: Fact, item: Item, where: str) -> Finding | None:
    return _differs(rule, fact.items[0], item, where)


def same_value(stated: Value, actual: Value) -> bool:
    """Equal in meaning, reading a string as a quantity where the other side is one
    (a flag's default ``"15d"`` against "15 days") and a stated string without its quotes."""
    if stated.same(actual):
        return True
    if stated.kind is Kind.STRING and actual.kind is Kind.STRING:
        text = str(stated.data)
        return len(text) > 1 and text[0] == text[-1] and text[0] in "\"'`" and text[1:-1] == actual.data
    if stated.kind is Kind.STRING or actual.kind is Kind.STRING:
        from driftguard.quantities import read_value

        read = read_value(str(stated.data)) if stated.kind is Kind.STRING else stated
        other = read_value(str(actual.data)) if actual.kind is Kind.STRING else actual
        return read.kind is not Kind.STRING and other.kind is not Kind.STRING and read.same(other)
    return False


def _differs(rule: Rule, code_item: Item, item: Item, where: str) -> Finding | None:
    stated, actual = item.value, code_item.value
    if same_value(stated, actual) or rule.case_insensitive and _same_folded(stated, actual):
        return None
    why = _kinds_differ(stated, actual) if stated.kind is not actual.kind else _advice(actual, stated)
    return Finding(
        VALUE_MISMATCH, rule.id,
        f"{where} says '{stated.text or stated.canonical}' ({_code_form(stated)}) but the code has "
        f"`{actual.text or actual.canonical}` ({_code_form(actual)}){why}",
        value=stated.text or stated.canonical, doc=item.location, source=code_item.location,
    )


def _same_folded(a: Value, b: Value) -> bool:
    return a.kind is b.kind is Kind.STRING and str(a.data).casefold() == str(b.data).casefold()


_KIND_NAMES = {Kind.NUMBER: "a bare number", Kind.DURATION: "a duration", Kind.BYTES: "a byte size",
               Kind.BOOL: "a boolean", Kind.STRING: "text"}
_UNIT_ADVICE = {Kind.DURATION: "seconds, minutes, ...", Kind.BYTES: "bytes"}


def _kinds_differ(stated: Value, actual: Value) -> str:
    """Why values of two kinds never match, and the fix where the code's number lacks a unit."""
    said = f"; {_KIND_NAMES[stated.kind]} cannot equal {_KIND_NAMES[actual.kind]}"
    if actual.kind is Kind.NUMBER and stated.kind in _UNIT_ADVICE:
        said += f" (if the code's number is in {_UNIT_ADVICE[stated.kind]}, give the fact `unit:`)"
    return said


def _code_form(value: Value) -> str:
    if value.kind is Kind.NUMBER and value.unit == "%":
        return f"percent {value.canonical}%"
    if value.kind is Kind.BYTES:
        return value.canonical
    return f"{value.kind.value} {value.canonical}"


def _advice(actual: Value, stated: Value) -> str:
    """The code's value in the document's own words, where the kinds agree."""
    if actual.kind is not stated.kind or actual.kind is Kind.STRING:
        return ""
    if looks_like_ratio(actual, stated):
        return (f"; the code's {actual.canonical} may be a ratio of {stated.canonical}%: "
                "give the fact `unit: ratio`")
    from driftguard.quantities import format_like

    try:
        return f"; the document should say '{format_like(actual, stated)}'"
    except ValueError:
        return ""


def looks_like_ratio(actual: Value, stated: Value) -> bool:
    """A fraction in code against a percent in the document: 0.9 against "90%"."""
    return (stated.unit == "%" and actual.unit != "%" and isinstance(actual.data, float)
            and 0 < abs(actual.data) <= 1 and not actual.data.is_integer())


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
