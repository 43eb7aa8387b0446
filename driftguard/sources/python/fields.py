"""The ``fields`` selector: the fields of a record class, in declaration order.

A class ``T`` (a dataclass, an attrs class, a pydantic model, a ``TypedDict`` or
a ``NamedTuple``, or any class declaring annotated attributes) has as fields:

- its annotated class attributes (``port: int`` and ``port: int = 8080``), but
  not a ``ClassVar[...]``, an ``InitVar[...]`` or the ``_: KW_ONLY`` marker
  (``dataclasses.fields()`` leaves them out too);
- its ``x = attr.ib()`` / ``attrib()`` / ``attrs.field()`` assignments (attrs
  classes without annotations);
- in a pydantic model (a class deriving from ``BaseModel`` or ``BaseSettings``,
  directly or through a class of the file), not the ``_private`` attributes.

Fields inherited from a base class of the same file come first, in the base's
order, as ``dataclasses`` orders them; a field the class declares again keeps
its base's place. A base class the file does not define (imported) is named by
``skipped``: its fields are not read. The functional forms are read too, bound
to the name ``T`` at the module's top level: ``TypedDict("T", {"a": int})`` (or
``a=int``), ``NamedTuple("T", [("a", int)])``, ``namedtuple("T", ["a", "b"])``
and ``namedtuple("T", "a b")``.

``record_fields`` gives each field with its default (``port: int = 8080``,
``field(default=8080)``, ``attr.ib(default=8080)``, ``Field(8080)``), which the
``default`` selector reads for a class without an ``__init__``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from driftguard.config.specs import Fields
from driftguard.model import FactNotFound, Item, Kind, Location, Value
from driftguard.sources import unique_items
from driftguard.sources.python.calls import argument
from driftguard.sources.python.evaluate import EvalError, block_statements, dotted_name, last_name, small_statements
from driftguard.sources.python.lookups import ambiguous
from driftguard.sources.python.tree import PyTree

__all__ = ["Field", "fields", "left_out", "record", "record_fields"]

_NOT_FIELDS = frozenset({"ClassVar", "InitVar", "KW_ONLY"})
_PYDANTIC = frozenset({"BaseModel", "BaseSettings"})
_ATTRS_FIELDS = frozenset({"ib", "attrib", "field"})
_FIELD_CALLS = frozenset({"field", "Field", "ib", "attrib"})
_FUNCTIONAL = frozenset({"TypedDict", "NamedTuple", "namedtuple"})


@dataclass(frozen=True)
class Field:
    name: str
    node: cst.CSTNode  # where it is declared: its name
    default: cst.BaseExpression | None  # the default, read out of ``field(default=...)``; None where it has none


def fields(tree: PyTree, sel: Fields) -> list[Item]:
    found, _ = _read(tree, sel)
    return unique_items(Item(Value.string(f.name), tree.location(f.node)) for f in found)


def left_out(tree: PyTree, sel: Fields) -> list[str]:
    return _read(tree, sel)[1]


def _read(tree: PyTree, sel: Fields) -> tuple[list[Field], list[str]]:
    klass = record(tree, sel.type)
    found, notes = record_fields(tree, klass) if isinstance(klass, cst.ClassDef) else (_functional(tree, klass), [])
    if not found:
        raise FactNotFound(f"{sel.type} declares no fields", tree.location(_name_of(klass)))
    return found, notes


def record(tree: PyTree, name: str) -> cst.ClassDef | cst.Call:
    """The one class ``name``, or the ``TypedDict(...)``/``namedtuple(...)`` call bound to it."""
    classes = tree.classes(name)
    calls = [b.value for b in tree.names.scope(None).get(name, [])
             if isinstance(b.value, cst.Call) and last_name(b.value.func) in _FUNCTIONAL]
    found: list[cst.ClassDef | cst.Call] = [*classes, *calls]
    if not found:
        raise FactNotFound(f"no class {name}, and no TypedDict, NamedTuple or namedtuple bound to {name}",
                           Location(tree.path))
    if len(found) > 1:
        raise ambiguous(tree, f"{len(found)} classes or records are named {name}", [_name_of(f) for f in found])
    return found[0]


def _name_of(node: cst.ClassDef | cst.Call) -> cst.CSTNode:
    return node.name if isinstance(node, cst.ClassDef) else node


def record_fields(tree: PyTree, klass: cst.ClassDef,
                  seen: frozenset[int] = frozenset()) -> tuple[list[Field], list[str]]:
    """The fields of ``klass``, those of its bases in the file first, and a note per base not read."""
    inherited: list[Field] = []
    notes: list[str] = []
    for base in klass.bases:
        written = dotted_name(base.value.value if isinstance(base.value, cst.Subscript) else base.value)
        if written is None or base.keyword is not None:
            continue
        parents = [c for c in tree.classes(written) if id(c) not in seen and c is not klass]
        if len(parents) == 1:
            more, more_notes = record_fields(tree, parents[0], seen | {id(klass)})
            inherited += [f for f in more if f.name not in {i.name for i in inherited}]
            notes += more_notes
        elif written.rsplit(".", 1)[-1] not in _ROOTS:
            notes.append(f"line {tree.line(base.value)}: base {written} of {klass.name.value} is not a class of "
                         "this file; the fields it declares are not read")
    own = _own_fields(tree, klass, _is_pydantic(tree, klass))
    replaced = {f.name: f for f in own}
    merged = [replaced.pop(f.name, f) for f in inherited]
    return merged + [f for f in own if f.name in replaced], notes


_ROOTS = frozenset({"object", "BaseModel", "BaseSettings", "TypedDict", "NamedTuple", "Generic", "Protocol", "ABC"})
"""Bases that declare no fields of their own."""


def _is_pydantic(tree: PyTree, klass: cst.ClassDef, depth: int = 0) -> bool:
    for base in klass.bases:
        written = dotted_name(base.value) or ""
        if written.rsplit(".", 1)[-1] in _PYDANTIC:
            return True
        parents = tree.classes(written) if written and depth < 50 else []
        if len(parents) == 1 and parents[0] is not klass and _is_pydantic(tree, parents[0], depth + 1):
            return True
    return False


def _own_fields(tree: PyTree, klass: cst.ClassDef, pydantic: bool) -> list[Field]:
    found: list[Field] = []
    for small in small_statements(block_statements(klass.body)):
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
            if _marker(small.annotation.annotation) in _NOT_FIELDS:
                continue
            if pydantic and small.target.value.startswith("_"):
                continue
            found.append(Field(small.target.value, small.target, _default(tree, small.value)))
        elif (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Call)
              and isinstance(target := small.targets[0].target, cst.Name) and _attrs_field(tree, small.value)):
            found.append(Field(target.value, target, _default(tree, small.value)))
    return found


def _marker(annotation: cst.BaseExpression) -> str | None:
    """``ClassVar`` for ``ClassVar[int]`` or ``typing.ClassVar``; ``KW_ONLY`` for ``KW_ONLY``."""
    node = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    if isinstance(node, cst.SimpleString):  # a quoted annotation: "ClassVar[int]"
        text = node.evaluated_value
        match = re.match(r"\s*(?:[\w.]*\.)?(\w+)", text) if isinstance(text, str) else None
        return match.group(1) if match else None
    return last_name(node)


def _attrs_field(tree: PyTree, call: cst.Call) -> bool:
    callee = dotted_name(call.func)
    if callee is None or last_name(call.func) not in _ATTRS_FIELDS:
        return False
    origin = tree.names.imports.canonical(callee)
    return origin.startswith(("attr.", "attrs.")) or callee in ("attrib", "ib")


def _default(tree: PyTree, value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """The default a field declares: the value, or ``default=`` of ``field(...)``, ``Field(...)``'s
    first argument; None for a ``default_factory`` or no default."""
    if not isinstance(value, cst.Call) or last_name(value.func) not in _FIELD_CALLS:
        return value
    if last_name(value.func) == "Field" and argument(value, 0) is not None:
        return argument(value, 0)
    return argument(value, "default")


# -- the functional forms ---------------------------------------------------------


def _functional(tree: PyTree, call: cst.Call) -> list[Field]:
    spec = argument(call, 1)
    keywords = [Field(a.keyword.value, a.keyword, None) for a in call.args
                if a.keyword is not None and a.keyword.value not in ("total", "rename", "defaults", "module")]
    if spec is None:
        return keywords
    if isinstance(spec, cst.Dict):
        return [f for e in spec.elements if isinstance(e, cst.DictElement) for f in _named(tree, e.key)]
    if isinstance(spec, (cst.List, cst.Tuple)):
        return [f for e in spec.elements for f in _named(tree, _first(e.value))]
    return _named(tree, spec, split=True)


def _first(node: cst.BaseExpression) -> cst.BaseExpression:
    """``"a"`` of ``("a", int)``, else the node."""
    if isinstance(node, (cst.Tuple, cst.List)) and node.elements:
        return node.elements[0].value
    return node


def _named(tree: PyTree, node: cst.BaseExpression, split: bool = False) -> list[Field]:
    """The field names a string literal gives (``"a b"`` and ``"a, b"`` split for namedtuple)."""
    try:
        value = tree.names.evaluate(node)
    except EvalError:
        return []
    if value.kind is not Kind.STRING:
        return []
    names = re.split(r"[\s,]+", str(value.data).strip()) if split else [str(value.data)]
    return [Field(name, node, None) for name in names if name]
