"""The mutation record: what the selftest changes, in which file, and which
finding kind must name the change."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from driftguard.model import FindingKind
from driftguard.sources.mutation import Edit


@dataclass(frozen=True)
class Mutation:
    label: str  # e.g. "code: new member (session_states)"
    side: str  # "code" | "doc"
    kind: FindingKind  # the finding kind that must name the mutated value
    path: str  # the root-relative file it changes
    apply: Callable[[str], Edit]
    fact: str | None = None  # the fact whose value changes (code side)
