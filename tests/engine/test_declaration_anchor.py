"""A ``missing-in-code`` finding points at where the code declares the set (the
type, class, map or ``String`` method), labelled so, not at the set's first value."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_cli, write_tree

GO = """
package p

// Kind is what a thing is.
type Kind string

const (
\tKindA Kind = "a"
\tKindB Kind = "b"
)

type State int

const (
\tIdle State = iota
\tBusy
)

func (s State) String() string {
\tswitch s {
\tcase Idle:
\t\treturn "idle"
\tcase Busy:
\t\treturn "busy"
\t}
\treturn "?"
}

var registry = map[string]int{
\t"read":  1,
\t"write": 2,
}
"""

PY = """
from enum import Enum

LIMITS = {
    "soft": 1,
    "hard": 2,
}


class Level(str, Enum):
    LOW = "low"
    HIGH = "high"
"""


def _doc(values: list[str]) -> str:
    return "# Set\n\n| Name |\n|---|\n" + "".join(f"| `{v}` |\n" for v in values)


CASES = [
    ("p.go", "constants: {type: Kind}", ["a", "b"], "p.go:4, type Kind"),
    ("p.go", "string_method: State", ["idle", "busy"], "p.go:18, func (State) String"),
    ("p.go", "map_keys: registry", ["read", "write"], "p.go:28, map registry"),
    ("p.py", "constants: {type: Level}", ["low", "high"], "p.py:9, class Level"),
    ("p.py", "map_keys: LIMITS", ["soft", "hard"], "p.py:3, dict LIMITS"),
]


@pytest.mark.parametrize("file, selector, values, declared", CASES)
def test_a_value_the_code_lacks_points_at_the_declaration(tmp_path, capsys, file, selector, values, declared):
    root = write_tree(tmp_path, {
        "p.go": GO, "p.py": PY, "docs/set.md": _doc([*values, "ghost"]),
        "driftguard.yaml": f"""
            version: 1
            facts:
              things: {{file: {file}, {selector}}}
            rules:
              - {{id: things, fact: things, doc: docs/set.md, table: Name}}
        """,
    })
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 1
    assert f"docs/set.md:{5 + len(values)}: things: `ghost` is stated" in out
    assert f"(declared: {declared})" in out


def test_sarif_labels_the_related_location_as_the_declaration(tmp_path, capsys):
    root = write_tree(tmp_path, {
        "p.go": GO, "docs/set.md": _doc(["a", "b", "ghost"]),
        "driftguard.yaml": """
            version: 1
            facts:
              kinds: {file: p.go, constants: {type: Kind}}
            rules:
              - {id: kinds, fact: kinds, doc: docs/set.md, table: Name}
        """,
    })
    code, out = run_cli(capsys, "check", "--format", "sarif", cwd=root).outcome
    assert code == 1
    (result,) = json.loads(out)["runs"][0]["results"]
    (related,) = result["relatedLocations"]
    assert related["message"]["text"] == "where the code declares the set: type Kind"
    assert related["physicalLocation"]["region"]["startLine"] == 4


def test_a_missing_in_doc_finding_still_points_at_the_member(tmp_path, capsys):
    root = write_tree(tmp_path, {
        "p.go": GO, "docs/set.md": _doc(["a"]),
        "driftguard.yaml": """
            version: 1
            facts:
              kinds: {file: p.go, constants: {type: Kind}}
            rules:
              - {id: kinds, fact: kinds, doc: docs/set.md, table: Name}
        """,
    })
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 1 and "(source: p.go:8)" in out and "declared:" not in out


def test_over_a_glob_the_type_wins_over_the_first_file_holding_a_member(tmp_path, capsys):
    root = write_tree(tmp_path, {
        "k/a_more.go": "package k\n\nconst KindZ Kind = \"z\"\n",
        "k/types.go": "package k\n\ntype Kind string\n\nconst KindA Kind = \"a\"\n",
        "docs/set.md": _doc(["a", "z", "ghost"]),
        "driftguard.yaml": """
            version: 1
            facts:
              kinds: {file: 'k/*.go', constants: {type: Kind}}
            rules:
              - {id: kinds, fact: kinds, doc: docs/set.md, table: Name}
        """,
    })
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 1 and "(declared: k/types.go:3, type Kind)" in out


def test_a_type_declared_in_no_file_read_falls_back_to_the_const_block(tmp_path, capsys):
    root = write_tree(tmp_path, {
        "k/a.go": "package k\n\nconst (\n\tKindA Kind = \"a\"\n)\n",
        "docs/set.md": _doc(["a", "ghost"]),
        "driftguard.yaml": """
            version: 1
            facts:
              kinds: {file: k/a.go, constants: {type: Kind}}
            rules:
              - {id: kinds, fact: kinds, doc: docs/set.md, table: Name}
        """,
    })
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 1 and "(declared: k/a.go:3, const block of type Kind)" in out


def test_a_cached_run_points_at_the_declaration_too(tmp_path, capsys):
    root = write_tree(tmp_path, {
        "p.go": GO, "docs/set.md": _doc(["a", "b", "ghost"]),
        "driftguard.yaml": """
            version: 1
            facts:
              kinds: {file: p.go, constants: {type: Kind}}
            rules:
              - {id: kinds, fact: kinds, doc: docs/set.md, table: Name}
        """,
    })
    first = run_cli(capsys, "check", cwd=root).outcome
    second = run_cli(capsys, "check", cwd=root).outcome
    assert first == second and "(declared: p.go:4, type Kind)" in second[1]
