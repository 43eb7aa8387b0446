"""Plan what ``driftguard fix`` would change: one ``Change`` per fixable finding.

The engine judges the rules; each value-mismatch on a phrase or a labelled
table row becomes a rewrite of exactly the stated quantity's span, and the
missing-in-doc findings of a set table claim become new rows, planned per table
for every rule that reads it (``driftguard.fix.rows``). Changes that overlap are
all dropped, with one reason naming the rules. Everything else is listed as
``Unfixed`` with the reason. Planning writes nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from driftguard import quantities
from driftguard.config.loader import Config, Rule
from driftguard.config.specs import Judging
from driftguard.fix.changes import Change, Unfixed
from driftguard.fix.edits import EditRefused, cell_problem, value_splice
from driftguard.fix.rows import grid_cell_problem, plan_rows
from driftguard.fix.snippets import snippet_changes
from driftguard.judging.compare import looks_like_ratio, same_value
from driftguard.judging.engine import Engine
from driftguard.judging.result import Result, RuleResult
from driftguard.model import (
    MISSING_IN_CODE,
    MISSING_IN_DOC,
    VALUE_MISMATCH,
    Claim,
    ConfigError,
    DriftguardError,
    Fact,
    Finding,
    Item,
    Kind,
    Location,
    Value,
)

MAY_BE_RIGHT = "not fixed (the document may be right)"


@dataclass(frozen=True)
class DocPlan:
    """The changes to one document, the text they apply to (as read, without a BOM),
    and every rule that reads the document, as judged before the changes."""

    path: str
    text: str
    changes: tuple[Change, ...]
    before: tuple[RuleResult, ...]


@dataclass(frozen=True)
class FixPlan:
    config: Config
    result: Result
    docs: tuple[DocPlan, ...]
    unfixed: tuple[Unfixed, ...]


def plan_fixes(config: Config, rules: Sequence[str] | None = None) -> FixPlan:
    """Judge ``rules`` (ids; default all) and plan a change for every fixable finding."""
    chosen = _select(config, rules)
    engine = Engine(config)
    result = engine.run(chosen)
    changes: dict[str, list[Change]] = {}
    wanted: dict[str, list[tuple[RuleResult, list[Finding]]]] = {}  # missing rows, by document
    unfixed: list[Unfixed] = []
    for judged in result.rules:
        made, left, missing = _rule_changes(engine, judged)
        changes.setdefault(judged.rule.doc, []).extend(made)
        unfixed.extend(left)
        if missing:
            wanted.setdefault(judged.rule.doc, []).append((judged, missing))
    docs = []
    for path, made in changes.items():
        if not made and path not in wanted:
            continue
        readers = tuple(engine.judge(rule) for rule in config.rules if rule.doc == path)
        if path in wanted:
            got, left = _rows(engine, path, wanted[path], readers)
            made = made + got
            unfixed.extend(left)
        kept, clashes = _without_clashes(made)
        unfixed.extend(clashes)
        if kept:
            docs.append(DocPlan(path, engine.workspace.read_text(path), tuple(kept), readers))
    return FixPlan(config, result, tuple(docs), tuple(unfixed))


def _rows(engine: Engine, path: str, wanted: list[tuple[RuleResult, list[Finding]]],
          readers: tuple[RuleResult, ...]) -> tuple[list[Change], list[Unfixed]]:
    try:
        doc = engine.document(path)
    except DriftguardError as exc:
        return [], [Unfixed(f, f"not fixable: {exc.message}") for _, missing in wanted for f in missing]
    return plan_rows(path, engine.workspace.read_text(path), doc, wanted, readers)


def _select(config: Config, ids: Sequence[str] | None) -> tuple[Rule, ...]:
    if not ids:
        return config.rules
    known = {rule.id: rule for rule in config.rules}
    for rule_id in ids:
        if rule_id not in known:
            close = difflib.get_close_matches(rule_id, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"no rule '{rule_id}' in the config{hint}", Location(config.display_path))
    return tuple(known[i] for i in dict.fromkeys(ids))


def _rule_changes(engine: Engine, judged: RuleResult) -> tuple[list[Change], list[Unfixed], list[Finding]]:
    """The value changes of one rule, what it leaves unfixed, and its findings that want new rows."""
    rule, claim = judged.rule, judged.claim
    mismatches = [f for f in judged.findings if f.kind is VALUE_MISMATCH]
    missing = [f for f in judged.findings if f.kind is MISSING_IN_DOC]
    left = [Unfixed(f, _reason(f)) for f in judged.findings if f not in mismatches and f not in missing]
    made: list[Change] = []
    if claim is None:
        return made, left + [Unfixed(f, "not fixable: the claim could not be read") for f in mismatches + missing], []
    if mismatches:
        got, bad = _value_changes(engine, judged, claim, mismatches)
        made += got
        left += bad
    if missing and not rule.claim.adds_rows:
        left += [Unfixed(f, f"not fixable: fix adds no member to a `{rule.claim.key}` claim (only table rows)")
                 for f in missing]
        missing = []
    return made, left, missing


def _reason(finding: Finding) -> str:
    if finding.kind is MISSING_IN_CODE:
        return MAY_BE_RIGHT
    if finding.is_error:
        return "not fixable: the rule could not be judged"
    return f"not fixable: driftguard does not repair {finding.kind.kind} findings"


# -- values -------------------------------------------------------------------


def _value_changes(engine: Engine, judged: RuleResult, claim: Claim,
                   findings: list[Finding]) -> tuple[list[Change], list[Unfixed]]:
    rule = judged.rule
    if rule.claim.judging is Judging.SNIPPETS:
        return snippet_changes(engine.workspace.read_text(rule.doc), judged, claim, findings)
    if not rule.claim.rewrites_values:
        return [], [Unfixed(f, f"not fixable: fix does not rewrite the values of a `{rule.claim.key}` claim")
                    for f in findings]
    stale = _stale_items(rule, claim, {fact.name: fact for fact in judged.facts})
    paired = _pair(findings, stale)
    if paired is None:
        return [], [Unfixed(f, "not fixable: cannot tell which stated value the finding is about")
                    for f in findings]
    text = engine.workspace.read_text(rule.doc)
    made, left = [], []
    for finding, (item, code) in zip(findings, paired):
        try:
            made.append(_rewrite(rule, text, finding, item, code))
        except EditRefused as exc:
            left.append(Unfixed(finding, f"not fixable: {exc}"))
    return made, left


def _stale_items(rule: Rule, claim: Claim, facts: dict[str, Fact]) -> list[tuple[Item, Item]]:
    """Each claim item that disagrees with its fact, with the fact's item, in finding order."""
    if rule.claim.entries:
        code = {i.label.lstrip("-"): i for fact in facts.values() for i in fact.items}
        pairs = [(item, code.get(item.label.lstrip("-"))) for item in claim.items]
        return [(item, found) for item, found in pairs
                if found is not None and found.value.data != "" and not same_value(item.value, found.value)]
    if rule.claim.labelled:
        names = {label.casefold(): name for label, name in rule.claim.row_facts}
        by_fact = [(item, facts.get(names.get(item.label.casefold(), ""))) for item in claim.items]
    else:
        by_fact = [(item, facts.get(rule.facts[0])) for item in claim.items]
    return [(item, fact.items[0]) for item, fact in by_fact
            if fact is not None and fact.items and not same_value(item.value, fact.items[0].value)]


