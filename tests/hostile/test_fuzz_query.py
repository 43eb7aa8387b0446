"""Fuzzing the ``query`` reader (derandomized): mutated sources and arbitrary query text
raise only driftguard's own errors, never a tree-sitter exception or a traceback, and the
selftest's mutators either write an edit or refuse."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Query
from driftguard.model import DriftguardError, Fact
from driftguard.sources import query
from driftguard.sources.mutation import CannotApply, NotApplicable

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "query"
FUZZ = settings(derandomize=True, max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

SOURCES = {
    "rust": (FIXTURES / "rust" / "src" / "mode.rs").read_text(),
    "c": (FIXTURES / "c" / "include" / "config.h").read_text(),
    "ruby": (FIXTURES / "ruby" / "lib" / "server.rb").read_text(),
}
QUERIES = {
    "rust": ["(enum_variant name: (identifier) @value)", "(const_item name: (identifier) @name value: (_) @value)"],
    "c": ["(preproc_def name: (identifier) @value)", "(preproc_def name: (identifier) @name value: (_) @value)"],
    "ruby": ["(pair key: (_) @value)", "(pair key: (_) @name value: (_) @value)"],
}


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str, str]:
    language = draw(st.sampled_from(sorted(SOURCES)))
    text = SOURCES[language]
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 8))
        text = text[:at] + draw(st.text(alphabet="{}()[];,:=\"'#\\ \n\tabcXYZ019é\ud800", max_size=6)) + text[at + cut:]
    return language, text, draw(st.sampled_from(QUERIES[language]))


@FUZZ
@given(mutated(), st.booleans())
def test_a_mutated_source_gives_items_or_driftguard_errors(case, scalar):
    language, text, written = case
    selector = Query(language=language, query=written, scalar=scalar and "@name" not in written)
    tree = query.parse("f", text)
    try:
        items = query.extract(tree, selector, "f")
    except DriftguardError:
        return
    assert items
    query.skipped(tree, selector, "f")
    query.problems(tree, "f")
    spec = FactSpec(name="x", file="f", selector=selector, line=1)
    fact = Fact("x", tuple(items), selector.scalar)
    for mutate in (query.add_member, query.change_scalar):
        try:
            edit = mutate(text, spec, fact)
        except (NotApplicable, CannotApply):
            continue
        assert edit.text != text


@FUZZ
@given(st.text(alphabet='()[]@#?!"\\;:_ \nabeilmnqrstuvxy.*+', max_size=60))
def test_arbitrary_query_text_raises_only_driftguard_errors(text):
    selector = Query(language="rust", query=text + " @value")
    try:
        query.extract(query.parse("f", SOURCES["rust"]), selector, "f")
    except DriftguardError:
        pass
