"""A ``links`` rule reads only link targets and anchors: ``parse_links`` builds the same
links, anchors, headings and code blocks as the whole reader, parses the inline content
of only the headings and the blocks that may hold a link, and builds no sentence,
paragraph, list item or table; a page that can hold no link is not parsed at all
unless a link points into it."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftguard.documents import reader
from driftguard.documents.reader import parse_document, parse_links
from driftguard.judging.linked import linked_doc, may_link
from tests.helpers import FIXTURES, ROOT, check, write_tree
from tests.work import recorded

EVERY_SHAPE = """---
title: Front matter [not a link](x.md)
---

# Title with [a link](a.md) and `code`

Plain prose with no link at all, and a <placeholder> without an anchor, a `[]string`,
a checkbox [x] and a <span id="prose-anchor"></span>, and the [ref] shortcut.

| Column | Link |
| --- | --- |
| same | [same](same.md) |
| `{{< ref "in-code" >}}` | <a name="cell-anchor"></a> |

- item with ![an image](img/logo.png "title")
  and a [reference][ref] and a [collapsed][] one
- {doc}`guide/build` and {{< relref "guide/build#setup" >}}

> ## Quoted heading
> with [a quoted link](<with space.md#part>)

<div id="block-anchor">

[inside a block with a blank line](inside.md)

</div>

:::tip Title
[in a directive](directive.md)
:::

```js
[not a link](code.md)
## not a heading
```

Setext heading
--------------

\\[escaped](no.md) and `[code](no.md)` and [emphasis *inside*](emph.md#x).

[ref]: ref.md#target
[collapsed]: <collapsed one.md>

```json
## swallowed by a fence never closed
"""


def _same(path: str, text: str) -> None:
    assert linked_doc(parse_links(path, text)) == linked_doc(parse_document(path, text))


def test_every_markdown_shape_reads_the_same_links_and_anchors() -> None:
    _same("docs/page.md", EVERY_SHAPE)
    view = linked_doc(parse_links("docs/page.md", EVERY_SHAPE))
    assert len(view.links) == 12 and view.hidden  # nothing vacuous: the shapes were read


@pytest.mark.parametrize("path", sorted(
    str(p.relative_to(ROOT)) for base in (FIXTURES, ROOT / "docs") for p in base.rglob("*.md")))
def test_each_markdown_page_of_the_fixtures_and_docs_reads_the_same(path: str) -> None:
    _same(path, (ROOT / path).read_text(encoding="utf-8"))


def test_only_headings_and_blocks_that_may_link_are_parsed_inline(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = recorded(monkeypatch, reader, "parse_inline", lambda tok, env: tok.content)
    prose = "".join(f"Paragraph {i} says something long, with `code` and <angle> brackets.\n\n" for i in range(200))
    doc = parse_links("a.md", f"# Head\n\n{prose}See [b](b.md).\n\n- an item\n\n| a |\n| - |\n| b |\n")
    assert calls == ["Head", "See [b](b.md)."]
    assert (doc.sentences, doc.paragraphs, doc.list_items, doc.tables) == ((), (), (), ())
    assert [link.target for link in doc.links] == ["b.md"]


@pytest.mark.parametrize(("text", "expected"), [
    ("# A\n\nNo link here.\n", False),
    ("# A\n\n[b](b.md)\n", True),
    ("# A\n\n{{< ref \"b\" >}}\n", True),
    ("# A\n\n{doc}`b`\n", True),
])
def test_a_page_may_link_only_with_a_bracket_a_shortcode_or_a_role(text: str, expected: bool) -> None:
    assert may_link("a.md", text) is expected
    assert bool(linked_doc(parse_document("a.md", text)).links) is expected
    assert may_link("a.rst", text) is True  # reStructuredText links need no bracket


def test_a_page_without_links_is_parsed_only_when_a_link_points_into_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    pages = {f"docs/plain{i}.md": f"# Plain {i}\n\n## Part\n\nNo link.\n" for i in range(5)}
    root = write_tree(tmp_path, {**pages, "docs/index.md": "# Index\n\n[part](plain0.md#part) [gone](plain1.md#gone)\n",
                                 "driftguard.yaml": "version: 1\nrules:\n  - id: links\n    doc: 'docs/*.md'\n"
                                                    "    links: true\n"})
    parsed = recorded(monkeypatch, reader, "parse_links")
    code, out = check(capsys, root, "--no-cache")
    assert code == 1 and "docs/index.md:3: links: `plain1.md#gone`: `plain1.md` has no heading 'gone'" in out, out
    assert sorted(parsed) == ["docs/index.md", "docs/plain0.md", "docs/plain1.md"]
