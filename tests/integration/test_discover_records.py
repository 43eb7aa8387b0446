"""discover on a tree's records of the past: changelogs and release notes are never read,
dated records rank last, pages about the code first, and one statement copied to many
pages is one rule (issue 23)."""

from __future__ import annotations

import pytest
import yaml

from driftguard.discover import discover, render_config, render_summary
from driftguard.discover.documents import about_code, is_dated, is_history
from driftguard.model import Status
from tests.helpers import judge, run_cli

STATES = 'package fsm\n\ntype State string\n\nconst (\n\tStateOpen State = "open"\n\tStateShut State = "shut"\n)\n'
TIMEOUT = "package net\n\nimport \"time\"\n\nconst dialTimeout = 30 * time.Second\n"
TABLE = "| State | Meaning |\n| --- | --- |\n| `open` | takes traffic |\n| `shut` | refuses it |\n"


@pytest.mark.parametrize("path", [
    "CHANGELOG.md", "docs/CHANGELOG.md", "HISTORY.rst", "NEWS.md", "RELEASE_NOTES.md", "docs/release-notes.md",
    "docs/releases/v1.2.md", "docs/release-control/v6/plan.md", "docs/dev/release-process.md", "CHANGES.rst",
    "website/blog/2024-vite-5.md", "docs/changelog/v2.md",
])
def test_a_history_page_is_left_out(path: str) -> None:
    assert is_history(path)


@pytest.mark.parametrize("path", ["docs/guide.md", "README.md", "internal/release/notes.md", "docs/guides/renewal.md",
                                  "docs/api.md"])
def test_an_ordinary_page_is_read(path: str) -> None:
    assert not is_history(path)


def test_include_brings_a_history_page_back_by_glob_path_or_folder() -> None:
    assert not is_history("CHANGELOG.md", ["CHANGELOG.md"])
    assert not is_history("docs/releases/v1.md", ["docs/releases/*.md"])
    assert not is_history("docs/releases/v1.md", ["docs/releases"])
    assert is_history("docs/releases/v1.md", ["docs/guide.md"])


@pytest.mark.parametrize("path", ["docs/CANONICAL_MIGRATION_2026-03-10.md", "docs/2024-05/plan.md",
                                  "docs/records/outage.md", "docs/decisions/use-go.md", "docs/adr/0001-x.md",
                                  "notes/20240510-review.md"])
def test_a_dated_record(path: str) -> None:
    assert is_dated(path)


def test_a_page_about_the_code_by_path_or_title() -> None:
    assert about_code("docs/PATROL_ARCHITECTURE.md", "")
    assert about_code("docs/architecture/pricing.md", "")
    assert about_code("docs/ASSISTANT_SAFETY.md", "Pulse Assistant safety architecture")
    assert about_code("docs/internals.md", "") and about_code("docs/x.md", "Design of the scheduler")
    assert not about_code("docs/guide.md", "User guide") and not about_code("docs/x.md", "Designer tools")


def test_changelogs_and_release_notes_are_never_read_unless_included(tree) -> None:
    root = tree({
        "fsm/fsm.go": STATES,
        "CHANGELOG.md": "# Changelog\n\n## 1.0\n\n" + TABLE,
        "docs/releases/v1.md": "# 1.0\n\n" + TABLE,
    })
    found = discover(root, jobs=1)
    assert found.proposals == () and found.stats.history == ["CHANGELOG.md", "docs/releases/v1.md"]
    assert "left out 2 changelogs, release notes and history pages" in render_summary(found)
    kept = discover(root, jobs=1, include=["CHANGELOG.md"])
    assert [p.doc for p in kept.proposals] == ["CHANGELOG.md"] and kept.stats.history == ["docs/releases/v1.md"]


def test_the_cli_takes_include(tree, capsys: pytest.CaptureFixture[str]) -> None:
    root = tree({"fsm/fsm.go": STATES, "CHANGELOG.md": "# Changelog\n\n" + TABLE})
    code, out, _ = run_cli(capsys, "discover", "--root", str(root), "--include", "CHANGELOG.md")
    assert code == 0 and "doc: CHANGELOG.md" in out


