"""links as the site that publishes the documents resolves them: each generator's small site
under tests/fixtures/sites/ (its config file and a few pages), its routes, its anchors and
its cross-references; each broken link named by document, line and target."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from driftguard.config.forms.names import SITES, LinksClaim
from driftguard.config.loader import Rule, load_config
from driftguard.documents.formats import read_document
from driftguard.documents.inline import OffsetMap
from driftguard.documents.model import Anchor, Document, Heading, Link
from driftguard.judging.linked import LinkedDoc, linked_doc, linked_from_json, linked_to_json
from driftguard.judging.links import judge_links
from driftguard.judging.sites import NAMES, Tree, site_for
from driftguard.judging.workspace import Workspace
from driftguard.model import Claim, Direction, Finding
from tests.helpers import FIXTURES, check, write_tree

SITES_DIR = FIXTURES / "sites"


def judge(root: Path, doc: str, site: str = "") -> tuple[Claim, list[Finding]]:
    workspace = Workspace(root, 1 << 20)

    def linked(path: str) -> LinkedDoc:
        return workspace.cached("linked", path, lambda: linked_doc(read_document(path, workspace.read_text(path))))

    rule = Rule("links", (), doc, LinksClaim(site=site), Direction.DOC_TO_CODE, 1)
    return judge_links(rule, linked(doc), workspace, linked)


def broken(root: Path, doc: str, site: str = "") -> list[tuple[str, int, str]]:
    """(document, line, link) of each finding."""
    return [(f.doc.path, f.doc.line or 0, str(f.value)) for f in judge(root, doc, site)[1] if f.doc]


def detected(root: Path, doc: str, forced: str = "") -> str:
    return site_for(Tree(Workspace(root, 1 << 20)), doc, forced).describe()


# -- detection and the config form ----------------------------------------------------------


@pytest.mark.parametrize(("generator", "doc", "says"), [
    ("mkdocs", "docs/guide/build.md", "mkdocs: mkdocs.yml, docs_dir docs, use_directory_urls true"),
    ("vitepress", "docs/guide/build.md", "vitepress: .vitepress/config.ts, srcDir ., cleanUrls true, rewrites 1"),
    ("docusaurus", "docs/guide/build.md", "docusaurus: docusaurus.config.js, docs in docs at /"),
    ("hugo", "content/guide/build.md", "hugo: hugo.toml, contentDir content, autoHeadingIDType github"),
    ("sphinx", "docs/guide/build.md", "sphinx: conf.py, source_suffix .rst .md, autosectionlabel"),
])
def test_each_site_is_detected_from_its_config_and_says_how_it_was_read(generator: str, doc: str, says: str) -> None:
    assert detected(SITES_DIR / generator, doc).startswith(says)


def test_a_document_outside_the_sites_source_folder_is_rendered_by_github(tmp_path: Path) -> None:
    root = shutil.copytree(SITES_DIR / "mkdocs", tmp_path / "repo")
    (root / "README.md").write_text("# Demo\n\nSee [the build](docs/guide/build.md#setup-1).\n", encoding="utf-8")
    assert detected(root, "README.md") == "github"
    assert broken(root, "README.md") == []  # GitHub's slug of the second "Setup"


def test_a_forced_site_needs_no_config_and_reads_the_root_as_its_source(tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "a.md").write_text("# A\n\n## @ modifier\n\n[b](../../b/#modifier)\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\n## @ modifier\n", encoding="utf-8")
    assert detected(tmp_path, "guide/a.md") == "github"
    assert detected(tmp_path, "guide/a.md", "mkdocs").startswith("mkdocs: no mkdocs.yml")
    assert broken(tmp_path, "guide/a.md", "mkdocs") == []
    assert broken(tmp_path, "guide/a.md") == [("guide/a.md", 5, "../../b/#modifier")]  # leaves the root on GitHub


def test_the_site_names_are_the_config_contract() -> None:
    assert set(SITES) == set(NAMES)


@pytest.mark.parametrize(("written", "claim"), [("true", LinksClaim()), ("{site: hugo}", LinksClaim(site="hugo"))])
def test_links_reads_true_or_a_site_and_writes_back_what_it_read(tmp_path: Path, written: str,
                                                                 claim: LinksClaim) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "driftguard.yaml").write_text(f"version: 1\nrules:\n  - id: l\n    doc: a.md\n    links: {written}\n",
                                              encoding="utf-8")
    read = load_config(tmp_path / "driftguard.yaml").rules[0].claim
    assert read == claim
    assert LinksClaim.to_config(claim) == {"links": True if not claim.site else {"site": claim.site}}


def test_an_unknown_site_is_a_config_error_that_names_the_choices(tmp_path: Path) -> None:
    from driftguard.model import ConfigError

    (tmp_path / "driftguard.yaml").write_text("version: 1\nrules:\n  - id: l\n    doc: a.md\n    links: {site: mkdoc}\n",
                                              encoding="utf-8")
    with pytest.raises(ConfigError, match="expected one of github, mkdocs.*did you mean 'mkdocs'"):
        load_config(tmp_path / "driftguard.yaml")


# -- each generator's routes and anchors -----------------------------------------------------


def test_mkdocs_reads_directory_urls_site_rooted_links_and_its_toc_slugs() -> None:
    root, doc = SITES_DIR / "mkdocs", "docs/guide/build.md"
    assert broken(root, doc) == [(doc, 17, "#setup-1"), (doc, 17, "#-modifier"), (doc, 17, "../gone/"),
                                 (doc, 18, "../basics/#fresh"), (doc, 18, "../img/")]
    messages = {str(f.value): f.message for f in judge(root, doc)[1]}
    assert messages["#setup-1"].startswith("`#setup-1`: this document has no heading 'setup-1'; closest: #setup_1")
    assert messages["../gone/"].startswith("`../gone/` does not exist: no page builds /guide/gone/ (under docs/)")
    assert messages["../basics/#fresh"].endswith(
        "(resolved as mkdocs: mkdocs.yml, docs_dir docs, use_directory_urls true, toc permalink true)")


def test_mkdocs_without_directory_urls_joins_a_link_to_the_page_file(tmp_path: Path) -> None:
    root = shutil.copytree(SITES_DIR / "mkdocs", tmp_path / "repo")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "use_directory_urls: false\n", encoding="utf-8")
    (root / "docs/guide/build.md").write_text("# Build\n\n[one](basics/#staleness) [two](basics.html#staleness)\n",
                                             encoding="utf-8")
    assert broken(root, "docs/guide/build.md") == [("docs/guide/build.md", 3, "basics/#staleness")]


def test_mkdocs_takes_the_toc_slugify_its_yaml_tag_names(tmp_path: Path) -> None:
    root = shutil.copytree(SITES_DIR / "mkdocs", tmp_path / "repo")
    (root / "mkdocs.yml").write_text(
        "docs_dir: docs\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify\n"
        "        kwds:\n          case: lower\n", encoding="utf-8")
    (root / "docs/guide/build.md").write_text("# Build\n\n## Ünïcödé @ x\n\n[a](#ünïcödé--x) [b](#unicode-x)\n",
                                             encoding="utf-8")
    assert detected(root, "docs/guide/build.md").endswith("toc slugify pymdownx slugify(case=lower)")
    assert broken(root, "docs/guide/build.md") == [("docs/guide/build.md", 5, "#unicode-x")]


def test_vitepress_clean_urls_rewrites_public_files_and_slugified_fragments() -> None:
    root = SITES_DIR / "vitepress"
    assert broken(root, "docs/index.md") == [("docs/index.md", 6, "/guide/missing"), ("docs/index.md", 6, "/guide/build#nope"),
                                             ("docs/index.md", 6, "/packages/pkg-a/src/"),
                                             ("docs/index.md", 7, "/guide/build#buildtarget")]
    for doc in ("docs/guide/index.md", "docs/guide/build.md", "docs/packages/pkg-a/src/index.md"):
        assert broken(root, doc) == []
    message = next(f.message for f in judge(root, "docs/index.md")[1] if f.value == "/guide/build#buildtarget")
    assert message.startswith("`/guide/build#buildtarget`: `/guide/build` (docs/guide/build.md) has no heading "
                              "'buildtarget'; closest: #build-target")


def test_vitepress_reads_a_literal_config_through_its_wrappers_and_says_what_it_could_not(tmp_path: Path) -> None:
    (tmp_path / "site/.vitepress").mkdir(parents=True)
    (tmp_path / "site/.vitepress/config.mts").write_text(
        "import { defineConfig } from 'vitepress'\nconst dir = process.env.DOCS\n"
        "export default withMermaid(defineConfig({ srcDir: dir, cleanUrls: false, base: '/demo/' }))\n",
        encoding="utf-8")
    (tmp_path / "site/a.md").write_text("# A\n\n[b](/demo/b.html) [c](/c)\n", encoding="utf-8")
    (tmp_path / "site/b.md").write_text("# B\n", encoding="utf-8")
    assert detected(tmp_path, "site/a.md") == ("vitepress: .vitepress/config.mts, srcDir not literal: ., srcDir ., "
                                               "cleanUrls false")
    assert broken(tmp_path, "site/a.md") == [("site/a.md", 3, "/c")]


def test_docusaurus_routes_by_id_slug_route_base_path_static_and_site_links() -> None:
    root = SITES_DIR / "docusaurus"
    assert broken(root, "docs/01-intro.md") == [("docs/01-intro.md", 15, "/intro"), ("docs/01-intro.md", 15, "/guide/build"),
                                                ("docs/01-intro.md", 15, "/building#nope")]
    assert broken(root, "docs/guide/index.md") == [("docs/guide/index.md", 3, "build")]  # /guide + build is /build
    assert broken(root, "docs/guide/build.md") == []
    message = next(f.message for f in judge(root, "docs/01-intro.md")[1] if f.value == "/guide/build")
    assert "docs/guide/build.md is served at /building" in message


def test_hugo_resolves_ref_and_relref_shortcodes_slugs_bundles_and_static_files() -> None:
    root = SITES_DIR / "hugo"
    found = judge(root, "content/_index.md")
    assert [str(i.value) for i in found[0].items][:5] == ["guide/build", "guide/build.md#setup-1", "first", "/guide",
                                                          "/guide/making/"]  # in the document's order
    assert "in-code" not in [str(i.value) for i in found[0].items]
    assert broken(root, "content/_index.md") == [("content/_index.md", 11, "nope"),
                                                 ("content/_index.md", 11, "guide/build#missing"),
                                                 ("content/_index.md", 11, "/guide/build/")]
    messages = [f.message for f in found[1]]
    assert "content/guide/build.md is served at /guide/making/" in messages[2]
    assert messages[0].startswith("ref `nope`: no page nope in the site (under content/)")
    assert broken(root, "content/guide/build.md") == []


def test_sphinx_resolves_doc_and_ref_roles_labels_and_section_labels() -> None:
    root = SITES_DIR / "sphinx"
    assert broken(root, "docs/index.md") == [("docs/index.md", 7, "guide/nope"), ("docs/index.md", 7, "no-such-label"),
                                             ("docs/index.md", 7, "guide/build.md#nope")]
    messages = {str(f.value): f.message for f in judge(root, "docs/index.md")[1]}
    assert messages["guide/nope"].startswith("doc `guide/nope`: no document guide/nope in the site (under docs/)")
    assert messages["no-such-label"].startswith("ref `no-such-label`: no label no-such-label in the site")
    assert broken(root, "docs/guide/build.md") == []


def _rst(path: str, text: str, links: list[tuple[str, str]], anchors: list[Anchor]) -> Document:
    """A document as a reStructuredText reader builds it: ``:doc:``/``:ref:`` links and labels."""
    found = []
    for target, destination in links:
        at = text.index(target)
        found.append(Link(target, destination, text.count("\n", 0, at) + 1, (at, at + len(target))))
    return Document(path, text, (), (), (), (), (), (), (0,), links=tuple(found), anchors=tuple(anchors))


def test_sphinx_reads_cross_references_a_restructuredtext_reader_gives(tmp_path: Path) -> None:
    root = shutil.copytree(SITES_DIR / "sphinx", tmp_path / "repo")
    text = "Title\n=====\n\nSee :doc:`guide/build`, :ref:`guide-setup` and :doc:`missing`.\n"
    heading = Heading("Title", 1, (0, 5), OffsetMap([], 0), level=1)
    doc = _rst("docs/page.rst", text, [("guide/build", ":doc:guide/build"), ("guide-setup", ":ref:guide-setup"),
                                       ("missing", ":doc:missing")], [Anchor("title", 1, heading)])
    view = linked_doc(doc)
    assert linked_from_json(linked_to_json(view)) == view
    workspace = Workspace(root, 1 << 20)

    def linked(path: str) -> LinkedDoc:
        return view if path == doc.path else linked_doc(read_document(path, workspace.read_text(path)))

    rule = Rule("links", (), doc.path, LinksClaim(), Direction.DOC_TO_CODE, 1)
    claim, findings = judge_links(rule, view, workspace, linked)
    assert [str(i.value) for i in claim.items] == ["guide/build", "guide-setup", "missing"]
    assert [(f.doc.line, f.value) for f in findings if f.doc] == [(4, "missing")]


def test_cross_references_are_not_links_on_a_site_that_does_not_read_them(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nSee {doc}`b`, {{< ref \"c\" >}} and [d](d.md).\n", encoding="utf-8")
    claim, findings = judge(tmp_path, "a.md")
    assert [str(i.value) for i in claim.items] == ["d.md"]
    assert [f.value for f in findings] == ["d.md"]


# -- the cached view -------------------------------------------------------------------------


def test_the_linked_view_keeps_what_every_site_needs_and_survives_the_cache() -> None:
    text = ("# 🔒 Audit Log (Pro)\n\n(label)=\n## Custom {#my-id}\n\n<a name=\"kept\"></a>\n\n"
            "See {{< relref \"x#y\" >}}.\n\n```json\n## hidden\n")
    view = linked_doc(read_document("a.md", text))
    assert view.anchors == ("-audit-log-pro", "custom-my-id", "kept")
    assert view.headings == (("🔒 Audit Log (Pro)", 1), ("Custom {#my-id}", 4))
    assert (view.html, view.labels) == (("kept",), ("label",))
    assert [(link.target, link.destination, link.line) for link, _ in view.links] == [("x#y", ":relref:x#y", 8)]
    assert [(h.text, h.line, h.block, h.closed) for h in view.hidden] == [("hidden", 11, 10, False)]
    assert linked_from_json(linked_to_json(view)) == view
    with pytest.raises(ValueError):
        linked_from_json({**linked_to_json(view), "hidden": [["x", 1, 1, 1, "no", 0]]})


def test_a_warm_check_of_a_generated_site_parses_nothing(tmp_path: Path) -> None:
    """The site's anchors come from the cached view: a warm run imports no markdown parser."""
    import os
    import subprocess
    import sys

    root = shutil.copytree(SITES_DIR / "mkdocs", tmp_path / "repo")
    (root / "driftguard.yaml").write_text("version: 1\nrules:\n  - id: links\n    doc: 'docs/**/*.md'\n    links: true\n",
                                          encoding="utf-8")
    probe = ("import sys\nfrom driftguard.cli import main\ncode = main(['check', '--config', sys.argv[1]])\n"
             "print(sorted(m for m in ('markdown_it', 'tree_sitter', 'driftguard.documents.reader') if m in sys.modules))\n")
    env = {**os.environ, "DRIFTGUARD_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DRIFTGUARD_NO_CACHE", None)
    args = [sys.executable, "-c", probe, str(root / "driftguard.yaml")]
    cold = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    assert "markdown_it" in cold.stdout and "docs/guide/build.md:17: links: `#setup-1`" in cold.stdout
    warm = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    assert warm.stdout.strip().splitlines()[-1] == "[]", warm.stdout + warm.stderr
    assert cold.stdout.splitlines()[:-1] == warm.stdout.splitlines()[:-1]


