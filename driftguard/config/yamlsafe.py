"""Safe YAML reading with line numbers and bounds.

The config is composed (never constructed) with PyYAML's safe composer, then
converted to plain values by hand: only the standard scalar, sequence and
mapping tags are accepted, duplicate keys are refused, and alias expansion is
bounded so a nested-alias bomb is refused at once instead of exhausting memory;
an alias inside its own anchor, and nesting deeper than ``MAX_DEPTH``, are
refused too. Every mapping and sequence remembers the line of each entry.

Composition always uses PyYAML's own parser, never libyaml: the two disagree on
a few corners and word their errors differently, and a config must read, and
fail, the same way on every machine.
"""

from __future__ import annotations

from typing import Any

import yaml

from driftguard.model import ConfigError, Location

MAX_NODES = 100_000
"""How many nodes aliases may add to a config, counting each use of an alias anew: a plain
config of any size spends none of it, a nested-alias bomb all of it at once."""

MAX_DEPTH = 100
"""How deeply mappings and sequences may nest (a real config needs about six)."""

LOADER = yaml.SafeLoader

_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"


class LineDict(dict[str, Any]):
    """A mapping that knows its own line and the line of each key (1-based)."""

    line: int = 0
    key_lines: dict[str, int]


class LineList(list[Any]):
    """A sequence that knows its own line and the line of each item (1-based)."""

    line: int = 0
    item_lines: list[int]


def load(text: str, path: str) -> Any:
    """Parse ``text`` (the contents of ``path``) into plain values, or raise ConfigError."""
    try:
        node = yaml.compose(text, Loader=LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        column = mark.column + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        where = f" (column {column})" if column else ""
        raise ConfigError(f"not valid YAML: {problem}{where}", Location(path, line, column)) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        shown = f"U+{exc.character:04X}" if isinstance(exc.character, int) else repr(exc.character)
        raise ConfigError(f"not valid YAML: character {shown} is not allowed (column {column})",
                          Location(path, line, column)) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {exc}", Location(path)) from None
    except RecursionError:  # PyYAML's composer recurses once per level
        raise ConfigError(f"the config nests more than {MAX_DEPTH} levels deep", _too_deep(text, path)) from None
    if node is None:
        return None
    return _Converter(path).convert(node)


def _too_deep(text: str, path: str) -> Location:
    """Where the first collection nested deeper than MAX_DEPTH starts (PyYAML's
    parser is iterative, so its events can be followed at any depth)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=LOADER):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                mark = event.start_mark
                if depth > MAX_DEPTH and mark is not None:
                    return Location(path, mark.line + 1, mark.column + 1)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass
    return Location(path)


class _Converter:
    def __init__(self, path: str) -> None:
        self.path = path
        self.budget = MAX_NODES
        self.open: set[int] = set()  # ids of the collections on the path being converted
        self.seen: set[int] = set()  # ids of the nodes converted once: meeting one again is an alias use
        self.loader = LOADER("")  # used only to resolve plain scalars

    def _spend(self, node: yaml.Node) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise ConfigError(
                f"the config expands to more than {MAX_NODES} nodes (an alias bomb?)",
                self._loc(node),
            )

    def _loc(self, node: yaml.Node) -> Location:
        return Location(self.path, node.start_mark.line + 1, node.start_mark.column + 1)

    def convert(self, node: yaml.Node) -> Any:
        if id(node) in self.seen:
            self._spend(node)
        else:
            self.seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if id(node) in self.open:
            raise ConfigError("a YAML alias refers to a collection that contains it", self._loc(node))
        if len(self.open) >= MAX_DEPTH:
            raise ConfigError(f"the config nests more than {MAX_DEPTH} levels deep", self._loc(node))
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return self._sequence(node)
            if isinstance(node, yaml.MappingNode):
                return self._mapping(node)
        finally:
            self.open.discard(id(node))
        raise ConfigError("unsupported YAML node", self._loc(node))  # pragma: no cover

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag not in _SCALAR_TAGS:
            raise ConfigError(f"YAML tag {node.tag!r} is not allowed; only plain values", self._loc(node))
        try:
            return self.loader.construct_object(node, deep=True)
        except ValueError as exc:  # an integer past Python's digit limit, a float it cannot read
            raise ConfigError(f"the value {node.value[:40]!r}{'...' if len(node.value) > 40 else ''} cannot be "
                              f"read ({' '.join(str(exc).split()[:8])}...)", self._loc(node)) from None

    def _sequence(self, node: yaml.SequenceNode) -> LineList:
        if node.tag != _SEQ_TAG:
            raise ConfigError(f"YAML tag {node.tag!r} is not allowed; only plain lists", self._loc(node))
        out = LineList(self.convert(child) for child in node.value)
        out.line = node.start_mark.line + 1
        out.item_lines = [child.start_mark.line + 1 for child in node.value]
        return out

    def _mapping(self, node: yaml.MappingNode) -> LineDict:
        if node.tag != _MAP_TAG:
            raise ConfigError(f"YAML tag {node.tag!r} is not allowed; only plain mappings", self._loc(node))
        out = LineDict()
        out.line = node.start_mark.line + 1
        out.key_lines = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise ConfigError("YAML merge keys (<<) are not supported", self._loc(key_node))
            key = self.convert(key_node)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                raise ConfigError("a mapping key must be a plain value", self._loc(key_node))
            key = str(key)
            if key in out:
                raise ConfigError(f"duplicate key {key!r}", self._loc(key_node))
            out[key] = self.convert(value_node)
            out.key_lines[key] = key_node.start_mark.line + 1
        return out
