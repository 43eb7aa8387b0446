"""Hostile configs through the command line: exit 2, ``driftguard.yaml:LINE: error: ...``
on stderr, no traceback, and a machine-readable error in ``--format json``.

The schema's own wording per case is unit-tested in tests/engine/test_config.py;
here each kind of bad config goes end to end once."""

from __future__ import annotations

import json

import pytest

from driftguard.config import yamlsafe
from tests.work import metered

FACTS = """
version: 1
facts:
  states: {file: src/fsm.go, constants: {type: State}}
  ttl: {file: src/fsm.go, constant: TTL}
"""

GOOD_RULES = """
rules:
  - {id: states, fact: states, doc: docs/m.md, table: State}
"""

GO = 'package fsm\n\ntype State string\n\nconst StateIdle State = "IDLE"\n\nconst TTL = 10 * time.Minute\n'
DOC = "# M\n\n| State |\n|---|\n| `IDLE` |\n"


@pytest.fixture
def base(repo, write):
    return write(repo, {"src/fsm.go": GO, "docs/m.md": DOC, "driftguard.yaml": FACTS + GOOD_RULES})


def test_the_base_config_passes(base, cli):
    assert cli(base, "check").code == 0


CASES = [
    # (config text, line, words) -- not YAML: line and column
    ("version: 1\nrules:\n  - id: a\n   bad: [\n", 4, ["not valid YAML", "column"]),
    ("version: 1\nrules: [\n", 3, ["not valid YAML"]),
    ("version: 1\n\trules: []\n", 2, ["not valid YAML", "column"]),
    ("version: 1\nrules: []\n{{ template }}\n", 4, ["not valid YAML"]),  # PyYAML marks the line after
    # tags that would construct objects
    ("version: 1\nrules: !!python/object/apply:os.system ['touch PWNED']\n", 2, ["is not allowed"]),
    ("version: 1\nrules: !!python/name:os.system\n", 2, ["is not allowed"]),
    ("version: 1\nrules: []\nfacts: !!set {a, b}\n", 3, ["is not allowed"]),
    ("version: 1\nrules: []\nroot: !!binary aGk=\n", 3, ["is not allowed"]),
    ("version: 1\nrules: []\nroot: !custom x\n", 3, ["is not allowed"]),
    # nesting deep enough to exhaust a recursive reader
    ("version: 1\nrules: []\nroot: " + "[" * 5000 + "]" * 5000 + "\n", 3, ["nests more than"]),
    ("version: 1\nrules: []\nroot:\n" + "".join("  " * i + "a:\n" for i in range(1, 3000)), 103, ["nests more than"]),
    # unknown keys, with a suggestion
    (FACTS + GOOD_RULES + "rulez: []\n", 8, ["unknown key rulez", "did you mean 'rules'"]),
    (FACTS + "rules:\n  - {id: s, fact: states, doc: docs/m.md, tabel: State}\n", 6,
     ["unknown key rules[0].tabel", "did you mean 'table'"]),
    (FACTS.replace("constants: {type: State}", "constants: {tpye: State}") + GOOD_RULES, 3,
     ["unknown key facts.states.constants.tpye", "did you mean 'type'"]),
    # wrong types
    ("version: one\nrules: []\n", 1, ["expected a whole number"]),
    (FACTS + "rules: {id: s}\n", 5, ["expected a list"]),
    (FACTS + "rules:\n  - {id: 7, fact: states, doc: docs/m.md, table: State}\n", 6, ["expected a string, got int 7"]),
    (FACTS + "rules:\n  - {id: s, fact: states, doc: [docs/m.md, 7], table: State}\n", 6,
     ["rules[0].doc", "expected a path or glob (a string), got int 7"]),
    (FACTS + "rules:\n  - {id: s, fact: states, doc: [], table: State}\n", 6, ["non-empty list"]),
    (FACTS + "rules:\n  - {id: s, fact: states, doc: 'docs/*.txt', table: State}\n", 6,
     ["rules[0].doc", "the glob 'docs/*.txt' matches no file"]),
    (FACTS + "rules:\n  - just a string\n", 6, ["expected a mapping"]),
    # a rule naming an unknown fact
    (FACTS + "rules:\n  - {id: s, fact: stats, doc: docs/m.md, table: State}\n", 6,
     ["unknown fact 'stats'", "did you mean 'states'"]),
    (FACTS + "rules:\n  - {id: s, doc: docs/m.md, table: T, column: V, rows: {TTL: tll}}\n", 6, ["unknown fact 'tll'"]),
    # duplicate rule ids (and duplicate keys)
    (FACTS + GOOD_RULES + "  - {id: states, fact: states, doc: docs/m.md, table: State}\n", 8,
     ["duplicate rule id 'states'", "first at line 7"]),
    (FACTS + "  states: {file: src/fsm.go, constant: TTL}\n" + GOOD_RULES, 5, ["duplicate key 'states'"]),
    # invalid regexes
    ("version: 1\nfacts:\n  codes: {file: src/fsm.go, pattern: '(unclosed'}\nrules: []\n", 3,
     ["facts.codes.pattern: invalid regular expression", "(unclosed"]),
    ("version: 1\nfacts:\n  codes: {file: src/fsm.go, pattern: '*x(y)'}\nrules: []\n", 3, ["invalid regular expression"]),
    (FACTS + "rules:\n  - {id: s, fact: states, doc: docs/m.md, section: M, code_spans: '[a-'}\n", 6,
     ["rules[0].code_spans: invalid regular expression", "[a-"]),
    (FACTS.replace("constants: {type: State}", "constants: {name: '(?P<x'}") + GOOD_RULES, 3,
     ["invalid regular expression"]),
]