def test_sphinx_resolves_the_roles_and_labels_of_a_restructuredtext_page() -> None:
    root, doc = SITES_DIR / "sphinx", "docs/guide/deploy.rst"
    assert broken(root, doc) == [(doc, 11, "gone"), (doc, 11, "no-such-label"), (doc, 11, "no-figure")]
    messages = [f.message for f in judge(root, doc)[1]]
    assert messages[0].startswith("doc `gone`: no document gone in the site (under docs/)")
    assert messages[1].startswith("ref `no-such-label`: no label no-such-label in the site")


def test_github_reads_a_restructuredtext_doc_role_as_the_file_and_leaves_labels_to_sphinx(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"docs/guide/deploy.rst": (SITES_DIR / "sphinx/docs/guide/deploy.rst").read_text(),
                                 "docs/guide/build.rst": "Build\n=====\n", "docs/index.rst": "Home\n====\n"})
    assert detected(root, "docs/guide/deploy.rst") == "github"
    claim, _ = judge(root, "docs/guide/deploy.rst")
    assert [str(i.value) for i in claim.items] == ["build", "/index", "gone"]  # no conf.py: labels are text
    assert broken(root, "docs/guide/deploy.rst") == [("docs/guide/deploy.rst", 11, "gone")]


@pytest.mark.parametrize("written", ["{site: mkdoc}", "\n      site: mkdoc", "{site: 3}", "{sit: mkdocs}", "mkdocs"])
def test_a_bad_site_is_a_config_error_at_its_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         written: str) -> None:
    root = write_tree(tmp_path, {"a.md": "# A\n\n[b](b.md)\n", "b.md": "# B\n",
                                 "driftguard.yaml": f"version: 1\nrules:\n  - id: l\n    doc: a.md\n    links: {written}\n"})
    code, out = check(capsys, root)
    line = 6 if written.startswith("\n") else 5
    assert code == 2 and f"driftguard.yaml:{line}: error: " in out and "rules[0].links" in out, out


