"""Keyword-argument and parameter defaults: the options of a library's public API.

A public function's parameter with a default (``def request(method, url, *,
timeout=5.0)``), a public class's constructor parameter (``Client(max_redirects=20)``,
read as ``default: {function: Client, param: max_redirects}``) and a record's field
with a default (``@dataclass class Limits: max_connections: int = 100``) are each a
scalar candidate: the default of the option named as the parameter. So is a keyword
argument of a module-level constructor call (``DEFAULT_LIMITS = Limits(max_connections=100)``,
read as ``call: {function: Limits, arg: max_connections}``): the object a library passes
when the caller gives none, whose arguments its documentation states as defaults.
Values come from the reader's ``default`` and ``call`` selectors, so the config reads
exactly what was seen; a value the reader refuses (``None``, an object a call builds,
a name imported from elsewhere, a call the file makes twice) is no candidate.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from driftguard.config.specs import Call, Constant, Default
from driftguard.discover.model import CodeScalar
from driftguard.discover.words import name_stems
from driftguard.model import DriftguardError, Item, Kind
from driftguard.sources.base import Reader

KINDS = (Kind.NUMBER, Kind.DURATION, Kind.STRING, Kind.BOOL)
MAX_PER_FILE = 400
"""Defaults read from one file at most: a generated API of thousands of parameters says little."""


def read_defaults(reader: Reader, tree: object, path: str, found: Iterable[tuple[str, str]]) -> list[CodeScalar]:
    """A scalar per ``(owner, param)`` of ``found`` whose default the reader evaluates."""
    return read_options(reader, tree, path, ((owner, param, Default(function=owner, param=param))
                                             for owner, param in found))


def read_options(reader: Reader, tree: object, path: str,
                 found: Iterable[tuple[str, str, Constant | Default | Call]]) -> list[CodeScalar]:
    """A scalar per ``(owner, option, selector)`` whose value the reader evaluates to a number,
    a duration, a boolean or a non-empty string: the default of ``option``."""
    out: list[CodeScalar] = []
    seen: set[tuple[str, str]] = set()
    for owner, option, selector in found:
        if (owner, option) in seen or len(out) >= MAX_PER_FILE:
            continue
        seen.add((owner, option))
        try:
            item: Item = reader.extract(tree, selector, path)[0]
        except (DriftguardError, RecursionError, IndexError):
            continue
        if item.value.kind not in KINDS or (item.value.kind is Kind.STRING and not item.value.data):
            continue
        line = item.location.line if item.location and item.location.line else 1
        stems = tuple(dict.fromkeys((*name_stems(option), *name_stems(owner))))
        out.append(CodeScalar(path, f"{owner}.{option}", item.value, line, stems, spec=selector, option=option,
                              owner=owner))
    return out


def python_params(module: Any) -> Iterator[tuple[str, str]]:
    """``(function or class, parameter)`` of each public function's and constructor's parameter
    with a default, and of each public record's field with one (a libcst ``Module``)."""
    import libcst as cst

    for statement in module.body:
        if isinstance(statement, cst.FunctionDef) and _public(statement.name.value):
            yield from ((statement.name.value, p) for p in _defaulted(statement))
        elif isinstance(statement, cst.ClassDef) and _public(statement.name.value):
            name = statement.name.value
            body = [s for s in statement.body.body] if isinstance(statement.body, cst.IndentedBlock) else []
            init = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
            if init is not None:
                yield from ((name, p) for p in _defaulted(init))
                continue
            for line in body:
                for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
                    if isinstance(small, cst.AnnAssign) and small.value is not None \
                            and isinstance(small.target, cst.Name) and _public(small.target.value):
                        yield name, small.target.value


def python_keywords(module: Any) -> Iterator[tuple[str, str, Call]]:
    """``(class, keyword, call selector)`` of each keyword argument of a module-level
    ``NAME = Class(keyword=...)``: a constructor (a capitalised callee) called at import time."""
    import libcst as cst

    for line in module.body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
            if not isinstance(value, cst.Call):
                continue
            callee = module.code_for_node(value.func)
            owner = callee.rsplit(".", 1)[-1]
            if owner[:1].isupper() and callee.replace(".", "").isidentifier():
                yield from ((owner, a.keyword.value, Call(function=callee, arg=a.keyword.value))
                            for a in value.args if a.keyword is not None and _public(a.keyword.value))


def _defaulted(function: Any) -> list[str]:
    import libcst as cst

    p = function.params
    return [param.name.value for param in (*p.posonly_params, *p.params, *p.kwonly_params)
            if param.default is not None and _public(param.name.value)
            and not (isinstance(param.default, cst.Name) and param.default.value == "None")]


def _public(name: str) -> bool:
    return not name.startswith("_") or name == "__init__"
