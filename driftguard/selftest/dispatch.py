"""The mutations ``driftguard selftest`` applies to a rule.

A mutation changes one file of the selftest's temporary tree the way a real
drift would: a new member in the source, a bogus value in the document, a
scalar changed on one side. ``plan`` lists the mutations a rule must catch;
each one's ``apply`` turns the file's current text into an ``Edit``. A source
file is mutated by its language's reader (``add_member`` and
``change_scalar`` of ``driftguard.sources.base``), a document by ``doc``,
as the claim form declares (``doc_member``); the helpers they share live in
``driftguard.sources.mutation``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from driftguard.config.loader import Config, FactSpec, Rule
from driftguard.config.specs import DocMember, Judging
from driftguard.model import (
    BROKEN_LINK,
    MISSING_IN_CODE,
    MISSING_IN_DOC,
    UNRESOLVED_REFERENCE,
    VALUE_MISMATCH,
    Direction,
    Fact,
    Item,
)
from driftguard.selftest import doc
from driftguard.selftest.doc_copy import copy_member
from driftguard.selftest.edits import Mutation
from driftguard.sources import load_reader, reader_name
from driftguard.sources.mutation import CannotApply, Edit, NotApplicable


def plan(rule: Rule, config: Config, facts: dict[str, Fact], claim_items: tuple[Item, ...],
         claim_line: int | None) -> list[Mutation]:
    """The mutations ``rule`` must catch, given what the clean tree yields for it."""
    judging = rule.claim.judging
    if judging is Judging.LINKS:
        return _link_mutations(rule, claim_items)
    if judging is Judging.SNIPPETS:
        return _snippet_mutations(rule, facts, claim_items)
    if judging is Judging.REFERENCES:
        return [Mutation("doc: reference renamed", "doc", UNRESOLVED_REFERENCE, rule.doc,
                         partial(doc.rename_reference, items=claim_items, evident=rule.claim.needs_evidence))]
    if rule.scalar:
        return _scalar_mutations(rule, config, facts, claim_items)
    out: list[Mutation] = []
    if rule.direction in (Direction.BOTH, Direction.CODE_TO_DOC):
        for name in rule.facts:
            spec, fact = _home(config.facts[name], facts.get(name))
            out.append(Mutation(f"code: new member ({name})", "code", MISSING_IN_DOC, spec.file,
                                _bind(_add_code, spec, fact), fact=name))
    if rule.claim.entries:
        out += _entry_mutations(rule, config, facts, claim_items)
    if rule.direction in (Direction.BOTH, Direction.DOC_TO_CODE):
        declared = {i.value.canonical for name in rule.facts if name in facts for i in facts[name].items}
        make = _DOC_MEMBERS[rule.claim.doc_member]
        out.append(Mutation(f"doc: {rule.claim.doc_member.value.removeprefix('a ')}", "doc", MISSING_IN_CODE,
                            rule.doc, partial(make, rule=rule, claim_line=claim_line, declared=declared,
                                              items=claim_items)))
    return out


def _link_mutations(rule: Rule, claim_items: tuple[Item, ...]) -> list[Mutation]:
    try:
        target = doc.heading_target(rule, claim_items)
    except NotApplicable as exc:
        if not claim_items:
            return [Mutation("doc: linked heading renamed", "doc", BROKEN_LINK, rule.doc, _refuse(exc))]
        return [Mutation("doc: link target renamed", "doc", BROKEN_LINK, rule.doc,
                         partial(doc.rename_reference, items=claim_items))]
    return [Mutation("doc: linked heading renamed", "doc", BROKEN_LINK, target,
                     partial(doc.remove_heading, rule=rule, claim_items=claim_items, path=target))]


def _scalar_mutations(rule: Rule, config: Config, facts: dict[str, Fact],
                      claim_items: tuple[Item, ...]) -> list[Mutation]:
    out = []
    for name in rule.facts:
        spec, fact = _home(config.facts[name], facts.get(name))
        out.append(Mutation(f"code: value changed ({name})", "code", VALUE_MISMATCH, spec.file,
                            _bind(_change_code, spec, fact), fact=name))
    labelled = rule.claim.labelled
    for item in claim_items if labelled else claim_items[:1]:
        label = f"doc: row '{item.label}' changed" if labelled else "doc: value changed"
        out.append(Mutation(label, "doc", VALUE_MISMATCH, rule.doc, partial(_change_value, item=item)))
    return out


def _snippet_mutations(rule: Rule, facts: dict[str, Fact], claim_items: tuple[Item, ...]) -> list[Mutation]:
    """A line of the first snippet's code repeated, and a line of its block changed."""
    if not claim_items:
        return []
    item = claim_items[0]
    code = next((i for fact in facts.values() for i in fact.items if i.label == item.label), None)
    out = [Mutation("doc: snippet line changed", "doc", VALUE_MISMATCH, rule.doc,
                    partial(doc.change_block_line, item=item))]
    if code is not None and code.location is not None and code.location.line is not None:
        out.insert(0, Mutation(f"code: snippet source changed ({item.label})", "code", VALUE_MISMATCH,
                               code.location.path, partial(doc.repeat_line, line=code.location.line,
                                                           expect=item.label)))
    return out


