"""The markdown document model: parts, lines and exact spans."""

from __future__ import annotations

import textwrap
from math import isqrt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.documents.reader import Document, parse_document
from tests.work import assert_linear


def doc(text: str) -> Document:
    return parse_document("docs/X.md", textwrap.dedent(text).lstrip("\n"))


def at(d: Document, span: tuple[int, int]) -> str:
    return d.text[span[0]:span[1]]


# -- headings and sections ------------------------------------------------------


def test_headings_lose_inline_markup_and_keep_level_and_line():
    d = doc("""
        # The *main* `title`

        Setext **heading**
        ------------------

        ### Deep [link](http://x)
    """)
    assert [(h.text, h.level, h.line) for h in d.headings] == [
        ("The main title", 1, 1), ("Setext heading", 2, 3), ("Deep link", 3, 6)]
    assert at(d, d.headings[0].span) == "The *main* `title`"
    assert [c.text for c in d.code_spans] == ["title"]


def test_sections_end_at_the_next_heading_of_the_same_or_higher_level():
    d = doc("""
        # A
        a
        ## B
        b
        ### C
        c
        ## D
        d
        # E
        e
    """)
    got = {s.title: (s.line, s.end_line) for s in d.sections}
    assert got == {"A": (1, 8), "B": (3, 6), "C": (5, 6), "D": (7, 8), "E": (9, 10)}
    b = d.section("b")
    assert at(d, (b.body_start, b.span[1])) == "b\n### C\nc\n"
    assert d.section("  e ") is d.sections[-1]
    assert d.section("missing") is None


def test_section_membership_uses_offsets():
    d = doc("""
        ## One
        `x` here
        ## Two
        `y` here
    """)
    one, two = d.section("One"), d.section("Two")
    x, y = d.code_spans
    assert one.contains(x.span[0]) and not one.contains(y.span[0])
    assert two.contains(y.span[0]) and not two.contains(x.span[0])


# -- tables ---------------------------------------------------------------------


def test_table_cells_have_text_codes_lines_and_exact_spans():
    d = doc("""
        Intro.

        | State | What it *means* |
        |-------|-----------------|
        | `RESOLVING` | looking for **the** target |
        | `A` / `B` | two codes \\| and a pipe |
        | plain |
    """)
    (table,) = d.tables
    assert table.columns == ("State", "What it means")
    assert (table.line, table.end_line) == (3, 7)
    assert table.column("what IT means") == 1 and table.column("nope") is None
    first, second, third = table.rows
    assert [r.line for r in table.rows] == [5, 6, 7]
    assert first.cells[0].code_texts == ("RESOLVING",)
    assert at(d, first.cells[0].span) == "`RESOLVING`"
    assert at(d, first.cells[0].codes[0].span) == "RESOLVING"
    assert first.cells[1].text == "looking for the target"
    assert at(d, first.cells[1].span) == "looking for **the** target"
    assert second.cells[0].code_texts == ("A", "B")
    assert [at(d, c.span) for c in second.cells[0].codes] == ["A", "B"]
    assert second.cells[1].text == "two codes | and a pipe"
    assert at(d, second.cells[1].span) == "two codes \\| and a pipe"
    assert third.cells[0].text == "plain" and third.cells[1].text == ""
    header = table.header[1]
    assert at(d, header.doc_span(0, len(header.text))) == "What it *means"


def test_tables_without_outer_pipes_and_inside_blockquotes():
    d = doc("""
        a | b
        --|--
        `x` | 2

        > | Kind | Meaning |
        > |---|---|
        > | `read` | looks |
    """)
    plain, quoted = d.tables
    assert plain.columns == ("a", "b")
    assert at(d, plain.rows[0].cells[0].codes[0].span) == "x"
    assert at(d, plain.rows[0].cells[1].span) == "2"
    assert quoted.columns == ("Kind", "Meaning") and quoted.line == 5
    cell = quoted.rows[0].cells[0]
    assert cell.code_texts == ("read",) and at(d, cell.codes[0].span) == "read" and cell.line == 7


# -- code spans -------------------------------------------------------------------


def test_code_spans_outside_code_blocks_only():
    d = doc("""
        Use `one` and ``two `tick` two`` here.

        ```go
        `fenced` = 1
        ```

            `indented`

        <div>`html`</div>
    """)
    assert [c.text for c in d.code_spans] == ["one", "two `tick` two"]
    one, two = d.code_spans
    assert at(d, one.span) == "one" and one.line == 1
    assert at(d, two.span) == "two `tick` two"
    assert d.sentences[0].text == "Use one and two `tick` two here."
    assert len(d.sentences) == 1


