"""``file:`` and ``doc:`` as globs and lists: every matched file is read, every
matched document judged, and a glob that matches nothing is an error."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from driftguard.config.globs import expand, expand_all
from driftguard.config.loader import load_config
from driftguard.judging.engine import Engine
from tests.helpers import run_cli, write_tree

TYPES_GO = """
package kind

type Kind string

const (
\tKindA Kind = "a"
)
"""

MORE_GO = """
package kind

const KindB Kind = "b"
"""

TEST_GO = """
package kind

const KindT Kind = "t"
"""

DOC = """
# Kinds

| Kind |
|------|
| `a` |
"""


def _repo(tmp_path: Path, file: str, extra: dict[str, str] | None = None, doc: str = "docs/kinds.md") -> Path:
    return write_tree(tmp_path, {
        "internal/kind/types.go": TYPES_GO,
        "internal/kind/more.go": MORE_GO,
        "internal/kind/kind_test.go": TEST_GO,
        "docs/kinds.md": DOC,
        "driftguard.yaml": f"""
            version: 1
            facts:
              kinds: {{file: {file}, constants: {{type: Kind}}}}
            rules:
              - {{id: kinds, fact: kinds, doc: {doc}, table: Kind}}
        """,
        **(extra or {}),
    })


def test_a_constant_added_in_another_file_of_the_package_is_a_finding(tmp_path, capsys):
    root = _repo(tmp_path, "'internal/kind/*.go'")
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 1
    assert "`b` is declared in code but missing" in out
    assert "internal/kind/more.go:3" in out  # the value carries its own file and line


def test_the_single_file_rule_stays_silent_about_the_other_file(tmp_path, capsys):
    root = _repo(tmp_path, "internal/kind/types.go")
    assert run_cli(capsys, "check", cwd=root).code == 0


def test_a_glob_leaves_out_go_test_files(tmp_path):
    root = _repo(tmp_path, "'internal/kind/*.go'")
    assert expand(root, "internal/kind/*.go") == ["internal/kind/more.go", "internal/kind/types.go"]
    assert expand(root, "internal/kind/*_test.go") == ["internal/kind/kind_test.go"]
    assert expand(root, "internal/kind/kind_test.go") == ["internal/kind/kind_test.go"]


def test_a_list_mixes_paths_and_globs_and_names_each_file_once(tmp_path):
    root = _repo(tmp_path, "[internal/kind/types.go, 'internal/**/*.go', internal/kind/kind_test.go]")
    spec = load_config(root / "driftguard.yaml").facts["kinds"]
    assert spec.files == ("internal/kind/types.go", "internal/kind/more.go", "internal/kind/kind_test.go")
    assert spec.file == "internal/kind/types.go, internal/**/*.go, internal/kind/kind_test.go"
    fact = Engine(load_config(root / "driftguard.yaml")).fact(spec)
    assert [(i.value.data, str(i.location)) for i in fact.items] == [
        ("a", "internal/kind/types.go:6"), ("b", "internal/kind/more.go:3"), ("t", "internal/kind/kind_test.go:3"),
    ]


def test_a_glob_that_matches_nothing_is_an_error_naming_it(tmp_path, capsys):
    root = _repo(tmp_path, "'internal/kinds/*.go'")
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 2
    assert "driftguard.yaml:3" in out and "the glob 'internal/kinds/*.go' matches no file" in out


def test_a_glob_of_test_files_only_says_why_it_matched_nothing(tmp_path, capsys):
    root = write_tree(tmp_path, {"pkg/x_test.go": TEST_GO})
    _repo(root, "'pkg/*.go'")
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 2 and "test files (*_test.go" in out and "left out unless the glob names them" in out
    _repo(root, "'nowhere/*.go'")
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 2 and "matches no file" in out and "_test.go" not in out


def test_double_star_matches_any_depth_including_none(tmp_path):
    root = write_tree(tmp_path, {"a/x.go": "", "a/b/c/y.go": "", "a/.hidden/z.go": "", "a/b/w.py": ""})
    assert expand(root, "a/**/*.go") == ["a/b/c/y.go", "a/x.go"]
    assert expand(root, "**/*.py") == ["a/b/w.py"]
    assert expand(root, "a/**") == ["a/b/c/y.go", "a/b/w.py", "a/x.go"]
    assert expand(root, "a/?.go") == ["a/x.go"]
    assert expand(root, "a/[xy].go") == ["a/x.go"]
    assert expand(root, "a/[!x].go") == []


def test_a_folder_symlink_is_not_followed(tmp_path):
    root = write_tree(tmp_path, {"a/x.go": ""})
    (root / "a" / "loop").symlink_to(root / "a")
    assert expand(root, "a/**/*.go") == ["a/x.go"]


def test_a_fact_missing_from_some_files_of_the_glob_reads_the_others(tmp_path, capsys):
    root = _repo(tmp_path, "'internal/**/*.go'", {"internal/other/o.go": "package other\n\nconst X = 1\n"})
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 1 and "`b` is declared in code" in out


def test_a_fact_in_no_file_of_the_glob_is_fact_not_found(tmp_path, capsys):
    root = write_tree(tmp_path, {
        "p/a.go": "package p\n\nconst X = 1\n", "p/b.go": "package p\n\nconst Y = 2\n",
        "docs/kinds.md": DOC,
        "driftguard.yaml": """
            version: 1
            facts:
              kinds: {file: 'p/*.go', constants: {type: Kind}}
            rules:
              - {id: kinds, fact: kinds, doc: docs/kinds.md, table: Kind}
        """,
    })
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 1
    assert "none of the 2 files of `p/*.go` holds it" in out


def test_a_scalar_found_in_two_files_of_a_glob_is_ambiguous(tmp_path, capsys):
    root = write_tree(tmp_path, {
        "p/a.go": "package p\n\nconst Limit = 4\n", "p/b.go": "package p\n\nconst Limit = 5\n",
        "docs/x.md": "# X\n\nThe limit is 4.\n",
        "driftguard.yaml": """
            version: 1
            facts:
              limit: {file: 'p/*.go', constant: Limit}
            rules:
              - {id: limit, fact: limit, doc: docs/x.md, phrase: 'limit is {value}'}
        """,
    })
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 1
    assert "found in 2 files" in out and "p/a.go:3" in out and "p/b.go:3" in out


def test_an_unreadable_file_of_the_glob_fails_the_fact(tmp_path, capsys):
    root = _repo(tmp_path, "'internal/kind/*.go'", {"internal/kind/bad.go": "package kind\n\x00"})
    code, out = run_cli(capsys, "check", cwd=root).outcome
    assert code == 2 and "internal/kind/bad.go" in out and "NUL" in out


def test_every_document_of_a_doc_glob_is_judged_and_named(tmp_path, capsys):
    root = _repo(tmp_path, "internal/kind/types.go", {
        "docs/old.md": DOC.replace("`a`", "`z`"),
    }, doc="'docs/*.md'")
    code, out = run_cli(capsys, "check", "--format", "json", cwd=root).outcome
    assert code == 1
    report = json.loads(out)
    assert [(r["doc"], r["status"]) for r in report["rules"]] == [("docs/kinds.md", "pass"), ("docs/old.md", "fail")]
    stated = [f for f in report["findings"] if f["kind"] == "missing-in-code"]
    assert [(f["doc"], f["value"]) for f in stated] == [({"path": "docs/old.md", "line": 5}, "z")]


def test_check_with_a_path_selects_only_that_document_of_the_glob(tmp_path, capsys):
    root = _repo(tmp_path, "internal/kind/types.go", {"docs/old.md": DOC.replace("`a`", "`z`")}, doc="'docs/*.md'")
    assert run_cli(capsys, "check", "docs/kinds.md", cwd=root).code == 0
    assert run_cli(capsys, "check", "docs/old.md", cwd=root).code == 1
    assert run_cli(capsys, "check", "internal/kind/types.go", cwd=root).code == 1


def test_check_with_a_source_path_selects_a_rule_whose_glob_matches_it(tmp_path, capsys):
    root = _repo(tmp_path, "'internal/kind/*.go'")
    code, out = run_cli(capsys, "check", "internal/kind/more.go", cwd=root).outcome
    assert code == 1 and "`b`" in out


def test_output_refuses_a_source_matched_by_a_glob(tmp_path, capsys):
    root = _repo(tmp_path, "'internal/kind/*.go'")
    before = (root / "internal/kind/more.go").read_bytes()
    code, out = run_cli(capsys, "report", "--output", str(root / "internal/kind/more.go"), cwd=root).outcome
    assert code == 2 and "source internal/kind/more.go" in out
    assert (root / "internal/kind/more.go").read_bytes() == before


def test_selftest_mutates_the_file_that_declares_the_set(tmp_path, capsys):
    root = _repo(tmp_path, "'internal/kind/*.go'", {"docs/kinds.md": DOC.replace("| `a` |", "| `a` |\n| `b` |")})
    code, out = run_cli(capsys, "selftest", cwd=root).outcome
    assert code == 0, out
    assert "internal/kind/more.go:4  caught" in out  # the first file of the glob declaring a member


_SEGMENT = st.text(alphabet="abcxy_.", min_size=1, max_size=4).filter(lambda s: s not in (".", ".."))


@given(st.lists(st.lists(_SEGMENT, min_size=1, max_size=3).map("/".join), min_size=1, max_size=6, unique=True))
def test_star_star_finds_exactly_the_files_fnmatch_would_without_hidden_ones(tmp_path_factory, paths):
    root = tmp_path_factory.mktemp("g")
    made = []
    for rel in paths:
        target = root / rel
        if any(p.is_file() for p in [*target.parents][:-1] if p != root and root in p.parents) or target.is_dir():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("")
        made.append(rel)
    visible = sorted(r for r in made if not any(part.startswith(".") for part in r.split("/")))
    assert expand(root, "**") == visible
    found, empty = expand_all(root, ["**", *made])
    assert found[: len(visible)] == visible and empty == ([] if visible else ["**"])