def _entry_mutations(rule: Rule, config: Config, facts: dict[str, Fact],
                     claim_items: tuple[Item, ...]) -> list[Mutation]:
    """For a map fact against a table: one entry's value changed in the code, and in the document."""
    stated = {item.label.lstrip("-"): item for item in claim_items}
    out = []
    for name in rule.facts:
        fact = facts.get(name)
        shared = [i for i in (fact.items if fact else ()) if i.label.lstrip("-") in stated and i.value.data != ""]
        if fact is None or not shared:
            continue
        entry = shared[0]
        spec = replace(config.facts[name], file=entry.location.path if entry.location else config.facts[name].file)
        spec = replace(spec, files=(spec.file,))
        one = replace(fact, items=(entry,), scalar=True)
        out.append(Mutation(f"code: value changed ({name}, {entry.label})", "code", VALUE_MISMATCH, spec.file,
                            _bind(_change_code, spec, one), fact=name))
        row = stated[entry.label.lstrip("-")]
        out.append(Mutation(f"doc: row '{row.label}' changed", "doc", VALUE_MISMATCH, rule.doc,
                            partial(_change_value, item=row)))
        break
    return out


def _new_row(text: str, rule: Rule, claim_line: int | None, declared: set[str], items: tuple[Item, ...]) -> Edit:
    return doc.add_row(text, rule, claim_line)


def _new_bullet(text: str, rule: Rule, claim_line: int | None, declared: set[str], items: tuple[Item, ...]) -> Edit:
    return doc.add_bullet(text, rule)


def _new_code_span(text: str, rule: Rule, claim_line: int | None, declared: set[str], items: tuple[Item, ...]) -> Edit:
    return doc.add_code_span(text, rule, declared)


def _copied(text: str, rule: Rule, claim_line: int | None, declared: set[str], items: tuple[Item, ...]) -> Edit:
    return copy_member(text, rule, items, declared)


def _no_member(text: str, rule: Rule, claim_line: int | None, declared: set[str], items: tuple[Item, ...]) -> Edit:
    raise NotApplicable(f"a `{rule.claim.key}` rule checks code-to-doc only")


_DOC_MEMBERS: dict[DocMember, Callable[..., Edit]] = {
    DocMember.ROW: _new_row,
    DocMember.BULLET: _new_bullet,
    DocMember.CODE_SPAN: _new_code_span,
    DocMember.HEADING: _copied,
    DocMember.MATCH: _copied,
    DocMember.NONE: _no_member,
}
"""How the selftest writes each kind of new document member a claim form declares."""


def _refuse(exc: Exception) -> Callable[[str], Edit]:
    def apply(text: str) -> Edit:
        raise exc

    return apply


def _home(spec: FactSpec, fact: Fact | None) -> tuple[FactSpec, Fact | None]:
    """``spec`` and ``fact`` narrowed to the one file a code mutation edits: where the
    clean run found the fact's first value (a fact over a glob declares it in one file)."""
    first = fact.items[0].location if fact is not None and fact.items else None
    file = first.path if first is not None and first.path in spec.files else spec.files[0]
    if fact is not None:
        fact = replace(fact, items=tuple(i for i in fact.items if i.location is None or i.location.path == file))
    return replace(spec, file=file, files=(file,)), fact


def _change_value(text: str, item: Item) -> Edit:
    return doc.change_value(text, item)


def _bind(action: Callable[[str, FactSpec, Fact], Edit], spec: FactSpec, fact: Fact | None) -> Callable[[str], Edit]:
    def apply(text: str) -> Edit:
        if fact is None or not fact.items:
            raise CannotApply(f"the clean run read nothing for fact '{spec.name}'")
        return action(text, spec, fact)

    return apply


def _add_code(text: str, spec: FactSpec, fact: Fact) -> Edit:
    return load_reader(reader_name(spec.file, spec.selector)).add_member(text, spec, fact)


def _change_code(text: str, spec: FactSpec, fact: Fact) -> Edit:
    return load_reader(reader_name(spec.file, spec.selector)).change_scalar(text, spec, fact)
