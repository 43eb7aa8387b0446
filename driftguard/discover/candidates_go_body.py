"""Go candidates that live in function bodies or default values, read from the whole file.

- A **concurrency cap**: ``sem := make(chan struct{}, 4)`` in a function is a
  semaphore, and its capacity the number of things that may run at once. The
  candidate is the ``call`` selector a config names for it
  (``{function: make, within: Loop.executeWithTools, where: {arg0: 'chan struct{}'}, arg: 1}``),
  named after the function and the channel (``executeWithTools sem``), with the
  words "concurrency" and "parallel" a sentence uses for it.
- A **default**: a constant or variable named ``Default...``/``default...`` of any
  kind (``DefaultListenAddress = ":8080"``), and each keyed field of a
  ``Default...`` composite literal (``DefaultGlobalConfig = GlobalConfig{ScrapeInterval:
  model.Duration(1 * time.Minute)}`` gives ``DefaultGlobalConfig["ScrapeInterval"]``,
  read through the conversion it is wrapped in). Each is the default of the option
  its name (or field) names, which a document's ``Default:`` line may state.
"""

from __future__ import annotations

import re

from driftguard.config.specs import Call, Constant
from driftguard.discover.model import CodeScalar
from driftguard.discover.words import name_stems
from driftguard.model import DriftguardError, Item, Kind
from driftguard.sources.go import reader as go
from driftguard.sources.go.index import Spec

SEMAPHORE = re.compile(r"\bmake\(\s*chan\s+struct\s*\{\s*\}\s*,\s*[\w.]+\s*\)")
_FUNC = re.compile(r"^func\s*(?:\(\s*\w*\s*\*?\s*(\w+)(?:\[[^\]]*\])?\s*\)\s*)?(\w+)\s*[\[(]", re.MULTILINE)
DEFAULT_NAME = re.compile(r"^[Dd]efault[A-Z0-9_]")
_CONVERSION = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\(")
VALUE_KINDS = (Kind.NUMBER, Kind.DURATION, Kind.STRING, Kind.BOOL)


def has_semaphore(text: str) -> bool:
    return "chan struct" in text and SEMAPHORE.search(text) is not None


def semaphores(tree: go.GoTree, path: str, text: str) -> list[CodeScalar]:
    """A scalar per function holding one ``make(chan struct{}, N)`` of a literal or constant size."""
    funcs = list(_FUNC.finditer(text))
    out: list[CodeScalar] = []
    counted: dict[str, int] = {}
    for m in SEMAPHORE.finditer(text):
        owner = next((f for f in reversed(funcs) if f.start() < m.start()), None)
        if owner is not None:
            within = f"{owner.group(1)}.{owner.group(2)}" if owner.group(1) else owner.group(2)
            counted[within] = counted.get(within, 0) + 1
    for within, count in counted.items():
        if count != 1:
            continue  # two semaphores in one function: the call selector could not tell them apart
        selector = Call(function="make", arg=1, within=within, where=((0, "chan struct{}"),))
        try:
            item = go.extract(tree, selector, path)[0]
        except DriftguardError:
            continue
        if item.value.kind is not Kind.NUMBER:
            continue
        function = within.rsplit(".", 1)[-1]
        name = f"{function} concurrency"
        stems = tuple(dict.fromkeys((*name_stems(function), *name_stems("concurrency parallel"))))
        line = item.location.line if item.location and item.location.line else 1
        out.append(CodeScalar(path, name, item.value, line, stems, spec=selector, option=name, owner=within))
    return out


def defaults(tree: go.GoTree, path: str, specs: list[Spec]) -> list[CodeScalar]:
    """The ``Default...`` constants and variables of any kind, and the keyed fields of a
    ``Default...`` composite literal."""
    out: list[CodeScalar] = []
    names = [s.name for s in specs]
    for spec in specs:
        if not DEFAULT_NAME.match(spec.name) or names.count(spec.name) != 1 or spec.expr is None:
            continue
        if spec.expr.type == "composite_literal":
            out += _fields(tree, path, spec)
            continue
        found = _read(tree, path, Constant(spec.name))
        if found is not None and found.value.kind in (Kind.STRING, Kind.BOOL):  # numbers: already scalars
            option = spec.name[len("default"):].lstrip("_")
            out.append(_scalar(path, spec.name, found, option, spec.name))
    return out


def _fields(tree: go.GoTree, path: str, spec: Spec) -> list[CodeScalar]:
    body = spec.expr.child_by_field_name("body") if spec.expr is not None else None
    out: list[CodeScalar] = []
    for element in body.named_children if body is not None else ():
        if element.type != "keyed_element" or element.named_child_count != 2:
            continue
        key, value = element.named_children[0], element.named_children[1]
        field = (key.text or b"").decode()
        if not re.fullmatch(r"[A-Z]\w*", field):
            continue
        selector = Constant(spec.name, keys=(field,))
        found = _read(tree, path, selector)
        wrapper = _CONVERSION.match((value.text or b"").decode())
        if found is None and wrapper is not None and "." in wrapper.group(1):
            selector = Constant(spec.name, keys=(field,), unwrap=(wrapper.group(1),))
            found = _read(tree, path, selector)
        if found is not None:
            out.append(_scalar(path, f"{spec.name}.{field}", found, field, spec.name, selector))
    return out


def _read(tree: go.GoTree, path: str, selector: Constant) -> Item | None:
    try:
        item = go.extract(tree, selector, path)[0]
    except DriftguardError:
        return None
    return item if item.value.kind in VALUE_KINDS else None


def _scalar(path: str, name: str, item: Item, option: str, owner: str, selector: Constant | None = None
            ) -> CodeScalar:
    line = item.location.line if item.location and item.location.line else 1
    return CodeScalar(path, name, item.value, line, name_stems(name), spec=selector, option=option, owner=owner)
