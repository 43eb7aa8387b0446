"""Run user regular expressions (``pattern`` facts, ``code_spans``) within a time bound.

Python's ``re`` cannot be interrupted, so a pattern that backtracks
catastrophically (``(a+)+$`` over a long run of ``a``) would hang the run. Each
match is first costed from the pattern's parse tree (see ``regex_cost``): when
the estimated number of backtracking steps over the given texts is small, it
runs here, at no extra cost. Otherwise it runs in a worker process that is
killed when it takes longer than the timeout (``DEFAULT_TIMEOUT`` seconds,
or ``DRIFTGUARD_REGEX_TIMEOUT``), and the caller gets a ``PatternError`` that
names the file and the pattern. The worker is forked once, on first need, and
then serves every later match of the process over a pipe; one killed on a
timeout is replaced on the next need. Where ``os.fork`` is missing, a spawned
``multiprocessing`` worker serves the same protocol; where no worker can be
started at all, the match runs here, unbounded.
"""

from __future__ import annotations

import atexit
import marshal
import os
import re
import threading
import time
from functools import lru_cache
from typing import Any, Sequence

from driftguard.model import Location, PatternError

try:  # Python 3.11+; sre_parse is the same module under its old, deprecated name
    from re import _parser as _sre  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre  # type: ignore[no-redef]

DEFAULT_TIMEOUT = 2.0
"""Seconds one batch of matches may take before it is stopped and reported."""

TIMEOUT_ENV = "DRIFTGUARD_REGEX_TIMEOUT"

IN_PROCESS_BUDGET = 20_000_000
"""Estimated backtracking steps up to which a match runs in this process (measured: about 10 ms at worst)."""

__all__ = ["DEFAULT_TIMEOUT", "IN_PROCESS_BUDGET", "first_groups", "regex_cost", "search_each",
           "shutdown", "timeout"]


def timeout() -> float:
    """The bound in seconds: ``DRIFTGUARD_REGEX_TIMEOUT`` when set to a positive, finite number, else the default."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if 0 < value < 1e9 else DEFAULT_TIMEOUT  # also refuses nan and inf


def first_groups(
    regex: re.Pattern[str], text: str, where: Location, seconds: float | None = None
) -> list[tuple[str, int]]:
    """``(group 1, its start)`` for the first match of each distinct group-1 value, in text order.

    Raises PatternError at ``where`` when the match is stopped at the time bound."""
    return _run("first_groups", regex, text, where, [len(text)], seconds)  # type: ignore[no-any-return]


def search_each(
    regex: re.Pattern[str], texts: Sequence[str], where: Location, seconds: float | None = None
) -> list[bool]:
    """Whether ``regex.search`` finds a match in each of ``texts``, all in one batch (see ``first_groups``)."""
    if not texts:
        return []
    found = _run("search_each", regex, list(texts), where, [len(t) for t in texts], seconds)
    return [bool(x) for x in found]


def _run(op: str, regex: re.Pattern[str], payload: Any, where: Location, sizes: list[int],
         seconds: float | None) -> Any:
    steps = (sum(sizes) + len(sizes)) * regex_cost(regex.pattern, regex.flags)(max(sizes))  # cost grows with n
    if steps <= IN_PROCESS_BUDGET:
        return _OPS[op](regex, payload)
    from driftguard.regex_worker import WorkerTimeout  # only a costly match needs the worker

    limit = timeout() if seconds is None else seconds
    try:
        return _WORKER.call((op, regex.pattern, int(regex.flags), payload), limit)
    except WorkerTimeout:
        raise PatternError(
            f"pattern {regex.pattern!r} took longer than {limit:g} s over {sum(sizes)} characters and was "
            f"stopped: it backtracks catastrophically; avoid nested or overlapping repeats such as (a+)+ "
            f"(the bound is set with {TIMEOUT_ENV})",
            where,
        ) from None
    except _WorkerFailed as exc:
        raise PatternError(f"pattern {regex.pattern!r} could not be matched: {exc}", where) from None


# -- the cost estimate ----------------------------------------------------------

_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


@lru_cache(maxsize=256)
def regex_cost(pattern: str, flags: int = 0) -> Any:
    """``cost(n)``: an upper estimate of the paths one match attempt may try over ``n`` characters.

    Each repeat whose count may vary multiplies by the counts it can take (up to
    ``n + 1``); alternatives add; a repeated part that itself varies (``(a+)+``,
    ``(a|ab)*``, ``(.*a){20}``) raises the count to the power of the repeats, which is
    infinite for all practical purposes. Backreferences count as infinite. A search
    over ``n`` characters costs about ``(n + 1) * cost(n)`` steps.
    """
    try:
        tree = _sre.parse(pattern, flags & ~re.DEBUG)
    except Exception:  # never compiled here: let the worker (and its timeout) handle it
        return lambda n: float("inf")

    def cost(n: int) -> float:
        try:
            return _cost(tree, n)
        except RecursionError:
            return float("inf")

    return cost


def _cost(items: Any, n: int) -> float:
    total = 1.0
    for op, av in items:
        name = str(op)
        if name in _REPEATS:
            low, high, body = av
            inner = _cost(body, n)
            counts = min(high, n + 1)
            if inner <= 1:
                factor = 1.0 if low == high else float(max(counts - low + 1, 1))
            elif high <= 1:
                factor = inner + 1
            else:
                factor = _power(inner, counts)
        elif name == "SUBPATTERN":
            factor = _cost(av[-1], n)
        elif name == "ATOMIC_GROUP":
            factor = _cost(av, n)
        elif name == "BRANCH":
            factor = sum(_cost(branch, n) for branch in av[1])
        elif name in ("ASSERT", "ASSERT_NOT"):
            factor = _cost(av[1], n)
        elif name == "GROUPREF_EXISTS":
            factor = _cost(av[1], n) + (_cost(av[2], n) if av[2] else 1.0)
        elif name == "GROUPREF":
            factor = float("inf")
        else:  # one character, a class, an anchor
            factor = 1.0
        total *= factor
    return total


def _power(base: float, exponent: int) -> float:
    try:
        return float(base) ** min(exponent, 4096)
    except OverflowError:
        return float("inf")


# -- the operations (run here or in the worker) ---------------------------------


def _first_groups(regex: re.Pattern[str], text: str) -> list[tuple[str, int]]:
    found: dict[str, int] = {}
    for match in regex.finditer(text):
        value = match.group(1)
        if value is not None and value not in found:
            found[value] = match.start(1)
    return list(found.items())


def _search_each(regex: re.Pattern[str], texts: list[str]) -> list[bool]:
    return [regex.search(text) is not None for text in texts]


_OPS: dict[str, Any] = {"first_groups": _first_groups, "search_each": _search_each}


def answer(request: bytes) -> bytes:
    """The worker's side: one marshalled request in, one marshalled ``(ok, result)`` out."""
    try:
        op, pattern, flags, payload = marshal.loads(request)
        return marshal.dumps((True, _OPS[op](_compiled(pattern, flags), payload)))
    except Exception as exc:  # reported to the parent as a PatternError
        return marshal.dumps((False, f"{type(exc).__name__}: {exc}"))