def test_code_span_spanning_lines_keeps_its_place():
    d = doc("""
        Start `multi
        line` end.
    """)
    (code,) = d.code_spans
    assert code.text == "multi line" and code.line == 1
    assert at(d, code.span) == "multi\nline"


# -- sentences -------------------------------------------------------------------


def test_sentences_fold_wrapped_lines_and_drop_markup():
    d = doc("""
        The gate refuses *at most*
            two blocks per [turn](https://example.com/a_(b)). Then it
        lets **`pulse_question`** through &amp; moves on!
    """)
    texts = [s.text for s in d.sentences]
    assert texts == ["The gate refuses at most two blocks per turn.",
                     "Then it lets pulse_question through & moves on!"]
    first, second = d.sentences
    assert (first.line, second.line) == (1, 2)
    start = first.text.index("at most")
    assert at(d, first.doc_span(start, start + len("at most two"))) == "at most*\n    two"
    assert at(d, second.doc_span(second.text.index("pulse"), second.text.index(" through"))) == "pulse_question"
    assert at(d, first.span) == "The gate refuses *at most*\n    two blocks per [turn](https://example.com/a_(b))."


def test_sentence_split_respects_abbreviations_and_decimals():
    d = doc("""
        Limits, e.g. Storage, stay at 1.5 units. Other values differ? Yes. lower case. ok
    """)
    assert [s.text for s in d.sentences] == [
        "Limits, e.g. Storage, stay at 1.5 units.", "Other values differ?", "Yes. lower case. ok"]


def test_sentences_in_list_items_and_blockquotes_map_back():
    d = doc("""
        > Pending recoveries
        > expire after ten minutes.

        - Item one says `x`.
          It continues.
    """)
    quote, item, more = d.sentences
    assert quote.text == "Pending recoveries expire after ten minutes." and quote.line == 1
    i = quote.text.index("ten minutes")
    assert at(d, quote.doc_span(i, i + len("ten minutes"))) == "ten minutes"
    assert (item.text, item.line, more.text, more.line) == ("Item one says x.", 4, "It continues.", 5)


def test_escapes_entities_and_html_map_to_their_source():
    d = doc(r"""
        A \*star\* and &copy; then <b>bold</b> 75%.
    """)
    (s,) = d.sentences
    assert s.text == "A *star* and \u00a9 then bold 75%."
    i = s.text.index("75%")
    assert at(d, s.doc_span(i, i + 3)) == "75%"
    j = s.text.index("star")
    assert at(d, s.doc_span(j, j + 4)) == "star"


# -- list items --------------------------------------------------------------------


def test_list_items_with_codes_nesting_and_order():
    d = doc("""
        - `alpha` first
          - nested *plain*
        - second with `b` and `c`

        1. ordered `o`
    """)
    items = d.list_items
    by_text = {i.text: i for i in items}
    assert set(by_text) == {"alpha first", "nested plain", "second with b and c", "ordered o"}
    assert [c.text for c in by_text["alpha first"].codes] == ["alpha"]
    assert by_text["nested plain"].codes == () and by_text["nested plain"].line == 2
    assert [c.text for c in by_text["second with b and c"].codes] == ["b", "c"]
    assert by_text["ordered o"].ordered and not by_text["alpha first"].ordered
    nested = by_text["nested plain"]
    assert at(d, nested.doc_span(0, len(nested.text))) == "nested *plain"
    assert at(d, nested.span) == "nested *plain*"


# -- line endings, BOM, empty -----------------------------------------------------------


def test_crlf_and_bom_keep_offsets_into_the_original_text():
    text = "\ufeff# Title\r\n\r\n| State | x |\r\n|---|---|\r\n| `READING` | y |\r\n\r\nIt expires\r\nafter ten minutes.\r\n"
    d = parse_document("d.md", text)
    assert d.headings[0].text == "Title" and d.headings[0].line == 1
    code = d.tables[0].rows[0].cells[0].codes[0]
    assert code.line == 5 and text[code.span[0]:code.span[1]] == "READING"
    (s,) = d.sentences
    assert s.text == "It expires after ten minutes." and s.line == 7
    i = s.text.index("ten")
    assert text[slice(*s.doc_span(i, i + 11))] == "ten minutes"


