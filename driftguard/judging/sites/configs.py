"""A site generator's config, read as data and never run: YAML (mkdocs, Hugo), TOML
and JSON (Hugo), and a Sphinx ``conf.py`` read with ``ast``. (JavaScript and
TypeScript configs are read by ``jsconfig`` with tree-sitter.)

Only literal values are taken. What is not one (a Python expression, a YAML
``!ENV`` tag) is a ``NotLiteral`` that the generator replaces with its default,
and says so. A YAML tag such as ``!!python/name:pymdownx.slugs.uslugify`` is kept
as a ``Tagged`` value, since it names the function mkdocs would call. Every reader
is bounded (nodes, depth) and returns None for a file it cannot read.
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass
from typing import Any, TypeVar

import yaml

from driftguard.judging.sites.tree import Tree

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the package depends on tomli there
    import tomli as tomllib

T = TypeVar("T")
MAX_NODES = 20_000
MAX_DEPTH = 60
_STANDARD = "tag:yaml.org,2002:"


@dataclass(frozen=True)
class NotLiteral:
    """A setting whose value is computed (shown as written, shortened)."""

    text: str


@dataclass(frozen=True)
class Tagged:
    """A YAML value with a non-standard tag: ``tag`` without ``tag:yaml.org,2002:``."""

    tag: str
    value: object


class _TooBig(Exception):
    pass


def read_config(tree: Tree, rel: str) -> object | None:
    """The data in config file ``rel`` by its extension (.yml/.yaml, .toml, .json, .py)."""
    text = tree.read(rel)
    if text is None:
        return None
    suffix = rel.rsplit(".", 1)[-1].lower()
    if suffix in ("yml", "yaml"):
        return read_yaml(text)
    if suffix == "toml":
        try:
            return tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            return None
    if suffix == "json":
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            return None
    if suffix == "py":
        return read_python(text)
    return None


def read_yaml(text: str) -> object | None:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        return None if node is None else _Converter().convert(node, 0)
    except (yaml.YAMLError, RecursionError, _TooBig, ValueError, TypeError):
        return None


class _Converter:
    """Nodes to values, counting every node visited (an alias anew), so a nested-alias
    bomb stops at ``MAX_NODES``."""

    def __init__(self) -> None:
        self.left = MAX_NODES
        self.scalars = yaml.constructor.SafeConstructor()

    def convert(self, node: yaml.Node, depth: int) -> object:
        self.left -= 1
        if self.left < 0 or depth > MAX_DEPTH:
            raise _TooBig
        standard = node.tag.startswith(_STANDARD) and not node.tag.startswith(_STANDARD + "python/")
        if isinstance(node, yaml.ScalarNode):
            value: object = self.scalars.construct_object(node) if standard else node.value
        elif isinstance(node, yaml.SequenceNode):
            value = [self.convert(item, depth + 1) for item in node.value]
        elif isinstance(node, yaml.MappingNode):
            value = {str(self.convert(k, depth + 1)): self.convert(v, depth + 1) for k, v in node.value}
        else:
            value = None
        if standard:
            return value
        if node.tag.startswith("!") and not node.tag.startswith("!!"):
            return NotLiteral(f"{node.tag} {value}")  # !ENV and friends: set when mkdocs runs
        return Tagged(node.tag.removeprefix(_STANDARD), value)


def read_python(text: str) -> dict[str, object] | None:
    """The names a ``conf.py`` binds at its top level to literals (``NotLiteral`` for
    the others); ``x += [...]`` and ``x.append(...)`` extend a literal list."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: dict[str, object] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            found[stmt.targets[0].id] = _literal(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            found[stmt.target.id] = _literal(stmt.value)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            _extend(found, stmt.target.id, _literal(stmt.value))
        elif (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
              and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr in ("append", "extend")
              and isinstance(stmt.value.func.value, ast.Name) and len(stmt.value.args) == 1):
            value = _literal(stmt.value.args[0])
            _extend(found, stmt.value.func.value.id, [value] if stmt.value.func.attr == "append" else value)
    return found


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NotLiteral(ast.unparse(node)[:80])


def _extend(found: dict[str, object], name: str, more: object) -> None:
    current = found.get(name)
    if isinstance(current, list) and isinstance(more, (list, tuple)):
        found[name] = current + list(more)
    elif isinstance(current, tuple) and isinstance(more, (list, tuple)):
        found[name] = list(current) + list(more)
    else:
        found[name] = NotLiteral(f"{name} extended")


def setting(data: object, *keys: str) -> Any:
    """``data[k1][k2]...`` when each step is a mapping holding the key, else None."""
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def literal(data: object, keys: str, default: T, notes: list[str]) -> T:
    """The setting at dotted ``keys`` when it is a literal of ``default``'s type; else
    ``default``, noted ("srcDir not literal: .") unless the setting is absent."""
    value = setting(data, *keys.split("."))
    if value is None:
        return default
    if isinstance(value, type(default)) and (type(value) is not bool) == (type(default) is not bool):
        return value  # checked against the default's type
    notes.append(f"{keys} not literal: {default if not isinstance(default, bool) else str(default).lower()}")
    return default
