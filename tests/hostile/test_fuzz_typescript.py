"""Fuzzing the TypeScript reader (derandomized): every fact of the ``ts_reach`` fixture,
read from a source with characters spliced in or cut out, gives items at lines of the
file or raises ParseError, FactNotFound or AmbiguousFact naming the file; ``skipped``,
``declaration`` and ``problems`` never raise, and the selftest's mutators either edit
or say why they cannot."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftguard.config.loader import load_config
from driftguard.model import AmbiguousFact, Fact, FactNotFound, Item, Kind, ParseError
from driftguard.sources import typescript as reader
from driftguard.sources.mutation import CannotApply, NotApplicable

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "ts_reach"
CONFIG = load_config(SHAPES / "driftguard.yaml")
FACTS = sorted(CONFIG.facts.values(), key=lambda spec: spec.name)
SOURCES = {spec.file: (SHAPES / spec.file).read_text(encoding="utf-8") for spec in FACTS}
FUZZ = settings(derandomize=True, max_examples=600, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SPLICE = st.tuples(st.floats(0, 1), st.integers(0, 30),
                   st.text(alphabet="(){}[]<>\"'`/*\\\n =:,.;?|&!+-@$019xA_", max_size=6))


def _check(items: list[Item], rel: str, source: str) -> None:
    lines = source.count("\n") + 1
    for item in items:
        assert item.value.kind in (Kind.STRING, Kind.NUMBER, Kind.BOOL)
        assert item.location is not None and item.location.path == rel
        assert item.location.line is not None and 1 <= item.location.line <= lines


def test_every_fuzzed_fact_reads_from_the_unmutated_source() -> None:
    for spec in FACTS:
        _check(list(reader.extract(reader.parse(spec.file, SOURCES[spec.file]), spec.selector, spec.file)),
               spec.file, SOURCES[spec.file])


@FUZZ
@given(which=st.integers(0, len(FACTS) - 1), splice=SPLICE)
def test_the_typescript_reader_on_spliced_sources_reads_or_reports(which: int,
                                                                    splice: tuple[float, int, str]) -> None:
    spec = FACTS[which]
    at, cut, insert = splice
    original = SOURCES[spec.file]
    i = int(at * len(original))
    source = original[:i] + insert + original[i + cut:]
    tree = reader.parse(spec.file, source)
    assert all(1 <= line <= source.count("\n") + 1 for line, _ in reader.problems(tree, spec.file))
    reader.skipped(tree, spec.selector, spec.file)
    reader.declaration(tree, spec.selector, spec.file)
    try:
        items = list(reader.extract(tree, spec.selector, spec.file))
    except (ParseError, FactNotFound, AmbiguousFact) as exc:
        assert exc.location is not None and exc.location.path == spec.file
        return
    assert items
    _check(items, spec.file, source)
    fact = Fact(spec.name, tuple(items), spec.scalar)
    try:
        edit = (reader.change_scalar if spec.scalar else reader.add_member)(source, spec, fact)
    except (CannotApply, NotApplicable):
        return
    assert edit.text != source
