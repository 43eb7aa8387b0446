"""Reading each claim form from a document: values, lines, exact spans, and absence."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.config.specs import MentionsClaim, PhraseClaim, SectionClaim, TableClaim
from driftguard.documents.claims import phrase_reads, read_claim
from driftguard.documents.matches import list_items
from driftguard.documents.reader import Document, parse_document
from driftguard.model import AmbiguousClaim, Claim, ClaimNotFound, Kind, Location, PatternError

FIXTURE_DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "pulse" / "docs"

SAFETY = """
# Safety

| State | What it means |
|-------|---------------|
| `RESOLVING` | looking |
| `READING` | reading |
| plain text | no code |
|  | empty first cell |

## Thresholds

| Threshold | Default | Note |
|-----------|---------|------|
| Storage warning | 75% | `x` |
| **High CPU** | 70 % | |
| Backup staleness | 48 hours | |
| Broken | lots | |

Pending recoveries
expire after *ten minutes*. Other text follows.

```text
A fenced block: recoveries expire after 99 minutes.
```

## Structured errors

Codes: `resource_not_found`, `FSM_BLOCKED`, `internal/errors.go`, `/api/agent`.

- `patrol_get_findings` reads first
- a plain item
- `pulse_query` then `x`

1. ordered `skipped_item`

## After

