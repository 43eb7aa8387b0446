"""``run_selftest``: every shipped rule can fail, mutations are shaped like their
neighbours, and what cannot fail (or cannot be mutated) is reported, never passed."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from driftguard.config.loader import load_config
from driftguard.selftest import SelftestResult, Verdict, render_selftest, run_selftest
from driftguard.selftest.doc import derived
from driftguard.sources.mutation import NotApplicable, new_name

ROOT = Path(__file__).resolve().parents[2]
PULSE_CONFIG = ROOT / "examples" / "pulse" / "driftguard.yaml"
PULSE_ROOT = ROOT / "tests" / "fixtures" / "pulse"

Tree = Callable[[dict], Path]


def digest(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (outside caches and VCS data) and its hash."""
    skip = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "driftguard.egg-info"}
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not skip & set(p.relative_to(folder).parts)
    }


def verdicts(result: SelftestResult) -> dict[tuple[str, str], Verdict]:
    return {(o.rule, o.mutation): o.verdict for o in result.outcomes}


# -- the shipped configs ----------------------------------------------------------


def assert_every_rule_caught(result: SelftestResult) -> None:
    table = render_selftest(result)
    assert result.exit_code == 0, table
    for report in result.rules:
        assert report.clean, table
        assert report.outcomes, f"{report.rule.id} has no mutation\n{table}"
        assert report.can_fail, table
        assert Verdict.MISSED not in {o.verdict for o in report.outcomes}, table
        for outcome in report.outcomes:
            if outcome.verdict is Verdict.CAUGHT:
                assert outcome.finding is not None and outcome.finding.doc is not None
                assert outcome.finding.doc.path == report.rule.doc


@pytest.fixture(scope="module")
def repository() -> tuple[SelftestResult, dict[str, str], dict[str, str], set[str]]:
    """One selftest run on the repository's own config, with its files hashed around it."""
    config = load_config(ROOT / "driftguard.yaml")
    files = sorted({r.doc for r in config.rules} | {p for f in config.facts.values() for p in f.files} | {"driftguard.yaml"})
    before = {f: hashlib.sha256((ROOT / f).read_bytes()).hexdigest() for f in files}
    result = run_selftest(config)
    after = {f: hashlib.sha256((ROOT / f).read_bytes()).hexdigest() for f in files}
    return result, before, after, {r.id for r in config.rules}


def test_repository_config_every_rule_caught(repository) -> None:  # type: ignore[no-untyped-def]
    result, before, after, rule_ids = repository
    assert_every_rule_caught(result)
    assert {r.rule.id for r in result.rules} == rule_ids
    assert after == before
    table = render_selftest(result)
    assert "MISSED" not in table and "every rule caught every mutation" in table
    # both sides of a set rule, and of a scalar rule, were mutated
    got = verdicts(result)
    assert got[("session-states", "code: new member (session_states)")] is Verdict.CAUGHT
    assert got[("session-states", "doc: new table row")] is Verdict.CAUGHT
    assert got[("recovery-ttl", "code: value changed (recovery_ttl)")] is Verdict.CAUGHT
    assert got[("recovery-ttl", "doc: value changed")] is Verdict.CAUGHT


def test_repository_cap_is_changed_where_the_call_names_it(repository) -> None:  # type: ignore[no-untyped-def]
    result = repository[0]
    code = next(o for o in result.outcomes
                if o.rule == "concurrency-cap" and o.mutation.startswith("code"))
    assert code.verdict is Verdict.CAUGHT
    assert "MAX_PARALLEL_TOOLS = 4" in code.what and "`5`" in code.what
    assert code.where is not None and code.where.path == "reference_impl/ai/chat/agentic.py"
    assert "5" in code.finding.message