@pytest.mark.parametrize(("page", "route"), [
    *((page, route) for page in ("guide/build.md", "guide/build/index.md", "guide/build/README.md")
      for route in ("/guide/build", "/guide/build/", "../build/")),
    ("guide/build.md", "/guide/build.html"),
])
def test_a_site_rooted_link_names_the_page_that_builds_the_route(tmp_path: Path, page: str, route: str) -> None:
    root = write_tree(tmp_path, {"mkdocs.yml": "site_name: x\n", f"docs/{page}": "# Build\n\n## Steps\n",
                                 "docs/guide/other.md": f"# Other\n\n[build]({route}#steps) [gone]({route}#gone)\n"})
    assert broken(root, "docs/guide/other.md") == [("docs/guide/other.md", 3, f"{route}#gone")]


def test_hugo_is_read_from_a_legacy_config_toml_beside_its_content_folder(tmp_path: Path) -> None:
    files = {"config.toml": "baseURL = '/docs/'\n", "content/a.md": "# A\n\n[b](/docs/b/#part) [c](/docs/c/)\n",
             "content/b.md": "# B\n\n## Part\n"}
    root = write_tree(tmp_path, files)
    assert detected(root, "content/a.md").startswith("hugo: config.toml, contentDir content")
    assert broken(root, "content/a.md") == [("content/a.md", 3, "/docs/c/")]
    (root / "content").rename(root / "pages")  # a config.toml with no content folder is another tool's
    assert detected(root, "pages/a.md") == "github"


