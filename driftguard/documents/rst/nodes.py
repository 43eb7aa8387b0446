"""The nodes the permissive Sphinx handlers add to a docutils tree, and the names they know.

docutils does not know Sphinx: its object descriptions (``.. py:data:: NAME``,
``.. confval:: NAME``, ``.. option:: --name``), its ``code-block``, and its
roles (``:class:``, ``:ref:``, ``:doc:``). ``driftguard.documents.rst.handlers``
reads them into the three nodes below; the tree walk reads the nodes back.
"""

from __future__ import annotations

from docutils import nodes


class desc(nodes.Element):  # noqa: N801 (docutils names node classes in lower case)
    """An object description: ``title`` (its name as written), ``objtype`` (``py:data``),
    ``lineno`` (the directive's 1-based line), ``head_lines`` (the lines of its
    signatures) and ``end_line`` (its last line); its children are its body."""


class xref(nodes.Inline, nodes.TextElement):  # noqa: N801
    """A cross-reference role (``:doc:``, ``:ref:``, ``:download:``): ``role``,
    ``target`` (as written) and ``target_at`` (where the target starts in the rawsource)."""


class code_block(nodes.General, nodes.FixedTextElement):  # noqa: N801
    """A ``code-block``: ``lang``, ``info`` (the argument), ``lineno`` (the directive's
    line), ``first`` (0-based line of the body's first line) and ``count`` (its lines)."""


PY_OBJECTS = frozenset(
    "data attribute function class method exception decorator decoratormethod property classmethod "
    "staticmethod type".split()
)
"""The Python domain's object types, written bare (``.. function::``) or with ``py:``."""

STD_OBJECTS = frozenset("confval envvar option cmdoption describe object".split())
"""Sphinx's standard domain object types."""

CROSSREF_TYPES = frozenset("setting templatetag templatefilter fieldlookup django-admin event".split())
"""Target types that projects add with ``add_crossref_type`` / ``add_object_type``
(Django's ``setting``): an object description whose anchor is ``type-name``."""

NOT_OBJECTS = frozenset("module currentmodule namespace namespace-push namespace-pop alias program".split())
"""Domain directives that describe no object."""

CODE_ROLES = frozenset(
    "mod func data const class meth attr exc obj type option envvar confval file samp setting member macro var "
    "struct union enum enumerator expr texpr concept function program command makevar".split()
)
"""Roles Sphinx renders as code (a cross-reference to code, an option, a file): code spans."""

LINK_ROLES = frozenset("ref numref doc download".split())
"""Roles that point at a label, a document or a file."""

CODE_DIRECTIVES = {
    "code-block": "", "sourcecode": "", "code": "", "testcode": "python", "testsetup": "python",
    "testcleanup": "python", "doctest": "pycon", "testoutput": "", "ipython": "ipython",
}
"""Directives whose content is code: the language when the directive names none."""

IGNORED = frozenset(
    "toctree highlight highlightlang index literalinclude tabularcolumns autosummary graphviz graph digraph "
    "inheritance-diagram mermaid plantuml uml raw include contents sectnum section-numbering meta "
    "productionlist codeauthor sectionauthor moduleauthor default-role role default-domain target-notes "
    "currentmodule".split()
)
"""Directives that state nothing a claim reads (a table of contents, a file included,
a diagram): read as nothing."""

VERSION_NOTES = frozenset("versionadded versionchanged deprecated versionremoved".split())
"""Directives whose argument is a version followed by prose."""