@pytest.mark.skipif(not PULSE_CONFIG.exists(), reason="the Pulse example config is not there")
def test_pulse_example_config_every_rule_caught() -> None:
    before = digest(PULSE_ROOT)
    config_bytes = PULSE_CONFIG.read_bytes()
    result = run_selftest(load_config(PULSE_CONFIG, root=PULSE_ROOT))
    assert_every_rule_caught(result)
    assert digest(PULSE_ROOT) == before
    assert PULSE_CONFIG.read_bytes() == config_bytes
    whats = {o.mutation: o.what for o in result.outcomes if o.rule == "tool-kinds"}
    assert 'return "driftguard_selftest"' in whats["code: new member (tool_kinds)"]


# -- a tree of our own: every Go shape, pattern facts, Python ---------------------

GO = '''
package demo

import "time"

// Phase is one step of a job.
type Phase string

const (
	PhaseStart   Phase = "start"   // first
	PhaseRunning Phase = "running" // second
	// PhaseGone Phase = "gone" was removed
	PhaseDone Phase = "done"
)

type Level int

const (
	LevelLow Level = iota
	LevelMid
	LevelHigh
)

func (l Level) String() string {
	switch l {
	case LevelLow:
		return "low"
	case LevelMid:
		return "mid"
	case LevelHigh:
		return "high"
	default:
		return "unknown"
	}
}

const Timeout = 10 * time.Minute

const (
	retries    = 3
	maxWorkers = 4
)

var handlers = map[string]int{
	"alpha": 1,
	"beta":  2,
}

func run() {
	sem := make(chan struct{}, maxWorkers)
	_ = sem
}
'''

PY = '''
from enum import Enum


class Color(Enum):
    RED = 1
    GREEN = 2


LIMIT_PERCENT = 75.0
WARN_PERCENT = 80.0
ROUTES = {"home": 1, "about": 2}
'''

DOC = '''
# Demo

| Phase | Meaning |
|---|---|
| `start` | first |
| `running` | second |
| `done` | last |

## Levels

- `low` is the least
- `mid`
- `high`

Their names: `LevelLow`, `LevelMid` and `LevelHigh`.

## Behaviour

Requests time out after ten minutes. At most four workers run at once.
A call is retried three times. The limit is 5 per hour.

## Handlers

| Handler | Weight |
|---|---|
| `alpha` | 1 |
| `beta` | 2 |

## Limits

| Limit | Value |
|---|---|
| Workers | 4 |
| Timeout | 10 minutes |

## Flags

Pass `verbose` or `quiet`.

## Colors

| Color | Percent |
|---|---|
| `RED` | 75 |
| `GREEN` | 80 |

Routes: `home` and `about`.
'''

CONFIG = '''
version: 1
facts:
  phases: {file: src/demo.go, constants: {type: Phase}}
  level_names: {file: src/demo.go, constants: {type: Level}, values: names}
  levels: {file: src/demo.go, string_method: Level}
  timeout: {file: src/demo.go, constant: Timeout}
  retries: {file: src/demo.go, constant: retries}
  workers:
    file: src/demo.go
    call: {function: make, within: run, where: {arg0: 'chan struct{}'}, arg: 1}
  handlers: {file: src/demo.go, map_keys: handlers}
  flags: {file: etc/flags.txt, pattern: '^flag (\\w+)$'}
  limit: {file: etc/limits.conf, pattern: '^limit = (\\d+)$', scalar: true}
  colors: {file: src/colors.py, constants: {type: Color}, values: names}
  percents: {file: src/colors.py, constants: {name: '_PERCENT$'}}
  routes: {file: src/colors.py, map_keys: ROUTES}
rules:
  - {id: phases, fact: phases, doc: README.md, table: Phase}
  - {id: levels, fact: levels, doc: README.md, section: Levels, list: true}
  - {id: level-names, fact: level_names, doc: README.md, section: Levels, mentions: true}
  - {id: timeout, fact: timeout, doc: README.md, phrase: 'time out after {value}'}
  - {id: workers, fact: workers, doc: README.md, phrase: 'at most {value} workers'}
  - {id: retries, fact: retries, doc: README.md, phrase: 'retried {value}'}
  - {id: handlers, fact: handlers, doc: README.md, table: Handler}
  - id: limits
    doc: README.md
    table: Limit
    column: Value
    rows: {Workers: workers, Timeout: timeout}
  - {id: flags, fact: flags, doc: README.md, section: Flags, code_spans: '^[a-z]+$'}
  - {id: limit, fact: limit, doc: README.md, phrase: 'limit is {value}'}
  - {id: colors, fact: colors, doc: README.md, table: Color}
  - {id: percents, fact: percents, doc: README.md, table: Color, column: Percent}
  - {id: routes, fact: routes, doc: README.md, mentions: true}
'''

