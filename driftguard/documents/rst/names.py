"""The names an object description declares and the anchors Sphinx gives them.

Sphinx's HTML anchor of an object (``sphinx.util.nodes.make_id``; its ``_make_id``
keeps case, dots and underscores, turns every other run into ``-`` and trims
leading digits, dots and hyphens) is, by object type:

- Python objects (``py:data``, ``function``, ...): the full name, the current
  module and the enclosing class in front: ``.. py:data:: DEBUG`` gives ``DEBUG``,
  under ``.. module:: flask`` ``flask.DEBUG``;
- ``option``: ``cmdoption-`` then the program of ``.. program::`` then the option:
  ``--name`` gives ``cmdoption-name``, under ``.. program:: flask`` ``cmdoption-flask-name``;
- ``confval``, ``envvar`` and the types projects add (``setting``): ``type-name``,
  ``confval-name``;
- anything else (``describe``, the C and JavaScript domains): no anchor is recorded.

A description is titled by its names as written: ``DEBUG``, ``--name``, ``-v, --verbose``.
"""

from __future__ import annotations

import re
import unicodedata

from driftguard.documents.rst.nodes import CROSSREF_TYPES, PY_OBJECTS

_OPTION = re.compile(r"(?:/|--|-|\+)?[^\s=\[<,]+")
_PY = re.compile(r"(?:[\w.]*\.)?\w+")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_NON_ID = re.compile(r"[^a-zA-Z0-9._]+")
_NON_ID_ENDS = re.compile(r"^[-0-9._]+|-+$")

Name = tuple[str, int]  # a name and where it starts in its signature


def sphinx_id(text: str) -> str:
    """``text`` as Sphinx makes an HTML id of it."""
    ascii_only = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _NON_ID_ENDS.sub("", _NON_ID.sub("-", " ".join(ascii_only.split())))


def kind_of(objtype: str) -> str:
    """``py:data`` -> ``data``; a bare Python type stays Python (``function``)."""
    return objtype.rpartition(":")[2]


def is_python(objtype: str) -> bool:
    domain, _, kind = objtype.rpartition(":")
    return domain in ("", "py") and kind in PY_OBJECTS


def names_of(objtype: str, signature: str) -> list[Name]:
    """The names ``signature`` declares, each with its offset in it."""
    kind = kind_of(objtype)
    if kind in ("option", "cmdoption"):
        found, at = [], 0
        for part in signature.split(", "):
            m = _OPTION.match(part)
            if m:
                found.append((m.group(), at))
            at += len(part) + 2
        return found
    if is_python(objtype):
        m = _PY.search(signature)
        return [(m.group(), m.start())] if m else []
    if ":" in objtype and "(" in signature:  # c:function:: int add(int a): the name before "("
        idents = list(_IDENT.finditer(signature, 0, signature.index("(")))
        return [(idents[-1].group(), idents[-1].start())] if idents else []
    word = re.match(r"\s*(\S+)", signature)
    return [(word.group(1), word.start(1))] if word else []


def anchors_of(objtype: str, names: list[str], module: str, program: str, classes: list[str]) -> list[str]:
    """The Sphinx anchors of an object of ``objtype`` declaring ``names``."""
    kind = kind_of(objtype)
    if is_python(objtype):
        return [sphinx_id(".".join(p for p in (module, *classes, name) if p)) for name in names[:1]]
    if kind in ("option", "cmdoption"):
        out = []
        for name in names:
            prefix = "-".join(["cmdoption", *([program] if program else []),
                               *([] if name.startswith(("-", "/")) else ["arg"])])
            out.append(sphinx_id(f"{prefix}-{name}"))
        return out
    if kind in ("confval", "envvar") or kind in CROSSREF_TYPES:
        return [sphinx_id(f"{kind}-{name}") for name in names]
    return []
