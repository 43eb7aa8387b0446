"""Candidate facts of one Go file, read with the engine's own Go reader.

Each candidate is a selector ``check`` understands (typed consts, consts by a
name prefix or suffix of one const block, a ``String()`` method's cases, a map
literal's keys, a scalar const); its values come from ``go.extract`` with that
very selector, so an emitted config reads exactly what discovery saw.
"""

from __future__ import annotations

from dataclasses import replace

from driftguard.config.specs import Constant, Constants, MapKeys, StringMethod
from driftguard.discover.candidates_go_body import defaults, has_semaphore, semaphores
from driftguard.discover.candidates_reach import make_set, reach, shaped
from driftguard.discover.go_skeleton import skeleton
from driftguard.discover.groups import affix_groups, members, ordinal_names
from driftguard.discover.model import CodeScalar, CodeSet, SetSelector, SourceFile
from driftguard.discover.words import name_stems
from driftguard.model import DriftguardError, Kind
from driftguard.sources.go import reader as go
from driftguard.sources.go.index import Spec, map_keys_of

BUILTIN_TYPES = frozenset(
    "string bool byte rune int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr "
    "float32 float64 complex64 complex128 any error time.Duration".split()
)
SCALAR_EXPRESSIONS = frozenset({
    "int_literal", "float_literal", "binary_expression", "identifier", "parenthesized_expression",
    "selector_expression", "call_expression", "unary_expression",
})


def scan_go(path: str, text: str) -> SourceFile:
    """The candidates of one file, read from its skeleton (or the whole file, when the
    skeleton does not parse cleanly or the whole file has a syntax error)."""
    tree = go.parse(path, skeleton(text))
    if tree.root.has_error:
        tree = go.parse(path, text)
    index = tree.index
    found = _Found(tree, path)
    consts = [s for s in index.specs if s.const]
    for type_ in dict.fromkeys(s.type for s in consts if s.type and s.type not in BUILTIN_TYPES):
        found.add(Constants(type=type_), "type", type_)
    for name, receiver, _ in index.funcs:
        if name == "String" and receiver:
            found.add(StringMethod(receiver), "string_method", receiver)
    blocks: dict[int, list[str]] = {}
    for spec in consts:
        blocks.setdefault(id(spec.decl), []).append(spec.name)
    groups: list[tuple[str, list[str]]] = []
    for names in blocks.values():
        for kind, affix, regex in affix_groups(names):
            found.add(Constants(name=regex), kind, affix)
            groups.append((affix, members(names, kind, affix)))
    for spec in index.specs:
        if not spec.const and _is_map(spec):
            found.add(MapKeys(spec.name), "map_keys", spec.name)
            if spec.expr is not None and any(k.type == "identifier" for k in map_keys_of(spec.expr)):
                found.add(MapKeys(spec.name, resolve=True), "map_keys", spec.name)
    scalars = _scalars(tree, path, index.specs, index.by_name)
    typed: dict[str, list[str]] = {}
    for spec in consts:
        if spec.type and spec.type not in BUILTIN_TYPES:
            typed.setdefault(spec.type, []).append(spec.name)
    numbers = {s.name: float(s.value.data) for s in scalars if s.value.kind is Kind.NUMBER}
    ordinals = ordinal_names(numbers, groups, list(typed.values()))
    types = {spec.name: spec.type or "" for spec in consts}
    marked = [replace(s, type_name=types.get(s.name, "") if types.get(s.name) not in BUILTIN_TYPES else "",
                      ordinal=s.name in ordinals) for s in scalars]
    marked += defaults(tree, path, index.specs)
    whole = _whole(tree, path, text)
    found_reach = reach(whole, path, text, "go", found.seen)
    marked += semaphores(whole, path, text) if has_semaphore(text) else []
    return SourceFile(path, tuple(found.sets + found_reach.sets), tuple(marked + found_reach.scalars))


def _whole(tree: go.GoTree, path: str, text: str) -> go.GoTree:
    """The whole file's tree, parsed only when what is looked for lives in function bodies."""
    bodies = shaped("go", text) or has_semaphore(text)
    if not bodies or tree.source == text.encode("utf-8", errors="replace"):
        return tree
    return go.parse(path, text)


class _Found:
    """The set candidates of one file, one per distinct value set (the first selector wins)."""

    def __init__(self, tree: go.GoTree, path: str) -> None:
        self.tree, self.path = tree, path
        self.sets: list[CodeSet] = []
        self.seen: set[frozenset[str]] = set()

    def add(self, selector: SetSelector, origin: str, label: str) -> None:
        try:
            items = go.extract(self.tree, selector, self.path)
        except DriftguardError:
            return
        make_set(self.path, selector, origin, label, items, self.sets, self.seen)


def _is_map(spec: Spec) -> bool:
    expr = spec.expr
    if expr is None or expr.type != "composite_literal":
        return False
    kind = expr.child_by_field_name("type")
    return kind is not None and kind.type == "map_type"


def _scalars(tree: go.GoTree, path: str, specs: list[Spec], by_name: dict[str, list[Spec]]) -> list[CodeScalar]:
    out = []
    for spec in specs:
        expr = spec.expr
        if expr is None or spec.inherited or expr.type not in SCALAR_EXPRESSIONS:
            continue
        if len(by_name.get(spec.name, ())) != 1 or b"iota" in (expr.text or b""):
            continue
        try:
            items = go.extract(tree, Constant(spec.name), path)
        except DriftguardError:
            continue
        value = items[0].value
        if value.kind in (Kind.NUMBER, Kind.DURATION):
            line = items[0].location.line if items[0].location else 1
            out.append(CodeScalar(path, spec.name, value, line or 1, name_stems(spec.name)))
    return out
