"""A warm ``references`` check does little: it reads no source file of an untouched fact,
judges no document whose verdict the cache holds, and judges again whatever a change
could alter (a fact file, another document of the rule, the repository's files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from driftguard.config.loader import load_config
from driftguard.judging import references
from driftguard.judging.cache import FactCache
from driftguard.judging.engine import Engine
from driftguard.model import Finding
from tests.helpers import write_tree
from tests.work import recorded

CONFIG = """
version: 1
facts:
  symbols:
    file: 'src/*.go'
    symbols: true
rules:
  - id: references
    fact: symbols
    doc: 'docs/*.md'
    references: true
"""

SOURCES = {f"src/part{i}.go": f"package src\n\nfunc Load{i}() {{}}\n\nfunc Keep{i}() {{}}\n" for i in range(6)}

DOCS = {
    "docs/a.md": "# A\n\nCall `Load0()` and `Load1()`; the gone `Vanish()` too.\n",
    "docs/b.md": "# B\n\nCall `Keep2()`, see `src/part3.go` and `src/part9.go`.\n",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "tree", {"driftguard.yaml": CONFIG, **SOURCES, **DOCS})


def run(root: Path, cache: FactCache) -> tuple[list[Finding], Engine]:
    engine = Engine(load_config(root / "driftguard.yaml", root=root), cache)
    result = engine.run()
    return list(result.findings), engine


def messages(findings: list[Finding]) -> list[str]:
    return sorted(f"{f.doc}: {f.message}" for f in findings)


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The documents ``judge_references`` is called for, from now on."""
    return recorded(monkeypatch, references, "judge_references", lambda rule, *rest: rule.doc)


def touch(path: Path, text: str) -> None:
    path.write_text(text)
    stamp = path.stat().st_mtime_ns + 2_000_000_000  # a new stamp even on a coarse clock
    os.utime(path, ns=(stamp, stamp))


def test_a_warm_run_reads_the_documents_and_no_source(tree: Path, tmp_path: Path) -> None:
    cache = FactCache(tmp_path / "cache")
    cold, engine = run(tree, cache)
    assert engine.workspace.bytes_read >= sum(len(t) for t in SOURCES.values())
    warm, engine = run(tree, cache)
    assert messages(warm) == messages(cold)
    assert any("`Vanish()`" in m for m in messages(warm)) and any("src/part9.go" in m for m in messages(warm))
    docs = sum(len(t.encode()) for t in DOCS.values())
    assert engine.workspace.bytes_read == docs  # the documents, not one byte of src/


def test_a_warm_run_judges_no_document_again(tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = FactCache(tmp_path / "cache")
    cold, _ = run(tree, cache)
    judged = counted(monkeypatch)
    warm, _ = run(tree, cache)
    assert judged == [] and messages(warm) == messages(cold)


@pytest.mark.parametrize("change, appears, gone", [
    # a fact file renamed a function: the document naming it is stale, the verdict is judged again
    ("src/part1.go", "`Load1()` names nothing", None),
    # the code gained the missing name
    ("src/part5.go", None, "`Vanish()` names nothing"),
    # a file the repository holds, outside the facts, that holds the name
    ("tools/vanish.go", None, "`Vanish()` names nothing"),
])
def test_a_change_beyond_the_document_is_judged_again(tree: Path, tmp_path: Path, change: str,
                                                      appears: str | None, gone: str | None) -> None:
    cache = FactCache(tmp_path / "cache")
    before = messages(run(tree, cache)[0])
    path = tree / change
    path.parent.mkdir(parents=True, exist_ok=True)
    if change == "src/part1.go":
        touch(path, path.read_text().replace("Load1", "LoadAll1"))
    else:
        touch(path, "package src\n\nfunc Vanish() {}\n")
    after = messages(run(tree, cache)[0])
    if appears:
        assert not any(appears in m for m in before) and any(appears in m for m in after)
    if gone:
        assert any(gone in m for m in before) and not any(gone in m for m in after)
    assert after == messages(run(tree, None)[0])  # the same as an uncached run


def test_another_document_of_the_rule_changing_is_judged_again(tree: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cache = FactCache(tmp_path / "cache")
    run(tree, cache)
    judged = counted(monkeypatch)
    touch(tree / "docs/b.md", DOCS["docs/b.md"] + "\n## `Vanish()`\n\nA section of its own.\n")
    run(tree, cache)
    assert sorted(judged) == ["docs/a.md", "docs/b.md"]  # a.md's verdict reads the names b.md defines


def test_a_missing_path_names_the_closest_file_of_its_folder(tree: Path, tmp_path: Path) -> None:
    write_tree(tree, {"src/loader.go": "package src\n", "docs/c.md": "# C\n\nSee `src/loadr.go`.\n"})
    found = messages(run(tree, FactCache(tmp_path / "cache"))[0])
    assert "docs/c.md:3: `src/loadr.go` names no file or folder of the repository; closest: `src/loader.go`" in found
