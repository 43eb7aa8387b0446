"""A ``references`` rule reads only code spans: ``parse_spans`` finds the same code spans
as the whole reader (text, line and span), parses the inline content of only the blocks
holding a backtick, and builds no sentence, paragraph, list item or table."""

from __future__ import annotations

import pytest

from driftguard.documents import reader
from driftguard.documents.reader import parse_document, parse_spans
from tests.engine.test_links_reading import EVERY_SHAPE
from tests.helpers import FIXTURES, ROOT
from tests.work import recorded

SPANS = """
| `Table.cell()` | `{{< ref "x" >}}` and ``double `tick` span`` |
| --- | --- |
| `row.value` | plain |

- `item()` in a list
  > with a `quoted.name` inside

1. `ordered.item` **bold `inside`**

Text<br>`after_html`

    `indented_code` is no span

""" + EVERY_SHAPE  # last: it ends in a fence never closed


def _same(path: str, text: str) -> None:
    assert parse_spans(path, text).code_spans == parse_document(path, text).code_spans


def test_every_markdown_shape_reads_the_same_code_spans() -> None:
    _same("docs/page.md", SPANS)
    texts = [c.text for c in parse_spans("docs/page.md", SPANS).code_spans]
    assert {"Table.cell()", "row.value", "item()", "quoted.name", "ordered.item", "inside", "after_html"} <= set(texts)
    assert "indented_code" not in " ".join(texts)


@pytest.mark.parametrize("path", sorted(
    str(p.relative_to(ROOT)) for base in (FIXTURES, ROOT / "docs") for p in base.rglob("*.md")))
def test_each_markdown_page_of_the_fixtures_and_docs_reads_the_same_spans(path: str) -> None:
    _same(path, (ROOT / path).read_text(encoding="utf-8"))


def test_only_inline_content_with_a_backtick_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = recorded(monkeypatch, reader, "parse_inline", lambda tok, env: tok.content)
    prose = "".join(f"Paragraph {i} says something long, with [a link](x.md) and no code.\n\n" for i in range(200))
    doc = parse_spans("a.md", f"# Head\n\n{prose}Call `load()`.\n\n- an item\n\n| a |\n| - |\n| `b` |\n")
    assert calls == ["Head", "Call `load()`.", "`b`"]
    assert (doc.sentences, doc.paragraphs, doc.list_items, doc.tables) == ((), (), (), ())
    assert [c.text for c in doc.code_spans] == ["load()", "b"]
