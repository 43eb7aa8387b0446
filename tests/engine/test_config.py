"""The config schema: every error names the file, the line and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from driftguard.config.loader import find_config, load_config
from driftguard.config.specs import Call, Constant, Constants, PhraseClaim, SectionClaim, TableClaim
from driftguard.model import ConfigError, Direction

GOOD = """
version: 1
facts:
  states:
    file: src/fsm.py
    constants: {type: SessionState}
  codes:
    file: src/errors.go
    constants: {name: '^AgentErrCode', values: names}
  ttl:
    file: src/fsm.py
    constant: RECOVERY_TTL
  cap:
    file: src/loop.go
    call: {function: make, within: Loop.run, where: {arg0: 'chan  struct{}'}, arg: 1}
rules:
  - id: states
    why: the safety page lists every state
    fact: states
    doc: docs/safety.md
    table: State
  - id: codes
    facts: [codes]
    doc: docs/arch.md
    section: Structured errors
    code_spans: '^[a-z_]+$'
    direction: doc-to-code
  - id: ttl
    fact: ttl
    doc: docs/safety.md
    phrase: 'expire after {value}'
  - id: rows
    doc: docs/patrol.md
    table: Threshold
    column: Default
    rows: {Recovery: ttl, Cap: cap}
"""


def load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "driftguard.yaml"
    path.write_text(text.lstrip("\n"), encoding="utf-8")
    return load_config(path)


def error_of(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    return info.value


def test_good_config_builds_frozen_specs(tmp_path: Path) -> None:
    config = load(tmp_path, GOOD)
    assert config.root == tmp_path.resolve()
    assert config.facts["states"].selector == Constants(type="SessionState")
    assert config.facts["codes"].selector == Constants(name="^AgentErrCode", values="names")
    assert config.facts["ttl"].selector == Constant("RECOVERY_TTL")
    assert config.facts["cap"].selector == Call("make", arg=1, within="Loop.run", where=((0, "chan struct{}"),))
    states, codes, ttl, rows = config.rules
    assert states.claim == TableClaim("State") and states.direction is Direction.BOTH
    assert states.why == "the safety page lists every state" and states.line == 16
    assert codes.claim == SectionClaim("Structured errors", code_spans="^[a-z_]+$")
    assert codes.direction is Direction.DOC_TO_CODE
    assert ttl.claim == PhraseClaim("expire after {value}")
    assert rows.facts == ("ttl", "cap") and rows.claim.rows == (("Recovery", "ttl"), ("Cap", "cap"))


BAD_CONFIGS = [
    ("version: 1\nrules: []\nfactz: {}\n", 3, ["unknown key factz", "did you mean 'facts'"]),
    ("version: 2\nrules: []\n", 1, ["expected version: 1"]),
    ("version: 1\n", 1, ["missing required key `rules`"]),
    ("version: 1\nrules: []\n", 2, ["expected at least one rule", "would always pass"]),
    ("version: 1\nrules:\n", 2, ["rules"]),
    ("version: 1\nfacts: {f: {file: x.py, constant: A}}\nrules:\n  - {id: \"ttl\\n\", fact: f, doc: d.md, phrase: 'a {value}'}\n", 4,
     ["lower case letters, digits and dashes", "'ttl\\n'"]),
    ("version: 1\nrules: {}\n", 2, ["rules: expected a list"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constant: A, constnt: B}\nrules: []\n", 3, ["unknown key facts.a.constnt"]),
    ("version: 1\nfacts:\n  a: {file: x.py}\nrules: []\n", 3, ["expected exactly one selector"]),
    ("version: 1\nfacts:\n  a: {file: /etc/passwd, constant: A}\nrules: []\n", 3, ["absolute"]),
    ("version: 1\nfacts:\n  a: {file: ../x.py, constant: A}\nrules: []\n", 3, ["leaves the root"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constant: 5}\nrules: []\n", 3, ["facts.a.constant: expected a string, got int 5"]),
    ("version: 1\nfacts:\n  a: {file: x.txt, pattern: '(unclosed'}\nrules: []\n", 3, ["invalid regular expression"]),
    ("version: 1\nfacts:\n  a: {file: x.txt, pattern: 'nogroup'}\nrules: []\n", 3, ["one (group)"]),
    ("version: 1\nrules:\n  - {id: r, fact: nope, doc: d.md, table: T}\n", 3, ["unknown fact 'nope'"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constant: A}\nrules:\n  - {id: r, fact: a, doc: d.md, table: T}\n",
     5, ["needs a set fact"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constants: {type: T}}\nrules:\n  - {id: r, fact: a, doc: d.md, text: 'x (\\d+)', scalar: true}\n",
     5, ["needs a scalar fact"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constants: {type: T}}\nrules:\n  - {id: r, fact: a, doc: d.md, table: T}\n"
     "  - {id: r, fact: a, doc: d.md, table: T}\n", 6, ["duplicate rule id 'r'"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constants: {type: T}}\nrules:\n  - {id: R_1, fact: a, doc: d.md, table: T}\n",
     5, ["lower case letters"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constants: {type: T}}\nrules:\n  - {id: r, fact: a, doc: d.md, table: T, direction: up}\n",
     5, ["expected one of both, code-to-doc, doc-to-code"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constants: {type: T}}\nrules:\n  - {id: r, fact: a, doc: d.md}\n",
     5, ["expected exactly one claim form"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constants: {type: T}}\nrules:\n  - {id: r, fact: a, doc: d.md, table: T, phrase: 'x {value}'}\n",
     5, ["expected exactly one claim form"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constant: A}\nrules:\n  - {id: r, fact: a, doc: d.md, phrase: 'no placeholder'}\n",
     5, ["`{value}` exactly once"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constants: {type: T}}\nrules:\n  - {id: r, fact: a, doc: d.md, section: S, code_spans: '[a-'}\n",
     5, ["invalid regular expression"]),
    ("version: 1\nfacts:\n  a: {file: x.py, constants: {type: T}}\nrules:\n  - {id: r, fact: a, facts: [a], doc: d.md, table: T}\n",
     5, ["exactly one of `fact` or `facts`"]),
    ("version: 1\nrules: [\n", 3, ["not valid YAML"]),
    ("version: 1\nrules: !!python/object/apply:os.system ['echo hi']\n", 2, ["is not allowed"]),
    ("version: 1\nversion: 1\nrules: []\n", 2, ["duplicate key 'version'"]),
    ("- just\n- a list\n", 1, ["expected a mapping"]),
]


@pytest.mark.parametrize("text, line, words", BAD_CONFIGS)
def test_bad_config_names_line_and_expectation(tmp_path: Path, text: str, line: int, words: list[str]) -> None:
    err = error_of(tmp_path, text)
    assert err.location is not None and err.location.path.endswith("driftguard.yaml")
    assert err.location.line == line, str(err)
    for word in words:
        assert word in err.message, err.message


def test_yaml_syntax_error_reports_column(tmp_path: Path) -> None:
    err = error_of(tmp_path, "version: 1\nrules:\n  - id: a\n   bad: [\n")
    assert "column" in err.message and err.location.line is not None


def test_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i-1}"] * 10) + "]")
    err = error_of(tmp_path, "version: 1\nrules: []\nfacts:\n  " + "\n  ".join(lines) + "\n")
    assert "alias bomb" in err.message


def test_missing_and_directory_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="directory"):
        load_config(tmp_path)


def test_find_config_walks_up_to_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "driftguard.yaml").write_text("version: 1\nrules: [{id: a, fact: f, doc: d.md, table: T}]\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_config(deep) == tmp_path / "driftguard.yaml"
    inner = tmp_path / "sub"
    (inner / ".git").mkdir(parents=True)
    assert find_config(inner) is None


def test_root_key_and_override(tmp_path: Path) -> None:
    cfg = tmp_path / "examples" / "x" / "driftguard.yaml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("version: 1\nroot: ../..\nfacts: {f: {file: x.py, constants: {type: T}}}\n"
                   "rules: [{id: a, fact: f, doc: d.md, table: T}]\n")
    assert load_config(cfg).root == tmp_path.resolve()
    assert load_config(cfg, root=tmp_path / "examples").root == tmp_path / "examples"


# -- one parser, PyYAML's own, on every machine -----------------------------------

SYNTAX_ERRORS = [
    "version: 1\nrules:\n  - id: a\n   bad: [\n",
    "version: 1\nrules: [a, b\n",
    "version: 1\nrules: []\nfacts: {a: 1\n",
    "version: 1\nrules: 'open\n",
    "version: 1\nrules: \"bad \\q escape\"\n",
    "version: 1\nrules: *nowhere\n",
    "version: 1\nrules: []\nx: &a 1\ny: &a 2\n",
    "version: 1\nrules: []\n---\nversion: 1\n",
    "version: 1\nrules: [\x01]\n",
]
DIVERGENT = [  # texts libyaml reads differently from PyYAML's parser
    "version: 1\nrules:\t[]\n",
    "version: 1\nrules: []\nfacts: {a: {file: x.txt, pattern: a?b}}\n",
    "version: 1\nrules: []\nroot: !\n",
    "version: 1\nrules: []\nwhy: |#x\n  text\n",
    "version: 1\nrules: []\n\ufeffroot: .\n",
]
NESTING = [
    "version: 1\nrules: []\nfacts: &a {b: *a}\n",
    "version: 1\nrules: &r [*r]\n",
    "version: 1\nrules: []\nfacts: " + "[" * 150 + "]" * 150 + "\n",
    "version: 1\nrules: []\nfacts: " + "[" * 800 + "]" * 800 + "\n",
]


def outcome(tmp_path: Path, text: str) -> object:
    """The config or the error (message and location) that ``text`` gives."""
    try:
        return load(tmp_path, text)
    except ConfigError as exc:
        return ("error", exc.message, exc.location)


@pytest.mark.parametrize("text", [GOOD.lstrip("\n")] + [case[0] for case in BAD_CONFIGS] + SYNTAX_ERRORS + DIVERGENT
                         + NESTING)
def test_libyaml_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    expected = outcome(tmp_path, text)

    class Refused(yaml.SafeLoader):
        def __init__(self, *args: object) -> None:
            raise AssertionError("libyaml's loader was used")

    monkeypatch.setattr(yaml, "CSafeLoader", Refused, raising=False)
    monkeypatch.setattr(yaml, "CLoader", Refused, raising=False)
    assert outcome(tmp_path, text) == expected


@pytest.mark.parametrize("text", SYNTAX_ERRORS)
def test_yaml_syntax_errors_are_located_config_errors(tmp_path: Path, text: str) -> None:
    err = error_of(tmp_path, text)
    assert err.location is not None and err.location.line is not None, str(err)


@pytest.mark.parametrize("text, words", [
    (NESTING[0], "refers to a collection that contains it"),
    (NESTING[1], "refers to a collection that contains it"),
    (NESTING[2], "nests more than 100 levels deep"),
    (NESTING[3], "nests more than 100 levels deep"),
])
def test_recursive_aliases_and_deep_nesting_are_config_errors(tmp_path: Path, text: str, words: str) -> None:
    assert words in error_of(tmp_path, text).message
