"""A link never reads, stats or lists anything outside the root: ``../../etc/passwd``, an
absolute path, ``%2e%2e`` and a symlink out of the tree are reported as leaving the
repository without the target being touched (every file-system call is spied on). And a
heading a never-closed code fence swallowed is named with the fence's line."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from driftguard.config.forms.names import LinksClaim
from driftguard.config.loader import Rule
from driftguard.documents.formats import read_document
from driftguard.judging.linked import LinkedDoc, linked_doc
from driftguard.judging.links import judge_links
from driftguard.judging.sites import GENERATORS
from driftguard.judging.workspace import Workspace
from driftguard.model import Direction, Finding

SPIED = ("lstat", "stat", "open", "scandir", "listdir", "readlink")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the root holding a secret the links aim at."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text("# Secret\n", encoding="utf-8")
    return folder


@pytest.fixture
def root(tmp_path: Path, outside: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "escape.md").symlink_to(outside / "secret.md")
    (repo / "docs" / "vendor").symlink_to(outside)
    (repo / "docs" / "hop.md").symlink_to("escape.md")
    (repo / "docs" / "relative.md").symlink_to(Path("..") / ".." / "outside" / "secret.md")
    return repo


class Spy:
    """Records the path of every file-system call once ``install``ed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.calls: list[str] = []
        self.top = ""

    def install(self, root: Path) -> None:
        self.top = str(root.resolve())  # before the spies: resolving walks the root's parents
        for name in SPIED:
            self.monkeypatch.setattr(os, name, self._spy(getattr(os, name)))

    def _spy(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(path: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(path, (str, os.PathLike)):
                self.calls.append(os.path.abspath(os.fspath(path)))
            return real(path, *args, **kwargs)

        return call

    def outside(self) -> list[str]:
        return [c for c in self.calls if c != self.top and not c.startswith(self.top + os.sep)]


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    return Spy(monkeypatch)


def _judge(root: Path, doc: str, text: str, site: str = "", spy: Spy | None = None) -> tuple[list[Finding], list[str]]:
    (root / doc).write_text(text, encoding="utf-8")
    workspace = Workspace(root, 1 << 20)  # made before the spies: it resolves the root's own parents
    view = linked_doc(read_document(doc, workspace.read_text(doc)))

    def linked(path: str) -> LinkedDoc:
        return linked_doc(read_document(path, workspace.read_text(path)))

    if spy is not None:
        for generator in GENERATORS:  # imported when first met: the spy watches the tree, not the imports
            generator.module()
        spy.install(root)
    rule = Rule("links", (), doc, LinksClaim(site=site), Direction.DOC_TO_CODE, 1)
    findings = judge_links(rule, view, workspace, linked)[1]
    return findings, spy.outside() if spy is not None else []


CASES = [
    ("../../outside/secret.md", "leaves the repository root (relative to docs/)"),
    ("../../../../../../../../etc/passwd", "leaves the repository root"),
    ("%2e%2e/%2e%2e/outside/secret.md", "leaves the repository root"),
    ("..%2f..%2foutside%2fsecret.md#secret", "leaves the repository root"),
    ("escape.md#secret", "leaves the root"),
    ("hop.md", "leaves the root"),
    ("relative.md", "leaves the root"),
    ("vendor/secret.md", "leaves the root"),
    ("/etc/passwd", "read as a file-system path it leaves the repository, and is not read"),
]


@pytest.mark.parametrize(("target", "says"), CASES)
@pytest.mark.parametrize("site", ["", "mkdocs", "vitepress", "docusaurus", "hugo", "sphinx"])
def test_a_link_out_of_the_root_leaves_it_and_touches_nothing_outside(
        root: Path, spy: Spy, target: str, says: str, site: str) -> None:
    findings, outside = _judge(root, "docs/guide.md", f"# Guide\n\nSee [it]({target}).\n", site, spy)
    assert outside == []
    assert [(f.doc.path, f.doc.line, f.value) for f in findings if f.doc] == [("docs/guide.md", 3, target)]
    if not site or target != "/etc/passwd":  # on a site, a rooted path is a route: "no page builds /etc/passwd"
        assert says in findings[0].message


@pytest.mark.parametrize("written", ['{{< ref "../../../outside/secret" >}}', "{doc}`../../outside/secret`",
                                     "[x](@site/../../outside/secret.md)"])
@pytest.mark.parametrize("site", ["hugo", "sphinx", "docusaurus"])
def test_a_cross_reference_out_of_the_root_touches_nothing_outside(
        root: Path, spy: Spy, written: str, site: str) -> None:
    findings, outside = _judge(root, "docs/guide.md", f"# Guide\n\nSee {written}.\n", site, spy)
    assert outside == []
    assert len(findings) <= 1


def test_a_symlink_that_stays_inside_is_followed(root: Path) -> None:
    (root / "docs" / "real.md").write_text("# Real\n\n## Part\n", encoding="utf-8")
    (root / "docs" / "alias.md").symlink_to("real.md")
    (root / "docs" / "again").symlink_to(root / "docs")
    findings, _ = _judge(root, "docs/guide.md", "# G\n\n[a](alias.md#part) [b](again/real.md#part) [c](alias.md#no)\n")
    assert [f.value for f in findings] == ["alias.md#no"]


# -- a heading inside a code block -------------------------------------------------------------

API = """# API

## Tokens

Returns:
```json
{
  "token": "raw"
}

---

## 🧾 Audit Log (Pro)

Response:
```json
{"events": []}
```

## Last
"""


def test_a_heading_swallowed_by_an_unclosed_fence_names_the_fence(tmp_path: Path) -> None:
    (tmp_path / "API.md").write_text(API, encoding="utf-8")
    text = "# Audit\n\nSee [the API](API.md#-audit-log-pro) and [as the issue wrote it](API.md#audit-log-pro).\n"
    findings, _ = _judge(tmp_path, "AUDIT.md", text)
    assert [(f.doc.line, f.value) for f in findings if f.doc] == [(3, "API.md#-audit-log-pro"),
                                                                  (3, "API.md#audit-log-pro")]
    assert findings[0].message == (
        "`API.md#-audit-log-pro`: `API.md` has no heading '-audit-log-pro': its line 13 sits inside the code block "
        "opened at line 6, which is never closed (the fence at line 18 closes the block opened at line 16)")
    assert "`API.md` has no heading 'audit-log-pro': its line 13 sits inside the code block opened at line 6" in (
        findings[1].message)


def test_a_fence_open_to_the_end_of_the_document_says_so(tmp_path: Path) -> None:
    (tmp_path / "API.md").write_text("# API\n\n```sh\nmake\n\n## Setup\n", encoding="utf-8")
    findings, _ = _judge(tmp_path, "README.md", "# R\n\n[setup](API.md#setup)\n", "vitepress")
    assert findings[0].message.startswith(
        "`API.md#setup`: `API.md` has no heading 'setup': its line 6 sits inside the code block opened at line 3, "
        "which is never closed (resolved as vitepress")


def test_a_closed_block_with_a_heading_shaped_comment_is_not_blamed(tmp_path: Path) -> None:
    (tmp_path / "API.md").write_text("# API\n\n```sh\n# Setup\nmake\n```\n", encoding="utf-8")
    findings, _ = _judge(tmp_path, "README.md", "# R\n\n[setup](API.md#setup)\n")
    assert findings[0].message == "`API.md#setup`: `API.md` has no heading 'setup'"
