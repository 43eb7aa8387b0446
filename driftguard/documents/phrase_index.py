"""Which sentences of a document may hold a phrase template, found without trying the
template on each: every word of the ASCII sentences (lower case) indexed once per
document, and the template's words before ``{value}`` looked up there, rarest first.
A sentence that is not ASCII is always a candidate (case folding beyond ASCII is left
to the template's own regex)."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence

from driftguard.documents.model import Sentence

_WORD = re.compile(r"\w+", re.ASCII)


def template_words(before: str) -> tuple[str, ...]:
    """The whole words (lower case) a sentence must hold for the text ``before``
    ``{value}`` to match in it; none when ``before`` is not ASCII. A word written right
    against ``{value}`` may run on into the value ("v{value}" over "v1"): left out."""
    if not before.isascii():
        return ()
    words = _WORD.findall(before.lower())
    if words and (before[-1:].isalnum() or before[-1:] == "_"):
        words = words[:-1]
    return tuple(dict.fromkeys(words))


class SentenceIndex:
    def __init__(self, sentences: Sequence[Sentence]) -> None:
        self.sentences = sentences
        self.others: set[int] = set()  # the sentences that are not ASCII
        self.words: dict[str, set[int]] = {}
        for i, sentence in enumerate(sentences):
            if not sentence.text.isascii():
                self.others.add(i)
                continue
            for word in set(_WORD.findall(sentence.text.lower())):
                self.words.setdefault(word, set()).add(i)

    def candidates(self, words: tuple[str, ...]) -> list[int]:
        """Positions, in document order, of the sentences holding every one of ``words``
        as a whole word, and of those that may (not ASCII)."""
        found: set[int] | None = None
        for word in sorted(words, key=lambda w: len(self.words.get(w, ()))):
            holding = self.words.get(word, set())
            found = set(holding) if found is None else found & holding
            if not found:
                break
        return sorted((found or set()) | self.others)


_INDEXES: OrderedDict[int, SentenceIndex] = OrderedDict()


def sentence_index(sentences: Sequence[Sentence]) -> SentenceIndex:
    """The index of ``sentences``, built once for the last few documents read (each held
    by its index, so its identity stays its own)."""
    key = id(sentences)
    found = _INDEXES.get(key)
    if found is None or found.sentences is not sentences:
        found = _INDEXES[key] = SentenceIndex(sentences)
        while len(_INDEXES) > 16:
            _INDEXES.popitem(last=False)
    else:
        _INDEXES.move_to_end(key)
    return found
