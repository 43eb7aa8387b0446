"""The pytest plugin in real pytest runs (pytester), loaded through its entry point."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

import driftguard
from driftguard.pytest_plugin import DriftguardFile, DriftguardItem
from driftguard.reporters.text import finding_line
from tests.helpers import write_tree

pytest_plugins = ["pytester"]

SOURCE = '''
from enum import Enum

class State(str, Enum):
    IDLE = "IDLE"
    BUSY = "BUSY"

LIMIT = 75
'''

DOC = '''
# Machine

| State | What it means |
|---|---|
| `IDLE` | nothing to do |
| `BUSY` | working |

The limit is 75 percent.
'''

CONFIG = '''
version: 1
facts:
  states: {file: src/fsm.py, constants: {type: State}}
  limit: {file: src/fsm.py, constant: LIMIT}
rules:
  - id: states
    fact: states
    doc: docs/m.md
    table: State
    why: the state table is what operators read
  - {id: limit, fact: limit, doc: docs/m.md, phrase: 'limit is {value} percent'}
  - {id: states-mentioned, fact: states, doc: docs/m.md, mentions: true}
'''

def driftguard_check(root: Path) -> int:
    """``driftguard check`` on the project, as a user runs it before pytest."""
    from driftguard.cli import main

    return main(["check", "--config", str(root / "driftguard.yaml")])


def config_line(needle: str, text: str = CONFIG) -> int:
    """The 1-based line of ``needle`` in the config as written to disk."""
    lines = textwrap.dedent(text).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


DRIFTED = SOURCE.replace('BUSY = "BUSY"', 'BUSY = "BUSY"\n    DONE = "DONE"')


@pytest.fixture(autouse=True)
def _quiet_inner_runs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner runs skip hypothesis's plugin: re-importing it costs a second per run."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


def project(pytester: pytest.Pytester, **files: str) -> Path:
    """The sample project; keyword names map ``src_fsm`` -> src/fsm.py and so on."""
    names = {"src_fsm": "src/fsm.py", "doc": "docs/m.md", "config": "driftguard.yaml"}
    contents = {"src/fsm.py": SOURCE, "docs/m.md": DOC, "driftguard.yaml": CONFIG}
    contents.update({names[k]: v for k, v in files.items()})
    return write_tree(pytester.path, contents)


def test_the_plugin_is_registered_through_its_entry_point(pytester: pytest.Pytester) -> None:
    config = pytester.parseconfig()
    plugin = config.pluginmanager.get_plugin("driftguard")
    assert plugin is not None and plugin.__name__ == "driftguard.pytest_plugin"


def test_disabled_by_default_collects_nothing(pytester: pytest.Pytester) -> None:
    project(pytester)
    result = pytester.runpytest("--co", "-q")
    assert "driftguard.yaml" not in result.stdout.str()


def test_passing_rules_pass_with_one_item_per_rule(pytester: pytest.Pytester) -> None:
    project(pytester)
    result = pytester.runpytest("--driftguard", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*driftguard.yaml::states PASSED*", "*driftguard.yaml::limit PASSED*"])
    assert result.ret == pytest.ExitCode.OK


def test_node_ids_are_config_then_rule_id(pytester: pytest.Pytester) -> None:
    project(pytester)
    items, _ = pytester.inline_genitems("--driftguard")
    assert [item.nodeid for item in items] == [
        "driftguard.yaml::states",
        "driftguard.yaml::limit",
        "driftguard.yaml::states-mentioned",
    ]
    assert all(isinstance(item, DriftguardItem) for item in items)


def test_a_rule_over_a_doc_glob_is_one_item_per_document(pytester: pytest.Pytester) -> None:
    project(pytester, config=CONFIG.replace("doc: docs/m.md, mentions", "doc: 'docs/*.md', mentions"),
            doc=DOC)
    write_tree(pytester.path, {"docs/other.md": "# Other\n\nOnly `IDLE` here.\n"})
    result = pytester.runpytest("--driftguard", "-v")
    result.stdout.fnmatch_lines([
        "*driftguard.yaml::states-mentioned?docs/m.md? PASSED*",
        "*driftguard.yaml::states-mentioned?docs/other.md? FAILED*",
    ])
    result.stdout.fnmatch_lines(["*docs/other.md*BUSY*"])
    result.assert_outcomes(passed=3, failed=1)


def glob_project(pytester: pytest.Pytester) -> Path:
    """The sample project with ``states-mentioned`` over ``docs/*.md``: docs/c.md (between
    two documents that pass) leaves out ``BUSY``."""
    root = project(pytester, config=CONFIG.replace("doc: docs/m.md, mentions", "doc: 'docs/*.md', mentions"))
    write_tree(pytester.path, {"docs/b.md": "# B\n\n`IDLE` and `BUSY`.\n", "docs/c.md": "# C\n\nOnly `IDLE` here.\n"})
    return root


def test_last_failed_reruns_only_the_document_that_failed(pytester: pytest.Pytester) -> None:
    glob_project(pytester)
    pytester.runpytest("--driftguard").assert_outcomes(passed=4, failed=1)
    result = pytester.runpytest("--driftguard", "--lf", "-v")
    result.assert_outcomes(failed=1)  # the other four items are not even collected
    result.stdout.fnmatch_lines(["*rerun previous 1 failure*", "*driftguard.yaml::states-mentioned?docs/c.md? FAILED*"])
    (pytester.path / "docs/c.md").write_text("# C\n\n`IDLE` and `BUSY`.\n", encoding="utf-8")
    pytester.runpytest("--driftguard", "--lf").assert_outcomes(passed=1)
    pytester.runpytest("--driftguard", "--lf").assert_outcomes(passed=5)  # nothing failed: all run


def test_a_document_of_a_glob_rule_is_chosen_and_left_out_by_its_node_id(pytester: pytest.Pytester) -> None:
    glob_project(pytester)
    one = "driftguard.yaml::states-mentioned[docs/c.md]"
    pytester.runpytest("--driftguard", one).assert_outcomes(failed=1)
    pytester.runpytest("--driftguard", "--deselect", one).assert_outcomes(passed=4, deselected=1)


def _engine_of(reprec: pytest.HookRecorder) -> Any:
    """The engine the run's driftguard items shared."""
    session = reprec.getcall("pytest_collection_finish").session
    (engine,) = {id(item.parent.engine): item.parent.engine for item in session.items}.values()
    return engine


def test_a_second_run_reads_the_facts_and_claims_from_the_cache_check_keeps(pytester: pytest.Pytester) -> None:
    root = project(pytester)
    assert driftguard_check(root) == 0  # check fills the cache
    reprec = pytester.inline_run("--driftguard")
    reprec.assertoutcome(passed=3)
    cache = _engine_of(reprec).cache
    assert cache is not None and cache.hits > 0 and cache.misses == 0 and cache.writes == 0
    (root / "docs/m.md").write_text(textwrap.dedent(DOC).replace("75 percent", "75 percent, now"), encoding="utf-8")
    reprec = pytester.inline_run("--driftguard")
    cache = _engine_of(reprec).cache
    assert cache.misses > 0 and cache.writes == cache.misses  # the edited document, read again and stored


def test_a_cached_run_imports_no_parser(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.makeconftest("""
        import sys

        def pytest_sessionfinish(session):
            lean = ("libcst", "markdown_it", "tree_sitter", "driftguard.documents.reader")
            print("imported:", sorted(m for m in lean if m in sys.modules))
    """)
    cold = pytester.runpytest_subprocess("--driftguard", "-s")
    cold.assert_outcomes(passed=3)
    assert "imported: ['driftguard.documents.reader', 'libcst', 'markdown_it']" in cold.stdout.str()
    warm = pytester.runpytest_subprocess("--driftguard", "-s")
    warm.assert_outcomes(passed=3)
    assert "imported: []" in warm.stdout.str()


@pytest.mark.parametrize("how", ["option", "ini", "environment"])
def test_the_cache_is_turned_off_as_check_turns_it_off(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                        how: str) -> None:
    root = project(pytester)
    assert driftguard_check(root) == 0
    args = ["--driftguard"]
    if how == "option":
        args.append("--driftguard-no-cache")
    elif how == "ini":
        pytester.makeini("[pytest]\ndriftguard_no_cache = true\n")
    else:
        monkeypatch.setenv("DRIFTGUARD_NO_CACHE", "1")
    reprec = pytester.inline_run(*args)
    reprec.assertoutcome(passed=3)
    assert _engine_of(reprec).cache is None
    assert "(no cache)" in pytester.runpytest(*args).stdout.str()


def test_reportinfo_points_at_the_rule_line(pytester: pytest.Pytester) -> None:
    root = project(pytester)
    items, _ = pytester.inline_genitems("--driftguard")
    path, line, label = items[1].reportinfo()
    assert Path(path) == root / "driftguard.yaml" and label == "driftguard: limit"
    assert line == config_line("{id: limit") - 1
    assert items[0].reportinfo()[1] == config_line("- id: states") - 1


def test_drift_fails_with_the_findings_not_a_traceback(pytester: pytest.Pytester) -> None:
    root = project(pytester, src_fsm=DRIFTED)
    expected = driftguard.run(root / "driftguard.yaml")
    result = pytester.runpytest("--driftguard")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    lines = [finding_line(f) for f in expected.findings]
    assert len(lines) == 2 and all("DONE" in line for line in lines)
    for line in lines:
        assert line in out
    assert "docs/m.md:3: states:" in out and "src/fsm.py:6" in out
    assert f"driftguard.yaml:{config_line('- id: states')}: rule states found drift (1 finding):" in out
    assert "  why states: the state table is what operators read" in out
    for noise in ("Traceback", "raise RuleFailed", "pytest_plugin.py", "def runtest"):
        assert noise not in out
    result.stdout.fnmatch_lines(["FAILED driftguard.yaml::states*", "FAILED driftguard.yaml::states-mentioned*"])


def test_a_rule_that_cannot_be_judged_fails_and_says_so(pytester: pytest.Pytester) -> None:
    project(pytester, config=CONFIG.replace("doc: docs/m.md, phrase", "doc: docs/gone.md, phrase"))
    result = pytester.runpytest("--driftguard")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "rule limit could not be judged" in out
    assert "docs/gone.md: limit:" in out and "not found" in out
    assert "Traceback" not in out


def test_k_selects_rules_by_id(pytester: pytest.Pytester) -> None:
    project(pytester, src_fsm=DRIFTED)
    result = pytester.runpytest("--driftguard", "-k", "limit", "-v")
    result.assert_outcomes(passed=1, deselected=2)
    result.stdout.fnmatch_lines(["*driftguard.yaml::limit PASSED*"])
    result = pytester.runpytest("--driftguard", "-k", "states and not mentioned")
    result.assert_outcomes(failed=1, deselected=2)


def test_ini_option_enables_the_plugin(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.makeini("[pytest]\ndriftguard = true\n")
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=3)
    pytester.makeini("[pytest]\ndriftguard = false\n")
    result = pytester.runpytest("--co", "-q")
    assert "driftguard.yaml" not in result.stdout.str()


def test_driftguard_config_points_elsewhere(pytester: pytest.Pytester) -> None:
    project(pytester)
    (pytester.path / "driftguard.yaml").rename(pytester.path / "other.yaml")
    moved = (pytester.path / "other.yaml").read_text().replace("version: 1", "version: 1\nroot: ..")
    (pytester.path / "conf").mkdir()
    (pytester.path / "conf" / "guard.yaml").write_text(moved, encoding="utf-8")
    (pytester.path / "other.yaml").unlink()
    pytester.makeini("[pytest]\ndriftguard = true\ndriftguard_config = conf/guard.yaml\n")
    items, _ = pytester.inline_genitems()
    assert [i.nodeid for i in items] == ["conf/guard.yaml::states", "conf/guard.yaml::limit",
                                         "conf/guard.yaml::states-mentioned"]
    pytester.runpytest().assert_outcomes(passed=3)


def test_collected_even_when_testpaths_leave_out_the_root(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.makeini("[pytest]\ntestpaths = tests\ndriftguard = true\n")
    write_tree(pytester.path, {"tests/test_unit.py": "def test_unit():\n    assert True\n"})
    items, _ = pytester.inline_genitems()
    assert [i.nodeid for i in items] == ["tests/test_unit.py::test_unit", "driftguard.yaml::states",
                                         "driftguard.yaml::limit", "driftguard.yaml::states-mentioned"]


def test_collected_once_when_the_walk_reaches_it(pytester: pytest.Pytester) -> None:
    project(pytester)
    write_tree(pytester.path, {"tests/test_unit.py": "def test_unit():\n    assert True\n"})
    for args in (["--driftguard"], ["--driftguard", "."], ["--driftguard", "driftguard.yaml", "tests"]):
        items, _ = pytester.inline_genitems(*args)
        ids = [i.nodeid for i in items]
        assert ids.count("driftguard.yaml::states") == 1, (args, ids)
        assert "tests/test_unit.py::test_unit" in ids


def test_a_chosen_node_id_runs_only_that_rule(pytester: pytest.Pytester) -> None:
    project(pytester, src_fsm=DRIFTED)
    result = pytester.runpytest("--driftguard", "driftguard.yaml::limit")
    result.assert_outcomes(passed=1)


def test_ini_option_leaves_a_focused_run_alone_but_the_flag_does_not(pytester: pytest.Pytester) -> None:
    project(pytester)
    pytester.makeini("[pytest]\ndriftguard = true\n")
    write_tree(pytester.path, {"tests/test_unit.py": "def test_unit():\n    assert True\n"})
    items, _ = pytester.inline_genitems("tests/test_unit.py")
    assert [i.nodeid for i in items] == ["tests/test_unit.py::test_unit"]
    items, _ = pytester.inline_genitems("--driftguard", "tests/test_unit.py")
    assert len(items) == 4 and items[-1].nodeid == "driftguard.yaml::states-mentioned"


def test_config_error_is_a_collection_error(pytester: pytest.Pytester) -> None:
    bad = CONFIG.replace("    table: State\n", "    table: State\n    colum: State\n")
    project(pytester, config=bad)
    result = pytester.runpytest("--driftguard")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(["*ERROR collecting driftguard.yaml*"])
    assert f"driftguard.yaml:{config_line('colum:', bad)}: unknown key rules[0].colum" in out
    assert "did you mean 'column'" in out
    assert "Traceback" not in out and "CollectError" not in out


@pytest.mark.parametrize(("line", "expected"), [
    ("max_file_size: 1" + "0" * 30, "max_file_size: expected a number of bytes"),
    ("max_file_size: " + "9" * 5000, "cannot be read (Exceeds the limit"),
    ('root: "\\0"', "root: expected a folder"),
])
def test_a_hostile_config_value_is_a_collection_error_at_its_line(pytester: pytest.Pytester, line: str,
                                                                  expected: str) -> None:
    project(pytester, config=CONFIG.replace("version: 1\n", f"version: 1\n{line}\n"))
    result = pytester.runpytest("--driftguard")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    error = next(text for text in out.splitlines() if text.startswith("driftguard.yaml:2: "))
    assert expected in error, out
    assert "Traceback" not in out


def test_a_reversed_glob_range_is_a_collection_error_at_its_line(pytester: pytest.Pytester) -> None:
    bad = CONFIG.replace("{file: src/fsm.py, constant: LIMIT}", "{file: 'src/[z-a].py', constant: LIMIT}")
    project(pytester, config=bad)
    result = pytester.runpytest("--driftguard")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert f"driftguard.yaml:{config_line('[z-a]', bad)}:" in out and "bad character range" in out, out
    assert "Traceback" not in out

def test_config_error_is_reported_when_added_after_the_walk(pytester: pytest.Pytester) -> None:
    project(pytester, config="version: 1\nrules: [\n")
    pytester.makeini("[pytest]\ntestpaths = tests\ndriftguard = true\n")
    write_tree(pytester.path, {"tests/test_unit.py": "def test_unit():\n    assert True\n"})
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.assert_outcomes(errors=1)
    assert "driftguard.yaml:" in result.stdout.str() and "not valid YAML" in result.stdout.str()


def test_missing_config_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--driftguard")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "no driftguard.yaml" in result.stderr.str()


def test_one_engine_per_file_reads_each_file_once(pytester: pytest.Pytester) -> None:
    root = project(pytester)
    reprec = pytester.inline_run("--driftguard")
    reprec.assertoutcome(passed=3)
    session = reprec.getcall("pytest_collection_finish").session
    files = {id(item.parent): item.parent for item in session.items}
    assert len(files) == 1
    (parent,) = files.values()
    assert isinstance(parent, DriftguardFile)
    sizes = sum(len((root / rel).read_text(encoding="utf-8")) for rel in ("src/fsm.py", "docs/m.md"))
    assert parent.engine.workspace.bytes_read == sizes
