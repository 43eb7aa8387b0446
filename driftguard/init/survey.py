"""What a tree holds, as ``init`` needs to know it: source files by language, the test
files left aside, and the documents (the documentation folder and the README)."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from driftguard import languages
from driftguard.discover.parallel import EXCLUDED_DIRS

DOCUMENT_SUFFIXES = (".md", ".markdown", ".rst", ".mdx")
DOC_FOLDERS = ("docs", "doc", "documentation", "website/docs", "content")
RECORDS = ("changelog", "history", "release", "news")
"""Documents that record the past: never guarded by a first config."""


@dataclass
class Survey:
    root: Path
    sources: dict[str, list[str]] = field(default_factory=dict)  # language name -> files, tests left out
    documents: list[str] = field(default_factory=list)
    doc_folder: str | None = None

    def source_globs(self) -> list[str]:
        """A glob per top-level folder and extension holding sources, and the root's own files."""
        out: dict[str, None] = {}
        for files in self.sources.values():
            for file in files:
                path = PurePosixPath(file)
                suffix = path.suffix.lower()
                out[f"{path.parts[0]}/**/*{suffix}" if len(path.parts) > 1 else f"*{suffix}"] = None
        return list(out)

    def document_globs(self) -> list[str]:
        globs: dict[str, None] = {}
        for doc in self.documents:
            path = PurePosixPath(doc)
            if self.doc_folder and doc.startswith(self.doc_folder + "/"):
                globs[f"{self.doc_folder}/**/*{path.suffix.lower()}"] = None
            else:
                globs[doc] = None
        return list(globs)


def survey(root: Path) -> Survey:
    found = Survey(root)
    counts: Counter[str] = Counter()
    for folder, dirs, names in os.walk(root):
        rel = Path(folder).relative_to(root).as_posix()
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in EXCLUDED_DIRS
                         and not d.endswith(".egg-info"))
        for name in sorted(names):
            path = name if rel == "." else f"{rel}/{name}"
            if name.lower().endswith(DOCUMENT_SUFFIXES):
                if not name.lower().startswith(RECORDS):
                    found.documents.append(path)
                continue
            lang = languages.language_of(name)
            if lang is not None and not lang.is_test(name):
                found.sources.setdefault(lang.name, []).append(path)
                counts[lang.name] += 1
    found.doc_folder = next((f for f in DOC_FOLDERS if any(d.startswith(f + "/") for d in found.documents)), None)
    in_folder = [d for d in found.documents if found.doc_folder and d.startswith(found.doc_folder + "/")]
    readme = [d for d in found.documents if "/" not in d and d.lower().startswith("readme")]
    found.documents = in_folder + readme if in_folder or readme else found.documents
    return found