def _pair(findings: list[Finding], stale: list[tuple[Item, Item]]) -> list[tuple[Item, Item]] | None:
    if len(findings) != len(stale):
        return None
    for finding, (item, _) in zip(findings, stale):
        stated = item.value.text or item.value.canonical
        line = item.location.line if item.location else None
        if finding.value != stated or (finding.doc and finding.doc.line != line):
            return None
    return stale


def _rewrite(rule: Rule, text: str, finding: Finding, item: Item, code: Item) -> Change:
    old, new = item.value, code.value
    if new.kind is Kind.STRING and old.kind is not Kind.STRING:  # a flag's default "15d" against "10 days"
        new = quantities.read_value(str(new.data))
    if item.span is None:
        raise EditRefused("the claim reader recorded no place for the stated value")
    written = _string(text, item, new) if old.kind is new.kind is Kind.STRING else _quantity(old, new)
    problem = cell_problem(written) if rule.claim.table_column is not None else None
    if problem:
        raise EditRefused(f"the row '{item.label}': {problem}")
    splice = value_splice(text, item.span, old.text, written)
    grid = grid_cell_problem(rule.doc, text, splice.start, splice.end, splice.new)
    if grid:
        raise EditRefused(grid)
    where = f" (row '{item.label}')" if item.label else ""
    line = item.location.line if item.location and item.location.line else 1
    return Change(rule.id, rule.doc, line, splice, f"'{old.text}' -> '{written}'{where}", (finding,))