FILES = {
    "driftguard.yaml": CONFIG,
    "README.md": DOC,
    "src/demo.go": GO,
    "src/colors.py": PY,
    "etc/flags.txt": "flag verbose\nflag quiet\n",
    "etc/limits.conf": "# limits\nlimit = 5\n",
}


@pytest.fixture
def demo(tree: Tree) -> Path:
    return tree(FILES)


def test_own_tree_every_shape_caught(demo: Path) -> None:
    before = digest(demo)
    result = run_selftest(load_config(demo / "driftguard.yaml"))
    assert_every_rule_caught(result)
    assert digest(demo) == before
    got = verdicts(result)
    expected = {
        ("phases", "code: new member (phases)"), ("phases", "doc: new table row"),
        ("levels", "code: new member (levels)"), ("levels", "doc: new bullet item"),
        ("level-names", "code: new member (level_names)"),
        ("timeout", "code: value changed (timeout)"), ("timeout", "doc: value changed"),
        ("workers", "code: value changed (workers)"), ("retries", "doc: value changed"),
        ("handlers", "code: new member (handlers)"), ("handlers", "doc: new table row"),
        ("limits", "doc: row 'Workers' changed"), ("limits", "doc: row 'Timeout' changed"),
        ("limits", "code: value changed (workers)"), ("limits", "code: value changed (timeout)"),
        ("flags", "code: new member (flags)"), ("flags", "doc: new code span"),
        ("limit", "code: value changed (limit)"), ("limit", "doc: value changed"),
        ("colors", "code: new member (colors)"), ("percents", "code: new member (percents)"),
        ("routes", "code: new member (routes)"),
    }
    assert expected <= set(got)
    assert {got[key] for key in expected} == {Verdict.CAUGHT}
    # a mentions rule is checked code-to-doc only: no document mutation
    assert not any(rule == "level-names" and m.startswith("doc") for rule, m in got)


def test_own_tree_mutations_follow_their_neighbours(demo: Path) -> None:
    result = run_selftest(load_config(demo / "driftguard.yaml"))
    what = {(o.rule, o.mutation): o.what for o in result.outcomes}
    where = {(o.rule, o.mutation): o.where for o in result.outcomes}
    assert what[("phases", "code: new member (phases)")] == \
        'added const `PhaseDoneSelftest Phase = "driftguard_selftest"`'
    assert where[("phases", "code: new member (phases)")].line == 13  # after PhaseDone, inside the block
    assert what[("level-names", "code: new member (level_names)")] == "added const `LevelHighSelftest`"
    assert 'case LevelHighSelftest: return "driftguard_selftest"' in what[("levels", "code: new member (levels)")]
    assert what[("workers", "code: value changed (workers)")] == "`4` -> `5` in `maxWorkers = 4`"
    assert what[("timeout", "code: value changed (timeout)")] == "`10` -> `11` in `Timeout = 10 * time.Minute`"
    assert what[("timeout", "doc: value changed")] == "'ten minutes' -> 'twenty minutes'"
    assert what[("limits", "doc: row 'Timeout' changed")] == "'10 minutes' -> '20 minutes' (row 'Timeout')"
    assert what[("flags", "code: new member (flags)")] == "added the line `flag driftguard_selftest`"
    assert "`driftguardselftest`" in what[("flags", "doc: new code span")]  # the first candidate ^[a-z]+$ takes
    assert what[("limit", "code: value changed (limit)")] == "`5` -> `6`"
    assert what[("colors", "code: new member (colors)")] == "added `GREEN_SELFTEST = 3` to class Color"
    assert what[("percents", "code: new member (percents)")] == \
        "added `WARN_SELFTEST_PERCENT = 81.0` to the module"
    assert what[("routes", "code: new member (routes)")] == 'added the entry `"driftguard_selftest": ...`'


