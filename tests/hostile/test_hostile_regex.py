"""User regexes that backtrack catastrophically are stopped at the time bound and
reported as pattern errors naming the file and the pattern; ordinary ones, with
lookarounds and backreferences, match as ``re`` would.

No test here times anything (tests/work.py). The regex library stops a match at the
``timeout`` it is handed; what driftguard owes is to hand every match of a user regex a
bound (never none), one bound for a whole batch of texts, and to stop at the first
timeout with an error naming the file and the pattern. The ``matches`` fixture records
each match call a user regex makes, with its text's length, its bound and whether it
timed out, and refuses an unbounded one (which could hang). How close the library stops
to its bound is measured in ``benchmarks/hostile.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import regex

from driftguard import user_regex
from driftguard.model import Location, PatternError
from tests.hostile.shapes import SENTENCES
from tests.work import OverBudget, assert_linear

EVIL = r"^((?:a|a)+)$"  # overlapping alternatives under a repeat: exponential on a run of "a" that does not end the line
EVIL_SPANS = r"^(?:a|a)+$"


@pytest.fixture
def fast_bound(monkeypatch):
    monkeypatch.setenv(user_regex.TIMEOUT_ENV, "0.5")
    return 0.5


@dataclass
class Match:
    """One match call of a user regex: over how many characters, with what bound, and
    whether the library stopped it there."""

    chars: int
    timeout: float
    timed_out: bool = False


class _Recorded:
    """A compiled user regex that records its match calls in ``log``."""

    def __init__(self, compiled: Any, log: list[Match]) -> None:
        self._compiled, self._log = compiled, log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._compiled, name)

    def _call(self, text: str, timeout: float | None) -> Match:
        if timeout is None or timeout <= 0:
            raise OverBudget(f"a match of {self._compiled.pattern!r} without a bound (timeout={timeout})")
        self._log.append(Match(len(text), timeout))
        return self._log[-1]

    def search(self, text: str, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        call = self._call(text, timeout)
        try:
            return self._compiled.search(text, *args, timeout=timeout, **kwargs)
        except TimeoutError:
            call.timed_out = True
            raise

    def finditer(self, text: str, *args: Any, timeout: float | None = None, **kwargs: Any) -> Iterator[Any]:
        call = self._call(text, timeout)
        try:
            yield from self._compiled.finditer(text, *args, timeout=timeout, **kwargs)
        except TimeoutError:
            call.timed_out = True
            raise


@pytest.fixture
def matches(monkeypatch: pytest.MonkeyPatch) -> list[Match]:
    """Every match call of every regex compiled through ``driftguard.user_regex`` from now on."""
    log: list[Match] = []

    def compile_recorded(pattern: str, flags: int = 0) -> _Recorded:
        return _Recorded(regex.compile(pattern, flags), log)

    proxy = SimpleNamespace(compile=compile_recorded, VERSION0=regex.VERSION0, error=regex.error)
    monkeypatch.setattr(user_regex, "regex", proxy)
    return log


# -- through the command line --------------------------------------------------------


def test_a_catastrophic_pattern_fact_over_a_large_file_is_stopped(repo, write, cli, fast_bound, matches):
    big = ("a" * 40 + "!\n") * 25_000  # one megabyte of near-misses
    write(repo, {
        "data/big.txt": big,
        "docs/d.md": "# D\n\n- `x`\n",
        "driftguard.yaml": f"""
            version: 1
            facts:
              words: {{file: data/big.txt, pattern: '{EVIL}'}}
            rules:
              - {{id: words, fact: words, doc: docs/d.md, section: D, list: true}}
            """,
    })
    run = cli(repo, "check", "--format", "json")
    assert [(m.chars, m.timeout, m.timed_out) for m in matches] == [(len(big), 0.5, True)]  # one bound, the file's
    assert run.code == 2
    [finding] = json.loads(run.out)["findings"]
    assert finding["kind"] == "pattern-error" and finding["code"] == "DG204"
    assert finding["source"]["path"] == "data/big.txt"
    assert EVIL in finding["message"] and "took longer than 0.5 s" in finding["message"]
    text = cli(repo, "check").out
    assert f"docs/d.md: words: fact 'words': pattern '{EVIL}' took longer than 0.5 s" in text


def test_catastrophic_code_spans_are_stopped_naming_the_document_and_section(repo, write, cli, fast_bound,
                                                                             matches):
    spans = "".join(f"- `{'a' * 30}!`\n" for _ in range(50))
    write(repo, {
        "src/names.py": "NAMES = {'aaa': 1}\n",
        "docs/d.md": "# Intro\n\ntext\n\n## Names\n\n" + spans,
        "driftguard.yaml": """
            version: 1
            facts:
              names: {file: src/names.py, map_keys: NAMES}
            rules:
              - {id: names, fact: names, doc: docs/d.md, section: Names, code_spans: '^(?:a|a)+$'}
            """,
    })
    run = cli(repo, "check")
    assert run.code == 2
    assert "docs/d.md:5: names: pattern '^(?:a|a)+$' took longer than 0.5 s over 1550 characters" in run.out
    # the first span spends the batch's bound, and the other 49 are never tried
    [first] = [m for m in matches if m.chars == 31]
    assert first.timed_out and 0 < first.timeout <= 0.5


class _Stops:
    """A compiled pattern the library stops at once, as it does a match that outlives its bound."""

    pattern = EVIL

    def __init__(self) -> None:
        self.bounds: list[float] = []

    def finditer(self, text: str, timeout: float) -> Iterator[Any]:
        self.bounds.append(timeout)
        raise TimeoutError


def test_the_default_bound_is_two_seconds_and_each_match_is_handed_it(monkeypatch):
    monkeypatch.delenv(user_regex.TIMEOUT_ENV, raising=False)
    assert user_regex.timeout() == user_regex.DEFAULT_TIMEOUT == 2.0
    stops = _Stops()
    with pytest.raises(PatternError, match="took longer than 2 s over 61 characters") as info:
        user_regex.first_groups(stops, "a" * 60 + "!", Location("big.txt"))
    assert stops.bounds == [2.0]
    assert info.value.location == Location("big.txt") and str(info.value).startswith("big.txt: pattern")


@pytest.mark.parametrize("value", ["", "soon", "0", "-3", "inf", "nan", "1e400"])
def test_a_bad_timeout_setting_falls_back_to_the_default(monkeypatch, value):
    monkeypatch.setenv(user_regex.TIMEOUT_ENV, value)
    assert user_regex.timeout() == user_regex.DEFAULT_TIMEOUT


# -- the same answers as re ------------------------------------------------------------

CASES = [
    (r"^(\w+)\s*=", "alpha = 1\nbeta=2\n  gamma = 3\nalpha = 4\n"),
    (r'"(DG\d{3})"', '"DG101" "DG202" "DG101" "DG9999" DG303'),
    (r"(a)|(b)", "bab"),
    (r"(?i)(ÉTAT_\w+)", "état_un ÉTAT_DEUX\nétat_un"),
    (r"(x*)", "xxyx"),
    (r"^(?!nil\b)(\w+)$", "nil\nvalue\nnilly\n"),
    (r"(\w)\1(\w+)", "aab xyy ccd"),
]


@pytest.mark.parametrize("pattern, text", CASES)
def test_matches_are_those_of_re(pattern, text):
    compiled = user_regex.compile_user_regex(pattern, Location("t"), flags=user_regex.MULTILINE)
    expected: dict[str, int] = {}
    for m in re.finditer(pattern, text, re.M):
        if m.group(1) is not None:
            expected.setdefault(m.group(1), m.start(1))
    assert user_regex.first_groups(compiled, text, Location("t")) == list(expected.items())
    spans = text.splitlines()
    want = [re.search(pattern, span, re.M) is not None for span in spans]
    assert user_regex.search_each(compiled, spans, Location("t")) == want


class _Clock:
    """Time that passes only as the fake pattern below works: ``cost`` per character."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