def test_vitepress_reads_pages_from_its_src_dir(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"docs/.vitepress/config.js": "export default { srcDir: './src' }\n",
                                 "docs/src/guide/a.md": "# A\n\n[b](/guide/b#part) [c](/guide/c)\n",
                                 "docs/src/guide/b.md": "# B\n\n## Part\n"})
    assert detected(root, "docs/src/guide/a.md").startswith("vitepress: .vitepress/config.js, srcDir ./src")
    assert broken(root, "docs/src/guide/a.md") == [("docs/src/guide/a.md", 3, "/guide/c")]


SPHINX_REAL = {  # shaped as Flask's and Sphinx's own docs
    "doc/conf.py": "extensions = ['sphinx.ext.intersphinx']\n"
                   "intersphinx_mapping = {'werkzeug': ('https://werkzeug.palletsprojects.com/', None)}\n"
                   "html_additional_pages = {'contents': 'contents.html'}\n",
    "doc/index.rst": "Home\n====\n\nThe `table of contents <contents.html>`_, :ref:`genindex`, :ref:`py-modindex`,\n"
                     ":ref:`search` and `the index <genindex.html>`_.\n",
    "doc/tutorial/end.rst": "End\n===\n\nSee :doc:`werkzeug:test`, :ref:`werkzeug:routing`, `back <../contents.html>`_,\n"
                            ":doc:`other:page` and :download:`the template <../../src/gone.jinja>`.\n",
}


