"""The engine end to end on small trees: every claim form, direction and finding kind."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from driftguard.config.loader import load_config
from driftguard.judging.engine import rules_touching
from driftguard.judging.result import Result
from driftguard.model import Status
from tests.helpers import judge

SOURCE = '''
from datetime import timedelta
from enum import Enum

class State(str, Enum):
    IDLE = "IDLE"
    BUSY = "BUSY"

# OLD = "OLD"  (a comment, never a fact)
TTL = timedelta(minutes=10)
LIMIT = 75.0
ATTEMPTS = 3
'''

DOC = '''
# Machine

| State | What it means |
|---|---|
| `IDLE` | nothing to do |
| `BUSY` | working |

Entries expire after ten minutes.

## Limits

| Threshold | Default |
|---|---|
| Limit | 75% |
| Attempts | three |

## Codes

The codes are `IDLE` and `BUSY`.
'''

CONFIG = '''
version: 1
facts:
  states: {file: src/fsm.py, constants: {type: State}}
  ttl: {file: src/fsm.py, constant: TTL}
  limit: {file: src/fsm.py, constant: LIMIT}
  attempts: {file: src/fsm.py, constant: ATTEMPTS}
rules:
  - {id: states, fact: states, doc: docs/m.md, table: State}
  - {id: ttl, fact: ttl, doc: docs/m.md, phrase: 'expire after {value}'}
  - {id: limits, doc: docs/m.md, table: Threshold, column: Default, rows: {Limit: limit, Attempts: attempts}}
  - {id: codes, fact: states, doc: docs/m.md, section: Codes, code_spans: '^[A-Z]+$'}
  - {id: mentioned, fact: states, doc: docs/m.md, mentions: true}
'''

Tree = Callable[[dict[str, str | bytes]], Path]


def base(tree: Tree, **override: str) -> Path:
    files = {"src/fsm.py": SOURCE, "docs/m.md": DOC, "driftguard.yaml": CONFIG}
    names = {"src__fsm_py": "src/fsm.py", "docs__m_md": "docs/m.md", "driftguard_yaml": "driftguard.yaml"}
    files.update({names[k]: v for k, v in override.items()})
    return tree(files)


def by_rule(result: Result) -> dict[str, list[tuple[str, str | None]]]:
    return {rr.rule.id: [(f.kind.kind, f.value) for f in rr.findings] for rr in result.rules}


def test_clean_tree_passes_every_rule(tree: Tree) -> None:
    result = judge(base(tree))
    assert [rr.status for rr in result.rules] == [Status.PASS] * 5, by_rule(result)
    assert result.ok and result.exit_code == 0


def test_new_enum_member_is_missing_in_doc_everywhere(tree: Tree) -> None:
    root = base(tree, src__fsm_py=SOURCE.replace('BUSY = "BUSY"', 'BUSY = "BUSY"\n    DONE = "DONE"'))
    result = judge(root)
    found = by_rule(result)
    assert found["states"] == [("missing-in-doc", "DONE")]
    assert found["codes"] == [("missing-in-doc", "DONE")]
    assert found["mentioned"] == [("missing-in-doc", "DONE")]
    finding = result.rules[0].findings[0]
    assert finding.doc.path == "docs/m.md" and finding.doc.line == 3
    assert finding.source.path == "src/fsm.py" and finding.source.line == 7
    assert result.exit_code == 1


def test_doc_row_added_is_missing_in_code(tree: Tree) -> None:
    root = base(tree, docs__m_md=DOC.replace("| `BUSY` | working |", "| `BUSY` | working |\n| `GONE` | retired |"))
    found = by_rule(judge(root))
    assert found["states"] == [("missing-in-code", "GONE")]


def test_direction_limits_what_is_judged(tree: Tree) -> None:
    doc = DOC.replace("| `BUSY` | working |", "| `BUSY` | working |\n| `GONE` | retired |")
    config = CONFIG.replace("table: State}", "table: State, direction: code-to-doc}")
    assert by_rule(judge(base(tree, docs__m_md=doc, driftguard_yaml=config)))["states"] == []


def test_scalar_changed_in_code_and_in_doc(tree: Tree) -> None:
    root = base(tree, src__fsm_py=SOURCE.replace("minutes=10", "minutes=15").replace("75.0", "80.0"))
    result = judge(root)
    found = by_rule(result)
    assert found["ttl"] == [("value-mismatch", "ten minutes")]
    assert found["limits"] == [("value-mismatch", "75%")]
    ttl = result.rules[1].findings[0]
    assert "fifteen minutes" in ttl.message and "timedelta(minutes=15)" in ttl.message
    assert ttl.doc.line == 8 and ttl.source.line == 9


def test_duration_never_equals_a_bare_number(tree: Tree) -> None:
    root = base(tree, docs__m_md=DOC.replace("after ten minutes", "after 600"))
    assert by_rule(judge(root))["ttl"] == [("value-mismatch", "600")]


def test_claim_gone_and_row_gone(tree: Tree) -> None:
    doc = DOC.replace("Entries expire after ten minutes.", "Entries are kept.").replace("| Attempts | three |\n", "")
    found = by_rule(judge(base(tree, docs__m_md=doc)))
    assert found["ttl"][0][0] == "claim-not-found"
    assert found["limits"] == [("claim-not-found", "Attempts")]


def test_fact_gone_is_fact_not_found(tree: Tree) -> None:
    result = judge(base(tree, src__fsm_py=SOURCE.replace("TTL = timedelta(minutes=10)", "")))
    assert by_rule(result)["ttl"] == [("fact-not-found", "ttl")]
    assert result.exit_code == 1


def test_unreadable_source_is_an_error_never_a_pass(tree: Tree) -> None:
    result = judge(base(tree, src__fsm_py="class State(:\n"))
    assert all(rr.status is Status.ERROR for rr in result.rules if rr.rule.id != "none")
    assert result.exit_code == 2
    kinds = {f.kind.kind for f in result.findings}
    assert kinds == {"parse-error"}


def test_missing_document_is_an_error(tree: Tree) -> None:
    root = base(tree)
    (root / "docs" / "m.md").unlink()
    result = judge(root)
    assert result.exit_code == 2
    assert {f.kind.kind for f in result.findings} == {"read-error"}
    assert all(f.doc.path == "docs/m.md" for f in result.findings)


def test_each_file_is_parsed_once(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    from driftguard.documents import reader as documents
    from driftguard.sources import python

    calls = {"py": 0, "md": 0}
    real_py, real_md = python.parse, documents.parse_document

    def count_py(*a: object) -> object:
        calls["py"] += 1
        return real_py(*a)

    def count_md(*a: object) -> object:
        calls["md"] += 1
        return real_md(*a)

    monkeypatch.setattr(python, "parse", count_py)
    monkeypatch.setattr(documents, "parse_document", count_md)
    assert judge(base(tree)).ok
    assert calls == {"py": 1, "md": 1}


def test_rules_touching_selects_by_file(tree: Tree) -> None:
    config = load_config(base(tree) / "driftguard.yaml")
    assert [r.id for r in rules_touching(config, ["src/fsm.py"])] == ["states", "ttl", "limits", "codes", "mentioned"]
    assert rules_touching(config, ["elsewhere.md"]) == ()
    assert len(rules_touching(config, ["driftguard.yaml"])) == 5


@pytest.mark.parametrize(
    "path, source",
    [
        ("x.py", 'A = "a"\nB = "b"\nREG = {A: 1, B: 2, "c": 3}\n'),
        ("x.go", 'package x\n\nconst (\n\tA = "a"\n\tB = "b"\n)\n\nvar REG = map[string]int{\n\tA: 1,\n\tB: 2,\n\t"c": 3,\n}\n'),
    ],
)
def test_map_keys_resolve_gives_constant_values(path: str, source: str) -> None:
    from driftguard.config.specs import MapKeys
    from driftguard.sources import load_reader, reader_name

    reader = load_reader(reader_name(path, MapKeys("REG")))
    tree = reader.parse(path, source)
    assert [i.value.data for i in reader.extract(tree, MapKeys("REG"), path)] == ["A", "B", "c"]
    resolved = reader.extract(tree, MapKeys("REG", resolve=True), path)
    assert [i.value.data for i in resolved] == ["a", "b", "c"]