class _Costly:
    """A pattern whose match of a text takes ``cost`` a character on ``clock``, and that the
    library stops (TimeoutError) when that is more than the bound it is handed."""

    pattern = "(costly)"
    groups = 1

    def __init__(self, clock: _Clock, cost: float) -> None:
        self.clock, self.cost = clock, cost
        self.tried: list[str] = []

    def _work(self, text: str, timeout: float) -> None:
        self.tried.append(text)
        spent = self.cost * len(text)
        self.clock.now += min(spent, timeout)
        if spent > timeout:
            raise TimeoutError

    def search(self, text: str, timeout: float) -> Any:
        self._work(text, timeout)
        return None

    def finditer(self, text: str, timeout: float) -> Iterator[Any]:
        self._work(text, timeout)
        return iter(())


@pytest.mark.parametrize("batch", [user_regex.search_each, user_regex.group_each, user_regex.every_group])
def test_the_bound_covers_a_whole_batch(monkeypatch, fast_bound, batch):
    """Three texts of 0.3 s each against a bound of 0.5 s: each alone is within it, the batch
    is not, and the second is stopped with what the first left (0.2 s)."""
    clock = _Clock()
    monkeypatch.setattr(user_regex, "time", SimpleNamespace(monotonic=clock.monotonic))
    costly = _Costly(clock, cost=0.01)
    with pytest.raises(PatternError, match=r"took longer than 0.5 s over 90 characters"):
        batch(costly, ["a" * 30] * 3, Location("t"))
    assert len(costly.tried) == 2 and clock.now == pytest.approx(0.5)
    assert batch(_Costly(_Clock(), cost=0.001), ["a" * 30] * 3, Location("t")) is not None  # 0.09 s: all three


