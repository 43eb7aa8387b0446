"""User regexes that backtrack catastrophically are stopped at the time bound and
reported as pattern errors naming the file and the pattern; ordinary ones run in
this process at no extra cost, and the worker gives the same answers."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from driftguard import regex_guard
from driftguard.model import Location, PatternError
from driftguard.regex_worker import WorkerTimeout, start_channel

REPO = Path(__file__).resolve().parents[2]
EVIL = r"^((a+)+)$"  # exponential on a run of "a" that does not end the line


@pytest.fixture
def fast_bound(monkeypatch):
    monkeypatch.setenv(regex_guard.TIMEOUT_ENV, "0.5")
    return 0.5


@pytest.fixture
def always_worker(monkeypatch):
    """Send every match to the worker, however cheap."""
    monkeypatch.setattr(regex_guard, "IN_PROCESS_BUDGET", -1)


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
              - {id: names, fact: names, doc: docs/d.md, section: Names, code_spans: '^(a|aa)+$'}
            """,
    })
    start = time.perf_counter()
    run = cli(repo, "check")
    assert time.perf_counter() - start < fast_bound + 3
    assert run.code == 2
    assert "docs/d.md:5: names: pattern '^(a|aa)+$' took longer than 0.5 s over 1550 characters" in run.out


def test_the_default_bound_is_two_seconds_and_holds(monkeypatch):
    monkeypatch.delenv(regex_guard.TIMEOUT_ENV, raising=False)
    assert regex_guard.timeout() == regex_guard.DEFAULT_TIMEOUT == 2.0
    start = time.perf_counter()
    with pytest.raises(PatternError, match="took longer than 2 s") as info:
        regex_guard.first_groups(re.compile(EVIL, re.M), "a" * 60 + "!", Location("big.txt"))
    elapsed = time.perf_counter() - start
    assert 1.9 < elapsed < 4.0, elapsed
    assert info.value.location == Location("big.txt") and str(info.value).startswith("big.txt: pattern")


@pytest.mark.parametrize("value", ["", "soon", "0", "-3", "inf", "nan", "1e400"])
def test_a_bad_timeout_setting_falls_back_to_the_default(monkeypatch, value):
    monkeypatch.setenv(regex_guard.TIMEOUT_ENV, value)
    assert regex_guard.timeout() == regex_guard.DEFAULT_TIMEOUT


# -- the worker ------------------------------------------------------------------------


def test_after_a_timeout_the_next_match_gets_a_fresh_worker(fast_bound):
    with pytest.raises(PatternError):
        regex_guard.first_groups(re.compile(EVIL, re.M), "a" * 60 + "!", Location("x"))
    text = "ab = 1\ncd = 2\nab = 3\n" * 2_000
    regex = re.compile(r"^(\w+) = \d+$", re.M)
    assert regex_guard.regex_cost(regex.pattern, regex.flags)(len(text)) * len(text) > regex_guard.IN_PROCESS_BUDGET
    got = regex_guard.first_groups(regex, text, Location("x"))
    assert got == [("ab", 0), ("cd", 7)]


def test_a_timed_out_worker_is_killed():
    channel = start_channel(regex_guard.answer)
    assert channel is not None
    import marshal

    request = marshal.dumps(("search_each", EVIL, int(re.M), ["a" * 60 + "!"]))
    with pytest.raises(WorkerTimeout):
        channel.exchange(request, time.monotonic() + 0.3)
    pid = getattr(channel, "pid", None)
    channel.close()
    if pid is not None:
        with pytest.raises(OSError):
            os.kill(pid, 0)  # reaped: no such process


CASES = [
    (r"^(\w+)\s*=", "alpha = 1\nbeta=2\n  gamma = 3\nalpha = 4\n"),
    (r'"(DG\d{3})"', '"DG101" "DG202" "DG101" "DG9999" DG303'),
    (r"(a)|(b)", "bab"),
    (r"(?i)(ÉTAT_\w+)", "état_un ÉTAT_DEUX\nétat_un"),
    (r"(x*)", "xxyx"),
]