@pytest.mark.parametrize("text, line, words", CASES)
def test_a_bad_config_is_exit_2_with_its_line(base, write, cli, text, line, words):
    write(base, {"driftguard.yaml": text})
    run = cli(base, "check")
    assert run.code == 2
    assert run.out == ""
    assert run.err.count("\n") == 1 and f"driftguard.yaml:{line}: error: " in run.err, run.err
    for word in words:
        assert word in run.err, run.err
    assert not (base / "PWNED").exists()


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_machine_formats_still_get_a_document_saying_why(base, write, cli, fmt):
    write(base, {"driftguard.yaml": FACTS + "rules:\n  - {id: s, fact: stats, doc: docs/m.md, table: State}\n"})
    run = cli(base, "check", "--format", fmt)
    assert run.code == 2
    assert "unknown fact 'stats'" in run.out
    if fmt == "json":
        error = json.loads(run.out)["error"]
        assert error["code"] == "DG203" and error["location"]["line"] == 6
        assert error["location"]["path"].endswith("driftguard.yaml")


def test_an_alias_bomb_is_refused_within_the_expansion_budget(base, write, cli, monkeypatch):
    """Ten to the tenth "lol"s, were it expanded: refused once the aliases have added
    MAX_NODES nodes, so the work is bounded by the budget, not by the expansion."""
    lines = ['  l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        lines.append(f"  l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 10) + "]")
    write(base, {"driftguard.yaml": "version: 1\nrules: []\nfacts:\n" + "\n".join(lines) + "\n"})
    converted = metered(monkeypatch, yamlsafe._Converter, "convert", budget=2 * yamlsafe.MAX_NODES)
    run = cli(base, "check")
    assert run.code == 2 and "alias bomb" in run.err and "driftguard.yaml:" in run.err
    assert converted.calls <= yamlsafe.MAX_NODES + 200  # the budget, and each node of the file once


def test_a_config_that_is_not_utf8_or_not_a_file(base, write, cli):
    write(base, {"driftguard.yaml": b"version: 1\nrules: []\n# \xff\n"})
    run = cli(base, "check")
    assert run.code == 2 and "driftguard.yaml: error: config is not UTF-8 (byte 23)" in run.err
    (base / "driftguard.yaml").unlink()
    (base / "driftguard.yaml").mkdir()
    run = cli(base, "check", "--config", "driftguard.yaml")
    assert run.code == 2 and "found a directory" in run.err
