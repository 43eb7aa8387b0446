"""The quantity reader and writer: a phrase table, sentence search, style-keeping rewrites."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.model import Kind, Value
from driftguard.quantities import (
    QUANTITY_PATTERN,
    QuantityError,
    find_quantities,
    format_like,
    parse_quantity,
)

N, D = Kind.NUMBER, Kind.DURATION
MIN, HOUR, DAY = 60.0, 3600.0, 86400.0

PHRASES = [
    # bare numbers: digits, decimals, separators, signs
    ("75", N, 75), ("75.0", N, 75), ("3", N, 3), ("0", N, 0), ("1,000", N, 1000),
    ("12,345.5", N, 12345.5), ("-5", N, -5), ("\u22123", N, -3), ("0.25", N, 0.25),
    # number words
    ("zero", N, 0), ("three", N, 3), ("ten", N, 10), ("eleven", N, 11), ("fourteen", N, 14),
    ("nineteen", N, 19), ("twenty", N, 20), ("twenty-four", N, 24), ("twenty four", N, 24),
    ("ninety-nine", N, 99), ("a hundred", N, 100), ("one hundred", N, 100), ("Three", N, 3),
    ("FOUR", N, 4),
    # multipliers
    ("once", N, 1), ("twice", N, 2), ("thrice", N, 3), ("3 times", N, 3), ("three times", N, 3),
    ("twenty times", N, 20), ("Once", N, 1),
    # percents
    ("75%", N, 75), ("75 %", N, 75), ("75 percent", N, 75), ("75 per cent", N, 75),
    ("95.5%", N, 95.5), ("seventy-five percent", N, 75), ("-5%", N, -5),
    # durations, spaced
    ("10 minutes", D, 600), ("ten minutes", D, 600), ("one hour", D, HOUR), ("48 hours", D, 48 * HOUR),
    ("1.5 hours", D, 1.5 * HOUR), ("2 days", D, 2 * DAY), ("30 seconds", D, 30), ("1 sec", D, 1),
    ("5 mins", D, 5 * MIN), ("5 min", D, 5 * MIN), ("2 hrs", D, 2 * HOUR), ("1 hr", D, HOUR),
    ("2 weeks", D, 14 * DAY), ("250 ms", D, 0.25), ("500 milliseconds", D, 0.5),
    ("twenty-four hours", D, DAY), ("Ten Minutes", D, 600), ("48\nhours", D, 48 * HOUR),
    # articles and halves
    ("an hour", D, HOUR), ("a minute", D, MIN), ("a day", D, DAY), ("a week", D, 7 * DAY),
    ("half an hour", D, 1800), ("half a minute", D, 30), ("An hour", D, HOUR),
    # attached and compact
    ("90s", D, 90), ("250ms", D, 0.25), ("10m", D, 600), ("48h", D, 48 * HOUR), ("2d", D, 2 * DAY),
    ("5min", D, 300), ("1h30m", D, 5400), ("1h30m0s", D, 5400), ("2m30s", D, 150),
    ("1s500ms", D, 1.5), ("-1h30m", D, -5400), ("48H", D, 48 * HOUR),
    # compound adjectives
    ("ten-minute", D, 600), ("48-hour", D, 48 * HOUR),
    # markup and whitespace around the quantity
    ("`75%`", N, 75), ("**48 hours**", D, 48 * HOUR), ("  ten minutes\t", D, 600), ("*once*", N, 1),
]

NOT_QUANTITIES = [
    "", "   ", "often", "ten-ish", "minutes", "75%%", "a", "an", "hundred", "10 m", "5 s",
    "1.5.3", "forty two hundred", "1,00", "seventy-zero", "time", "half", "5 months", "10KB", "10 mb", "4 megabytes",
    "ten minutes ago", "75% of", "``", "1e3", "inf", "nan", ".5", "twenty-", "9" * 400, "1" * 600,
    # look-alike letters that fold to ASCII under Unicode case-insensitivity (long s, Kelvin sign)
    "90\u017f", "ten minute\u017f", "5 \u212aelvin", "\u0663",
]


@pytest.mark.parametrize(("text", "kind", "data"), PHRASES, ids=[p[0] for p in PHRASES])
def test_phrase_is_read_as_the_right_kind_and_amount(text: str, kind: Kind, data: float) -> None:
    value = parse_quantity(text)
    assert value.kind is kind
    assert value.same(Value(kind, float(data)))
    assert value.text == text


@pytest.mark.parametrize("text", NOT_QUANTITIES)
def test_non_quantities_raise_quantity_error(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


def test_the_phrase_table_is_large_enough() -> None:
    assert len(PHRASES) + len(NOT_QUANTITIES) >= 60


@pytest.mark.parametrize(
    ("text", "unit"),
    [("75%", "%"), ("75 percent", "%"), ("ten minutes", "minutes"), ("one hour", "hour"),
     ("48H", "h"), ("1h30m", "h"), ("three times", "times"), ("once", "times"), ("4", "")],
)
def test_unit_hint_is_the_unit_as_written(text: str, unit: str) -> None:
    assert parse_quantity(text).unit == unit


def test_percent_equals_a_bare_number_but_a_duration_never_does() -> None:
    assert parse_quantity("75%").same(Value(N, 75.0))
    assert not parse_quantity("48 hours").same(parse_quantity("48"))
    assert not parse_quantity("ten minutes").same(Value(N, 600.0))


# -- QUANTITY_PATTERN and find_quantities ---------------------------------------


def test_pattern_has_no_capturing_groups_and_survives_verbose_mode() -> None:
    assert re.compile(QUANTITY_PATTERN).groups == 0
    template = re.compile(rf"expire after (?P<value>{QUANTITY_PATTERN})")
    assert template.groupindex == {"value": 1}
    assert re.compile(QUANTITY_PATTERN, re.VERBOSE).fullmatch("ten minutes")


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Pending recoveries expire after ten minutes.", "ten minutes"),
        ("Backups older than 48 hours are stale.", "48 hours"),
        ("Storage warning fires at 75% usage.", "75%"),
        ("A finding is investigated three times at most.", "three times"),
        ("At most four concurrent runs.", "four"),
        ("The cap is 2, always.", "2"),
        ("Retry every 1h30m until done.", "1h30m"),
        ("It waits one hour between runs.", "one hour"),
        ("Cool down for an hour.", "an hour"),
        ("Use a 48-hour window.", "48-hour"),
        ("Expires after **ten minutes**.", "ten minutes"),
    ],
)
def test_pattern_finds_the_longest_quantity_in_a_sentence(sentence: str, expected: str) -> None:
    m = re.search(QUANTITY_PATTERN, sentence)
    assert m is not None and m.group() == expected


@pytest.mark.parametrize(
    "sentence",
    ["It happens often.", "Tenfold growth.", "Listen to the twentyfold echo.", "Version v1.5.3 ships.",
     "A ten-ish minute wait.", "Disk at 75%% odd.", "Once-only handlers.", "stoneware", "item_10",
     "5-10 minutes", "It took 90\u017f."],
)
def test_pattern_respects_word_boundaries(sentence: str) -> None:
    assert re.search(QUANTITY_PATTERN, sentence) is None


def test_template_reads_the_value_group() -> None:
    template = re.compile(rf"expire after (?P<value>{QUANTITY_PATTERN})")
    m = template.search("Pending recoveries expire after ten minutes.")
    assert m is not None and parse_quantity(m["value"]).same(Value(D, 600.0))
    assert template.search("Pending recoveries expire after often.") is None


def test_find_quantities_gives_spans_and_values() -> None:
    text = "Warn at 75%, retry three times, expire after ten minutes, keep 48 hours."
    found = find_quantities(text)
    assert [text[a:b] for a, b, _ in found] == ["75%", "three times", "ten minutes", "48 hours"]
    assert [v.kind for _, _, v in found] == [N, N, D, D]
    assert [v.data for _, _, v in found] == [75.0, 3.0, 600.0, 172800.0]
    assert all(v.text == text[a:b] for a, b, v in found)


def test_find_quantities_skips_numbers_too_large_for_a_float() -> None:
    assert find_quantities("x " + "9" * 400 + " y 5") == [(405, 406, Value(N, 5.0, "5"))]


# -- format_like ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("like", "new", "expected"),
    [
        ("75%", Value(N, 80.0), "80%"),
        ("75 percent", Value(N, 80.0), "80 percent"),
        ("75.0", Value(N, 80.0), "80.0"),
        ("ten minutes", Value(D, 900.0), "fifteen minutes"),
        ("Ten minutes", Value(D, 900.0), "Fifteen minutes"),
        ("TEN MINUTES", Value(D, 1200.0), "TWENTY MINUTES"),
        ("48 hours", Value(D, 72 * HOUR), "72 hours"),
        ("one hour", Value(D, 2 * HOUR), "two hours"),
        ("one hour", Value(D, 1800.0), "30 minutes"),
        ("an hour", Value(D, 2 * HOUR), "two hours"),
        ("an hour", Value(D, 1800.0), "half an hour"),
        ("three times", Value(N, 5.0), "five times"),
        ("3 times", Value(N, 1.0), "once"),
        ("once", Value(N, 2.0), "twice"),
        ("twice", Value(N, 4.0), "four times"),
        ("three", Value(N, 5.0), "five"),
        ("three", Value(N, 2.5), "2.5"),
        ("4", Value(N, 6.0), "6"),
        ("1,000", Value(N, 2500.0), "2,500"),
        ("1h30m", Value(D, 2 * HOUR), "2h"),
        ("1h30m", Value(D, 90.0), "1m30s"),
        ("10m", Value(D, 900.0), "15m"),
        ("90s", Value(D, 1.5), "1500ms"),
        ("5 mins", Value(D, 60.0), "1 min"),
        ("1.5 hours", Value(D, 2.5 * HOUR), "2.5 hours"),
        ("ten-minute", Value(D, 900.0), "fifteen-minute"),
        ("twenty-four hours", Value(D, 2 * DAY), "forty-eight hours"),
        ("twenty four hours", Value(D, 2 * DAY), "forty eight hours"),
        ("1h30m", Value(D, 0.0), "0h"),
        ("ten minutes", Value(D, 0.0), "zero minutes"),
        ("**75%**", Value(N, 95.0), "**95%**"),
        ("2 days", Value(D, 36 * HOUR), "36 hours"),
    ],
)
def test_format_like_keeps_the_documents_style(like: str, new: Value, expected: str) -> None:
    assert format_like(new, parse_quantity(like)) == expected


def test_format_like_falls_back_on_the_unit_hint_when_the_text_is_code() -> None:
    like = Value(D, 600.0, "10 * time.Minute", "minutes")
    assert format_like(Value(D, 900.0), like) == "15 minutes"
    assert format_like(Value(N, 80.0), Value(N, 75.0, "signalStorageWarningPercent", "%")) == "80%"


@pytest.mark.parametrize(("like", "new"), [("75%", Value(D, 60.0)), ("ten minutes", Value(N, 3.0)),
                                          ("48 hours", Value(N, 0.5)), ("once", Value(D, 5400.0))])
def test_format_like_across_kinds_still_writes_the_new_value(like: str, new: Value) -> None:
    assert parse_quantity(format_like(new, parse_quantity(like))).same(new)


def test_format_like_refuses_values_that_are_not_quantities() -> None:
    with pytest.raises(QuantityError):
        format_like(Value.string("RESOLVING"), parse_quantity("4"))
    with pytest.raises(QuantityError):
        format_like(Value(N, float("inf")), parse_quantity("4"))


@pytest.mark.parametrize(("value", "expected"), [(Value(D, 172800.0), "48h"), (Value(N, 75.0), "75"),
                                                  (Value(D, 5400.0), "1h30m"), (Value(N, 0.5), "0.5")])
def test_canonical_is_the_code_like_spelling(value: Value, expected: str) -> None:
    assert value.canonical == expected


# -- properties ----------------------------------------------------------------

NUMBER_STYLES = ["75%", "75 percent", "3", "three", "Three times", "once", "75.0", "1,000", "`4`",
                 "twenty-four"]
DURATION_STYLES = ["ten minutes", "48 hours", "1h30m", "90s", "an hour", "half an hour", "1.5 hours",
                   "ten-minute", "5 mins", "250 ms", "2 days", "48H", "**one hour**"]


@settings(deadline=None, derandomize=True, max_examples=300)
@given(n=st.integers(-10**9, 10**9), like=st.sampled_from(NUMBER_STYLES))
def test_integers_round_trip_through_every_number_style(n: int, like: str) -> None:
    text = format_like(Value(N, float(n)), parse_quantity(like))
    assert parse_quantity(text).same(Value(N, float(n))), text


@settings(deadline=None, derandomize=True, max_examples=300)
@given(x=st.floats(-1e12, 1e12, allow_nan=False).filter(lambda x: x == 0 or abs(x) >= 1e-6),
       like=st.sampled_from(NUMBER_STYLES))
def test_floats_round_trip_through_every_number_style(x: float, like: str) -> None:
    text = format_like(Value(N, x), parse_quantity(like))
    assert parse_quantity(text).same(Value(N, x)), text


@settings(deadline=None, derandomize=True, max_examples=400)
@given(ms=st.integers(-10**10, 10**10), like=st.sampled_from(DURATION_STYLES))
def test_durations_round_trip_through_every_duration_style(ms: int, like: str) -> None:
    value = Value(D, ms / 1000)
    text = format_like(value, parse_quantity(like))
    assert parse_quantity(text).same(value), text


QUANTITYISH = st.text(alphabet="0123456789.,-%\u2212 hmsdw`*_aeinortuxHMS", max_size=30)
GRAMMAR = st.builds(
    lambda sign, number, sep, unit, upper: (str.upper if upper else str)(sign + number + sep + unit),
    st.sampled_from(["", "", "-"]),
    st.sampled_from(["0", "7", "10", "48", "1.5", "1,000", "75.0", "ten", "twenty-four", "twenty four", "a",
                     "an", "half an", "one hundred", "nineteen"]),
    st.sampled_from(["", " ", "-", "\n", "  "]),
    st.sampled_from(["", "%", "percent", "times", "minutes", "hour", "h", "m", "s", "ms", "mins", "hrs",
                     "days", "weeks", "1h30m", "30s", "secs"]),
    st.booleans(),
)
WORDISH = st.lists(st.sampled_from(["ten", "twenty", "-", " ", "four", "minutes", "h", "30", "m", "%",
                                    "times", "an", "hour", "half", "a", "hundred", "once", ",000", "."]),
                   max_size=8).map("".join)


@settings(deadline=None, derandomize=True, max_examples=1000)
@given(text=st.text())
def test_parse_quantity_on_arbitrary_text_raises_only_its_own_error(text: str) -> None:
    try:
        value = parse_quantity(text)
    except QuantityError:
        return
    assert value.kind in (N, D, Kind.BYTES, Kind.BOOL)


@settings(deadline=None, derandomize=True, max_examples=1000)
@given(text=st.one_of(QUANTITYISH, WORDISH, GRAMMAR))
def test_parse_quantity_on_quantity_like_text_raises_only_its_own_error(text: str) -> None:
    try:
        value = parse_quantity(text)
    except QuantityError:
        return
    assert value.kind in (N, D)
    assert parse_quantity(format_like(value, value)).same(value)  # rewriting a value to itself is lossless


@settings(deadline=None, derandomize=True, max_examples=1000)
@given(text=st.one_of(st.text(), QUANTITYISH, WORDISH, GRAMMAR.map("after {}, then".format)))
def test_every_found_quantity_parses_and_sits_at_its_span(text: str) -> None:
    for start, end, value in find_quantities(text):
        assert value.text == text[start:end]
        assert parse_quantity(text[start:end]).same(value)


# -- read whole, or not at all -------------------------------------------------------

@pytest.mark.parametrize("text", ["4 thousand", "four hundred", "4 million", "eight hundred", "4/5", "4 / 5",
                                  "4,5", "4 to 8", "4 or 5", "4-8", "4 KB", "4 megabytes", "4 kilobytes", "4 Mb"])
def test_a_number_whose_tail_changes_it_is_not_read_as_its_head(text: str) -> None:
    assert find_quantities(f"the cap is {text} here") == []
    with pytest.raises(QuantityError):
        parse_quantity(text)


@pytest.mark.parametrize("text, seconds", [("10 minutes 30 seconds", 630.0), ("10 minutes and 30 seconds", 630.0),
                                           ("1 hour, 30 minutes", 5400.0), ("two hours and ten minutes", 7800.0)])
def test_a_duration_written_in_parts_is_one_duration(text: str, seconds: float) -> None:
    value = parse_quantity(text)
    assert value.kind is Kind.DURATION and value.data == seconds
    [(start, end, found)] = find_quantities(f"retry after {text} at most")
    assert found.data == seconds and f"retry after {text} at most"[start:end] == text


def test_a_duration_in_parts_is_never_rewritten() -> None:
    with pytest.raises(QuantityError, match="written in parts"):
        format_like(Value(Kind.DURATION, 700.0), parse_quantity("10 minutes and 30 seconds"))
