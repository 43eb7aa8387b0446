"""The shapes documentation sites write around their prose: front matter (a page's
title, never a heading), MyST and Docusaurus directives that wrap prose, fenced and
indented code blocks with their language, and a fence never closed."""

from __future__ import annotations

from driftguard.documents.reader import parse_document

MYST = """\
---
title: "Safety"
sidebar_position: 2
---

Intro.

```{note}
:class: tip
Pending recoveries expire after ten minutes.
```

:::warning Careful
Keep `max` at 4.
:::

:::{tip}
Retries wait one hour.
:::

```{code-block} python
x = 1
```

````{eval-rst}
.. note:: rst inside
````

    indented code

```yaml
a: 1
"""


def test_front_matter_is_the_title_and_never_a_heading_or_prose():
    doc = parse_document("a.md", MYST)
    assert doc.title == "Safety"
    assert doc.headings == ()
    assert "sidebar_position" not in " ".join(s.text for s in doc.sentences)


def test_prose_inside_a_directive_is_read_as_prose_at_its_own_line():
    doc = parse_document("a.md", MYST)
    sentences = {s.text: s.line for s in doc.sentences}
    assert sentences["Pending recoveries expire after ten minutes."] == 10
    assert sentences["Keep max at 4."] == 14
    assert sentences["Retries wait one hour."] == 18
    assert not any(":::" in s or ":class:" in s for s in sentences)


def test_code_directives_stay_blocks_with_their_language():
    doc = parse_document("a.md", MYST)
    assert [(b.lang, b.line) for b in doc.blocks] == [("python", 21), ("eval-rst", 25), ("", 29), ("yaml", 31)]
    assert doc.blocks[0].body == "x = 1\n"
    assert doc.text[slice(*doc.blocks[0].body_span)] == "x = 1"


def test_a_fence_never_closed_runs_to_the_end_and_says_so():
    doc = parse_document("a.md", MYST)
    assert [b.closed for b in doc.blocks] == [True, True, True, False]


def test_a_toml_front_matter_gives_its_title_too():
    doc = parse_document("a.md", "+++\ntitle = 'Hugo page'\n+++\n\nText here.\n")
    assert doc.title == "Hugo page" and [s.text for s in doc.sentences] == ["Text here."]


def test_a_rule_of_three_dashes_later_in_the_page_is_not_front_matter():
    doc = parse_document("a.md", "# A\n\n---\n\ntitle: x\n---\n")
    assert doc.title == "" and [h.text for h in doc.headings] == ["A", "title: x"]
