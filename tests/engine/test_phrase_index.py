"""A phrase template is tried only on the sentences holding the words it states before
``{value}`` (``phrase_index``): the same claims as trying it on every sentence, on every
markdown page of the fixtures and docs and on crafted shapes, and work that does not grow
with the sentences that lack the words."""

from __future__ import annotations

import pytest

from driftguard.config.forms.prose import PhraseClaim
from driftguard.documents import claims, phrase_index
from driftguard.documents.reader import parse_document
from driftguard.model import DriftguardError
from tests.helpers import FIXTURES, ROOT
from tests.work import recorded

TEMPLATES = ["after {value}", "expire after {value}", "retried {value} times", "v{value}", "timeout={value}",
             "up to {value}", "Don't wait {value}", "(default: {value})", "every {value}", "{value} seconds",
             "at most {value}", "MAX_TURNS is {value}", "cap of {value}"]

CRAFTED = """# Crafted

Sessions expire after 10 minutes, and EXPIRE AFTER 2 hours when idle.
Sessions ＥXPIRE after 3 minutes in full width, and expire\u00a0after 4 minutes after a no-break space.
The tool is retried 3 times; v1.2 ships; timeout=30s; don't wait 5 seconds; don't   wait 6 seconds.
Up to 8 turns (default: 4) and every 15 minutes, at most 20 of them; MAX_TURNS is 8, a cap of 4.
"""


def _claims(doc, template: str) -> object:
    try:
        return claims.read_claim(doc, PhraseClaim(template=template)).items
    except DriftguardError as exc:
        return type(exc).__name__, exc.message


def _pages() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for base in (FIXTURES, ROOT / "docs") for p in base.rglob("*.md"))


@pytest.mark.parametrize("path", ["crafted.md", *_pages()])
def test_the_same_claims_as_trying_every_sentence(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CRAFTED if path == "crafted.md" else (ROOT / path).read_text(encoding="utf-8")
    doc = parse_document(path, text)
    indexed = [_claims(doc, t) for t in TEMPLATES]
    monkeypatch.setattr(claims, "template_words", lambda before: ())
    assert indexed == [_claims(doc, t) for t in TEMPLATES]


def test_the_crafted_shapes_are_read() -> None:
    doc = parse_document("crafted.md", CRAFTED)
    read = {t: [i.value.text for i in items] for t in TEMPLATES
            if not isinstance(items := _claims(doc, t), tuple) or items and not isinstance(items[0], str)}
    assert read["expire after {value}"] == ["10 minutes", "2 hours", "4 minutes"]
    assert "3 minutes" in read["after {value}"]  # a full-width letter: a sentence not ASCII is always tried
    assert read["Don't wait {value}"] == ["5 seconds", "6 seconds"]


def test_a_template_is_tried_only_on_the_sentences_holding_its_words(monkeypatch: pytest.MonkeyPatch) -> None:
    tried = recorded(monkeypatch, claims, "_head_ends", lambda head, text: text)
    filler = "".join(f"Sentence {i} says the window is {i} minutes long.\n\n" for i in range(500))
    doc = parse_document("a.md", f"# A\n\n{filler}Sessions expire after 10 minutes.\n")
    items = claims.read_claim(doc, PhraseClaim(template="expire after {value}")).items
    assert [i.value.text for i in items] == ["10 minutes"]
    assert tried == ["Sessions expire after 10 minutes."]


@pytest.mark.parametrize(("before", "words"), [
    ("expire after ", ("expire", "after")), ("v", ()), ("timeout=", ("timeout",)), ("max_turns", ()),
    ("Don't wait ", ("don", "t", "wait")), ("ＥXPIRE ", ()), ("", ()),
])
def test_the_words_a_sentence_must_hold(before: str, words: tuple[str, ...]) -> None:
    assert phrase_index.template_words(before) == words