@lru_cache(maxsize=64)
def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    return re.compile(pattern, flags)


# -- the worker ---------------------------------------------------------------------


class _WorkerFailed(Exception):
    pass


class _Worker:
    """One worker process per process, started on first need; calls are serialised by a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._channel: Any = None
        self._owner = 0  # the pid that started the channel

    def call(self, request: tuple[Any, ...], seconds: float) -> Any:
        from driftguard.regex_worker import WorkerTimeout

        data = marshal.dumps(request)
        with self._lock:
            reply = None
            while reply is None:
                reused = self._channel is not None and self._owner == os.getpid()
                channel = self._ensure()
                if channel is None:  # no process can be started here: match unbounded
                    reply = answer(data)
                    break
                try:
                    reply = channel.exchange(data, time.monotonic() + seconds)
                except WorkerTimeout:
                    self._drop()
                    raise
                except (OSError, EOFError, ValueError) as exc:
                    self._drop()
                    if not reused:  # a worker that died between calls is replaced once
                        raise _WorkerFailed(f"the regex worker failed ({type(exc).__name__}: {exc})") from None
                except BaseException:  # e.g. KeyboardInterrupt mid-call: the reply would arrive out of turn
                    self._drop()
                    raise
        ok, result = marshal.loads(reply)
        if not ok:
            raise _WorkerFailed(result)
        return result

    def after_fork(self) -> None:
        """In a forked child: the worker (and the lock's state) belong to the parent."""
        self._lock = threading.Lock()
        self._forget()

    def _forget(self) -> None:
        if self._channel is not None:
            self._channel.forget()
            self._channel = None

    def _ensure(self) -> Any:
        if self._owner != os.getpid():
            self._forget()  # inherited through a fork the at-fork hook did not see
        if self._channel is None:
            from driftguard.regex_worker import start_channel

            self._channel = start_channel(answer)
            self._owner = os.getpid()
        return self._channel

    def _drop(self) -> None:
        if self._channel is not None:
            self._channel.close()
            self._channel = None

    def shutdown(self) -> None:
        with self._lock:
            if self._channel is not None and self._owner == os.getpid():
                self._drop()
            self._channel = None


_WORKER = _Worker()


def shutdown() -> None:
    """Stop this process's worker, if one runs (also done at exit)."""
    _WORKER.shutdown()


atexit.register(shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_WORKER.after_fork)
