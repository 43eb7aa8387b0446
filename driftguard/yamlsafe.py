"""Safe YAML reading with line numbers and bounds.

The config is composed (never constructed) with PyYAML's safe composer, then
converted to plain values by hand: only the standard scalar, sequence and
mapping tags are accepted, duplicate keys are refused, and alias expansion is
bounded so a nested-alias bomb is refused at once instead of exhausting memory.
Every mapping and sequence remembers the line of each of its entries.
"""

from __future__ import annotations

from typing import Any

import yaml

from driftguard.model import ConfigError, Location

MAX_NODES = 100_000
"""How many nodes a config may expand to, counting each alias use anew."""

_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"


class LineDict(dict):  # type: ignore[type-arg]
    """A mapping that knows its own line and the line of each key (1-based)."""

    line: int = 0
    key_lines: dict[str, int]


class LineList(list):  # type: ignore[type-arg]
    """A sequence that knows its own line and the line of each item (1-based)."""

    line: int = 0
    item_lines: list[int]


def load(text: str, path: str) -> Any:
    """Parse ``text`` (the contents of ``path``) into plain values, or raise ConfigError."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        column = mark.column + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        where = f" (column {column})" if column else ""
        raise ConfigError(f"not valid YAML: {problem}{where}", Location(path, line, column)) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {exc}", Location(path)) from None
    if node is None:
        return None
    return _Converter(path).convert(node)


class _Converter:
    def __init__(self, path: str) -> None:
        self.path = path
        self.budget = MAX_NODES
        self.loader = yaml.SafeLoader("")  # used only to resolve plain scalars

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
        self._spend(node)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return self._sequence(node)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node)
        raise ConfigError("unsupported YAML node", self._loc(node))  # pragma: no cover

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag not in _SCALAR_TAGS:
            raise ConfigError(f"YAML tag {node.tag!r} is not allowed; only plain values", self._loc(node))
        return self.loader.construct_object(node, deep=True)

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
