"""Work done, counted instead of timed (STYLE.md 17: tests judge work, not the clock).

A bound in seconds fails on a loaded machine and passes a slow algorithm on a fast one;
a count of work done gives the same answer on both. Two meters:

- ``steps(action)`` runs ``action`` under a trace function counting each Python call and
  each line executed. Work inside C (a regex match, ``str.find``) is not seen, only the
  Python around it. ``assert_linear`` compares the steps at two sizes of an input: linear
  work doubles when the input doubles, quadratic work quadruples.
- ``metered(...)`` counts the calls of one function and stops the test at once, with an
  exception no ``except Exception`` in the code swallows, when they pass a budget: a
  runaway loop fails in a moment instead of hanging the suite.

Speed in seconds is measured in ``benchmarks/``, never asserted here.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

import pytest

T = TypeVar("T")
S = TypeVar("S")

GROWTH = 2.5
"""The most ``assert_linear`` lets the steps grow when the input doubles: linear work grows
2x (n log n a little more), quadratic 4x; work a quarter of which is quadratic, 2.5x."""


def steps(action: Callable[[], T]) -> tuple[T, int]:
    """``action()`` and the Python steps (calls and lines) it took, on this thread."""
    count = 0

    def trace(frame: FrameType, event: str, arg: object) -> Callable[..., Any]:
        nonlocal count
        count += 1
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        result = action()
    finally:
        sys.settrace(previous)
    return result, count


def assert_linear(build: Callable[[int], S], act: Callable[[S], object], n: int,
                  growth: float = GROWTH) -> tuple[int, int]:
    """The steps of ``act(build(n))`` and of ``act(build(2 * n))``; fails when doubling the
    input multiplied them by more than ``growth``. One uncounted run at ``n // 2`` first
    fills the caches every size shares (compiled regexes, imports). Inputs are built
    outside the count."""
    act(build(max(1, n // 2)))
    small, large = build(n), build(2 * n)
    _, at_n = steps(lambda: act(small))
    _, at_2n = steps(lambda: act(large))
    assert at_2n <= growth * at_n, f"{at_n} steps at n={n}, {at_2n} at n={2 * n}: x{at_2n / max(at_n, 1):.2f}"
    return at_n, at_2n


class OverBudget(BaseException):
    """A metered function was called more often than its budget: a BaseException, so the
    code under test cannot catch it as one of its own errors."""


@dataclass
class Meter:
    """Calls of one function so far, and the most allowed."""

    name: str
    budget: int
    calls: int = 0

    def count(self) -> None:
        self.calls += 1
        if self.calls > self.budget:
            raise OverBudget(f"{self.name} called more than {self.budget} times")


def metered(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, budget: int) -> Meter:
    """Count the calls of ``owner.name`` (a module's function or a class's method) for the
    rest of the test; the call past ``budget`` raises ``OverBudget``."""
    real = getattr(owner, name)
    meter = Meter(f"{getattr(owner, '__name__', owner)}.{name}", budget)

    @functools.wraps(real)
    def counted(*args: Any, **kwargs: Any) -> Any:
        meter.count()
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return meter


def recorded(monkeypatch: pytest.MonkeyPatch, owner: object, name: str,
             what: Callable[..., object] = lambda *args, **kwargs: args[0]) -> list[Any]:
    """``what(*args)`` of each call of ``owner.name`` for the rest of the test (its first
    argument unless told), the call going through to the real one."""
    real = getattr(owner, name)
    calls: list[Any] = []

    @functools.wraps(real)
    def recording(*args: Any, **kwargs: Any) -> Any:
        calls.append(what(*args, **kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return calls
