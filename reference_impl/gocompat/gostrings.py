"""Go's string primitives where Python's differ, for the parts upstream relies on.

- ``trim_space`` is ``strings.TrimSpace``: it strips what ``unicode.IsSpace``
  calls space. ``str.strip()`` also strips the ASCII separators U+001C to
  U+001F, which Go keeps.
- ``to_lower`` is ``strings.ToLower``: one rune to one rune. ``str.lower()``
  applies full case mapping, so ``"İ"`` (U+0130) becomes two code points there
  and ``"i"`` in Go, and a final capital sigma becomes ``"ς"`` there and
  ``"σ"`` in Go.
- ``fold_name`` is the key ``encoding/json`` folds an object key to when it
  matches a struct field without regard to case: ASCII letters fold to upper
  case, any other rune to the smallest rune of its simple case-fold orbit, so
  ``"ſ"`` (U+017F) matches ``s`` and the Kelvin sign matches ``k``.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["GO_SPACE", "fold_name", "to_lower", "trim_space"]

# unicode.IsSpace: the Latin-1 spaces, then the White_Space runes above U+00FF.
GO_SPACE = (
    "\t\n\v\f\r \x85\xa0" + "\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)


def trim_space(text: str) -> str:
    return text.strip(GO_SPACE)


@lru_cache(maxsize=4096)
def _lower_rune(char: str) -> str:
    lowered = char.lower()
    if len(lowered) == 1:
        return lowered
    return "i" if char == "\u0130" else char


def to_lower(text: str) -> str:
    if text.isascii():
        return text.lower()
    return "".join(_lower_rune(char) for char in text)


@lru_cache(maxsize=4096)
def _fold_rune(char: str) -> str:
    """The smallest rune reachable from ``char`` through one-rune case mappings."""
    orbit, todo = {char}, [char]
    while todo:
        current = todo.pop()
        for mapped in (current.lower(), current.upper()):
            if len(mapped) == 1 and mapped not in orbit:
                orbit.add(mapped)
                todo.append(mapped)
    return min(orbit)


def fold_name(name: str) -> str:
    return "".join(char.upper() if char.isascii() else _fold_rune(char) for char in name)
