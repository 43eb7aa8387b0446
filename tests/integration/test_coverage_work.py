"""The work ``coverage`` does beyond judging the rules grows with the document, never with
the document times its findings or its spans (STYLE.md 17: counted, not timed).

On a 3.9 MB document ``coverage`` cost twice what ``check`` did (benchmarks/coverage_scale.py):
each item a rule read was checked against every finding of its rule, each item read without
a span (a key of a TOML block) against every span of the document, and each quantity was
read again for every time the document stated it. With a warm cache ``check`` parses
nothing, and neither does ``coverage``: it reads the document's spans back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from driftguard.config.loader import Config, load_config
from driftguard.coverage import measure
from driftguard.coverage.model import DocumentCoverage
from driftguard.coverage.spans import claim_spans
from driftguard.documents import formats
from driftguard.judging.cache import FactCache
from driftguard.judging.engine import Engine
from driftguard.judging.fingerprints import digest
from driftguard.quantities import reading
from tests.work import assert_linear, metered

SOURCE = """package poll

type State string

const (
\tStateIdle State = "idle"
\tStateBusy State = "busy"
)

type Poller struct{}

func (p *Poller) Run() {}
"""

CONFIG = """version: 1
facts:
  states: {file: poll.go, constants: {type: State}}
  symbols: {file: poll.go, symbols: true}
rules:
  - {id: refs, fact: symbols, doc: d.md, references: true}
  - {id: keys, fact: states, doc: d.md, block: {lang: toml, keys: states}}
"""


def _section(i: int) -> str:
    """A stale reference (a finding), a quantity, a row label and a TOML block whose keys a
    rule reads with no span (on the block's first line)."""
    return (f"## Part {i}\n\nThe poller calls `Poller.Gone{i % 3}` and `Poller.Run` every 30 seconds.\n\n"
            f"| Setting | Default |\n|---|---|\n| Interval {i} | 5 minutes |\n\n"
            '```toml\n[states]\nidle = 1\nbusy = 2\n```\n\n')


def _judged(root: Path, n: int) -> tuple[Config, Engine]:
    """The config over a document of ``n`` sections, and an engine that has parsed the
    document and judged the rules: what ``coverage`` has before it measures anything."""
    root.mkdir()
    (root / "poll.go").write_text(SOURCE, encoding="utf-8")
    (root / "d.md").write_text("# D\n\n" + "".join(_section(i) for i in range(n)), encoding="utf-8")
    (root / "driftguard.yaml").write_text(CONFIG, encoding="utf-8")
    config = load_config(root / "driftguard.yaml")
    engine = Engine(config, None)
    assert [len(engine.judge(rule).findings) for rule in config.rules] == [n, 0]  # a stale reference a section
    engine.document("d.md")
    return config, engine


def _measured(monkeypatch: pytest.MonkeyPatch, judged: tuple[Config, Engine]) -> DocumentCoverage:
    """``coverage`` of the document, with the judging and the parse already done."""
    config, engine = judged
    monkeypatch.setattr(measure, "Engine", lambda *_: engine)
    (doc,) = measure.measure_coverage(config).documents
    return doc


def test_measuring_a_document_is_linear_in_its_sections_findings_and_spans(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = iter(range(10))
    assert_linear(lambda n: _judged(tmp_path / f"t{next(sizes)}", n), lambda j: _measured(monkeypatch, j), 80)
    doc = _measured(monkeypatch, _judged(tmp_path / "check", 4))
    assert (len(doc.spans), sum(1 for c in doc.spans if c.drifted)) == (4 * 5, 4)  # see _section; the stale ones


def test_a_quantity_stated_again_and_again_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, engine = _judged(tmp_path / "t", 300)
    doc = engine.document("d.md")
    metered(monkeypatch, reading, "parse_quantity", budget=300 + 2)  # each section's number, the two durations
    spans = claim_spans(doc)
    assert sum(1 for s in spans if s.text in ("30 seconds", "5 minutes")) == 600


def test_a_warm_run_parses_no_document_and_measures_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``check`` with a warm cache reads its claims back without parsing the document;
    ``coverage`` reads the document's spans back the same way, so it stays as cheap."""
    config, _ = _judged(tmp_path / "t", 20)
    uncached = measure.measure_coverage(config)
    cold = measure.measure_coverage(config, cache=FactCache(tmp_path / "cache"))
    metered(monkeypatch, formats, "read_document", budget=0)
    warm = measure.measure_coverage(config, cache=FactCache(tmp_path / "cache"))
    assert warm == cold == uncached


def test_a_damaged_entry_of_spans_is_measured_again(tmp_path: Path) -> None:
    config, _ = _judged(tmp_path / "t", 3)
    measured = measure.measure_coverage(config, cache=FactCache(tmp_path / "cache"))
    damaged = 0
    for entry in (tmp_path / "cache").glob("*.json"):  # a valid digest over columns that disagree
        body = entry.read_bytes().partition(b"\n")[2]
        if b'"coverage-spans"' in body:
            body = body.replace(b'"line":[', b'"line":[0,', 1)
            entry.write_bytes(digest(body).encode("ascii") + b"\n" + body)
            damaged += 1
    assert damaged == 1
    assert measure.measure_coverage(config, cache=FactCache(tmp_path / "cache")) == measured