def test_a_page_about_the_code_ranks_first_and_a_dated_record_last(tree) -> None:
    root = tree({
        "net/net.go": TIMEOUT,
        "docs/a-guide.md": "# Guide\n\nA connection attempt ends after 30 seconds (the dial timeout).\n",
        "docs/records/2024-05-01-outage.md": "# Outage\n\nThe dial timeout was then 30 seconds too.\n",
        "docs/z.md": "# Network architecture\n\nThe dialer gives up after a dial timeout of 30 seconds.\n",
    })
    found = discover(root, jobs=1, limit=None)
    assert [p.doc for p in found.proposals] == ["docs/z.md", "docs/a-guide.md", "docs/records/2024-05-01-outage.md"]
    assert [p.tier for p in found.proposals] == [0, 2, 3]


def test_one_statement_on_many_pages_is_one_rule_over_a_glob_or_a_list(tree) -> None:
    page = "# Network\n\nThe dialer gives up after a dial timeout of 30 seconds.\n"
    root = tree({
        "net/net.go": TIMEOUT,
        "docs/guide/a.md": page, "docs/guide/b.md": page,
        "site/public/docs/net.md": page,
    })
    found = discover(root, jobs=1, limit=None)
    (rule,) = found.proposals
    assert rule.documents == ("docs/guide/a.md", "docs/guide/b.md", "site/public/docs/net.md")
    config = yaml.safe_load(render_config(found))
    assert config["rules"][0]["doc"] == ["docs/guide/a.md", "docs/guide/b.md", "site/public/docs/net.md"]
    (root / "driftguard.yaml").write_text(render_config(found))
    assert [r.status for r in judge(root).rules] == [Status.PASS] * 3
    (root / "site/public/docs/net.md").unlink()
    found = discover(root, jobs=1, limit=None)
    assert found.proposals[0].doc_key == "docs/guide/*.md"
    assert yaml.safe_load(render_config(found))["rules"][0]["doc"] == "docs/guide/*.md"


def test_a_record_never_joins_a_rule_on_a_living_page(tree) -> None:
    page = "# Network\n\nThe dialer gives up after a dial timeout of 30 seconds.\n"
    root = tree({"net/net.go": TIMEOUT, "docs/net.md": page, "docs/adr/0001-dialer.md": page})
    found = discover(root, jobs=1, limit=None)
    assert [p.documents for p in found.proposals] == [("docs/net.md",), ("docs/adr/0001-dialer.md",)]


def test_the_summary_names_every_language_it_did_not_read(tree) -> None:
    root = tree({"fsm/fsm.go": STATES, "src/lib.rs": "fn main() {}\n", "src/util.rs": "", "App.java": "",
                 "docs/x.md": "# X\n\n" + TABLE})
    summary = render_summary(discover(root, jobs=1))
    assert "skipped 2 Rust files: driftguard has no Rust reader" in summary
    assert "skipped 1 Java files: driftguard has no Java reader" in summary
    assert "TypeScript" not in summary.split("\n", 1)[1]  # read now: never listed as skipped


def test_the_summary_counts_the_files_of_each_language_it_could_not_read(tree) -> None:
    root = tree({"fsm/fsm.go": STATES, "fsm/bad.go": b"package fsm\n\xff\xfe", "web/bad.ts": b"\xff",
                 "docs/x.md": "# X\n\n" + TABLE})
    summary = render_summary(discover(root, jobs=1))
    assert "could not read 1 Go files (e.g. fsm/bad.go: not UTF-8)" in summary
    assert "could not read 1 TypeScript files (e.g. web/bad.ts: not UTF-8)" in summary



def test_a_third_statement_of_one_constant_in_one_page_waits_for_the_other_pages(tree) -> None:
    """A screenful shows more of the tree: the third rule over the same fact and document
    ranks after the tier's other rules, whatever its confidence."""
    root = tree({
        "n/n.go": 'package n\n\nimport "time"\n\nconst dialTimeout = 30 * time.Second\n'
                  "const readTimeout = 10 * time.Second\n",
        "docs/a.md": "# A\n\n## One\n\nThe dial timeout is 30 seconds.\n\n## Two\n\nA dial gives up after a dial "
                     "timeout of 30 seconds.\n\n## Three\n\nWith the dial timeout of 30 seconds, retries wait.\n",
        "docs/b.md": "# B\n\nA read gives up after 10 seconds.\n",
    })
    found = discover(root, jobs=1, limit=None)
    assert [(p.doc, p.line) for p in found.proposals] == [("docs/a.md", 5), ("docs/a.md", 9), ("docs/b.md", 3),
                                                         ("docs/a.md", 13)]
    assert found.proposals[2].confidence < found.proposals[3].confidence