@pytest.mark.parametrize("pattern, text", CASES)
def test_the_worker_answers_exactly_as_this_process(pattern, text, monkeypatch):
    regex = re.compile(pattern, re.M)
    here = regex_guard.first_groups(regex, text, Location("t"))
    spans = text.splitlines()
    here_each = regex_guard.search_each(regex, spans, Location("t"))
    monkeypatch.setattr(regex_guard, "IN_PROCESS_BUDGET", -1)
    assert regex_guard.first_groups(regex, text, Location("t")) == here
    assert regex_guard.search_each(regex, spans, Location("t")) == here_each
    expected: dict[str, int] = {}
    for m in regex.finditer(text):
        if m.group(1) is not None:
            expected.setdefault(m.group(1), m.start(1))
    assert here == list(expected.items())


def test_a_spawned_worker_serves_the_same_protocol():
    import marshal

    channel = start_channel(regex_guard.answer, method="spawn")
    assert channel is not None
    try:
        reply = channel.exchange(marshal.dumps(("search_each", r"b+", 0, ["abc", "xyz"])), time.monotonic() + 30)
        assert marshal.loads(reply) == (True, [True, False])
        bad = channel.exchange(marshal.dumps(("nope", r"b", 0, [])), time.monotonic() + 30)
        assert marshal.loads(bad)[0] is False
        with pytest.raises(WorkerTimeout):
            channel.exchange(marshal.dumps(("search_each", EVIL, int(re.M), ["a" * 60 + "!"])), time.monotonic() + 0.3)
    finally:
        channel.close()


def _in_child(queue) -> None:  # a module-level target for a forked process
    try:
        found = regex_guard.search_each(re.compile(r"^(a|b)+c$"), ["abac", "abab"], Location("child"))
        queue.put(found)
    except BaseException as exc:  # pragma: no cover - reported to the parent
        queue.put(repr(exc))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_fork_of_the_owner_starts_its_own_worker(always_worker):
    assert regex_guard.search_each(re.compile(r"b"), ["ab"], Location("p")) == [True]  # the parent's worker runs
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_in_child, args=(queue,))
    child.start()
    assert queue.get(timeout=30) == [True, False]
    child.join(30)
    assert regex_guard.search_each(re.compile(r"c"), ["ab", "c"], Location("p")) == [False, True]


# -- the cost model and the cost of a normal run -------------------------------------


@pytest.mark.parametrize("pattern", [EVIL, r"(x+x+)+y", r"(.*a){20}", r"^(a|aa)+$", r"(\w+\s?)+$", r"(a)\1"])
def test_nested_or_overlapping_repeats_always_go_to_the_worker(pattern):
    cost = regex_guard.regex_cost(pattern)
    assert cost(30) * 31 > regex_guard.IN_PROCESS_BUDGET


@pytest.mark.parametrize("pattern, size", [(r'"(DG\d{3})"', 100_000), (r"^([a-z]+_[a-z_]+|[A-Z]+_[A-Z_]+)$", 40),
                                           (r"^(\w+)$", 1_000), (r"abc(d)", 1_000_000)])
def test_simple_patterns_over_their_usual_input_stay_in_process(pattern, size):
    assert regex_guard.regex_cost(pattern)(size) * (size + 1) <= regex_guard.IN_PROCESS_BUDGET


def test_the_cost_grows_with_the_input():
    cost = regex_guard.regex_cost(r"a*a*b")
    assert cost(10) < cost(100) < cost(1000)
    assert regex_guard.regex_cost(r"abc")(10**6) == 1.0


