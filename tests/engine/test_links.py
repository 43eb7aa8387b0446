"""links: every relative link, reference link and image of a document points at a file,
folder, heading or line that exists; the finding says what is missing and what is closest."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.config.loader import Rule, load_config
from driftguard.documents.reader import parse_document
from driftguard.documents.slugs import Slugger, slug
from driftguard.judging.linked import LinkedDoc, linked_doc
from driftguard.judging.links import judge_links
from driftguard.judging.workspace import Workspace
from driftguard.model import BROKEN_LINK, Claim, Finding
from driftguard.selftest.doc import heading_target, remove_heading
from driftguard.sources.mutation import NotApplicable
from tests.helpers import FIXTURES

FIXTURE = FIXTURES / "links"
GUIDE = "docs/guide.md"

BROKEN = [  # (line, target as written) of each broken link of docs/guide.md
    (23, "missing.md"),
    (24, "othr.md"),
    (25, "../internal/alerts/alerts.go"),
    (26, "other.md#turn-limit"),
    (27, "other.md#setup-2"),
    (28, "#no-such-heading"),
    (29, "../src/fsm.go#L400"),
    (30, "../src/fsm.go#L10-L20"),
    (31, "gone file.md"),
    (32, "images/chart.png"),
    (33, "../../outside.md"),
]


def _rule(root: Path) -> Rule:
    rule = load_config(root / "driftguard.yaml").rules[0]
    assert rule.doc == GUIDE
    return rule


def _judge(root: Path, doc: str = GUIDE) -> tuple[Claim, list[Finding]]:
    workspace = Workspace(root, 1 << 20)
    def linked(path: str) -> LinkedDoc:
        return workspace.cached("linked", path,
                                lambda: linked_doc(parse_document(path, workspace.read_text(path))))

    return judge_links(_rule(root), linked(doc), workspace, linked)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    return root


# -- slugs --------------------------------------------------------------------


@pytest.mark.parametrize(("heading", "expected"), [
    ("Turn limits", "turn-limits"),
    ("fix and selftest", "fix-and-selftest"),  # the rendered text of "`fix` and `selftest`"
    ("What's new?", "whats-new"),
    ("A -- B", "a----b"),
    ("Ünïcödé", "ünïcödé"),
    ("Émile Zola", "émile-zola"),
    ("日本語 の 見出し", "日本語-の-見出し"),
    ("snake_case and kebab-case", "snake_case-and-kebab-case"),
    ("C++ & C#: 100% (v2.0)", "c--c-100-v20"),
    ("Emoji 🎉 party", "emoji--party"),
    ("  Spaces  ", "--spaces--"),
    ("Tab\there", "tabhere"),
])
def test_slugs_follow_githubs_rules(heading: str, expected: str) -> None:
    assert slug(heading) == expected


def test_a_repeated_slug_is_numbered_with_the_first_free_suffix() -> None:
    slugger = Slugger()
    assert [slugger.slug(t) for t in ("X", "x", "X", "X-1", "Y")] == ["x", "x-1", "x-2", "x-1-1", "y"]


def test_heading_anchors_are_read_from_the_rendered_heading_text() -> None:
    doc = parse_document("a.md", "# `fix` and *selftest*\n\n## What's [new](x.md)?\n\n## Setup\n\n## Setup\n\n"
                                 "Setext\nheading\n---\n\n<a name=\"kept\"></a>\n\nText <a id='inline'>x</a>.\n")
    assert [(a.name, a.line) for a in doc.anchors] == [
        ("fix-and-selftest", 1), ("whats-new", 3), ("setup", 5), ("setup-1", 7), ("setextheading", 9),
        ("kept", 13), ("inline", 15)]
    assert doc.anchor("Setup-1") is not None and doc.anchor("setup-2") is None
    kept = doc.anchor("kept")
    assert kept is not None and kept.heading is None


# -- the document model -------------------------------------------------------


def test_links_are_read_with_their_line_and_the_exact_span_of_their_target() -> None:
    text = (FIXTURE / GUIDE).read_text(encoding="utf-8")
    doc = parse_document(GUIDE, text)
    targets = [link.target for link in doc.links]
    assert targets[:4] == ["other.md", "other.md#turn-limits", "other.md#setup-1", "other.md#custom-anchor"]
    for link in doc.links:
        assert link.span is not None
        assert text[link.span[0]:link.span[1]] == link.target
    by_target = {link.target: link for link in doc.links}
    assert by_target["../src/fsm.go#L3"].line == 7
    assert by_target["images/logo.svg"].image and not by_target["other.md"].image
    reference = by_target["gone file.md"]  # `[bad ref][bad-ref]` with `[bad-ref]: <gone file.md>`
    assert (reference.line, reference.reference) == (31, "bad-ref")
    assert reference.span is not None and doc.line_of(reference.span[0]) == 36
    assert [link.line for link in doc.links if link.target == "other.md#setup"] == [9, 9]  # full and shortcut


def test_code_external_links_and_autolinks_are_not_links() -> None:
    doc = parse_document(GUIDE, (FIXTURE / GUIDE).read_text(encoding="utf-8"))
    written = " ".join(link.target for link in doc.links)
    for absent in ("code-span.md", "fenced.md", "indented.md", "example.com", "mailto:", "ftp:"):
        assert absent not in written


def test_escapes_entities_and_angle_brackets_are_resolved_in_the_destination() -> None:
    doc = parse_document("a.md", "See [a](my\\_file.md), [b](<with space.md>), [c](a&amp;b.md) and [d](  spaced.md ).\n")
    assert [(link.target, link.destination) for link in doc.links] == [
        ("my\\_file.md", "my_file.md"), ("with space.md", "with space.md"), ("a&amp;b.md", "a&b.md"),
        ("spaced.md", "spaced.md")]


def test_collapsed_shortcut_and_image_references_take_their_definition_target() -> None:
    text = "See [Ref][], [ref], ![logo][pic] and [undefined][nope].\n\n[ref]: a.md#x\n[pic]:\n  img/logo.png 'Logo'\n"
    doc = parse_document("a.md", text)
    assert [(link.target, link.reference, link.image) for link in doc.links] == [
        ("a.md#x", "Ref", False), ("a.md#x", "ref", False), ("img/logo.png", "pic", True)]
    assert [text[s[0]:s[1]] for link in doc.links if (s := link.span)] == ["a.md#x", "a.md#x", "img/logo.png"]


def test_links_in_tables_quotes_and_headings_are_read() -> None:
    text = "# See [top](top.md)\n\n> quoted [q](q.md)\n\n| a | b |\n|---|---|\n| [cell](cell.md) | x |\n"
    doc = parse_document("a.md", text)
    assert [(link.target, link.line) for link in doc.links] == [("top.md", 1), ("q.md", 3), ("cell.md", 7)]
    assert all(text[s[0]:s[1]] == link.target for link in doc.links if (s := link.span))


# -- judging ------------------------------------------------------------------


def test_each_broken_link_is_reported_at_its_line_and_no_good_one_is() -> None:
    claim, findings = _judge(FIXTURE)
    assert all(f.kind is BROKEN_LINK and f.rule == "links" and f.source is None for f in findings)
    assert [(f.doc.path, f.doc.line, f.value) for f in findings if f.doc] == [(GUIDE, line, t) for line, t in BROKEN]
    assert len(claim.items) == len(BROKEN) + 20  # twenty good ones
    assert {(i.location.line, str(i.value)) for i in claim.items if i.location} >= set(BROKEN)


@pytest.mark.parametrize(("target", "says"), [
    ("missing.md", "`missing.md` does not exist (relative to docs/)"),
    ("othr.md", "`othr.md` does not exist (relative to docs/); closest: other.md"),
    ("../internal/alerts/alerts.go", "does not exist (relative to docs/); no folder internal/"),
    ("other.md#turn-limit", "`other.md#turn-limit`: other.md has no heading 'turn-limit'; closest: #turn-limits"),
    ("other.md#setup-2", "other.md has no heading 'setup-2'; closest: #setup-1"),
    ("#no-such-heading", "this document has no heading 'no-such-heading'"),
    ("../src/fsm.go#L400", "`../src/fsm.go#L400`: ../src/fsm.go has 12 lines"),
    ("../src/fsm.go#L10-L20", "../src/fsm.go has 12 lines"),
    ("gone file.md", "`gone file.md` does not exist (relative to docs/); defined as [bad-ref] at line 36"),
    ("images/chart.png", "image `images/chart.png` does not exist"),
    ("../../outside.md", "`../../outside.md` leaves the repository root"),
])
def test_the_message_says_what_is_missing_and_what_is_closest(target: str, says: str) -> None:
    _, findings = _judge(FIXTURE)
    message = next(f.message for f in findings if f.value == target)
    assert says in message


def test_a_missing_folder_names_the_closest_existing_one(project: Path) -> None:
    guide = project / GUIDE
    guide.write_text("# Guide\n\nSee [pkg](../src/pgk/doc.go) and [root](/src/pkg/nope.go).\n", encoding="utf-8")
    _, findings = _judge(project)
    assert [f.message for f in findings] == [
        "`../src/pgk/doc.go` does not exist (relative to docs/); no folder src/pgk/; closest: ../src/pkg/",
        "`/src/pkg/nope.go` does not exist (relative to the root)"]


def test_a_symlink_out_of_the_root_is_broken(project: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("# Secret\n", encoding="utf-8")
    (project / "docs" / "escape.md").symlink_to(tmp_path / "secret.md")
    (project / GUIDE).write_text("# Guide\n\nSee [out](escape.md#secret).\n", encoding="utf-8")
    _, findings = _judge(project)
    assert [(f.doc.line, f.value) for f in findings if f.doc] == [(3, "escape.md#secret")]
    assert "leaves the root" in findings[0].message


def test_a_renamed_heading_breaks_the_links_to_it(project: Path) -> None:
    other = project / "docs" / "other.md"
    other.write_text(other.read_text(encoding="utf-8").replace("## Turn limits", "## Turn caps"), encoding="utf-8")
    _, findings = _judge(project)
    assert [(f.doc.line, f.value) for f in findings if f.doc][:2] == [(5, "other.md#turn-limits"),
                                                                     (8, "other.md#Turn-Limits")]


def test_a_document_without_relative_links_has_an_empty_claim(project: Path) -> None:
    (project / GUIDE).write_text("# Guide\n\n[site](https://example.com) and `[x](y.md)`.\n", encoding="utf-8")
    claim, findings = _judge(project)
    assert (claim.items, findings) == ((), [])


def test_the_check_command_reports_broken_links_with_their_code(project: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    code = main(["check", "--no-cache"])
    out = capsys.readouterr().out
    assert code == 1
    assert "docs/guide.md:26: links: `other.md#turn-limit`: other.md has no heading 'turn-limit'" in out
    assert out.count("docs/guide.md:") == len(BROKEN)


# -- selftest -----------------------------------------------------------------


def test_remove_heading_renames_the_heading_a_same_document_link_names(project: Path) -> None:
    rule = _rule(project)
    claim, _ = _judge(project)
    assert heading_target(rule, claim.items) == GUIDE
    guide = project / GUIDE
    edit = remove_heading(guide.read_text(encoding="utf-8"), rule, claim.items)
    assert (edit.line, edit.expect) == (3, ("#turn-limits",))
    guide.write_text(edit.text, encoding="utf-8")
    _, findings = _judge(project)
    assert (6, "#turn-limits") in [(f.doc.line, f.value) for f in findings if f.doc]


def test_remove_heading_edits_the_other_document_when_only_it_has_named_headings(project: Path) -> None:
    guide = project / GUIDE
    guide.write_text("# Guide\n\nSee [setup](other.md#setup-1) and [file](other.md).\n", encoding="utf-8")
    rule = _rule(project)
    claim, _ = _judge(project)
    target = heading_target(rule, claim.items)
    assert target == "docs/other.md"
    other = project / target
    edit = remove_heading(other.read_text(encoding="utf-8"), rule, claim.items, target)
    assert edit.expect == ("other.md#setup-1",)
    other.write_text(edit.text, encoding="utf-8")
    _, findings = _judge(project)
    assert [f.value for f in findings] == ["other.md#setup-1"]


def test_remove_heading_renames_a_repeated_heading_until_its_anchor_is_gone(project: Path) -> None:
    guide = project / GUIDE
    guide.write_text("# Guide\n\n## Step\n\n## Step\n\nSee [first](#step).\n", encoding="utf-8")
    rule = _rule(project)
    claim, _ = _judge(project)
    edit = remove_heading(guide.read_text(encoding="utf-8"), rule, claim.items)
    assert parse_document(GUIDE, edit.text).anchor("step") is None


def test_remove_heading_does_not_apply_to_file_links_only(project: Path) -> None:
    (project / GUIDE).write_text("# Guide\n\nSee [other](other.md) and [lines](../src/fsm.go#L3).\n",
                                 encoding="utf-8")
    rule = _rule(project)
    claim, _ = _judge(project)
    with pytest.raises(NotApplicable, match="no link of docs/guide.md names a heading"):
        heading_target(rule, claim.items)
    with pytest.raises(NotApplicable):
        remove_heading((project / GUIDE).read_text(encoding="utf-8"), rule, claim.items)
