"""Candidate facts of one TypeScript or JavaScript file, read with the engine's own reader.

- sets: the members of an enum, of a string-literal union (``type Mode = 'dev' | 'build'``)
  and of an ``as const`` object (``constants: {type: T}``); the keys of a top-level
  object literal (``map_keys``); the flags, environment variables and options
  interfaces every reader has (``candidates_reach``);
- scalars: top-level constants holding a number or a duration (``DEFAULT_DEV_PORT =
  5173``; an UPPER_SNAKE name or one starting with ``default``); each key of a
  defaults object (``configDefaults = Object.freeze({ base: '/' })`` gives
  ``configDefaults["base"]``, the default of the option ``base``); and the defaults
  of an exported function's parameters, destructured ones included (``function
  createServer({ port = 5173 } = {})``), read with the ``default`` selector.

Declaration files (``.d.ts``) and minified bundles are not read (``parallel``), and a
component (``.tsx``, ``.jsx``) only for the flags and environment variables it reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tree_sitter import Node

from driftguard.config.specs import Constant, Constants, MapKeys
from driftguard.discover.candidates_params import read_defaults, read_options
from driftguard.discover.candidates_reach import make_set, reach, reader_of, shaped
from driftguard.discover.model import CodeScalar, CodeSet, SetSelector, SourceFile
from driftguard.discover.words import name_stems
from driftguard.model import DriftguardError, Kind
from driftguard.sources import typescript
from driftguard.sources.typescript.tree import TsTree

CONSTANT_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
DEFAULT_NAME = re.compile(r"^_?(?:default|DEFAULT)[A-Z_0-9]|[a-z0-9]Defaults?$")
OBJECT_VALUES = frozenset({"object", "call_expression", "as_expression", "satisfies_expression",
                           "parenthesized_expression"})
COMPONENTS = (".tsx", ".jsx")
"""Files of UI components, read only for the environment variables and flags they use."""
_PARAMS = ("required_parameter", "optional_parameter", "object_assignment_pattern", "assignment_pattern")


def scan_typescript(path: str, text: str) -> SourceFile:
    if path.endswith(COMPONENTS) and not shaped("typescript", text):
        return SourceFile(path, (), ())  # a component: its props and unions are no documented options
    tree = typescript.parse(path, text)
    index = tree.index
    sets: list[CodeSet] = []
    seen: set[frozenset[str]] = set()

    def add(selector: SetSelector, origin: str, label: str) -> None:
        try:
            items = typescript.extract(tree, selector, path)
        except (DriftguardError, RecursionError):
            return
        make_set(path, selector, origin, label, items, sets, seen)

    found = reach(tree, path, text, "typescript", seen)  # an options interface before a map of it
    sets += found.sets
    for name in index.enums:
        add(Constants(type=name), "enum", name)
    for name, nodes in index.aliases.items():
        if b"'" in (nodes[0].text or b"") or b'"' in (nodes[0].text or b""):
            add(Constants(type=name), "type", name)
    scalars: list[CodeScalar] = []
    for name, bindings in index.bindings.items():
        value = bindings[0].value
        if len(bindings) != 1 or value is None:
            continue
        if value.type in OBJECT_VALUES and b"{" in (value.text or b""):
            add(MapKeys(name), "map_keys", name)
            if DEFAULT_NAME.search(name):
                scalars += _keyed(tree, path, name)
        elif CONSTANT_NAME.match(name) or DEFAULT_NAME.search(name):
            scalars += _constant(tree, path, name, any_kind=bool(DEFAULT_NAME.search(name)))
    scalars += found.scalars + read_defaults(reader_of(path), tree, path, _params(tree))
    return SourceFile(path, tuple(sets), tuple(scalars))


def _constant(tree: TsTree, path: str, name: str, any_kind: bool) -> list[CodeScalar]:
    try:
        item = typescript.extract(tree, Constant(name), path)[0]
    except (DriftguardError, RecursionError, IndexError):
        return []
    kinds = (Kind.NUMBER, Kind.DURATION) + ((Kind.STRING, Kind.BOOL) if any_kind else ())
    if item.value.kind not in kinds:
        return []
    line = item.location.line if item.location and item.location.line else 1
    option = re.sub(r"^_?(?:default|DEFAULT)_?", "", name) if any_kind else ""
    return [CodeScalar(path, name, item.value, line, name_stems(name), option=option, owner=name)]


def _keyed(tree: TsTree, path: str, name: str) -> list[CodeScalar]:
    """Each key of the defaults object ``name`` whose value is one value, as ``name["key"]``."""
    try:
        keys = [str(i.value.data) for i in typescript.extract(tree, MapKeys(name), path)]
    except (DriftguardError, RecursionError):
        return []
    return read_options(reader_of(path), tree, path, ((name, key, Constant(name, keys=(key,))) for key in keys))


def _params(tree: TsTree) -> Iterator[tuple[str, str]]:
    """``(function, parameter)`` of each exported function's parameter with a default."""
    if tree.path.endswith(COMPONENTS):
        return  # components: their props' defaults are no options a reference documents
    for name, nodes in tree.index.functions.items():
        if len(nodes) != 1 or not _exported(nodes[0]):
            continue
        params = nodes[0].child_by_field_name("parameters")
        for node in tree.nodes(params, *_PARAMS) if params is not None else ():
            param = _defaulted(node)
            if param:
                yield name, param


def _exported(node: Node) -> bool:
    while node.parent is not None and node.parent.type not in ("program", "statement_block", "class_body"):
        if node.parent.type == "export_statement":
            return True
        node = node.parent
    return node.parent is not None and node.parent.type == "program" and node.type == "export_statement"


def _defaulted(node: Node) -> str:
    """The name a parameter node binds when it carries a default, else ""."""
    if node.type == "object_assignment_pattern":
        left = node.child_by_field_name("left")
        return (left.text or b"").decode() if left is not None and left.type.endswith("identifier_pattern") else ""
    if node.type in ("required_parameter", "optional_parameter"):
        pattern, value = node.child_by_field_name("pattern"), node.child_by_field_name("value")
        ok = pattern is not None and pattern.type == "identifier" and value is not None
        return (pattern.text or b"").decode() if ok and pattern is not None else ""
    return ""
