"""A warm ``links`` run does little beyond starting: one cache entry holds the links and
anchors of every page (``judging.linked_set``), a page whose stamp is the stored one is
not read, one changed since is read and hashed, and only a page whose content changed is
parsed again; the run imports nothing it does not use, and a site's configs are looked
for with one listing per folder. Work is counted (entries read, bytes read, pages
parsed, modules imported, file-system walks), never timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from driftguard.config.loader import load_config
from driftguard.documents import reader
from driftguard.judging import linked_set
from driftguard.judging.cache import FactCache
from driftguard.judging.engine import Engine
from driftguard.judging.result import Result
from driftguard.judging.sites.tree import Tree
from driftguard.reporters import CHECK_FORMATS, renderer
from tests.helpers import ROOT, write_tree
from tests.work import assert_linear, metered, recorded

CONFIG = "version: 1\nrules:\n  - id: links\n    doc: 'docs/**/*.md'\n    links: true\n"


def _tree(tmp_path: Path, pages: int = 12) -> Path:
    """``pages`` pages in three folders, a third of them with no link, and links between
    them with and without anchors, one of them broken."""
    files = {"driftguard.yaml": CONFIG}
    for i in range(pages):
        folder = ("guide", "api", "ops")[i % 3]
        other = ("guide", "api", "ops")[(i + 1) % 3]
        body = f"# Page {i}\n\n## Part {i}\n\nText.\n"
        if i % 3 != 2:
            body += f"\nSee [next](../{other}/p{i + 1}.md#part-{i + 1}) and [here](#part-{i}).\n"
        files[f"docs/{folder}/p{i}.md"] = body
    files["docs/guide/p0.md"] += "\nA [stale link](gone.md).\n"
    return write_tree(tmp_path / "tree", files)


def _later(monkeypatch: pytest.MonkeyPatch, seconds: float = 10.0) -> None:
    """Runs begin ``seconds`` after now: the pages just written are old enough to be trusted
    by their stamps (the racy window is ``linked_set.RACY_NS``)."""
    monkeypatch.setattr(linked_set, "_now", lambda: time.time_ns() + int(seconds * 1e9))


def _run(root: Path, folder: Path) -> tuple[Result, Engine]:
    engine = Engine(load_config(root / "driftguard.yaml"), FactCache(folder))
    return engine.run(), engine


def _text(result: Result) -> str:
    return renderer(CHECK_FORMATS, "json")(result)


def _parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    return recorded(monkeypatch, reader, "parse_links")


def test_a_warm_run_reads_one_cache_entry_and_no_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, folder = _tree(tmp_path), tmp_path / "cache"
    _later(monkeypatch)
    cold, _ = _run(root, folder)
    parsed = _parsed(monkeypatch)
    reads = metered(monkeypatch, FactCache, "_read", budget=1)
    warm, engine = _run(root, folder)
    assert _text(warm) == _text(cold) and "gone.md" in _text(warm)
    assert reads.calls == 1  # the one entry of every page's links and anchors
    assert engine.workspace.bytes_read == 0 and parsed == []
    assert engine.cache is not None and engine.cache.misses == 0 and engine.cache.writes == 0


def test_pages_changed_within_the_racy_window_are_read_and_hashed_not_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, folder = _tree(tmp_path), tmp_path / "cache"
    _later(monkeypatch, 0.0)  # the runs begin as the pages are written: no stamp is trusted
    cold, _ = _run(root, folder)
    parsed = _parsed(monkeypatch)
    warm, engine = _run(root, folder)
    assert _text(warm) == _text(cold)
    assert parsed == [] and engine.workspace.bytes_read == sum(p.stat().st_size for p in (root / "docs").rglob("*.md"))
    assert engine.cache is not None and engine.cache.writes == 0  # nothing could be trusted yet: nothing changed
    _later(monkeypatch)  # later, the same pages are old enough: their stamps are stored once
    upgraded, engine = _run(root, folder)
    assert engine.cache is not None and engine.cache.writes == 1 and engine.workspace.bytes_read > 0
    _, engine = _run(root, folder)
    assert engine.workspace.bytes_read == 0 and parsed == []
    assert _text(upgraded) == _text(cold)


def test_a_changed_page_alone_is_parsed_again_and_its_findings_follow(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, folder = _tree(tmp_path), tmp_path / "cache"
    _later(monkeypatch)
    _run(root, folder)
    page = root / "docs" / "api" / "p1.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nAnd [another](missing.md).\n", encoding="utf-8")
    _later(monkeypatch, 20.0)
    parsed = _parsed(monkeypatch)
    result, engine = _run(root, folder)
    assert parsed == ["docs/api/p1.md"]
    assert engine.workspace.bytes_read == page.stat().st_size
    assert "missing.md" in _text(result) and "gone.md" in _text(result)
    assert _text(result) == _text(Engine(load_config(root / "driftguard.yaml")).run())  # as uncached


def test_a_page_that_can_no_longer_be_read_is_an_error_as_uncached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, folder = _tree(tmp_path), tmp_path / "cache"
    _later(monkeypatch)
    _run(root, folder)
    (root / "docs" / "ops" / "p2.md").write_bytes(b"# Page\n\xff\xfe not UTF-8\n")
    _later(monkeypatch, 20.0)
    result, _ = _run(root, folder)
    uncached = Engine(load_config(root / "driftguard.yaml")).run()
    assert _text(result) == _text(uncached) and "not valid UTF-8" in _text(result)


def test_a_damaged_set_entry_falls_back_to_each_page_entry_without_parsing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, folder = _tree(tmp_path), tmp_path / "cache"
    _later(monkeypatch)
    cold, _ = _run(root, folder)
    for entry in folder.glob("*.json"):
        head, _, body = entry.read_bytes().partition(b"\n")
        if json.loads(body)["key"][1] == "linked-set":
            entry.write_bytes(head + b"\n" + body.replace(b"part-", b"past-"))  # the digest no longer holds
    parsed = _parsed(monkeypatch)
    warm, engine = _run(root, folder)
    assert _text(warm) == _text(cold) and parsed == []
    assert engine.cache is not None and engine.cache.misses == 1 and engine.cache.writes == 1  # rewritten whole


def test_judging_pages_with_no_link_does_linear_work(tmp_path: Path) -> None:
    """A glob of n pages that hold no link asks once which rule is the glob's first,
    not once per page (that was n * n)."""
    def build(n: int) -> Engine:
        root = write_tree(tmp_path / f"t{n}", {"driftguard.yaml": CONFIG,
                                                **{f"docs/p{i}.md": f"# P{i}\n\nNo link.\n" for i in range(n)}})
        return Engine(load_config(root / "driftguard.yaml"))

    assert_linear(build, lambda engine: engine.run(), 200)


def test_a_site_config_is_looked_for_with_one_listing_per_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, folder = _tree(tmp_path), tmp_path / "cache"
    walked: list[str] = []
    real = Tree._walk

    def counting(self: Tree, rel: str) -> tuple[str, str]:
        walked.append(rel)
        return real(self, rel)

    monkeypatch.setattr(Tree, "_walk", counting)
    listed = metered(monkeypatch, Tree, "_names", budget=20)
    _run(root, folder)
    assert not [rel for rel in walked if rel.endswith(("mkdocs.yml", "conf.py", "hugo.toml", "config.ts"))]
    assert listed.calls <= 5  # the root, docs and its three folders, each listed once


WARM_SCRIPT = """
import sys
from pathlib import Path
from driftguard.cli import main
code = main(["check", "--config", sys.argv[1]])
sys.stderr.write(" ".join(sorted(sys.modules)))
"""
UNUSED = ("regex", "markdown_it", "tree_sitter", "libcst", "tomllib",
          "driftguard.config.selectors", "driftguard.quantities.units", "driftguard.judging.facts",
          "driftguard.sources", "driftguard.documents.model", "driftguard.documents.reader",
          "driftguard.judging.baseline", "driftguard.judging.sites.mkdocs", "driftguard.judging.sites.vitepress",
          "driftguard.judging.sites.docusaurus", "driftguard.judging.sites.hugo", "driftguard.judging.sites.sphinx")
MOST_MODULES = 50
"""driftguard's own modules a warm links check imports (45 when this was written): a bound
to look at again when it is passed, not a figure to meet."""


def test_a_warm_links_check_imports_only_what_it_uses(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    env = {**os.environ, "DRIFTGUARD_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}

    def run() -> set[str]:
        done = subprocess.run([sys.executable, "-c", WARM_SCRIPT, str(root / "driftguard.yaml")], env=env,
                              capture_output=True, text=True, timeout=120, check=True)
        return set(done.stderr.split())

    assert "markdown_it" in run()  # the cold run parsed
    loaded = run()
    assert not [m for m in loaded if m in UNUSED or m.startswith(tuple(f"{u}." for u in UNUSED))], loaded
    own = [m for m in loaded if m.startswith("driftguard")]
    assert len(own) <= MOST_MODULES, sorted(own)


def test_a_run_of_some_rules_keeps_the_other_pages_and_a_run_of_all_drops_those_gone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, folder = _tree(tmp_path), tmp_path / "cache"
    _later(monkeypatch)
    _, engine = _run(root, folder)
    config = engine.config

    def pages() -> set[str]:
        [entry] = [json.loads(p.read_bytes().partition(b"\n")[2]) for p in folder.glob("*.json")
                   if json.loads(p.read_bytes().partition(b"\n")[2])["key"][1] == "linked-set"]
        return set(entry["value"]["pages"])

    everything = pages()
    (root / "docs" / "ops" / "p5.md").write_text("# Page 5\n\n## Part 5\n\nNow [a link](p8.md).\n", encoding="utf-8")
    _later(monkeypatch, 20.0)
    some = [rule for rule in config.rules if rule.doc == "docs/ops/p5.md"]
    Engine(config, FactCache(folder)).run(some)  # a changed page, judged alone: the others stay
    assert pages() == everything
    (root / "docs" / "api" / "p7.md").unlink()
    (root / "docs" / "guide" / "p9.md").write_text("# Page 9\n", encoding="utf-8")
    _later(monkeypatch, 40.0)
    _run(root, folder)  # a run of every rule: the page gone leaves the entry
    assert "docs/api/p7.md" in everything and "docs/api/p7.md" not in pages()
