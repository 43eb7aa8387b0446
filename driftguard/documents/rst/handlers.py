"""Permissive handlers for the Sphinx directives and roles docutils does not know.

Sphinx registers its directives and roles when it starts; docutils alone reports
each one as an error and drops its content. ``sphinx_names`` registers, for one
parse only, a handler for every directive and role name the text uses that
docutils does not know (and for the Sphinx names docutils reads differently,
``code``, ``class``), then restores docutils' registries, under a lock so two
threads never see each other's names:

- an object description (``.. py:data:: NAME``, ``.. confval::``, ``.. option::``,
  any ``domain:type``) becomes a ``desc`` node holding its parsed body, its
  options as ``name: value`` paragraphs (confval's ``:default:``);
- ``code-block``, ``sourcecode``, ``code`` and the doctest directives become a
  ``code_block`` with its language; the version notes keep their prose;
- ``toctree``, ``literalinclude`` and the other ``IGNORED`` directives are nothing;
- any other directive (``.. tab::``, ``.. autoclass::``) is its body, parsed;
- a code role (``:class:``, ``:option:``) is a literal, a link role (``:doc:``,
  ``:ref:``) an ``xref``, any other role (``:kbd:``) its text.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive, directives, roles
from docutils.parsers.rst.languages import en
from docutils.utils import unescape

from driftguard.documents.rst.nodes import (
    CODE_DIRECTIVES,
    CODE_ROLES,
    CROSSREF_TYPES,
    IGNORED,
    LINK_ROLES,
    NOT_OBJECTS,
    PY_OBJECTS,
    STD_OBJECTS,
    VERSION_NOTES,
    code_block,
    desc,
    xref,
)

_NAME = r"(?:(?!_)\w)+(?:[-._+:](?:(?!_)\w)+)*"
_DIRECTIVE = re.compile(rf"^[ \t]*\.\.[ \t]+({_NAME})[ \t]*::", re.M)
_ROLE = re.compile(rf"(?<![\w`]):({_NAME}):(?=`)|(?<=`):({_NAME}):")
_TITLE = re.compile(r"^(.+?)\s*(?<!\x00)<(.*?)>$", re.S)
_LOCK = threading.Lock()
_DIRECTIVES: dict[str, Any] = vars(directives)["_directives"]  # docutils' registries, by name
_ROLES: dict[str, Any] = vars(roles)["_roles"]
_PY_ROLES = frozenset("mod func data const class meth attr exc obj".split())  # ``.name``: a relative lookup
_SPHINX_OVERRIDES = ("code", "class")  # docutils reads these differently from Sphinx


class _AnyOptions(dict[str, Callable[[str], Any]]):
    """An option spec that accepts every option (Sphinx's ``:linenos:``, ``:caption:``)."""

    def __init__(self) -> None:
        super().__init__(_any=directives.unchanged)  # non-empty: docutils reads options only then

    def __missing__(self, key: str) -> Callable[[str], Any]:
        return directives.unchanged


class _Base(Directive):
    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = _AnyOptions()

    def body(self, node: nodes.Element) -> nodes.Element:
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, node)
        return node


class Generic(_Base):
    """Any directive docutils does not know: its body, read as reStructuredText."""

    def run(self) -> list[nodes.Node]:
        return list(self.body(nodes.container()).children)


class Ignored(_Base):
    def run(self) -> list[nodes.Node]:
        return []


class VersionNote(_Base):
    """``.. versionadded:: 2.0 text``: the text after the version is prose."""

    optional_arguments = 2

    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        if len(self.arguments) > 1:
            found, _ = self.state.inline_text(self.arguments[1], self.lineno)
            para = nodes.paragraph(self.arguments[1], "", *found)
            para.line = self.lineno
            out.append(para)
        return out + list(self.body(nodes.container()).children)


class CodeBlock(_Base):
    def run(self) -> list[nodes.Node]:
        info = self.arguments[0].strip() if self.arguments else ""
        lang = info.split()[0].lower() if info else CODE_DIRECTIVES.get(self.name.lower(), "")
        body = "\n".join(self.content)
        node = code_block(body, body, lang=lang, info=info, lineno=self.lineno, first=self.content_offset,
                          count=len(self.content))
        node.line = self.lineno
        return [node]


class Context(_Base):
    """``.. module::``, ``.. currentmodule::``, ``.. program::``: what later descriptions are named in."""

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0].strip() if self.arguments else ""
        kind = self.name.lower().rpartition(":")[2]
        key = "dg_program" if kind == "program" else "dg_module"
        self.state.document[key] = "" if name == "None" else name
        if kind == "module" and name:
            return [nodes.target("", "", ids=[f"module-{name}"])]
        return []


