"""``driftguard coverage --format html``: one self-contained page, read back with html.parser."""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest

from driftguard.cli import main

Tree = Callable[[dict[str, str | bytes]], Path]

SOURCE = '''
package fsm

import "time"

type State string

const (
	StateIdle State = "IDLE"
	StateBusy State = "BUSY"
)

const TTL = 10 * time.Minute
'''

DOC = '''
# Machine

| State | Meaning |
|---|---|
| `IDLE` | idle |
| `BUSY` | busy |

Entries expire after ten minutes.
Retries back off for 30 seconds.
'''

CONFIG = '''
version: 1
facts:
  states: {file: fsm.go, constants: {type: State}}
  ttl: {file: fsm.go, constant: TTL}
rules:
  - {id: states, fact: states, doc: m.md, table: State}
  - {id: ttl, fact: ttl, doc: m.md, phrase: 'expire after {value}'}
'''


class Page(HTMLParser):
    """The tags of the page, and every span inside a ``<pre>`` with its class, line and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.spans: list[dict[str, str]] = []
        self.pre: list[str] = []  # the text of each <pre>
        self.cells: list[str] = []
        self._in_pre = False
        self._span: dict[str, str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        if tag == "pre":
            self._in_pre = True
            self.pre.append("")
        elif tag == "span" and self._in_pre:
            self._span = {"class": found.get("class") or "", "line": found.get("data-line") or "",
                          "title": found.get("title") or "", "text": ""}
        elif tag == "td":
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = False
        elif tag == "span" and self._span is not None:
            self.spans.append(self._span)
            self._span = None
        elif tag == "td" and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            self.pre[-1] += data
        if self._span is not None:
            self._span["text"] += data
        if self._cell is not None:
            self._cell.append(data)


def page(root: Path, *paths: str) -> tuple[str, Page]:
    assert main(["coverage", "--format", "html", "--output", "page.html", *paths]) == 0
    text = (root / "page.html").read_text(encoding="utf-8")
    parsed = Page()
    parsed.feed(text)
    parsed.close()
    return text, parsed


@pytest.fixture
def repo(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tree({"fsm.go": SOURCE, "m.md": DOC, "driftguard.yaml": CONFIG})
    monkeypatch.chdir(root)
    return root


def test_each_span_has_the_class_of_its_state(repo: Path) -> None:
    _, parsed = page(repo)
    assert [(s["text"], s["class"], s["line"]) for s in parsed.spans] == [
        ("IDLE", "guarded", "5"), ("BUSY", "guarded", "6"),
        ("ten minutes", "guarded", "8"), ("30 seconds", "unguarded", "9"),
    ]
    assert parsed.spans[2]["title"] == "line 8: guarded by ttl"


def test_a_span_a_finding_is_on_is_drifted(repo: Path) -> None:
    (repo / "fsm.go").write_text(SOURCE.replace("10 * time.Minute", "15 * time.Minute").lstrip("\n"))
    _, parsed = page(repo)
    assert [(s["text"], s["class"]) for s in parsed.spans] == [
        ("IDLE", "guarded"), ("BUSY", "guarded"), ("ten minutes", "drifted"), ("30 seconds", "unguarded")]
    assert parsed.cells[:5] == ["m.md", "4", "3", "1", "75%"]  # document, spans, guarded, drifted, percent


def test_a_member_missing_from_the_table_drifts_no_span(repo: Path) -> None:
    (repo / "fsm.go").write_text(SOURCE.replace('StateBusy State = "BUSY"', 'StateBusy State = "BUSY"\n\t'
                                                'StateDone State = "DONE"').lstrip("\n"))
    _, parsed = page(repo)
    assert [s["class"] for s in parsed.spans] == ["guarded", "guarded", "guarded", "unguarded"]


def test_the_page_shows_the_document_as_its_text(repo: Path) -> None:
    _, parsed = page(repo)
    assert parsed.pre == [(repo / "m.md").read_text(encoding="utf-8")]


def test_the_page_has_a_legend_and_each_documents_percent_on_top(repo: Path) -> None:
    _, parsed = page(repo)
    keys = [attrs.get("class") for tag, attrs in parsed.tags if tag == "span" and "key" in (attrs.get("class") or "")]
    assert keys == ["key guarded", "key drifted", "key unguarded"]
    first_pre = next(i for i, (tag, _) in enumerate(parsed.tags) if tag == "pre")
    first_td = next(i for i, (tag, _) in enumerate(parsed.tags) if tag == "td")
    assert first_td < first_pre
    assert parsed.cells == ["m.md", "4", "3", "0", "75%", "total", "4", "3", "0", "75%"]


def test_the_page_is_self_contained(repo: Path) -> None:
    text, parsed = page(repo)
    tags = {tag for tag, _ in parsed.tags}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed", "base"}
    for _tag, attrs in parsed.tags:
        assert "src" not in attrs
        assert (attrs.get("href") or "#").startswith("#")
    assert "http" not in text and "url(" not in text and "@import" not in text


def test_everything_read_from_a_document_is_escaped(repo: Path) -> None:
    hostile = DOC + '\n<script>alert("x")</script>\n\nThe tag `<img src=x onerror=alert(1)>` waits 5 seconds & more.\n'
    (repo / "m.md").write_text(hostile.lstrip("\n"))
    _, parsed = page(repo)
    assert {tag for tag, _ in parsed.tags}.isdisjoint({"script", "img"})
    assert parsed.pre == [(repo / "m.md").read_text(encoding="utf-8")]
    assert ("<img src=x onerror=alert(1)>", "unguarded") in [(s["text"], s["class"]) for s in parsed.spans]


def test_a_bom_and_crlf_line_ends_keep_the_spans_on_their_text(repo: Path) -> None:
    (repo / "m.md").write_bytes(b"\xef\xbb\xbf" + DOC.lstrip("\n").replace("\n", "\r\n").encode("utf-8"))
    text, parsed = page(repo)
    assert "\r" not in text and "\\x0d" not in text and "\ufeff" not in text
    assert [(s["text"], s["class"], s["line"]) for s in parsed.spans] == [
        ("IDLE", "guarded", "5"), ("BUSY", "guarded", "6"),
        ("ten minutes", "guarded", "8"), ("30 seconds", "unguarded", "9"),
    ]


def test_two_documents_get_two_sections_in_path_order(repo: Path) -> None:
    (repo / "a.md").write_text("# A\n\nIt takes 2 hours.\n")
    _, parsed = page(repo, "m.md", "a.md")
    ids = [attrs.get("id") for tag, attrs in parsed.tags if tag == "section"]
    hrefs = [attrs.get("href") for tag, attrs in parsed.tags if tag == "a"]
    assert ids == ["doc-1", "doc-2"] and hrefs == ["#doc-1", "#doc-2"]
    assert parsed.cells[0] == "a.md" and parsed.cells[5] == "m.md"
    assert parsed.spans[0] == {"class": "unguarded", "line": "3", "title": "line 3: unguarded: no rule reads it",
                               "text": "2 hours"}
