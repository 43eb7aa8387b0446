"""What a run returns: one ``RuleResult`` per rule, gathered in a ``Result``.

Reporters and tools import this module, not the engine, so formatting a result
never loads a parser.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftguard.config.loader import Config, Rule
from driftguard.model import Claim, Fact, Finding, Status


@dataclass(frozen=True)
class RuleResult:
    rule: Rule
    status: Status
    findings: tuple[Finding, ...]
    facts: tuple[Fact, ...]
    claim: Claim | None
    skipped: tuple[str, ...] = ()  # ``LINE: what: why`` for each thing read and deliberately not judged
    known: tuple[Finding, ...] = ()  # findings the baseline holds: drift the project adopted the guard with


@dataclass(frozen=True)
class Result:
    config: Config
    rules: tuple[RuleResult, ...]

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for r in self.rules for f in r.findings)

    @property
    def known(self) -> tuple[Finding, ...]:
        """The findings the baseline holds, left out of ``findings``."""
        return tuple(f for r in self.rules for f in r.known)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Every fact's warnings (parts of a file that did not parse), each once, in order."""
        return tuple(dict.fromkeys(w for r in self.rules for fact in r.facts for w in fact.warnings))

    @property
    def ok(self) -> bool:
        return all(r.status is Status.PASS for r in self.rules)

    def count(self, status: Status) -> int:
        return sum(1 for r in self.rules if r.status is status)

    @property
    def exit_code(self) -> int:
        """0 clean, 1 drift found, 2 a rule could not be judged."""
        if self.count(Status.ERROR):
            return 2
        return 1 if self.count(Status.FAIL) else 0
