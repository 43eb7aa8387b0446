"""``driftguard selftest``: prove that every rule can fail.

The files each rule reads (its document, its facts' sources, and the config)
are copied to a temporary tree; the real files are never written. The copy
must pass cleanly first. Then, per rule, each mutation of ``mutations.plan``
is written into the copy, the rule is judged by a fresh ``Engine`` on a
config rooted at the copy, and the file is restored. A mutation is caught
when a finding of the expected kind names the rule's document and the
mutated value; a mutated copy the rule cannot be judged on (a read, parse or
pattern error) proves nothing either way and is an error, not a miss.
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import partial
from pathlib import Path

from driftguard.config.loader import Config, Rule
from driftguard.judging.engine import Engine
from driftguard.judging.repository import repository_files
from driftguard.judging.result import RuleResult
from driftguard.judging.workspace import Workspace
from driftguard.model import DriftguardError, Fact, Finding, Location, ReadError, Status
from driftguard.selftest.dispatch import plan
from driftguard.selftest.edits import Mutation
from driftguard.sources import reader_name
from driftguard.sources.mutation import CannotApply, Edit, NotApplicable
from driftguard.text import split_bom


class Verdict(str, Enum):
    CAUGHT = "caught"
    MISSED = "MISSED"
    NOT_APPLICABLE = "not applicable"
    ERROR = "error"  # the selftest could not apply the mutation, or the rule could not judge the mutated copy


@dataclass(frozen=True)
class Outcome:
    """One mutation of one rule, and what the re-run found."""

    rule: str
    mutation: str
    verdict: Verdict
    what: str = ""  # what was mutated
    where: Location | None = None
    detail: str = ""  # why not applicable / what went wrong / what was found instead
    finding: Finding | None = None  # the finding that caught it
    found: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class RuleSelftest:
    rule: Rule
    clean: bool
    problems: tuple[str, ...] = ()  # why the original tree does not pass for this rule
    outcomes: tuple[Outcome, ...] = ()

    @property
    def can_fail(self) -> bool:
        """Some mutation was caught and none was missed."""
        verdicts = {o.verdict for o in self.outcomes}
        return Verdict.CAUGHT in verdicts and Verdict.MISSED not in verdicts


@dataclass(frozen=True)
class SelftestResult:
    config: str  # the config as reports show it
    rules: tuple[RuleSelftest, ...] = field(default_factory=tuple)

    @property
    def outcomes(self) -> tuple[Outcome, ...]:
        return tuple(o for r in self.rules for o in r.outcomes)

    def count(self, verdict: Verdict) -> int:
        return sum(1 for o in self.outcomes if o.verdict is verdict)

    @property
    def exit_code(self) -> int:
        """0 every rule caught every mutation that applies to it; 1 a mutation was missed or a
        rule has none that applies or is caught; 2 the original tree is not clean, or a
        mutation could not be applied or judged (2 wins over 1)."""
        if any(not r.clean for r in self.rules) or self.count(Verdict.ERROR):
            return 2
        return 0 if all(self.rule_can_fail(r.rule.id) for r in self.rules) else 1

    def rule_can_fail(self, rule_id: str) -> bool:
        """Some document of the rule caught a mutation, and none missed one: a rule over a
        glob fails through the documents that hold what it reads, not one with nothing."""
        verdicts = {o.verdict for r in self.rules if r.rule.id == rule_id for o in r.outcomes}
        return Verdict.CAUGHT in verdicts and Verdict.MISSED not in verdicts

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def run_selftest(config: Config, progress: Callable[[str], None] | None = None) -> SelftestResult:
    """Mutate a temporary copy of what each rule reads and judge the rule on it; ``progress``
    is told of each step (the copy, the clean run, each rule as it is proven)."""
    tell = progress or _quiet
    with tempfile.TemporaryDirectory(prefix="driftguard-selftest-") as tmp:
        root = Path(tmp).resolve()
        tell("selftest: copying the files the rules read")
        failed = _copy_tree(config, root)
        mirror = replace(config, root=root, path=_copy_config(config, root))
        engine = Engine(mirror)
        tell(f"selftest: judging {len(config.rules)} rules on the copy")
        clean = engine.run()
        reports = []
        for index, result in enumerate(clean.rules, 1):
            tell(f"selftest: proving rule {index}/{len(clean.rules)}: {result.rule.id}")
            reports.append(_selftest_rule(mirror, result, failed, root, engine.workspace))
    return SelftestResult(config.display_path, tuple(reports))


def _quiet(message: str) -> None:
    pass


def _rule_files(config: Config, rule: Rule) -> list[str]:
    """What ``rule`` reads: its document and facts, and for a ``references`` or ``links``
    rule the whole repository (a name resolves anywhere in it, a link to any file)."""
    files = [rule.doc, *(file for name in rule.facts for file in config.facts[name].files)]
    if rule.claim.reads_repository:
        files += _repository(config.root)
    return list(dict.fromkeys(files))


@functools.cache
def _repository(root: Path) -> tuple[str, ...]:
    return tuple(repository_files(root))


def _copy_tree(config: Config, root: Path) -> dict[str, str]:
    """Copy every file a rule reads, byte for byte; returns {path: why it could not be}."""
    real = Workspace(config.root, config.max_file_size)
    failed: dict[str, str] = {}
    for path in dict.fromkeys(p for rule in config.rules for p in _rule_files(config, rule)):
        try:
            source = real.resolve(path)
            if source.is_file() and source.stat().st_size <= config.max_file_size:
                target = root / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(source.read_bytes())
        except (ReadError, OSError) as exc:
            failed[path] = exc.message if isinstance(exc, ReadError) else str(exc)
    return failed


def _copy_config(config: Config, root: Path) -> Path:
    shown = config.display_path
    target = root / (shown if not Path(shown).is_absolute() else config.path.name)
    if not target.exists():  # a config that is also a rule's file is copied already
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            target.write_bytes(config.path.read_bytes())
        except OSError:
            pass  # the run only needs the parsed Config; the copy is for completeness
    return target


def _selftest_rule(config: Config, clean: RuleResult, failed: dict[str, str], root: Path,
                   parsed: Workspace) -> RuleSelftest:
    rule = clean.rule
    problems = [f"{path}: {failed[path]}" for path in _rule_files(config, rule) if path in failed]
    if clean.status is not Status.PASS:
        from driftguard.reporters.text import finding_line

        problems += [finding_line(f) for f in clean.findings]
    if problems:
        return RuleSelftest(rule, False, tuple(problems))
    facts = {f.name: f for f in clean.facts}
    claim = clean.claim
    known = {(f.doc.line if f.doc else None, f.value) for f in clean.known}  # baselined: already broken
    items = tuple(i for i in claim.items if (i.location.line if i.location else None, str(i.value.data)) not in known
                  ) if claim else ()
    mutations = plan(rule, config, facts, items, claim.location.line if claim else None)
    outcomes = tuple(_attempt(config, rule, m, facts, root, parsed) for m in mutations)
    return RuleSelftest(rule, True, (), outcomes)


def _attempt(config: Config, rule: Rule, mutation: Mutation, before: dict[str, Fact], root: Path,
             parsed: Workspace) -> Outcome:
    target = root / mutation.path
    original = target.read_bytes()
    decoded = original.decode("utf-8")
    bom, body = split_bom(decoded)
    try:
        edit = mutation.apply(body)
    except NotApplicable as exc:
        return Outcome(rule.id, mutation.label, Verdict.NOT_APPLICABLE, detail=str(exc))
    except (CannotApply, DriftguardError) as exc:
        return Outcome(rule.id, mutation.label, Verdict.ERROR, detail=f"could not apply: {exc}")
    where = Location(mutation.path, edit.line)
    try:
        target.write_bytes((bom + edit.text).encode("utf-8"))
        result = _fresh_engine(config, rule, mutation.path, parsed).judge(rule)
    finally:
        target.write_bytes(original)
    return _verdict(rule, mutation, edit, where, result, before)


class _Absent(LookupError):
    pass


def _absent() -> object:
    raise _Absent


def _same(value: object) -> object:
    return value


def _fresh_engine(config: Config, rule: Rule, changed: str, parsed: Workspace) -> Engine:
    """A new Engine whose caches hold the clean run's reads and parses of every file
    the mutation left alone; the mutated file is read and parsed afresh."""
    engine = Engine(config)
    keys = [("doc", rule.doc)] if rule.doc != changed else []
    for name in rule.facts:
        spec = config.facts[name]
        if changed not in spec.files:
            keys.append(("fact", name))
        keys += [(reader_name(file, spec.selector), file) for file in spec.files if file != changed]
    keys += [("text", path) for path in _rule_files(config, rule) if path != changed]
    for kind, path in keys:
        try:
            value = parsed.cached(kind, path, _absent)
        except (_Absent, DriftguardError):
            continue  # not read by the clean run, or failed there: let the new engine try
        engine.workspace.cached(kind, path, partial(_same, value))
    return engine


def _verdict(rule: Rule, mutation: Mutation, edit: Edit, where: Location, result: RuleResult,
             before: dict[str, Fact]) -> Outcome:
    expect = edit.expect
    note = ""
    if not expect and mutation.fact is not None:
        expect, note = _read_back(mutation.fact, before, result)
    base = Outcome(rule.id, mutation.label, Verdict.MISSED, edit.what, where, found=result.findings)
    for finding in result.findings:
        if (finding.kind is mutation.kind and finding.doc is not None and finding.doc.path == rule.doc
                and any(_names(finding, spelling) for spelling in expect)):
            return replace(base, verdict=Verdict.CAUGHT, finding=finding)
    from driftguard.reporters.text import finding_line

    if result.status is Status.ERROR:  # the mutation broke the file: no proof either way
        errors = "; ".join(finding_line(f) for f in result.findings)
        return replace(base, verdict=Verdict.ERROR, detail=f"the mutated copy could not be judged: {errors}")
    if note:
        return replace(base, detail=note)
    found = "; ".join(finding_line(f) for f in result.findings) or "nothing (the rule passed)"
    wanted = f"{mutation.kind.kind} naming {rule.doc} and {' / '.join(expect) or 'the new value'}"
    return replace(base, detail=f"expected {wanted}; found {found}")


def _read_back(name: str, before: dict[str, Fact], result: RuleResult) -> tuple[tuple[str, ...], str]:
    """The mutated value as the re-run read it: what is new in the fact."""
    after = next((f for f in result.facts if f.name == name), None)
    if after is None:
        return (), f"the re-run could not read fact '{name}'"
    old = {i.value.canonical for i in before[name].items} if name in before else set()
    new = [i.value for i in after.items if i.value.canonical not in old]
    if not new:
        shown = ", ".join(str(i.value) for i in after.items[:3])
        return (), f"the re-run still reads fact '{name}' as before ({shown}): the change was not seen"
    return tuple(s for v in new for s in dict.fromkeys((v.text, v.canonical)) if s), ""


def _names(finding: Finding, spelling: str) -> bool:
    return finding.value == spelling or spelling in (finding.value or "") or spelling in finding.message


# -- rendering ------------------------------------------------------------------


def render_selftest(result: SelftestResult) -> str:
    """A table rule x mutation -> caught / MISSED, with what was mutated and where."""
    rows: list[tuple[str, str, str, str, str]] = []
    notes: list[tuple[int, str]] = []
    for report in result.rules:
        rid = report.rule.id
        if not report.clean:
            rows.append((rid, "(original tree)", report.rule.doc, "not clean", "the rule must pass before mutating"))
            notes += [(len(rows) - 1, f"  {p}") for p in report.problems]
            continue
        if not report.outcomes or not any(o.verdict is Verdict.CAUGHT for o in report.outcomes):
            if result.rule_can_fail(rid):
                rows.append((rid, "(any)", report.rule.doc, Verdict.NOT_APPLICABLE.value,
                             "nothing to mutate in this document; another document of the rule shows it can fail"))
            else:
                rows.append((rid, "(any)", report.rule.doc, Verdict.MISSED.value, "no mutation applies or is "
                             "caught: nothing shows this rule can fail"))
        for o in report.outcomes:
            rows.append((rid, o.mutation, str(o.where) if o.where else "-", o.verdict.value, o.what))
            if o.detail:
                notes.append((len(rows) - 1, f"  {o.detail}"))
    header = ("RULE", "MUTATION", "WHERE", "RESULT", "WHAT WAS MUTATED")
    widths = [max([len(header[i])] + [len(r[i]) for r in rows]) for i in range(4)]
    lines = [_row(header, widths)]
    by_row: dict[int, list[str]] = {}
    for index, text in notes:
        by_row.setdefault(index, []).append(text)
    for index, row in enumerate(rows):
        lines.append(_row(row, widths))
        lines += [" " * (widths[0] + 2) + note.strip() for note in by_row.get(index, [])]
    lines.append(_summary(result))
    return "\n".join(lines)


def _row(cells: tuple[str, ...], widths: list[int]) -> str:
    return "  ".join(c.ljust(w) for c, w in zip(cells[:4], widths)) + "  " + cells[4]


def _summary(result: SelftestResult) -> str:
    counts = {v: result.count(v) for v in Verdict}
    parts = [f"{counts[v]} {v.value}" for v in Verdict if counts[v]]
    head = f"selftest of {result.config}: {len(result.rules)} rules, {len(result.outcomes)} mutations"
    head += f" ({', '.join(parts)})" if parts else ""
    dirty = list(dict.fromkeys(r.rule.id if r.rule.doc == r.rule.doc_pattern else f"{r.rule.id} ({r.rule.doc})"
                               for r in result.rules if not r.clean))
    if dirty:
        return f"{head}; not clean before mutating: {', '.join(dirty)}"
    if counts[Verdict.ERROR]:
        return f"{head}; some mutations could not be applied or judged"
    weak = list(dict.fromkeys(r.rule.id for r in result.rules if not result.rule_can_fail(r.rule.id)))
    if weak:
        return f"{head}; these rules cannot be shown to fail: {', '.join(weak)}"
    return f"{head}; every rule caught every mutation"
