"""Prose split into sentences, the same way for every document format.

A sentence ends at ``.``, ``!`` or ``?`` (closing quotes and brackets kept with
it) followed by a space and a capital letter, or by the end of the text; a
known abbreviation ("e.g.", "i.e.") ends none.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from driftguard.documents.model import Prose, Sentence

_ABBREVIATIONS = {"e.g.", "i.e.", "cf.", "vs.", "viz.", "approx.", "resp.", "mr.", "mrs.", "ms.", "dr.", "fig."}
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?= |$)")


def sentences(prose: Prose, line_of: Callable[[int], int]) -> list[Sentence]:
    """The sentences of ``prose``; ``line_of`` gives the line of a document offset."""
    text, out, start = prose.text, [], 0
    for m in _SENTENCE_END.finditer(text):
        end = m.end()
        nxt = text[end + 1:end + 3].lstrip("\"'([")[:1]
        if end < len(text) and not nxt.isupper():
            continue
        word = text[text.rfind(" ", 0, m.start()) + 1:end].lower()
        if end < len(text) and word in _ABBREVIATIONS:
            continue
        out.append(_sentence(prose, start, end, line_of))
        start = end + 1
    if start < len(text):
        out.append(_sentence(prose, start, len(text), line_of))
    return out


def _sentence(prose: Prose, start: int, end: int, line_of: Callable[[int], int]) -> Sentence:
    span = prose.map.span(start, end)
    return Sentence(prose.text[start:end], line_of(span[0]), span, prose.map, start)
