"""Whether a name a document states, which resolves nowhere, names this repository's code.

On real documents most code spans that resolve nowhere are not the project's code: a
Linux capability, another product's setting, a file the reader creates, a cloud SDK's
environment variable, another repository's path, an option the documents themselves
document. A ``references`` rule reports an unresolved span only with evidence:

- its **shape**: a call (``useWorkloadResources()``); a dotted name whose first part
  is a package, module or type the code declares (``httpx.Mounts``); a path with a
  source extension under a folder the repository has (``internal/ai/gone.go``);
- its **history**: the code held the name when the document's line was last changed
  (``driftguard.judging.history``).

Names the documents define resolve outright: the first code span (or text) of a
heading, a table's first cell, a list item's first code span, and file names shown
in their code blocks.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from driftguard import languages
from driftguard.documents.model import Document
from driftguard.documents.references import EXTENSIONS, Shape
from driftguard.judging.repository import Repository
from driftguard.judging.symbol_index import typed_as

_FILE_NAME = re.compile(r"[\w.-]+\.[A-Za-z0-9]{1,8}")


def shape_evidence(shape: Shape, declared: frozenset[str], repository: Repository) -> str | None:
    """Why ``shape`` names this repository's code by its shape alone, or None."""
    if shape.kind == "call":
        head, dot, _ = shape.name.partition(".")
        if not dot:
            return "it is written as a call"
        if head in declared or instance_of(head, declared):
            return f"it is written as a call on `{head}`, of a type or package of the code"
        return None
    if shape.kind == "dotted":
        head = shape.name.split(".", 1)[0]
        if head in declared:
            return f"`{head}` is a package, module or type of the code"
        return None
    if shape.kind == "path":
        path = PurePosixPath(shape.name.lstrip("./"))
        if path.suffix.lower() in set(languages.extensions()) and len(path.parts) > 1:
            folder = path.parts[0]
            if folder in repository.top:
                return f"`{folder}/` is a folder of the repository and `{path.suffix}` a source extension"
        return None
    return None


def instance_of(head: str, declared: frozenset[str]) -> bool:
    """Whether ``head`` reads as an instance of a declared type: ``response`` of ``Response``,
    ``environment`` of ``DevEnvironment``."""
    return head[:1].islower() and any(t[:1].isupper() and typed_as(t, head) for t in declared)


def declared_heads(names: Iterable[str], repository: Repository) -> frozenset[str]:
    """What a dotted name's first part may be to count as the code's own: a type the
    symbols define members of (``Client`` of ``Client.send``), and the packages and
    modules of the repository's files as each language names them (a Go file's folder,
    a Python file's folders and stem; a TypeScript file's path names nothing)."""
    heads = {head for n in names for head, dot, _ in [n.partition(".")] if dot}
    for file in repository.files:
        lang = languages.language_of(file)
        if lang is None or not lang.modules:
            continue
        *folders, name = file.split("/")
        if lang.modules == "path":
            heads.add(posixpath.splitext(name)[0])
            heads.update(folders)
        elif folders:
            heads.add(folders[-1])
    return frozenset(h for h in heads if h.isidentifier())


def defined_by(docs: Iterable[Document]) -> frozenset[str]:
    """The names documents define: what their headings, table rows and list items
    document, and the file names their code blocks show."""
    out: set[str] = set()
    for doc in docs:
        codes = sorted(doc.code_spans, key=lambda c: c.span)
        for part in (*doc.headings, *doc.list_items, *(r.cells[0] for t in doc.tables for r in t.rows if r.cells)):
            first = next((c for c in codes if part.span[0] <= c.span[0] < part.span[1]), None)
            out.add(first.text if first is not None else part.text.strip())
        for block in doc.blocks:
            for m in _FILE_NAME.finditer(f"{block.info}\n{block.body}"):
                if m.group().rpartition(".")[2].lower() in EXTENSIONS:
                    out.add(m.group())
    return frozenset(n for n in out if n)
