"""The document formats, by extension: each reader builds the same ``Document`` model,
so claim forms never know the format. A reader's parser is imported only when a
document of its format is read."""

from __future__ import annotations

import importlib
from pathlib import PurePosixPath
from typing import Protocol, cast

from driftguard.documents.model import Document

MARKDOWN = "driftguard.documents.reader"

FORMATS: dict[str, str] = {
    ".rst": "driftguard.documents.rst",
    ".rest": "driftguard.documents.rst",
}
"""Extension -> the module whose ``parse_document(path, text)`` reads it; markdown otherwise."""


class _Reader(Protocol):
    def parse_document(self, path: str, text: str) -> Document: ...

    def parse_links(self, path: str, text: str) -> Document:
        """What a ``links`` rule reads (links, anchors, headings, code blocks), exactly as
        ``parse_document`` reads it; the rest of the model may be left empty."""

    def parse_spans(self, path: str, text: str) -> Document:
        """What a ``references`` rule reads (code spans, with headings and code blocks),
        exactly as ``parse_document`` reads it; the rest of the model may be left empty."""


def format_of(path: str) -> str:
    """The reader module for the document at ``path``."""
    return FORMATS.get(PurePosixPath(path).suffix.lower(), MARKDOWN)


def read_document(path: str, text: str) -> Document:
    """``text`` (the document at root-relative ``path``) parsed by its format's reader;
    ParseError when it cannot be read at all."""
    return _reader(path).parse_document(path, text)


def read_links(path: str, text: str) -> Document:
    """As ``read_document``, building only what a ``links`` rule reads (``_Reader.parse_links``)."""
    return _reader(path).parse_links(path, text)


def read_spans(path: str, text: str) -> Document:
    """As ``read_document``, building only what a ``references`` rule reads (``_Reader.parse_spans``)."""
    return _reader(path).parse_spans(path, text)


def _reader(path: str) -> _Reader:
    return cast(_Reader, importlib.import_module(format_of(path)))
