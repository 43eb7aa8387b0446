"""reStructuredText documents read into the same model as markdown (``documents.model``).

docutils parses the text (``parse_document`` imports it: a run that reads no
``.rst`` page never loads it) with every Sphinx directive and role it does not
know read permissively (``rst.handlers``): nothing is ever an error, nothing is
printed, no file is included. ``rst.build`` walks the tree into headings,
sections, tables, paragraphs, sentences, list items, code spans, code blocks,
links and anchors; docutils gives lines but no offsets, so each part's raw text
is placed back in the source (``rst.lines``, ``rst.prose``, ``rst.tables``) and
every span is exact: the text at a code span's span is its content.
"""

from __future__ import annotations

import copy
import io
from typing import Any

from docutils import frontend
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from driftguard.documents.model import Document
from driftguard.documents.rst.build import Builder
from driftguard.documents.rst.handlers import sphinx_names
from driftguard.model import Location, ParseError
from driftguard.text import split_bom

__all__ = ["parse_document", "parse_links"]

_OTHER_BREAKS = str.maketrans({c: " " for c in "\x1c\x1d\x1e\x85\u2028\u2029"})  # docutils splits lines there too
_settings: Any = None


def parse_document(path: str, text: str) -> Document:
    """Read ``text`` (the document at root-relative ``path``); ParseError if docutils fails."""
    bom = len(split_bom(text)[0])
    body = text[bom:].replace("\x00", "\ufffd").translate(_OTHER_BREAKS)  # each character kept in place
    try:
        parser = Parser()
        tree = new_document(path, _fresh_settings())
        with sphinx_names(body):
            parser.parse(body, tree)
        return Builder(path, text, bom, text[:bom] + body).document(tree)
    except RecursionError:
        raise ParseError("the reStructuredText is nested too deeply to read", Location(path)) from None
    except Exception as exc:  # docutils on hostile input: report, never crash
        raise ParseError(f"the reStructuredText could not be parsed: {exc}", Location(path)) from None


def _fresh_settings() -> Any:
    """docutils' settings for a quiet, self-contained parse: no report, no file read."""
    global _settings
    if _settings is None:
        settings = frontend.get_default_settings(Parser)
        settings.report_level = 5
        settings.halt_level = 5
        settings.warning_stream = io.StringIO()
        settings.syntax_highlight = "none"
        settings.file_insertion_enabled = False
        settings.raw_enabled = False
        settings.pep_references = settings.rfc_references = False
        settings.character_level_inline_markup = False
        _settings = settings
    fresh = copy.copy(_settings)
    fresh.warning_stream = io.StringIO()
    return fresh


parse_links = parse_document
"""What a ``links`` rule reads: docutils builds the whole tree anyway, so the whole model."""
parse_spans = parse_document
"""What a ``references`` rule reads: the whole model, for the same reason."""