def test_render_is_a_table_of_rule_by_mutation(demo: Path) -> None:
    result = run_selftest(load_config(demo / "driftguard.yaml"))
    table = render_selftest(result).splitlines()
    assert table[0].split()[:4] == ["RULE", "MUTATION", "WHERE", "RESULT"]
    rows = [line for line in table[1:-1] if line.startswith(("phases ", "timeout "))]
    assert len(rows) == 4 and all("caught" in row for row in rows)
    assert any("src/demo.go:" in row for row in rows) and any("README.md:" in row for row in rows)
    assert table[-1].endswith("every rule caught every mutation")


def test_crlf_and_bom_documents_are_mutated_in_place(tree: Tree) -> None:
    files = dict(FILES)
    folder = tree(files)
    doc = folder / "README.md"
    raw = "\ufeff" + doc.read_text(encoding="utf-8").replace("\n", "\r\n")
    doc.write_bytes(raw.encode("utf-8"))
    result = run_selftest(load_config(folder / "driftguard.yaml"))
    assert_every_rule_caught(result)
    assert doc.read_bytes() == raw.encode("utf-8")


# -- what cannot fail, or cannot be mutated ---------------------------------------

UNCATCHABLE = '''
version: 1
facts:
  phases: {file: src/demo.go, constants: {type: Phase}}
  listed: {file: src/demo.go, pattern: 'Phase = "(start|running|done)"'}
rules:
  - {id: listed, fact: listed, doc: README.md, table: Phase, direction: code-to-doc}
  - {id: doc-only, fact: phases, doc: README.md, table: Phase, direction: doc-to-code}
'''


def test_a_rule_no_mutation_can_reach_is_missed(tree: Tree) -> None:
    folder = tree({**FILES, "driftguard.yaml": UNCATCHABLE})
    result = run_selftest(load_config(folder / "driftguard.yaml"))
    assert result.exit_code == 1
    by_rule = {r.rule.id: r for r in result.rules}
    listed = by_rule["listed"]
    assert [o.verdict for o in listed.outcomes] == [Verdict.NOT_APPLICABLE]
    assert "no line the selftest can write matches" in listed.outcomes[0].detail
    assert not listed.can_fail
    # doc-to-code: no code mutation, and the document mutation is caught
    doc_only = by_rule["doc-only"]
    assert [(o.mutation, o.verdict) for o in doc_only.outcomes] == [("doc: new table row", Verdict.CAUGHT)]
    table = render_selftest(result)
    assert "MISSED" in table and "cannot be shown to fail: listed" in table


