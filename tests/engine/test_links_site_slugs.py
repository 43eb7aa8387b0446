"""Each site generator's heading anchors, checked against the examples its own tests and
docs give: GitHub (html-pipeline, github-slugger), mkdocs (Python-Markdown's toc and
pymdownx.slugs), VitePress (@mdit-vue/shared), Hugo (goldmark autoid), Sphinx (docutils
make_id); and each one's numbering of a repeated heading."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftguard.documents.reader import parse_document
from driftguard.documents.slugs import numbered
from driftguard.judging.linked import linked_doc
from driftguard.judging.sites import GENERATORS, Tree
from driftguard.judging.sites.hugo import anchorize
from driftguard.judging.sites.mkdocs import pymdownx_slug, toc_slug, unique
from driftguard.judging.sites.sphinx import make_id, myst_slug
from driftguard.judging.sites.vitepress import slugify
from driftguard.judging.sites.vitepress import unique as anchor_unique
from driftguard.judging.workspace import Workspace


def test_github_keeps_the_hyphen_a_leading_emoji_leaves() -> None:
    doc = parse_document("API.md", "## 🔒 Audit Log (Pro)\n\n## Audit Log (Pro)\n")
    assert [a.name for a in doc.anchors] == ["-audit-log-pro", "audit-log-pro"]


def test_github_slugger_numbers_repeats_as_its_readme_shows() -> None:
    seen: dict[str, int] = {}
    assert [numbered(t, seen) for t in ("foo", "foo", "bar", "foo")] == ["foo", "foo-1", "bar", "foo-2"]


@pytest.mark.parametrize(("heading", "expected"), [
    ("@ modifier", "modifier"),  # the example: '@' dropped, then stripped
    ("Header 1", "header-1"),
    ("žluťoučký kůň", "zlutoucky-kun"),  # NFKD, then ASCII only
    ("Unicode ヘッダー", "unicode"),
    ("  A -- B  ", "a-b"),  # runs of spaces and hyphens are one separator
    ("C++ & C#: 100% (v2.0)", "c-c-100-v20"),
    ("build.target", "buildtarget"),
])
def test_mkdocs_toc_slugify(heading: str, expected: str) -> None:
    assert toc_slug(heading) == expected


def test_mkdocs_toc_slugify_unicode_and_pymdownx() -> None:
    assert toc_slug("Unicode ヘッダー", unicode=True) == "unicode-ヘッダー"
    # pymdownx's own test: slugify(case="lower") on "# Testing unicode-slugs_headers ±♠Ωℑ"
    assert pymdownx_slug("Testing unicode-slugs_headers ±♠Ωℑ", "-", "lower") == "testing-unicode-slugs_headers-ωℑ"
    assert pymdownx_slug("Émile Zola", "-", "fold", percent_encode=True) == "%C3%A9mile-zola"
    assert pymdownx_slug("@ modifier", "-", "lower") == "-modifier"  # no strip after the '@' goes


def test_mkdocs_numbers_a_repeat_with_an_underscore() -> None:
    seen: dict[str, int] = {}
    assert [unique(s, seen) for s in ("a", "a", "a_1", "a", "")] == ["a", "a_1", "a_2", "a_3", "_1"]


@pytest.mark.parametrize(("heading", "expected"), [  # @mdit-vue/shared's slugify.spec.ts, and VitePress options
    ("build.target", "build-target"),
    ("server.fs.allow", "server-fs-allow"),
    ("Привет", "привет"),
    ("Лед üäöß", "лед-uaoß"),
    ("hangul 가", "hangul-\u1100\u1161"),  # NFKD leaves the syllable as its two jamo, as the spec's expectation is
    ("ǆℍΩ", "dzhω"),
    ("ｶi⁹", "カi9"),
    ("¼", "_1⁄4"),
    ("hambúrguer", "hamburguer"),
    ("hŒllœ", "hœllœ"),
    ("Fußball", "fußball"),
    ("ABCDEFGHIJKLMNOPQRSTUVWXYZé", "abcdefghijklmnopqrstuvwxyze"),
    ("“quoted” ‘x’", "quoted-x"),
    ("🔒 Audit Log (Pro)", "🔒-audit-log-pro"),
])
def test_vitepress_slugify(heading: str, expected: str) -> None:
    assert slugify(heading) == expected


def test_vitepress_numbers_a_repeat_as_markdown_it_anchor() -> None:
    seen: dict[str, int] = {}
    assert [anchor_unique(s, seen) for s in ("options", "options", "options-1", "options")] == [
        "options", "options-1", "options-1-1", "options-2"]


@pytest.mark.parametrize(("heading", "expected"), [  # goldmark autoid_test.go, "generated manually on github.com"
    ("God is good: 神真美好", "god-is-good-神真美好"),
    ("Number 32", "number-32"),
    ("Question?", "question"),
    ("1+2=3", "123"),
    ('Special !"#$%&(parens)=?´* chars', "special-parens-chars"),
    ("Resumé", "resumé"),
    ("One-Hyphen", "one-hyphen"),
    ("Multiple--Hyphens", "multiple--hyphens"),
    ("Trailing hyphen-", "trailing-hyphen-"),
    ("Many   spaces  here", "many---spaces--here"),
    ("Forward/slash", "forwardslash"),
    ("Backward\\slash", "backwardslash"),
    ("Under_score", "under_score"),
    ("Nonbreaking\u00a0Space", "nonbreakingspace"),
])
def test_hugo_github_anchorize(heading: str, expected: str) -> None:
    assert anchorize(heading) == expected


def test_hugo_github_ascii_and_blackfriday() -> None:
    assert anchorize("god is神真美好 good", "github-ascii") == "god-is-good"
    assert anchorize("Resumé", "github-ascii") == "resume"
    assert anchorize("Let's try this, shall we?", "blackfriday") == "let-s-try-this-shall-we"


@pytest.mark.parametrize(("heading", "expected"), [  # each checked against docutils' nodes.make_id
    ("A Section Title", "a-section-title"),
    ("3D graphics", "d-graphics"),
    ("Ærøskøbing Đuro", "aeroskobing-duro"),
    ("straße œuvre", "strasze-oeuvre"),
    ("C++ & C#: 100% (v2.0)", "c-c-100-v2-0"),
    ("🔒 Audit Log (Pro)", "audit-log-pro"),
    ("build.target", "build-target"),
    ("_private", "private"),
    ("日本語", ""),
])
def test_sphinx_make_id(heading: str, expected: str) -> None:
    assert make_id(heading) == expected


def test_myst_heading_anchor_slug() -> None:
    assert myst_slug("Build the Target") == "build-the-target"
    assert myst_slug("build.target & more") == "buildtarget--more"


@pytest.mark.parametrize(("site", "anchors"), [
    ("github", ["setup", "setup-1", "-modifier-x", "my-id-x-my-id"]),  # {#...} is text to GitHub
    ("mkdocs", ["setup", "setup_1", "modifier-x", "my-id-x-my-id"]),  # and to mkdocs without attr_list
    ("vitepress", ["setup", "setup-1", "modifier-x", "my-id"]),
    ("docusaurus", ["setup", "setup-1", "-modifier-x", "my-id"]),
    ("hugo", ["setup", "setup-1", "-modifier-x", "my-id"]),
    ("sphinx", ["setup", "id1", "modifier-x", "my-id-x-my-id"]),
])
def test_each_site_makes_its_own_anchors_from_the_same_headings(site: str, anchors: list[str]) -> None:
    view = linked_doc(parse_document("a.md", "## Setup\n\n## Setup\n\n## @ modifier X\n\n## My id X {#my-id}\n"))
    made = next(g for g in GENERATORS if g.name == site).default(Tree(Workspace(Path("."), 1 << 20)))
    assert list(made.anchors(view)) == anchors