@pytest.mark.parametrize("text", ["", "\n", "   \n\n", "\ufeff", "\x00", "|", "> ", "#"])
def test_empty_and_degenerate_documents(text):
    d = parse_document("e.md", text)
    assert d.tables == () and d.code_spans == ()
    assert all(0 <= s.span[0] <= s.span[1] <= len(text) for s in d.sentences)


# -- hostile input ------------------------------------------------------------------


def _nested_quotes(depth: int) -> str:
    """A quote ``5 * depth`` deep, then a ladder of ``depth`` quotes one deeper each."""
    return ">" * (5 * depth) + " deep `code`\n" + "\n".join(">" * i + " x" for i in range(1, depth))


def test_thousands_of_nested_blockquotes_do_not_recurse():
    d = parse_document("h.md", _nested_quotes(2000))
    assert isinstance(d, Document)


def test_nested_blockquotes_cost_work_linear_in_the_text():
    """The ladder's text grows with the square of its depth: 1.41 times the depth, twice the text."""
    assert_linear(lambda n: _nested_quotes(isqrt(n)), lambda text: parse_document("h.md", text), 250_000)


@pytest.mark.parametrize("unit", ["word ", "A b. ", "`c` ", "| a "])
def test_a_one_megabyte_line_is_read(unit):
    d = parse_document("h.md", "# Head\n\n" + unit * (1_000_000 // len(unit)) + "\n")
    assert d.headings[0].text == "Head"


@pytest.mark.parametrize("unit", ["word ", "A b. ", "`c` ", "| a "])
def test_a_long_line_costs_work_linear_in_its_length(unit):
    assert_linear(lambda n: "# Head\n\n" + unit * n + "\n", lambda text: parse_document("h.md", text), 2_500)


_PIECES = st.sampled_from([
    "#", "# ", "## ", ">", "> ", "- ", "1. ", "|", " | ", "---", "|---|", "`", "``", "*", "**", "_",
    "[", "]", "(", ")", "![", "<b>", "</b>", "&amp;", "\\", "\n", "\n\n", "    ", "\t", "```", "word",
    "Cap.", " e.g. ", "1.5", "75%", "ten minutes", "\r\n", "\ufeff", "\x00", "é",
])


@settings(deadline=None, max_examples=500)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_generated_markdown_never_crashes_and_spans_stay_in_bounds(text):
    d = parse_document("g.md", text)
    size = len(text)
    parts = [*d.headings, *d.sentences, *d.list_items, *d.code_spans]
    parts += [c for t in d.tables for c in t.header + tuple(c for r in t.rows for c in r.cells)]
    for part in parts:
        assert 0 <= part.span[0] <= part.span[1] <= size
        assert 1 <= part.line <= len(d.line_starts)
    for s in d.sentences:
        assert s.text == " ".join(s.text.split())
        assert 0 <= s.doc_span(0, len(s.text))[0] <= size
    for code in d.code_spans:
        source = text[code.span[0]:code.span[1]]
        if "\n" not in source and "\r" not in source and "\x00" not in source:
            assert source == code.text  # a one-line code span's span is exactly its text


def test_empty_cells_are_anchored_in_their_row():
    d = doc("""
        | a | b | c |
        |---|---|---|
        | 1 |   | 3 |
        | only |
    """)
    full, short = d.tables[0].rows
    empty = full.cells[1]
    assert empty.text == "" and empty.span[0] == empty.span[1]
    assert d.text.index("| 1 |") < empty.span[0] < d.text.index("| 3 |") + 1
    assert [c.text for c in short.cells] == ["only", "", ""]
    line_end = d.text.index("| only |") + len("| only |")
    assert short.cells[2].span == (line_end, line_end)


@pytest.mark.parametrize("text, word, first", [
    ("\\*\\**em* end", "em", 1),  # escapes before emphasis: the first '*' is the escaped one
    ("word\\*\r\nword*em*", "wordem", 0),  # the escaped text also appears verbatim later on
    ("75%_u_ x", "u", 0),
])
def test_escaped_text_maps_to_its_own_place(text, word, first):
    d = parse_document("r.md", text)
    (s,) = d.sentences
    assert s.doc_span(0, 1) == (first, first + 1)
    i = s.text.index(word)
    start, end = s.doc_span(i, i + len(word))
    assert text[start] == word[0] and text[end - 1] == word[-1]
    assert text[start:end].replace("*", "").replace("_", "") == word