def test_an_engine_that_drops_findings_is_missed(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import driftguard.judging.engine

    monkeypatch.setattr(driftguard.judging.engine, "compare_set", lambda *args, **kwargs: [])
    result = run_selftest(load_config(demo / "driftguard.yaml"))
    assert result.exit_code == 1
    missed = [o for o in result.outcomes if o.verdict is Verdict.MISSED]
    assert {o.rule for o in missed} == {"phases", "levels", "level-names", "handlers", "flags",
                                        "colors", "percents", "routes"}
    assert all("found nothing (the rule passed)" in o.detail for o in missed)
    # the scalar rules do not go through compare_set and are still caught
    assert verdicts(result)[("timeout", "doc: value changed")] is Verdict.CAUGHT
    assert "MISSED" in render_selftest(result)


def test_a_tree_that_does_not_pass_is_not_mutated(tree: Tree) -> None:
    folder = tree({**FILES, "README.md": DOC.replace("| `done` | last |\n", "")})
    result = run_selftest(load_config(folder / "driftguard.yaml"))
    assert result.exit_code == 2
    phases = next(r for r in result.rules if r.rule.id == "phases")
    assert not phases.clean and not phases.outcomes
    assert any("done" in p and "README.md" in p for p in phases.problems)
    table = render_selftest(result)
    assert "not clean" in table and "phases" in table.splitlines()[-1]


def test_a_mutation_that_cannot_be_applied_exits_2(tree: Tree) -> None:
    go = GO.replace("\tretries    = 3\n\tmaxWorkers = 4\n", "\tmaxWorkers = 4\n\tretries\n")
    doc = DOC.replace("retried three times", "retried four times")
    folder = tree({**FILES, "src/demo.go": go, "README.md": doc})
    result = run_selftest(load_config(folder / "driftguard.yaml"))
    code = next(o for o in result.outcomes if o.rule == "retries" and o.mutation.startswith("code"))
    assert code.verdict is Verdict.ERROR
    assert "repeats the previous spec's value" in code.detail
    assert result.exit_code == 2


def test_missing_source_is_reported_not_clean(tree: Tree) -> None:
    files = {k: v for k, v in FILES.items() if k != "etc/flags.txt"}
    result = run_selftest(load_config(tree(files) / "driftguard.yaml"))
    flags = next(r for r in result.rules if r.rule.id == "flags")
    assert not flags.clean and any("etc/flags.txt" in p for p in flags.problems)
    assert result.exit_code == 2


# -- naming helpers ---------------------------------------------------------------


@pytest.mark.parametrize(("base", "regex", "want"), [
    ("StateVerifying", None, "StateVerifyingSelftest"),
    ("PULSE_QUERY", "^(PULSE|PATROL)_", "PULSE_QUERY_SELFTEST"),
    ("PatrolResolveFindingToolName", "ToolName$", "PatrolResolveFindingSelftestToolName"),
    ("SIGNAL_HIGH_CPU_PERCENT", "_PERCENT$", "SIGNAL_HIGH_CPU_SELFTEST_PERCENT"),
    ("AgentErrCodeRawCommandRetired", "^AgentErrCode", "AgentErrCodeRawCommandRetiredSelftest"),
])
def test_new_names_keep_style_and_match_the_pattern(base: str, regex: str | None, want: str) -> None:
    assert new_name(base, {base}, regex) == want


def test_new_name_avoids_names_in_use_and_refuses_what_cannot_match() -> None:
    assert new_name("Mode", {"Mode", "ModeSelftest"}) == "ModeSelftest2"
    with pytest.raises(NotApplicable):
        new_name("Alpha", set(), "^(Alpha|Beta)$")


def test_derived_values_follow_the_last_value() -> None:
    assert derived(["DG101", "DG104"])[0] == "DG999"
    assert "DG999" not in derived(["DG999"])


def test_the_summary_names_the_document_a_glob_rule_is_not_clean_on(tmp_path: Path, monkeypatch, capsys) -> None:
    from driftguard.cli import main
    from tests.helpers import write_tree

    root = write_tree(tmp_path, {
        "src/a.py": "def run_job():\n    return 1\n",
        "docs/a.md": "# A\n\nCall `run_job()`.\n", "docs/b.md": "# B\n\nCall `GoneAway()`.\n",
        "driftguard.yaml": "version: 1\nfacts:\n  code: {file: 'src/*.py', symbols: true}\n"
                           "rules:\n  - {id: refs, fact: code, doc: 'docs/*.md', references: true}\n",
    })
    monkeypatch.chdir(root)
    assert main(["selftest"]) == 2
    assert capsys.readouterr().out.splitlines()[-1].endswith("not clean before mutating: refs (docs/b.md)")