def _string(text: str, item: Item, new: Value) -> str:
    """The code's string, written where the document states one (a code span's text)."""
    assert item.span is not None
    stated = text[item.span[0]:item.span[1]]
    written = str(new.data)
    if stated != item.value.text:
        raise EditRefused(f"the stated '{item.value.text}' is not written as is in the document")
    if not written or any(c in written for c in "`\r\n") or written != written.strip():
        raise EditRefused(f"the code's value `{written}` cannot be written in its place")
    return written


def _quantity(old: Value, new: Value) -> str:
    """The code's quantity, written in the document's style."""
    if new.kind not in (Kind.NUMBER, Kind.DURATION, Kind.BYTES, Kind.BOOL):
        raise EditRefused(f"the code's value `{new.canonical}` is not a quantity")
    if looks_like_ratio(new, old):
        raise EditRefused(f"the code's {new.canonical} may be a ratio of {old.canonical}%; give the fact "
                          "`unit: ratio` (or `unit: percent`) and run fix again")
    if old.kind is not new.kind:
        raise EditRefused(f"the document states a {old.kind.value} ('{old.text}') where the code has a "
                          f"{new.kind.value}; fix it by hand")
    try:
        return quantities.format_like(new, old).strip()
    except (quantities.QuantityError, ValueError) as exc:
        raise EditRefused(f"cannot write `{new.canonical}` like '{old.text}': {exc}") from None


# -- rows ---------------------------------------------------------------------


def _without_clashes(changes: list[Change]) -> tuple[list[Change], list[Unfixed]]:
    """The changes sorted by place; the same splice twice is kept once, and changes that
    overlap are all dropped, each finding with one reason naming the rules involved."""
    merged: list[Change] = []
    for change in sorted(changes, key=lambda c: (c.splice.start, c.splice.end)):
        if merged and merged[-1].splice == change.splice:
            merged[-1] = replace(merged[-1], findings=merged[-1].findings + change.findings)
        else:
            merged.append(change)
    partners: dict[int, set[str]] = {}
    for i, c in enumerate(merged):
        for j, d in enumerate(merged):
            if i != j and c.splice.start < d.splice.end and d.splice.start < c.splice.end:
                partners.setdefault(i, set()).update(f.rule for f in (*c.findings, *d.findings))
    kept = [c for i, c in enumerate(merged) if i not in partners]
    reasons = [Unfixed(f, _clash_reason(partners[i])) for i in sorted(partners) for f in merged[i].findings]
    return kept, reasons


def _clash_reason(rules: set[str]) -> str:
    if len(rules) == 1:
        return f"not fixable: two fixes of rule '{next(iter(rules))}' rewrite the same text differently"
    names = sorted(rules)
    return (f"not fixable: rules {', '.join(repr(r) for r in names[:-1])} and '{names[-1]}' "
            "rewrite the same text differently; fix it by hand")