class Description(_Base):
    """An object description: a ``desc`` holding its options (as paragraphs) and body."""

    required_arguments = 1
    optional_arguments = 0

    def run(self) -> list[nodes.Node]:
        block = self.block_text.split("\n")
        signatures = [s.strip() for s in self.arguments[0].split("\n") if s.strip()]
        node = desc(objtype=self.name.lower(), signatures=signatures, lineno=self.lineno,
                    head_lines=len(self.arguments[0].split("\n")), end_line=self.lineno + len(block) - 1,
                    module=self.state.document.get("dg_module", ""),
                    program=self.state.document.get("dg_program", ""))
        node.line = self.lineno
        for name, value in self.options.items():
            line = next((i for i, text in enumerate(block) if text.lstrip().startswith(f":{name}:")), None)
            if value and line is not None:
                raw = f"{name}: {value}"
                found, _ = self.state.inline_text(raw, self.lineno + line)
                para = nodes.paragraph(raw, "", *found)
                para.line = self.lineno + line
                node += para
        return [self.body(node)]


def directive_for(name: str) -> type[Directive] | None:
    """The handler for directive ``name`` (lower case), or None to leave it to docutils."""
    domain, colon, kind = name.rpartition(":")
    if kind in ("module", "currentmodule", "program") and domain in ("", "py", "std"):
        return Context
    if name in CODE_DIRECTIVES:
        return CodeBlock
    if name in VERSION_NOTES:
        return VersionNote
    if name in IGNORED:
        return Ignored
    if (not colon and kind in PY_OBJECTS | STD_OBJECTS | CROSSREF_TYPES) or (colon and kind not in NOT_OBJECTS):
        return Description
    if colon:
        return Ignored
    return None if name in en.directives or name in _DIRECTIVES else Generic


# -- roles ----------------------------------------------------------------------


RoleResult = tuple[list[nodes.Node], list[nodes.system_message]]


def _split(text: str) -> tuple[str | None, str, int]:
    """``(title, target, where the target starts in text)`` of ``title <target>`` or ``target``."""
    m = _TITLE.match(text)
    if m:
        return m.group(1), m.group(2), m.start(2)
    return None, text, 0


def _content_at(rawtext: str) -> int:
    return rawtext.find("`") + 1 if rawtext.startswith(":") else 1


def code_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
              content: Sequence[str] = ()) -> RoleResult:
    """A cross-reference to code: a literal holding its target (``~flask.Flask`` -> ``flask.Flask``)."""
    _, target, at = _split(text)
    kind = name.rpartition(":")[2]
    lead = len(target) - len(target.lstrip("~!." if kind in _PY_ROLES else "~!"))
    shown = target[lead:].replace("\x00", "\\")  # as written: the span holds exactly this text
    node = nodes.literal(rawtext, shown, dg_at=_content_at(rawtext) + at + lead)
    return [node], []


def link_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
              content: Sequence[str] = ()) -> RoleResult:
    title, target, at = _split(text)
    node = xref(rawtext, unescape(title if title is not None else target), role=name.rpartition(":")[2],
                target=target, target_at=_content_at(rawtext) + at)
    return [node], []


def text_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
              content: Sequence[str] = ()) -> RoleResult:
    title, target, _ = _split(text)
    return [nodes.inline(rawtext, unescape(title if title is not None else target))], []


def role_for(name: str) -> Callable[..., RoleResult] | None:
    domain, _, kind = name.rpartition(":")
    if kind in LINK_ROLES and domain in ("", "std"):
        return link_role
    if kind in CODE_ROLES:
        return code_role
    return None if name in en.roles or name in _ROLES else text_role


# -- registration ---------------------------------------------------------------


@contextmanager
def sphinx_names(text: str) -> Iterator[None]:
    """docutils with a handler for each Sphinx directive and role ``text`` uses, for one parse."""
    wanted_d = {m.lower() for m in _DIRECTIVE.findall(text)} | set(_SPHINX_OVERRIDES)
    wanted_r = {(a or b).lower() for a, b in _ROLE.findall(text)}
    with _LOCK:
        saved_d, saved_r = dict(_DIRECTIVES), dict(_ROLES)
        try:
            for name in wanted_d:
                handler = directive_for(name)
                if handler is not None:
                    _DIRECTIVES[name] = handler
            for name in wanted_r:
                role = role_for(name)
                if role is not None:
                    _ROLES[name] = role
            yield
        finally:
            _DIRECTIVES.clear()
            _DIRECTIVES.update(saved_d)
            _ROLES.clear()
            _ROLES.update(saved_r)