@pytest.mark.parametrize("config", ["driftguard.yaml", "examples/pulse/driftguard.yaml"])
def test_a_normal_check_never_starts_the_worker(config):
    """This repository's and the Pulse config's patterns are cheap: no process is forked."""
    root = [] if config == "driftguard.yaml" else ["--root", "tests/fixtures/pulse"]
    code = (
        "import sys\n"
        "from driftguard.cli import main\n"
        f"rc = main(['check', '--config', {config!r}, *{root!r}])\n"
        "assert rc == 0, rc\n"
        "assert 'driftguard.regex_worker' not in sys.modules, 'the worker was started'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# -- internal regexes over hostile text ----------------------------------------------


@pytest.mark.parametrize("sentence", ["1" * 100_000, "1,000" * 20_000, "1h" * 50_000, "ten-" * 30_000,
                                      "half an " * 20_000, "1 " * 50_000, "-" * 50_000 + "1"])
def test_phrase_templates_over_hostile_sentences_are_bounded(sentence):
    from driftguard.documents.claims import read_claim
    from driftguard.documents.reader import parse_document
    from driftguard.model import ClaimNotFound
    from driftguard.config.specs import PhraseClaim

    doc = parse_document("p.md", "after " + sentence + " of\n")
    start = time.perf_counter()
    for template in ("after {value}", "{value} later", "after {value} of"):
        try:
            read_claim(doc, PhraseClaim(template=template))
        except ClaimNotFound:
            pass
    assert time.perf_counter() - start < 2.0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the forked worker has a pid to kill")
def test_a_worker_killed_between_calls_is_replaced(always_worker):
    regex = re.compile(r"(b)")
    assert regex_guard.first_groups(regex, "abc", Location("k")) == [("b", 1)]
    channel = regex_guard._WORKER._channel
    assert channel is not None
    os.kill(channel.pid, 9)
    os.waitpid(channel.pid, 0)
    assert regex_guard.first_groups(regex, "xbb", Location("k")) == [("b", 1)]
    assert regex_guard._WORKER._channel is not channel


# -- patterns that do not even compile ------------------------------------------------

UNCOMPILABLE = ["(" * 600 + "a" + ")" * 600, "a{4294967296}", "(?<=a+)b", "[z-a]"]


@pytest.mark.parametrize("pattern", UNCOMPILABLE, ids=["nested-600", "huge-repeat", "lookbehind", "range"])
def test_readers_turn_any_compile_failure_into_a_pattern_error(pattern):
    """re.compile raises RecursionError or OverflowError, not re.error, for some of these."""
    from driftguard.documents.claims import read_claim
    from driftguard.documents.reader import parse_document
    from driftguard.sources import text
    from driftguard.config.specs import Pattern, SectionClaim

    with pytest.raises(PatternError) as info:
        text.extract(text.parse("t.txt", "abc"), Pattern(regex=pattern), "t.txt")
    assert info.value.location == Location("t.txt")
    doc = parse_document("d.md", "# S\n\n`a`\n")
    with pytest.raises(PatternError) as info:
        read_claim(doc, SectionClaim(section="S", code_spans=pattern))
    assert info.value.location.path == "d.md"
    assert regex_guard.regex_cost(pattern)(10) >= 1  # never raises either


@pytest.mark.parametrize("pattern", [
    pytest.param(UNCOMPILABLE[0], id="nested-600"),
    pytest.param(UNCOMPILABLE[1], id="huge-repeat"),
])
def test_a_config_regex_that_breaks_re_compile_is_a_config_error(repo, write, cli, pattern):
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
    from driftguard.model import PatternError
    from driftguard.sources import load_reader, reader_name
    from driftguard.config.specs import Constants

    monkeypatch.setenv("DRIFTGUARD_REGEX_TIMEOUT", "0.5")
    reader = load_reader(reader_name(path, Constants(name="x")))
    tree = reader.parse(path, source.format(name="a" * 40 + "b"))
    with pytest.raises(PatternError, match=r"\^\(a\+\)\+\$"):
        reader.extract(tree, Constants(name="^(a+)+$"), path)
    assert [i.value.data for i in reader.extract(tree, Constants(name="^a+b$"), path)] == [1.0]
