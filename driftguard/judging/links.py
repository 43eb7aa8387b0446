"""Judge a ``links`` rule: every relative link and image of a document points at something,
as the site that publishes the document resolves it.

The site (``judging.sites``: GitHub, mkdocs, VitePress, Docusaurus, Hugo, Sphinx) is
detected from the tree, or forced by ``links: {site: NAME}``. For each link of the
document (external ones are never read there, nor fetched here), the path,
percent-decoded and without its ``?query``, is located by the site
(``Site.locate``): on GitHub a file or folder relative to the document (a leading
``/`` from the root); on a generated site a file next to the document, else the
page that builds the URL the link names. A site's cross-references
(``:doc:``, ``:ref:``, Hugo's ``ref``/``relref``) are resolved by that site and left
out on any other. Nothing outside the root is ever read, stat-ed or listed
(``sites.tree``): a path that leaves it, through ``..``, ``%2e%2e`` or a symlink,
is reported as leaving. Then the ``#fragment``, when there is one:

- on a page the site reads (markdown; reStructuredText on a Sphinx site), one of
  its anchors as the site makes them (``Site.anchors``), after the site's own
  treatment of a link's fragment (VitePress slugifies it). When a heading-shaped
  line of the target sits in a code block whose fence was never closed, the
  finding says so;
- on any file, ``#L10``, ``#L10-L20`` (columns ``C5`` allowed) must lie within
  its lines;
- anything else (a folder, a fragment on code that is no line) is not checked.

Each broken link is one ``broken-link`` finding at the link's line, saying what is
missing and, where a neighbour is close, what is closest; on a generated site it
ends with how the site was read ("(resolved as mkdocs: mkdocs.yml, docs_dir docs,
use_directory_urls true)"). A target that exists but cannot be read to check its
fragment (too large, not UTF-8) is one finding too: the link cannot be shown good.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from itertools import islice

from driftguard.config.loader import Rule
from driftguard.documents.targets import Link, cross_reference, sphinx_document, split_target
from driftguard.judging.linked import MARKDOWN, LinkedDoc
from driftguard.judging.sites import Linked, Located, Site, Tree, site_for
from driftguard.judging.sites.tree import FILE, FOLDER, MISSING
from driftguard.judging.workspace import Workspace
from driftguard.model import BROKEN_LINK, Claim, DriftguardError, Finding, Item, Location, Value
from driftguard.text import EOL

__all__ = ["MARKDOWN", "Linked", "judge_links"]
_LINES = re.compile(r"L(\d+)(?:C\d+)?(?:-L(\d+)(?:C\d+)?)?")
_MAX_ENTRIES = 5000  # entries of a folder compared for a "closest" hint
_MARKUP = re.compile(r"[`*]|\[([^\]]*)\]\([^)]*\)")


def judge_links(rule: Rule, doc: LinkedDoc, workspace: Workspace, linked: Linked) -> tuple[Claim, list[Finding]]:
    """The links of ``doc`` as a claim (one item per link, its target as written) and
    a finding for each one that points at nothing; ``linked`` reads a target's anchors."""
    if not doc.links:
        return Claim((), Location(doc.path)), []  # nothing to resolve: no site is detected for it
    tree = Tree(workspace)
    site = site_for(tree, doc.path, getattr(rule.claim, "site", ""))  # LinksClaim.site: the form this judges
    items: list[Item] = []
    findings: list[Finding] = []
    for written, defined in doc.links:
        link = _as_site_reads(written, site, doc.path)
        if link is None:
            continue  # another generator's cross-reference: this site shows it as text
        role = cross_reference(link.destination)
        where = Location(doc.path, link.line)
        items.append(Item(Value.string(link.target), where, link.span))
        problem = _problem(link, doc, site, tree, linked)
        if problem:
            shown = ("image " if link.image else "") + (f"{role[0]} " if role else "") + f"`{link.target}`"
            if defined:
                problem += f"; defined as [{link.reference}] at line {defined}"
            if site.name != "github":
                problem += f" (resolved as {site.describe()})"
            findings.append(Finding(BROKEN_LINK, rule.id, shown + problem, value=link.target, doc=where))
    return Claim(tuple(items), Location(doc.path)), findings


def _as_site_reads(link: Link, site: Site, page: str) -> Link | None:
    """``link`` as ``site`` reads it on ``page``: None for a cross-reference to another
    project, or of a role the site does not resolve, but for a reStructuredText page's
    ``:doc:``, read as the file it names (GitHub shows the page, and the file is what its
    reader follows)."""
    role = cross_reference(link.destination)
    if role is not None and site.elsewhere(*role):
        return None  # another project's page (intersphinx): not this repository's to check
    if role is None or role[0] in site.roles:
        return link
    suffix = posixpath.splitext(page)[1]
    if role[0] != "doc" or suffix.lower() not in (".rst", ".rest"):
        return None
    destination = sphinx_document(page, link.target, suffix)
    return None if destination is None else replace(link, destination=destination)