`not_here` and a phrase: expire after five minutes.
"""


def doc(text: str = SAFETY) -> Document:
    return parse_document("docs/SAFETY.md", textwrap.dedent(text).lstrip("\n"))


def values(claim: Claim) -> list[str]:
    return [item.value.canonical for item in claim.items]


def assert_spans_exact(d: Document, claim: Claim) -> None:
    for item in claim.items:
        assert item.span is not None
        assert d.text[item.span[0]:item.span[1]] == (item.value.text or item.value.canonical)


# -- tables ---------------------------------------------------------------------


def test_table_values_are_code_spans_or_plain_text_of_the_first_column():
    d = doc()
    claim = read_claim(d, TableClaim("state"))
    assert values(claim) == ["RESOLVING", "READING", "plain text"]
    assert claim.location == Location("docs/SAFETY.md", 3)
    assert [i.location.line for i in claim.items] == [5, 6, 7]
    assert all(i.value.kind is Kind.STRING for i in claim.items)
    assert_spans_exact(d, claim)


def test_table_other_column_and_section_restriction():
    d = doc()
    claim = read_claim(d, TableClaim("State", column="what it MEANS"))
    assert values(claim) == ["looking", "reading", "no code", "empty first cell"]
    assert_spans_exact(d, claim)
    inside = read_claim(d, TableClaim("Threshold", column="Note", section="Thresholds"))
    assert values(inside) == ["x"]
    with pytest.raises(ClaimNotFound, match="no table headed 'State' in section 'Thresholds'") as err:
        read_claim(d, TableClaim("State", section="Thresholds"))
    assert err.value.location == Location("docs/SAFETY.md", 10)


def test_missing_table_names_it():
    with pytest.raises(ClaimNotFound) as err:
        read_claim(doc(), TableClaim("Kind"))
    assert err.value.message == "the document no longer states it: no table headed 'Kind'"
    assert err.value.location == Location("docs/SAFETY.md", 1)  # the document's first heading, never no line


def test_missing_column_names_it_and_the_columns_there_are():
    with pytest.raises(ClaimNotFound) as err:
        read_claim(doc(), TableClaim("State", column="Meaning"))
    message = err.value.message
    assert message.startswith("the document no longer states it")
    assert "'Meaning'" in message and "'State'" in message and "'What it means'" in message
    assert err.value.location == Location("docs/SAFETY.md", 3)


def test_a_table_that_states_nothing_is_not_found():
    d = doc("""
        | State | x |
        |---|---|
    """)
    with pytest.raises(ClaimNotFound, match="states nothing"):
        read_claim(d, TableClaim("State"))


def test_table_rows_read_quantities_by_label():
    d = doc()
    rows = (("storage warning", "warn"), ("High CPU", "cpu"), ("Backup staleness", "stale"),
            ("Broken", "broken"), ("Storage critical", "crit"))
    claim = read_claim(d, TableClaim("Threshold", column="Default", rows=rows))
    got = {i.label: i for i in claim.items}
    assert set(got) == {"storage warning", "High CPU", "Backup staleness", "Broken"}  # absent label left out
    assert got["storage warning"].value.kind is Kind.NUMBER and got["storage warning"].value.data == 75
    assert got["High CPU"].value.data == 70 and got["High CPU"].location.line == 15
    assert got["Backup staleness"].value.kind is Kind.DURATION and got["Backup staleness"].value.data == 48 * 3600
    assert got["Broken"].value.kind is Kind.STRING and got["Broken"].value.data == "lots"
    assert claim.location == Location("docs/SAFETY.md", 12)
    for item in claim.items:
        assert d.text[item.span[0]:item.span[1]] == item.value.text


def test_table_rows_default_to_the_second_column_and_report_a_missing_one():
    d = doc()
    claim = read_claim(d, TableClaim("Threshold", rows=(("Storage warning", "w"),)))
    assert values(claim) == ["75"]
    with pytest.raises(ClaimNotFound, match="no column 'Limit'"):
        read_claim(d, TableClaim("Threshold", column="Limit", rows=(("Storage warning", "w"),)))


# -- sections -------------------------------------------------------------------


def test_section_code_spans_matching_the_regex_within_the_section_only():
    d = doc()
    claim = read_claim(d, SectionClaim("Structured errors", code_spans=r"^([a-z]+_[a-z_]+|[A-Z]+_[A-Z_]+)$"))
    assert values(claim) == ["resource_not_found", "FSM_BLOCKED", "patrol_get_findings", "pulse_query",
                             "skipped_item"]
    assert claim.location == Location("docs/SAFETY.md", 26)
    assert claim.items[0].location.line == 28
    assert_spans_exact(d, claim)


def test_section_regex_is_searched_not_fully_matched():
    claim = read_claim(doc(), SectionClaim("Structured errors", code_spans=r"errors"))
    assert values(claim) == ["internal/errors.go"]


def test_section_without_regex_gives_every_code_span():
    claim = read_claim(doc(), SectionClaim("After"))
    assert values(claim) == ["not_here"]


def test_section_list_items_take_the_first_code_span_or_the_text():
    d = doc()
    claim = read_claim(d, SectionClaim("Structured errors", list=True))
    assert values(claim) == ["patrol_get_findings", "a plain item", "pulse_query"]
    assert [i.location.line for i in claim.items] == [30, 31, 32]
    assert_spans_exact(d, claim)


def test_missing_section_and_empty_section_are_not_found():
    with pytest.raises(ClaimNotFound, match="no section headed 'Errors'") as err:
        read_claim(doc(), SectionClaim("Errors", code_spans="x"))
    assert err.value.location == Location("docs/SAFETY.md", 1)
    with pytest.raises(ClaimNotFound, match="has no code spans matching"):
        read_claim(doc(), SectionClaim("After", code_spans=r"^[A-Z]+$"))
    with pytest.raises(ClaimNotFound, match="bullet list items"):
        read_claim(doc(), SectionClaim("After", list=True))


def test_invalid_regex_is_a_pattern_error():
    with pytest.raises(PatternError):
        read_claim(doc(), SectionClaim("After", code_spans="(unclosed"))


# -- phrases --------------------------------------------------------------------


def test_phrase_reads_the_quantity_of_a_wrapped_sentence_with_markup():
    d = doc()
    claim = read_claim(d, PhraseClaim("expire after {value}", section="Thresholds"))
    (item,) = claim.items
    assert item.value.kind is Kind.DURATION and item.value.data == 600
    assert item.location == Location("docs/SAFETY.md", 20)  # the line holding the value, not the sentence's first
    assert d.text[item.span[0]:item.span[1]] == "ten minutes"
    assert claim.location == item.location


def test_phrase_gives_one_item_per_matching_sentence_and_ignores_code_blocks():
    d = doc()
    claim = read_claim(d, PhraseClaim("EXPIRE   after {value}"))
    assert values(claim) == ["10m", "5m"]  # not the 99 minutes of the fenced block
    assert [i.location.line for i in claim.items] == [20, 38]
    assert_spans_exact(d, claim)



@pytest.mark.parametrize(("template", "text", "stated"), [
    ("retried {value} times", "A call is retried 3 times.", "3"),
    ("limit is {value} percent", "The limit is 75 percent of the pool.", "75"),
    ("{value} times per run", "Up to 4 times per run.", "4"),
    ("up to {value} per run", "Up to 4 times per run.", "4 times"),
    ("waits {value} before", "It waits 5 minutes before a retry.", "5 minutes"),
])
def test_phrase_reads_the_value_the_template_words_leave_after_it(template, text, stated):
    d = parse_document("docs/d.md", f"# D\n\n{text}\n")
    (item,) = read_claim(d, PhraseClaim(template)).items
    assert d.text[item.span[0]:item.span[1]] == stated and item.location.line == 3

def test_phrase_absent_is_not_found():
    with pytest.raises(ClaimNotFound, match="no sentence matches 'capped at {value}'"):
        read_claim(doc(), PhraseClaim("capped at {value}"))
    with pytest.raises(ClaimNotFound, match="in section 'Structured errors'") as err:
        read_claim(doc(), PhraseClaim("expire after {value}", section="Structured errors"))
    assert err.value.location == Location("docs/SAFETY.md", 26)


def test_phrase_literals_are_whole_words():
    assert phrase_reads("after {value}", "thereafter ten minutes") == []
    assert phrase_reads("after {value}", "and after ten minutes.") == [(10, 21)]  # "ten minutes"
    assert phrase_reads("{value} by default", "one hour by defaults") == []
    with pytest.raises(PatternError):
        phrase_reads("no placeholder", "ten minutes")


def test_phrase_value_in_a_list_item_and_a_code_span():
    d = doc("""
        - Concurrency is capped at `4` in flight.
    """)
    (item,) = read_claim(d, PhraseClaim("capped at {value}")).items
    assert item.value.data == 4 and d.text[item.span[0]:item.span[1]] == "4"


# -- mentions -------------------------------------------------------------------


def test_mentions_are_every_code_span_of_the_document_or_section():
    d = doc()
    everything = read_claim(d, MentionsClaim())
    assert "RESOLVING" in values(everything) and "not_here" in values(everything)
    assert everything.location == Location("docs/SAFETY.md", 1)
    assert_spans_exact(d, everything)
    after = read_claim(d, MentionsClaim(section="After"))
    assert values(after) == ["not_here"] and after.location.line == 36


def test_mentions_of_an_empty_document_are_empty():
    assert read_claim(parse_document("e.md", ""), MentionsClaim()).items == ()
    with pytest.raises(ClaimNotFound):
        read_claim(parse_document("e.md", ""), TableClaim("State"))


# -- the Pulse fixture documents -------------------------------------------------


def fixture(name: str) -> Document:
    path = FIXTURE_DOCS / name
    return parse_document(f"docs/{name}", path.read_text(encoding="utf-8"))


def test_fixture_safety_tables_and_recovery_ttl():
    d = fixture("ASSISTANT_SAFETY.md")
    assert values(read_claim(d, TableClaim("Kind"))) == ["resolve", "read", "write", "user_input"]
    assert values(read_claim(d, TableClaim("State"))) == ["RESOLVING", "READING", "WRITING", "VERIFYING"]
    (ttl,) = read_claim(d, PhraseClaim("expire after {value}")).items
    assert ttl.value.kind is Kind.DURATION and ttl.value.data == 600


def test_fixture_patrol_signals_thresholds_and_investigations():
    d = fixture("PATROL_ARCHITECTURE.md")
    signals = values(read_claim(d, TableClaim("Signal")))
    assert signals == ["smart_failure", "high_cpu", "high_memory", "high_disk", "backup_failed",
                       "backup_stale", "guest_unreachable"]
    labels = ("Storage warning", "Storage critical", "High CPU", "High memory", "Backup staleness")
    claim = read_claim(d, TableClaim("Threshold", column="Default", rows=tuple((l, l) for l in labels)))
    assert [(i.label, i.value.canonical) for i in claim.items] == [
        ("Storage warning", "75"), ("Storage critical", "95"), ("High CPU", "70"), ("High memory", "80"),
        ("Backup staleness", "48h")]
    assert values(read_claim(d, PhraseClaim("investigated {value}"))) == ["3"]
    assert values(read_claim(d, PhraseClaim("cooldown, {value} by default"))) == ["1h"]


def test_fixture_architecture_pipeline_gate_and_structured_errors():
    d = fixture("ASSISTANT_ARCHITECTURE.md")
    (cap,) = read_claim(d, PhraseClaim("capped at {value}", section="The three-phase pipeline")).items
    assert cap.value.data == 4
    (gate,) = read_claim(d, PhraseClaim("at most {value} blocks per turn")).items
    assert gate.value.data == 2
    span_text = d.text[gate.span[0]:gate.span[1]]
    assert span_text == "two"
    sentence = next(s for s in d.sentences if "blocks per turn" in s.text)
    assert "at most\ntwo" in d.text[sentence.span[0]:sentence.span[1]]  # wrapped in the file
    codes = values(read_claim(d, SectionClaim("Structured errors",
                                              code_spans=r"^([a-z]+_[a-z_]+|[A-Z]+_[A-Z_]+)$")))
    tools = {"patrol_get_findings", "patrol_report_finding", "pulse_query"}
    agent = [c for c in codes if c.islower() and c not in tools]
    assert len(agent) == 12 and set(codes) == {*agent, *tools, "FSM_BLOCKED"}
    mentioned = values(read_claim(d, MentionsClaim(section="Structured errors")))
    assert "internal/agentcapabilities/errors.go" in mentioned and "/api/agent/capabilities" in mentioned
    assert not any("/" in c for c in codes)


def test_phrase_judges_every_occurrence_in_a_sentence_at_the_line_of_each_value():
    d = parse_document("p.md", "# P\n\nSessions expire after fifteen minutes and tokens expire after ten minutes.\n\n"
                                "A sentence wrapped over\nthree lines says caches\nexpire after two hours.\n")
    claim = read_claim(d, PhraseClaim("expire after {value}"))
    assert [(i.value.canonical, i.location.line) for i in claim.items] == [("15m", 3), ("10m", 3), ("2h", 7)]
    assert_spans_exact(d, claim)


@given(st.lists(st.integers(min_value=1, max_value=999), min_size=1, max_size=6))
@settings(max_examples=200, deadline=None)
def test_no_occurrence_of_a_phrase_is_dropped(minutes):
    sentence = " and ".join(f"item {n} expires after {m} minutes" for n, m in enumerate(minutes))
    d = parse_document("p.md", f"# P\n\n{sentence}.\n")
    claim = read_claim(d, PhraseClaim("expires after {value}"))
    assert [i.value.data for i in claim.items] == [m * 60 for m in minutes]


TWICE = """# Colours

