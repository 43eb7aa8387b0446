"""Selftest mutations of files read by a ``pattern`` regex (``driftguard.sources.text``).

The captured text itself is mutated, and every edit is checked by matching the
fact's own regex (compiled as the reader compiles it, ``re.MULTILINE``) over
the mutated text before it is written:

- a set gains a value: written after the last value on its line with the
  separator its neighbours use (``["go", "py"]`` -> ``["go", "py", "x"]``), or
  as a copy of the whole last match (every line it spans) with the new value in
  its group. The edit must keep every value the fact had and add the new one.
- a scalar's captured text changes at every place the regex captures it (one
  value, never an ambiguous two): a quantity to a different amount in the same
  style, else to a new text the regex still captures.

When no candidate fits, the regex captures no new text the selftest can write:
``NotApplicable``, naming the regex and what was tried.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Pattern
from driftguard.model import Fact, Item, Kind, Location
from driftguard.quantities import QuantityError, format_like, read_value
from driftguard.sources.mutation import (
    CannotApply,
    Edit,
    NotApplicable,
    bumped,
    last_item,
    line_number,
    line_starts,
    newline_of,
    offset_of,
)
from driftguard.sources.text.reader import compile_pattern
from driftguard.sources.text.samples import CANDIDATES, derived, examples, variants
from driftguard.text import EOL, line_at
from driftguard.user_regex import Compiled, first_groups, timeout

Match = Any  # a regex.Match[str]
Place = Callable[[str], tuple[str, str, int]]  # candidate -> (new text, what, line)


def add_member(text: str, spec: FactSpec, fact: Fact) -> Edit:
    """The set gains a value the regex captures, next to its last value."""
    regex = _pattern(spec)
    matches = _matches(regex, text, spec.file)
    target = _match_at(matches, text, last_item(fact))
    taken = {m.group(1) for m in matches}
    old = target.group(1)
    pool = (*CANDIDATES, *derived([str(i.value.data) for i in fact.items]), *variants(old),
            *examples(regex.pattern, 1))
    candidates = [c for c in dict.fromkeys(pool) if c and c not in taken]
    places = [p for p in (_after_on_line(text, matches, target), _copy_match(text, target)) if p is not None]
    where = Location(spec.file)
    for keep_all in (True, False):  # rather an edit that keeps every old value
        for place in places:
            for candidate in candidates:
                new, what, line = place(candidate)
                after = {value for value, _ in first_groups(regex, new, where)}
                if candidate in after and (not keep_all or taken <= after):
                    return Edit(new, what, line, (candidate,))
    raise NotApplicable(f"no line the selftest can write matches /{regex.pattern}/ with a new value "
                        f"({_tried(candidates)})")


def change_scalar(text: str, spec: FactSpec, fact: Fact) -> Edit:
    """The captured value rewritten, at every place the regex captures it."""
    regex = _pattern(spec)
    item = fact.items[0]
    matches = _matches(regex, text, spec.file)
    target = _match_at(matches, text, item)
    old = target.group(1)
    spots = [m.span(1) for m in matches if m.group(1) == old]
    tries = _changes(old)
    tries += [t for t in examples(regex.pattern, 1) if t not in tries and _differs(t, old)]
    where = Location(spec.file)
    for written in tries:
        new = _replace(text, spots, written)
        if [value for value, _ in first_groups(regex, new, where)] == [written]:
            many = f" (at all {len(spots)} places the pattern captures it)" if len(spots) > 1 else ""
            return Edit(new, f"`{old}` -> `{written}`{many}", line_number(text, target.start(1)))
    raise NotApplicable(f"no changed value the selftest can write still matches /{regex.pattern}/ "
                        f"({_tried(tries)})")


def _changes(old: str) -> list[str]:
    """New texts for the captured ``old``: a quantity bumped in its own style first."""
    value = read_value(old)
    tries: list[str] = []
    if value.kind in (Kind.NUMBER, Kind.DURATION):
        try:
            tries.append(format_like(bumped(value), value))
        except (QuantityError, ValueError):
            pass
    tries += [*variants(old), old + "_selftest", old + "1"]
    return [t for t in dict.fromkeys(tries) if _differs(t, old)]


def _differs(new: str, old: str) -> bool:
    """``new`` reads as another value than ``old`` (``030`` is no change from ``30``)."""
    return bool(new) and new != old and not read_value(new).same(read_value(old))


def _replace(text: str, spots: list[tuple[int, int]], written: str) -> str:
    for start, end in reversed(spots):
        text = text[:start] + written + text[end:]
    return text


def _after_on_line(text: str, matches: list[Match], target: Match) -> Place | None:
    """Write the value after ``target``'s, with the separator between it and the value
    before it, when both are on one line."""
    index = next(i for i, m in enumerate(matches) if m is target)
    if index == 0:
        return None
    before = matches[index - 1]
    sep = text[before.end(1):target.start(1)]
    if before.end(1) > target.start(1) or not sep or EOL.search(sep):
        return None
    at, old = target.end(1), target.group(1)
    starts = line_starts(text)
    line = line_at(starts, at)
    begin, end = starts[line - 1], _line_end(text, starts, line)

    def place(candidate: str) -> tuple[str, str, int]:
        new = text[:at] + sep + candidate + text[at:]
        shown = new[begin:end + len(sep) + len(candidate)].strip()
        return new, f"added `{candidate}` after `{old}`: `{shown}`", line

    return place


def _copy_match(text: str, target: Match) -> Place:
    """Copy the lines ``target`` spans, the new value in its group, right after them."""
    starts = line_starts(text)
    begin = starts[line_at(starts, target.start()) - 1]
    end = _line_end(text, starts, line_at(starts, max(target.end() - 1, target.start())))
    nl = newline_of(text)

    def place(candidate: str) -> tuple[str, str, int]:
        copy = text[begin:target.start(1)] + candidate + text[target.end(1):end]
        new = text[:end] + nl + copy + text[end:]
        lines = EOL.split(copy)
        what = (f"added the line `{copy.strip()}`" if len(lines) == 1
                else "added the lines " + " ".join(f"`{each.strip()}`" for each in lines))
        return new, what, line_number(new, end + len(nl))

    return place


def _line_end(text: str, starts: list[int], line: int) -> int:
    """The offset where 1-based ``line`` ends, before its line break."""
    if line >= len(starts):
        return len(text)
    nxt = starts[line]
    return nxt - (2 if text[max(nxt - 2, 0):nxt] == "\r\n" else 1)


def _matches(regex: Compiled[str], text: str, path: str) -> list[Match]:
    """Every match whose group 1 took part, in text order."""
    try:
        return [m for m in regex.finditer(text, timeout=timeout()) if m.group(1) is not None]
    except TimeoutError:
        raise CannotApply(f"pattern /{regex.pattern}/ took too long over {path}") from None


def _match_at(matches: list[Match], text: str, item: Item) -> Match:
    """The match whose group 1 starts where the clean run read ``item``."""
    if item.location is None:
        raise CannotApply(f"the value `{item.value}` has no location")
    at = offset_of(text, item.location)
    for m in matches:
        if m.start(1) == at:
            return m
    raise CannotApply(f"the pattern captures nothing at {item.location}")


def _tried(values: list[str], shown: int = 8) -> str:
    if not values:
        return "every value the selftest could derive is taken"
    more = f" and {len(values) - shown} more" if len(values) > shown else ""
    return "tried " + ", ".join(values[:shown]) + more


def _pattern(spec: FactSpec) -> Compiled[str]:
    assert isinstance(spec.selector, Pattern)
    return compile_pattern(spec.selector.regex, spec.file)
