"""Judge a ``links`` rule: every relative link and image of a document points at something.

For each link of ``Document.links`` (external ones are never read there, nor
fetched here): the path, percent-decoded and without its ``?query``, is read
relative to the document's folder (a leading ``/`` starts at the root; an empty
path is the document itself) and must be a file or folder under the root
(``Workspace.resolve`` refuses one that leaves it, through ``..`` or a symlink).
Then the ``#fragment``, when there is one:

- on a markdown file, a heading anchor (GitHub's slug, ``-1`` for a repeat) or
  an HTML ``<a name>``/``id`` anchor of it, compared ignoring case;
- on any file, ``#L10``, ``#L10-L20`` (columns ``C5`` allowed) must lie within
  its lines;
- anything else (a folder, a fragment on code that is no line) is not checked.

Each broken link is one ``broken-link`` finding at the link's line, saying what
is missing and, where a neighbour is close, what is closest. A target that
exists but cannot be read to check its fragment (too large, not UTF-8) is one
finding too: the link cannot be shown good.
"""

from __future__ import annotations

import difflib
import os
import posixpath
import re
from collections.abc import Callable
from itertools import islice
from pathlib import Path

from driftguard.config.loader import Rule
from driftguard.documents.model import Link
from driftguard.documents.targets import resolve_path, split_target
from driftguard.judging.linked import MARKDOWN, LinkedDoc
from driftguard.judging.workspace import Workspace
from driftguard.model import BROKEN_LINK, Claim, DriftguardError, Finding, Item, Location, Value
from driftguard.text import EOL

__all__ = ["MARKDOWN", "judge_links"]
_LINES = re.compile(r"L(\d+)(?:C\d+)?(?:-L(\d+)(?:C\d+)?)?")
_MAX_ENTRIES = 5000  # entries of a folder compared for a "closest" hint


Linked = Callable[[str], LinkedDoc]
"""Root-relative path of a markdown file -> its links and anchors (raises DriftguardError)."""


def judge_links(rule: Rule, doc: LinkedDoc, workspace: Workspace, linked: Linked) -> tuple[Claim, list[Finding]]:
    """The links of ``doc`` as a claim (one item per link, its target as written) and
    a finding for each one that points at nothing; ``linked`` reads a target's anchors."""
    items: list[Item] = []
    findings: list[Finding] = []
    for link, defined in doc.links:
        where = Location(doc.path, link.line)
        items.append(Item(Value.string(link.target), where, link.span))
        problem = _problem(link, doc, workspace, linked)
        if problem:
            shown = ("image " if link.image else "") + f"`{link.target}`"
            if defined:
                problem += f"; defined as [{link.reference}] at line {defined}"
            findings.append(Finding(BROKEN_LINK, rule.id, shown + problem, value=link.target, doc=where))
    return Claim(tuple(items), Location(doc.path)), findings


def _problem(link: Link, doc: LinkedDoc, workspace: Workspace, linked: Linked) -> str:
    """What is wrong with ``link``, worded to follow its target; "" when nothing is."""
    path, fragment = split_target(link.destination)
    folder = posixpath.dirname(doc.path)
    base = "the root" if path.startswith("/") or not folder else f"{folder}/"
    rel = resolve_path(doc.path, path)
    if rel is None:
        return f" leaves the repository root (relative to {base})"
    try:
        real = workspace.resolve(rel)
    except DriftguardError as exc:
        return f": {exc.message}"
    if not os.path.exists(real):  # never raises, unlike Path.exists on an unreadable folder
        missing, close = _closest_path(rel, workspace)
        if close:  # written as the link would write it
            slash = "/" if close.endswith("/") else ""
            close = "/" + close if path.startswith("/") else posixpath.relpath(close, folder or ".") + slash
            missing += f"; closest: {close}"
        return f" does not exist (relative to {base}){missing}"
    if os.path.isdir(real) or not fragment:
        return ""
    return _fragment_problem(path or "this document", rel, fragment, doc, workspace, linked)


def _fragment_problem(shown: str, rel: str, fragment: str, doc: LinkedDoc, workspace: Workspace,
                      linked: Linked) -> str:
    lines = _LINES.fullmatch(fragment)
    markdown = rel.lower().endswith(MARKDOWN)
    if not markdown and lines is None:
        return ""  # a fragment on code that is no line: nothing to check it against
    try:
        if markdown:
            target = doc if rel == doc.path else linked(rel)
            if target.anchor(fragment) is not None:
                return ""
            if lines is None:
                return f": {shown} has no heading '{fragment}'" + _closest_anchor(fragment, target)
        assert lines is not None
        count = _line_count(workspace.read_text(rel))
    except DriftguardError as exc:
        return f": cannot read {shown} to check '#{fragment}': {exc.message}"
    first, last = int(lines.group(1)), int(lines.group(2) or lines.group(1))
    if 1 <= first <= count and 1 <= last <= count:
        return ""
    return f": {shown} has {count} line{'' if count == 1 else 's'}"


def _line_count(text: str) -> int:
    if not text:
        return 0
    return len(EOL.findall(text)) + (0 if text.endswith(("\n", "\r")) else 1)


def _closest_anchor(fragment: str, target: LinkedDoc) -> str:
    close = difflib.get_close_matches(fragment.lower(), list(target.anchors), n=1, cutoff=0.6)
    return f"; closest: #{close[0]}" if close else ""


def _closest_path(rel: str, workspace: Workspace) -> tuple[str, str]:
    """Which folder of ``rel`` (root-relative) is missing ("; no folder internal/alerts/"),
    and the closest entry of the deepest folder that exists (root-relative, "" for none)."""
    parts = rel.split("/")
    folder = ""
    for i, part in enumerate(parts):
        here = f"{folder}/{part}" if folder else part
        try:
            real = workspace.resolve(here)
        except DriftguardError:
            return "", ""
        if os.path.exists(real):
            folder = here
            continue
        is_last = i == len(parts) - 1
        missing = "" if is_last else f"; no folder {here}/"
        close = _closest_entry(part, workspace.resolve(folder) if folder else workspace.root)
        if close is None:
            return missing, ""
        shown = f"{folder}/{close.name}" if folder else close.name
        return missing, shown + ("/" if os.path.isdir(close) else "")
    return "", ""


def _closest_entry(name: str, folder: Path) -> Path | None:
    try:
        entries = {p.name.lower(): p for p in islice(folder.iterdir(), _MAX_ENTRIES)}
    except OSError:
        return None
    close = difflib.get_close_matches(name.lower(), list(entries), n=1, cutoff=0.65)  # 0.6 says guide.md for gone.md
    return entries[close[0]] if close else None
