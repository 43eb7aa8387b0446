"""Candidate facts of one Python module, read with the engine's own libcst reader.

Enum classes (members' values), ``__str__`` methods, module-level string
constants grouped by a common name prefix or suffix, dict literals' keys,
module-level numbers and ``timedelta``s, and the defaults of parameters and of the
keyword arguments a module-level constructor call passes (``candidates_params``). As for Go, every value comes from
``python.extract`` with the selector the config will name.
"""

from __future__ import annotations

import re
from dataclasses import replace

from driftguard.discover.candidates_params import python_keywords, python_params, read_defaults, read_options
from driftguard.discover.candidates_reach import make_set, reach, reader_of
from driftguard.discover.groups import affix_groups, members, ordinal_names
from driftguard.discover.model import CodeScalar, CodeSet, SetSelector, SourceFile
from driftguard.discover.words import name_stems
from driftguard.model import DriftguardError, Kind

CONSTANT_NAME = re.compile(r"^_?[A-Z][A-Z0-9_]*$")
DEFAULT_NAME = re.compile(r"^_?DEFAULT_")
ENUM_BASES = ("Enum", "Flag")


def scan_python(path: str, text: str) -> SourceFile:
    import libcst as cst

    from driftguard.config.specs import Constant, Constants, MapKeys, StringMethod
    from driftguard.sources import python
    from driftguard.sources.python.evaluate import block_statements, last_name

    tree = python.parse(path, text)
    sets: list[CodeSet] = []
    seen: set[frozenset[str]] = set()

    def add(selector: SetSelector, origin: str, label: str) -> None:
        try:
            items = python.extract(tree, selector, path)
        except DriftguardError:
            return
        make_set(path, selector, origin, label, items, sets, seen)

    classes = [s for s in tree.module.body if isinstance(s, cst.ClassDef)]
    for klass in classes:
        name = klass.name.value
        bases = [last_name(arg.value) or "" for arg in klass.bases]
        if any(b.endswith(ENUM_BASES) for b in bases):
            add(Constants(type=name), "enum", name)
        if any(isinstance(s, cst.FunctionDef) and s.name.value == "__str__" for s in block_statements(klass.body)):
            add(StringMethod(name), "string_method", name)
    bindings = tree.names.module_bindings
    counts: dict[str, int] = {}
    for b in bindings:
        counts[b.name] = counts.get(b.name, 0) + 1
    constants = [b.name for b in bindings if CONSTANT_NAME.match(b.name) and counts[b.name] == 1]
    groups: list[tuple[str, list[str]]] = []
    for kind, affix, regex in affix_groups(constants):
        add(Constants(name=regex), kind, affix)
        groups.append((affix, members(constants, kind, affix)))
    scalars: list[CodeScalar] = []
    for b in bindings:
        if counts[b.name] != 1 or b.value is None:
            continue
        value = b.value
        if isinstance(value, cst.Call) and len(value.args) == 1 and not value.args[0].keyword:
            value = value.args[0].value
        if isinstance(value, cst.Dict):
            add(MapKeys(b.name), "map_keys", b.name)
            if any(isinstance(getattr(e, "key", None), (cst.Name, cst.Attribute)) for e in value.elements):
                add(MapKeys(b.name, resolve=True), "map_keys", b.name)
        elif CONSTANT_NAME.match(b.name) and isinstance(
            b.value, (cst.Integer, cst.Float, cst.BinaryOperation, cst.UnaryOperation, cst.Call, cst.Name,
                      cst.SimpleString)
        ):
            try:
                items = python.extract(tree, Constant(b.name), path)
            except DriftguardError:
                continue
            item = items[0]
            kinds = (Kind.NUMBER, Kind.DURATION) + ((Kind.STRING, Kind.BOOL) if DEFAULT_NAME.match(b.name) else ())
            if item.value.kind in kinds:
                line = item.location.line if item.location and item.location.line else 1
                scalars.append(CodeScalar(path, b.name, item.value, line, name_stems(b.name)))
    numbers = {s.name: float(s.value.data) for s in scalars if s.value.kind is Kind.NUMBER}
    ordinals = ordinal_names(numbers, groups)
    marked = [replace(s, ordinal=s.name in ordinals) for s in scalars]
    found = reach(tree, path, text, "python", seen)
    reader = reader_of(path)
    marked += found.scalars + read_defaults(reader, tree, path, python_params(tree.module))
    marked += read_options(reader, tree, path, python_keywords(tree.module))
    return SourceFile(path, tuple(sets + found.sets), tuple(marked))