| Colour | Use |
|---|---|
| `red` | stop |
| `green` | go |

## Legacy

| Colour | Use |
|---|---|
| `red` | stop |
| `purple` | old |

## Limits

| Level | Value | Value |
|---|---|---|
| Warn | 75% | 1 |
| Warn | 60% | 2 |

## Workers

At most four workers.

## Workers

At most nine workers.
"""


def test_two_tables_with_one_heading_are_ambiguous_naming_both_lines():
    d = parse_document("c.md", TWICE)
    with pytest.raises(AmbiguousClaim, match=r"2 tables are headed 'Colour' \(lines 3, 10\)") as info:
        read_claim(d, TableClaim("Colour"))
    assert info.value.location == Location("c.md", 10)
    assert [i.value.data for i in read_claim(d, TableClaim("Colour", section="Legacy")).items] == ["red", "purple"]


def test_a_repeated_row_label_and_a_repeated_column_name_are_ambiguous():
    d = parse_document("c.md", TWICE)
    with pytest.raises(AmbiguousClaim, match=r"two rows labelled 'Warn' \(lines 19, 20\)"):
        read_claim(d, TableClaim("Level", rows=(("Warn", "warn"),)))
    with pytest.raises(AmbiguousClaim, match="2 columns named 'Value'"):
        read_claim(d, TableClaim("Level", column="Value"))


def test_two_sections_with_one_heading_are_ambiguous():
    d = parse_document("c.md", TWICE)
    with pytest.raises(AmbiguousClaim, match=r"2 sections are headed 'Workers' \(lines 22, 26\)"):
        read_claim(d, PhraseClaim("at most {value} workers", section="Workers"))


@pytest.mark.parametrize("stated, members", [
    ("'spa' | 'mpa' | 'custom'", ["spa", "mpa", "custom"]),
    ('"a"|"b"', ["a", "b"]),
    ("['.mjs', '.js']", [".mjs", ".js"]),
    ("string | boolean", ["string | boolean"]),
    ("'spa' | Custom", ["'spa' | Custom"]),
])
def test_a_list_or_a_union_of_string_literals_states_members(stated, members):
    items = list_items(stated, (10, 10 + len(stated)), Location("d.md", 3))
    assert [i.value.text for i in items] == members
    for item, member in zip(items, members):
        start, end = item.span
        assert stated[start - 10:end - 10] == member
