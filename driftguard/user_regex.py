"""Every regular expression a user writes (``pattern`` facts, ``code_spans``, the
``name`` of a ``constants`` selector) is compiled and matched here.

Patterns are compiled by the ``regex`` library in its ``re``-compatible mode
(``VERSION0``): lookarounds, backreferences and ``re``'s flags mean what they
mean in ``re``. Each match runs under the library's own per-call ``timeout``,
so a pattern that backtracks catastrophically is stopped at the bound
(``DEFAULT_TIMEOUT`` seconds, or ``DRIFTGUARD_REGEX_TIMEOUT``) and reported as
a ``PatternError`` naming the file and the pattern, never a hang. The bound
covers one batch of matches: all the texts of one call together.

The library is imported with the first pattern compiled (``Compiled`` and ``MULTILINE``
on first use), so a run that compiles none (a warm ``links`` check) never loads it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from driftguard.model import Location, PatternError

if TYPE_CHECKING:
    from regex import MULTILINE
    from regex import Pattern as Compiled

__all__ = ["DEFAULT_TIMEOUT", "MULTILINE", "TIMEOUT_ENV", "Compiled", "compile_user_regex", "every_group",
           "first_groups", "group_each", "search_each", "timeout"]

DEFAULT_TIMEOUT = 2.0
"""Seconds one batch of matches may take before it is stopped and reported."""

TIMEOUT_ENV = "DRIFTGUARD_REGEX_TIMEOUT"


def __getattr__(name: str) -> object:
    if name in ("regex", "Compiled", "MULTILINE"):
        import regex

        if name == "regex":
            globals()["regex"] = regex  # a name of this module from now on (a test may stand in for it)
            return regex
        return regex.Pattern if name == "Compiled" else regex.MULTILINE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _library() -> Any:
    """The ``regex`` library, imported with the first pattern compiled."""
    found = globals().get("regex")
    return found if found is not None else __getattr__("regex")


def timeout() -> float:
    """The bound in seconds: ``DRIFTGUARD_REGEX_TIMEOUT`` when set to a positive, finite number, else the default."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if 0 < value < 1e9 else DEFAULT_TIMEOUT  # also refuses nan and inf


def compile_user_regex(pattern: str, where: Location, *, flags: int = 0, groups: int = 0,
                       what: str = "pattern") -> Compiled[str]:
    """``pattern`` compiled; ``PatternError`` at ``where`` when it does not compile or has
    fewer than ``groups`` groups. ``what`` names it in the message (``pattern``, ``name pattern``)."""
    regex = _library()
    try:
        compiled = regex.compile(pattern, flags | regex.VERSION0)
    except (regex.error, RecursionError, OverflowError, ValueError) as exc:  # nesting or repeats too large
        reason = exc if isinstance(exc, regex.error) else "it nests or repeats too deeply to compile"
        raise PatternError(f"invalid regular expression {pattern!r}: the {what} does not compile: {reason}",
                           where) from None
    if compiled.groups < groups:
        raise PatternError(f"{what} {pattern!r} has no (group) to take the value from", where)
    return compiled


def first_groups(compiled: Compiled[str], text: str, where: Location,
                 seconds: float | None = None) -> list[tuple[str, int]]:
    """``(group 1, its start)`` for the first match of each distinct group-1 value, in text order."""
    limit = timeout() if seconds is None else seconds
    found: dict[str, int] = {}
    try:
        for match in compiled.finditer(text, timeout=limit):
            value = match.group(1)
            if value is not None and value not in found:
                found[value] = match.start(1)
    except TimeoutError:
        raise _stopped(compiled, len(text), where, limit) from None
    return list(found.items())


def search_each(compiled: Compiled[str], texts: Sequence[str], where: Location,
                seconds: float | None = None) -> list[bool]:
    """Whether ``compiled`` finds a match in each of ``texts``; the bound covers them all."""
    limit = timeout() if seconds is None else seconds
    deadline = time.monotonic() + limit
    out = []
    try:
        for text in texts:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            out.append(compiled.search(text, timeout=left) is not None)
    except TimeoutError:
        raise _stopped(compiled, sum(map(len, texts)), where, limit) from None
    return out


def group_each(compiled: Compiled[str], texts: Sequence[str], where: Location,
               seconds: float | None = None) -> list[tuple[int, int] | None]:
    """For each of ``texts``, the span of group 1 of the first match (the whole text when
    the pattern has no group), or None where nothing matches or group 1 took no part;
    the bound covers them all."""
    limit = timeout() if seconds is None else seconds
    deadline = time.monotonic() + limit
    group = compiled.groups > 0
    out: list[tuple[int, int] | None] = []
    try:
        for text in texts:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            match = compiled.search(text, timeout=left)
            if match is None:
                out.append(None)
                continue
            span = match.span(1) if group else (0, len(text))
            out.append(span if span[0] >= 0 else None)
    except TimeoutError:
        raise _stopped(compiled, sum(map(len, texts)), where, limit) from None
    return out


def every_group(compiled: Compiled[str], texts: Sequence[str], where: Location,
                seconds: float | None = None) -> list[list[tuple[int, int]]]:
    """For each of ``texts``, the span of group 1 of every match (those where group 1
    took part); the bound covers them all."""
    limit = timeout() if seconds is None else seconds
    deadline = time.monotonic() + limit
    out: list[list[tuple[int, int]]] = []
    try:
        for text in texts:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            out.append([m.span(1) for m in compiled.finditer(text, timeout=left) if m.span(1)[0] >= 0])
    except TimeoutError:
        raise _stopped(compiled, sum(map(len, texts)), where, limit) from None
    return out


def _stopped(compiled: Compiled[str], size: int, where: Location, limit: float) -> PatternError:
    return PatternError(
        f"pattern {compiled.pattern!r} took longer than {limit:g} s over {size} characters and was "
        f"stopped: it backtracks catastrophically; avoid nested or overlapping repeats such as (a|a)+ "
        f"(the bound is set with {TIMEOUT_ENV})",
        where,
    )
