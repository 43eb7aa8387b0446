"""User regexes that backtrack catastrophically are stopped at the time bound and
reported as pattern errors naming the file and the pattern; ordinary ones, with
lookarounds and backreferences, match as ``re`` would."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from driftguard import user_regex
from driftguard.model import Location, PatternError

REPO = Path(__file__).resolve().parents[2]
EVIL = r"^((?:a|a)+)$"  # overlapping alternatives under a repeat: exponential on a run of "a" that does not end the line
EVIL_SPANS = r"^(?:a|a)+$"


@pytest.fixture
def fast_bound(monkeypatch):
    monkeypatch.setenv(user_regex.TIMEOUT_ENV, "0.5")
    return 0.5


# -- through the command line --------------------------------------------------------


def test_a_catastrophic_pattern_fact_over_a_large_file_is_stopped(repo, write, cli, fast_bound):
    write(repo, {
        "data/big.txt": ("a" * 40 + "!\n") * 25_000,  # one megabyte of near-misses
        "docs/d.md": "# D\n\n- `x`\n",
        "driftguard.yaml": f"""
            version: 1
            facts:
              words: {{file: data/big.txt, pattern: '{EVIL}'}}
            rules:
              - {{id: words, fact: words, doc: docs/d.md, section: D, list: true}}
            """,
    })
    start = time.perf_counter()
    run = cli(repo, "check", "--format", "json")
    elapsed = time.perf_counter() - start
    assert elapsed < fast_bound + 3, elapsed
    assert run.code == 2
    [finding] = json.loads(run.out)["findings"]
    assert finding["kind"] == "pattern-error" and finding["code"] == "DG204"
    assert finding["source"]["path"] == "data/big.txt"
    assert EVIL in finding["message"] and "took longer than 0.5 s" in finding["message"]
    text = cli(repo, "check").out
    assert f"docs/d.md: words: fact 'words': pattern '{EVIL}' took longer than 0.5 s" in text


def test_catastrophic_code_spans_are_stopped_naming_the_document_and_section(repo, write, cli, fast_bound):
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
    start = time.perf_counter()
    run = cli(repo, "check")
    assert time.perf_counter() - start < fast_bound + 3
    assert run.code == 2
    assert "docs/d.md:5: names: pattern '^(?:a|a)+$' took longer than 0.5 s over 1550 characters" in run.out


def test_the_default_bound_is_two_seconds_and_holds(monkeypatch):
    monkeypatch.delenv(user_regex.TIMEOUT_ENV, raising=False)
    assert user_regex.timeout() == user_regex.DEFAULT_TIMEOUT == 2.0
    start = time.perf_counter()
    with pytest.raises(PatternError, match="took longer than 2 s") as info:
        user_regex.first_groups(user_regex.compile_user_regex(EVIL, Location("big.txt"), flags=user_regex.MULTILINE),
                                "a" * 60 + "!", Location("big.txt"))
    elapsed = time.perf_counter() - start
    assert 1.9 < elapsed < 4.0, elapsed
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


def test_the_bound_covers_a_whole_batch(fast_bound):
    compiled = user_regex.compile_user_regex(EVIL_SPANS, Location("t"))
    start = time.perf_counter()
    with pytest.raises(PatternError, match="took longer than 0.5 s over 93 characters"):
        user_regex.search_each(compiled, ["a" * 30 + "!"] * 3, Location("t"))
    assert time.perf_counter() - start < 1.5


def test_nested_repeats_over_a_long_run_are_stopped(fast_bound):
    """The regex library copes with (a+)+$ over a short run, but a long one still hits the bound."""
    compiled = user_regex.compile_user_regex(r"(a+)+$", Location("long.txt"))
    start = time.perf_counter()
    with pytest.raises(PatternError, match=r"pattern '\(a\+\)\+\$' took longer than 0.5 s") as info:
        user_regex.search_each(compiled, ["a" * 5_000 + "b"], Location("long.txt"))
    assert time.perf_counter() - start < 1.5
    assert info.value.location == Location("long.txt")


def test_a_lookaround_constants_name_pattern_selects_as_in_re(tmp_path: Path) -> None:
    from driftguard.config.specs import Constants
    from driftguard.sources import load_reader, reader_name

    reader = load_reader(reader_name("x.go", Constants(name="x")))
    tree = reader.parse("x.go", "package x\nconst (\n\tErrNil = 1\n\tErrGone = 2\n\tErrNilAgain = 3\n)\n")
    found = reader.extract(tree, Constants(name=r"^Err(?!Nil)"), "x.go")
    assert [i.value.data for i in found] == [2.0]


@pytest.mark.parametrize("config", ["driftguard.yaml", "examples/pulse/driftguard.yaml"])
def test_a_normal_check_runs_every_pattern_well_within_the_bound(config):
    """This repository's and the Pulse config's patterns are cheap: a bound of a tenth of a second holds."""
    root = [] if config == "driftguard.yaml" else ["--root", "tests/fixtures/pulse"]
    proc = subprocess.run([sys.executable, "-m", "driftguard", "check", "--no-cache", "--config", config, *root],
                          cwd=REPO, capture_output=True, text=True, timeout=60,
                          env={**os.environ, user_regex.TIMEOUT_ENV: "0.1"}, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -- internal regexes over hostile text ----------------------------------------------


@pytest.mark.parametrize("sentence", ["1" * 100_000, "1,000" * 20_000, "1h" * 50_000, "ten-" * 30_000,
                                      "half an " * 20_000, "1 " * 50_000, "-" * 50_000 + "1"])
def test_phrase_templates_over_hostile_sentences_are_bounded(sentence):
    from driftguard.config.specs import PhraseClaim
    from driftguard.documents.claims import read_claim
    from driftguard.documents.reader import parse_document
    from driftguard.model import ClaimNotFound

    doc = parse_document("p.md", "after " + sentence + " of\n")
    start = time.perf_counter()
    for template in ("after {value}", "{value} later", "after {value} of"):
        try:
            read_claim(doc, PhraseClaim(template=template))
        except ClaimNotFound:
            pass
    assert time.perf_counter() - start < 2.0


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