def _problem(link: Link, doc: LinkedDoc, site: Site, tree: Tree, linked: Linked) -> str:
    """What is wrong with ``link``, worded to follow its target; "" when nothing is."""
    role = cross_reference(link.destination)
    if role is not None:
        located, fragment = site.cross_reference(role[0], role[1], doc.path, linked)
        path = located.route
    else:
        path, fragment = split_target(link.destination)
        located = site.locate(path, doc.path)
    if located.leaves:
        return located.leaves
    if located.rel is None:
        return _missing(link, path, located, doc.path, site, tree)
    if tree.kind(located.rel) == FOLDER or not fragment:
        return ""
    shown = path if role is not None else f"`{path}`" if path else "this document"  # "`API.md` has no heading"
    if located.route and located.rel != doc.path:
        shown += f" ({located.rel})"
    return _fragment_problem(shown, located.rel, fragment, doc, site, tree, linked)


def _missing(link: Link, path: str, located: Located, doc: str, site: Site, tree: Tree) -> str:
    folder = posixpath.dirname(doc)
    if cross_reference(link.destination) is not None:
        return f": no {located.route} in the site (under {site.shown_source()})"
    missing, close = _closest_path(located.near, tree) if located.near else ("", "")
    if close:  # written as the link would write it
        slash = "/" if close.endswith("/") else ""
        close = "/" + close if path.startswith("/") and site.name == "github" else posixpath.relpath(
            close, folder or ".") + slash
        missing += f"; closest: {close}"
    if located.route:
        if located.near and tree.is_file(located.near) and site.publishes(located.near):
            missing += f"; {located.near} is served at {site.url_of(located.near)}"  # a slug or rewrite moved it
        return f" does not exist: no page builds {located.route} (under {site.shown_source()}){missing}"
    base = "the root" if path.startswith("/") or not folder else f"{folder}/"
    if path.startswith("/") and tree.kind(path.strip("/").split("/")[0]) == MISSING:
        missing += "; read as a file-system path it leaves the repository, and is not read"
    return f" does not exist (relative to {base}){missing}"


def _fragment_problem(shown: str, rel: str, fragment: str, doc: LinkedDoc, site: Site, tree: Tree,
                      linked: Linked) -> str:
    lines = _LINES.fullmatch(fragment)
    page = site.reads(rel)
    if not page and lines is None:
        return ""  # a fragment on code that is no line: nothing to check it against
    try:
        if page:
            target = doc if rel == doc.path else linked(rel)
            anchors = tree.workspace.cached(f"anchors:{site.name}:{site.home}", rel, lambda: site.anchors(target))
            if site.has(anchors, site.fragment(fragment)):
                return ""
            if lines is None:
                return f": {shown} has no heading '{fragment}'" + _why(fragment, target, site, anchors)
        assert lines is not None
        real = tree.real(rel)
        count = tree.workspace.cached("line-count", real, lambda: _line_count(tree.workspace.read_text(real)))
    except DriftguardError as exc:
        return f": cannot read {shown} to check '#{fragment}': {exc.message}"
    first, last = int(lines.group(1)), int(lines.group(2) or lines.group(1))
    if 1 <= first <= count and 1 <= last <= count:
        return ""
    return f": {shown} has {count} line{'' if count == 1 else 's'}"


def _why(fragment: str, target: LinkedDoc, site: Site, anchors: tuple[str, ...]) -> str:
    """Why the heading is missing: a code fence swallowed it, or what is closest."""
    wanted = _loose(site.fragment(fragment))
    for hidden in target.hidden:
        text = _MARKUP.sub(lambda m: m.group(1) or "", hidden.text)
        if _loose(site.slug(text, {})) in (wanted, _loose(re.sub(r"[-_]\d+$", "", wanted))):
            said = (f": its line {hidden.line} sits inside the code block opened at line {hidden.block}, "
                    "which is never closed")
            if hidden.closed and hidden.reopened:
                said += f" (the fence at line {hidden.end} closes the block opened at line {hidden.reopened})"
            return said
    import difflib  # only for a broken link

    close = difflib.get_close_matches(fragment.lower(), list(anchors), n=1, cutoff=0.6)
    return f"; closest: #{close[0]}" if close else ""


def _loose(anchor: str) -> str:
    return anchor.strip("-_").casefold()


def _line_count(text: str) -> int:
    if not text:
        return 0
    return len(EOL.findall(text)) + (0 if text.endswith(("\n", "\r")) else 1)


def _closest_path(rel: str, tree: Tree) -> tuple[str, str]:
    """Which folder of ``rel`` (root-relative) is missing ("; no folder internal/alerts/"),
    and the closest entry of the deepest folder that exists (root-relative, "" for none)."""
    parts = rel.split("/")
    folder = ""
    for i, part in enumerate(parts):
        here = f"{folder}/{part}" if folder else part
        kind = tree.kind(here)
        if kind in (FILE, FOLDER):
            folder = here
            continue
        if kind != MISSING:
            return "", ""
        missing = "" if i == len(parts) - 1 else f"; no folder {here}/"
        close = _closest_entry(part, folder, tree)
        if close is None:
            return missing, ""
        shown = f"{folder}/{close}" if folder else close
        return missing, shown + ("/" if tree.kind(shown) == FOLDER else "")
    return "", ""


def _closest_entry(name: str, folder: str, tree: Tree) -> str | None:
    import difflib

    entries = {n.lower(): n for n in islice(tree.entries(folder), _MAX_ENTRIES)}
    close = difflib.get_close_matches(name.lower(), list(entries), n=1, cutoff=0.65)  # 0.6 says guide.md for gone.md
    return entries[close[0]] if close else None