def test_nested_repeats_over_a_long_run_are_stopped(fast_bound, matches):
    """The regex library copes with (a+)+$ over a short run, but a long one still hits the bound."""
    compiled = user_regex.compile_user_regex(r"(a+)+$", Location("long.txt"))
    with pytest.raises(PatternError, match=r"pattern '\(a\+\)\+\$' took longer than 0.5 s") as info:
        user_regex.search_each(compiled, ["a" * 5_000 + "b"], Location("long.txt"))
    assert info.value.location == Location("long.txt")
    [match] = matches
    assert match.chars == 5_001 and match.timed_out and 0 < match.timeout <= 0.5


def test_a_lookaround_constants_name_pattern_selects_as_in_re(tmp_path: Path) -> None:
    from driftguard.config.specs import Constants
    from driftguard.sources import load_reader, reader_name

    reader = load_reader(reader_name("x.go", Constants(name="x")))
    tree = reader.parse("x.go", "package x\nconst (\n\tErrNil = 1\n\tErrGone = 2\n\tErrNilAgain = 3\n)\n")
    found = reader.extract(tree, Constants(name=r"^Err(?!Nil)"), "x.go")
    assert [i.value.data for i in found] == [2.0]


# -- internal regexes over hostile text ----------------------------------------------


def _read_phrases(sentence: str) -> int:
    from driftguard.config.specs import PhraseClaim
    from driftguard.documents.claims import read_claim
    from driftguard.documents.reader import parse_document
    from driftguard.model import ClaimNotFound

    doc = parse_document("p.md", "after " + sentence + " of\n")
    found = 0
    for template in ("after {value}", "{value} later", "after {value} of"):
        try:
            found += len(read_claim(doc, PhraseClaim(template=template)).items)
        except ClaimNotFound:
            pass
    return found


@pytest.mark.parametrize("name", sorted(SENTENCES))
def test_phrase_templates_over_hostile_sentences_do_linear_work(name):
    """The Python around the phrase regex; the regex's own time is in benchmarks/hostile.py."""
    shape = SENTENCES[name]
    assert_linear(shape.build, _read_phrases, shape.size_for(5_000))


@pytest.mark.parametrize("name", sorted(SENTENCES))
def test_phrase_templates_read_a_hostile_sentence_at_full_length(name):
    shape = SENTENCES[name]
    assert _read_phrases(shape.build(shape.full)) >= 0


# -- patterns that do not even compile ------------------------------------------------

UNCOMPILABLE = ["(" * 600 + "a" + ")" * 600, "a{4294967296}", "(?P<n>a)(?P=m)", "[z-a]"]


@pytest.mark.parametrize("pattern", UNCOMPILABLE, ids=["nested-600", "huge-repeat", "unknown-group", "range"])
def test_readers_turn_any_compile_failure_into_a_pattern_error(pattern):
    """Compiling raises RecursionError, not regex.error, for some of these."""
    from driftguard.config.specs import Pattern, SectionClaim
    from driftguard.documents.claims import read_claim
    from driftguard.documents.reader import parse_document
    from driftguard.sources import text

    with pytest.raises(PatternError) as info:
        text.extract(text.parse("t.txt", "abc"), Pattern(regex=pattern), "t.txt")
    assert info.value.location == Location("t.txt")
    doc = parse_document("d.md", "# S\n\n`a`\n")
    with pytest.raises(PatternError) as info:
        read_claim(doc, SectionClaim(section="S", code_spans=pattern))
    assert info.value.location.path == "d.md"


@pytest.mark.parametrize("pattern", [
    pytest.param(UNCOMPILABLE[0], id="nested-600"),
    pytest.param(UNCOMPILABLE[1], id="huge-repeat"),
])
def test_a_config_regex_that_breaks_compiling_is_a_config_error(repo, write, cli, pattern):
    write(repo, {"data.txt": "abc\n", "d.md": "# D\n\n- `a`\n", "driftguard.yaml": (
        "version: 1\nfacts:\n"
        f"  f: {{file: data.txt, pattern: '{pattern}'}}\n"
        "rules:\n  - {id: r, fact: f, doc: d.md, section: D, list: true}\n")})
    run = cli(repo, "check")
    assert run.code == 2 and "driftguard.yaml:3: error: facts.f.pattern: invalid regular expression" in run.err


@pytest.mark.parametrize("path, source", [("x.go", "package x\nconst {name} = 1\n"), ("x.py", "{name} = 1\n")])
def test_a_backtracking_constants_name_regex_is_stopped(
    path: str, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftguard.config.specs import Constants
    from driftguard.model import PatternError
    from driftguard.sources import load_reader, reader_name

    monkeypatch.setenv("DRIFTGUARD_REGEX_TIMEOUT", "0.5")
    reader = load_reader(reader_name(path, Constants(name="x")))
    tree = reader.parse(path, source.format(name="a" * 40 + "c"))
    with pytest.raises(PatternError, match=r"\^\(\?:a\|a\)\+b\$"):
        reader.extract(tree, Constants(name="^(?:a|a)+b$"), path)
    assert [i.value.data for i in reader.extract(tree, Constants(name="^a+c$"), path)] == [1.0]