def test_sphinx_leaves_intersphinx_targets_and_knows_its_generated_pages(tmp_path: Path) -> None:
    root = write_tree(tmp_path, SPHINX_REAL)
    assert broken(root, "doc/index.rst") == []
    claim, findings = judge(root, "doc/tutorial/end.rst")
    assert [str(i.value) for i in claim.items] == ["../contents.html", "other:page", "../../src/gone.jinja"]
    messages = {str(f.value): f.message for f in findings}
    assert list(messages) == ["other:page", "../../src/gone.jinja"]  # other: is no intersphinx name
    assert messages["../../src/gone.jinja"].startswith(
        "`../../src/gone.jinja` does not exist (relative to doc/tutorial/)")  # above the site, inside the repository


def test_sphinx_with_intersphinx_names_not_literal_leaves_every_prefixed_target(tmp_path: Path) -> None:
    files = {**SPHINX_REAL, "doc/conf.py": "extensions = ['sphinx.ext.intersphinx']\nintersphinx_mapping = MAPPING\n"}
    root = write_tree(tmp_path, files)
    assert detected(root, "doc/index.rst").endswith("intersphinx not literal: any name:")
    assert [f.value for f in judge(root, "doc/tutorial/end.rst")[1]] == ["../contents.html", "../../src/gone.jinja"]
