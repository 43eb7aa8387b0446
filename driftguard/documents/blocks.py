"""Claims read from code blocks with a real parser: the value or the keys at a path of
YAML (PyYAML's composer, which places every value exactly), JSON (checked with
``json``, placed as YAML) and TOML (``tomllib``/``tomli``) blocks, and the long flags
of shell command lines. A block of the form's language that does not parse is a
``parse-error`` naming its line: a value it may hold is never silently skipped.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import yaml

from driftguard.config.specs import BlockClaim
from driftguard.documents.model import CodeBlock, Document
from driftguard.documents.scope import Scope, not_found, scope_of, within
from driftguard.model import Claim, Item, Location, ParseError, Value
from driftguard.quantities import read_value

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_PART = re.compile(r"""\[(\d+)\]|\["([^"]*)"\]|\['([^']*)'\]|([^.\[\]]+)""")
_FLAG = re.compile(r"(?<![\w-])--([A-Za-z0-9][\w.-]*)")
Path = tuple[str | int, ...]


def block_claim(doc: Document, form: BlockClaim) -> Claim:
    scope = scope_of(doc, form.section, form.within) if form.section or form.within else None
    blocks = [b for b in within(doc.blocks, scope, lambda b: b.span[0]) if b.lang in form.langs]
    items: list[Item] = []
    unread: list[ParseError] = []
    for block in blocks:
        try:
            items += _flags(doc, block) if form.flags else _data(doc, block, form)
        except ParseError as exc:
            unread.append(exc)
    if unread and not items:
        raise unread[0]  # nothing read, and a block that might hold it could not be: never a pass
    if not items:
        raise _missing(doc, form, scope, len(blocks))
    notes = tuple(f"{e.location.line if e.location else '?'}: {e.message}; not read (another block states the "
                  "value)" for e in unread)
    return Claim(tuple(items), items[0].location or Location(doc.path), notes)


def path_parts(path: str) -> Path:
    """``global.scrape_interval``, ``jobs[0].name``, ``labels["a.b"]`` as keys and indexes."""
    parts: list[str | int] = []
    for m in _PART.finditer(path):
        index, double, single, bare = m.groups()
        parts.append(int(index) if index is not None else next(p for p in (double, single, bare) if p is not None))
    return tuple(parts)


def _missing(doc: Document, form: BlockClaim, scope: Scope | None, count: int) -> Exception:
    if not count:
        return not_found(doc, f"no ```{form.lang} block", scope)
    what = f"no key '{form.path}'" if form.path is not None else (
        "no flags" if form.flags else f"no keys under '{form.keys}'" if form.keys else "no keys")
    return not_found(doc, f"{what} in its {count} {form.lang} block{'s' if count > 1 else ''}", scope)


# -- YAML and JSON --------------------------------------------------------------


def _data(doc: Document, block: CodeBlock, form: BlockClaim) -> list[Item]:
    text = doc.text[block.body_span[0]:block.body_span[1]]
    if form.lang == "toml":
        return _toml(doc, block, text, form)
    if form.lang == "json":
        try:
            json.loads(text)
        except ValueError as exc:
            raise ParseError(f"the json block does not parse: {exc}", Location(doc.path, block.line)) from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError) as exc:
        raise ParseError(f"the {form.lang} block does not parse: {' '.join(str(exc).split())}",
                         Location(doc.path, block.line)) from None
    wanted = path_parts(form.path if form.path is not None else (form.keys or ""))
    node = _at(root, wanted)
    if node is None:
        return []
    base = block.body_span[0]
    if form.path is not None:
        if not isinstance(node, yaml.ScalarNode):
            return []
        start, end = node.start_mark.index, node.end_mark.index
        if node.style in ("'", '"'):
            start, end = start + 1, end - 1
        span = (base + start, base + end)
        return [Item(read_value(node.value) if node.style is None else Value.string(node.value),
                     Location(doc.path, doc.line_of(span[0])), span)]
    if not isinstance(node, yaml.MappingNode):
        return []
    return [Item(Value.string(str(k.value)), Location(doc.path, doc.line_of(base + k.start_mark.index)),
                 (base + k.start_mark.index, base + k.end_mark.index)) for k, _ in node.value]


def _at(node: Any, path: Path) -> Any:
    for part in path:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            node = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            return None
    return node


# -- TOML -----------------------------------------------------------------------


def _toml(doc: Document, block: CodeBlock, text: str, form: BlockClaim) -> list[Item]:
    try:
        data: Any = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ParseError(f"the toml block does not parse: {exc}", Location(doc.path, block.line)) from None
    path = path_parts(form.path if form.path is not None else (form.keys or ""))
    for part in path:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return []
    if form.path is None:
        return [Item(Value.string(str(k)), Location(doc.path, block.body_line)) for k in data] \
            if isinstance(data, dict) else []
    if isinstance(data, (dict, list)):
        return []
    span = _toml_place(text, str(path[-1]), data)
    where = block.body_span[0]
    if span is None:
        return [Item(read_value(str(data)) if not isinstance(data, str) else Value.string(data),
                     Location(doc.path, block.body_line))]
    placed = (where + span[0], where + span[1])
    stated = text[span[0]:span[1]]
    return [Item(Value.string(data) if isinstance(data, str) else read_value(stated),
                 Location(doc.path, doc.line_of(placed[0])), placed)]


def _toml_place(text: str, last: str, value: object) -> tuple[int, int] | None:
    """Where ``last = value`` states the value in ``text`` (a string's span without quotes)."""
    key = re.escape(last)
    for m in re.finditer(rf"""^[ \t]*(?:{key}|"{key}"|'{key}')[ \t]*=[ \t]*(.+?)[ \t]*(?:#.*)?$""", text, re.M):
        written = m.group(1)
        try:
            if tomllib.loads(f"x = {written}")["x"] != value:
                continue
        except tomllib.TOMLDecodeError:
            continue
        quoted = 1 if written[:1] in "'\"" else 0
        return m.start(1) + quoted, m.end(1) - quoted
    return None


# -- shell ------------------------------------------------------------------------


def _flags(doc: Document, block: CodeBlock) -> Iterator[Item]:
    """The long flags of the block's command lines; in a ``console`` block only the lines
    after a ``$ `` prompt (and their continuations) are commands."""
    text = doc.text[block.body_span[0]:block.body_span[1]]
    prompted = block.lang in ("console", "shell-session")
    at, going = block.body_span[0], False
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        command = body.lstrip()
        start = len(body) - len(command)
        if command.startswith(("$ ", "% ", "# ")) and (prompted or command.startswith("$ ")):
            start, command, going = start + 2, command[2:], True
        elif prompted and not going:
            at += len(line)
            continue
        code = command.split(" #", 1)[0]
        for m in _FLAG.finditer(code):
            span = (at + start + m.start(1), at + start + m.end(1))
            yield Item(Value.string(m.group(1)), Location(doc.path, doc.line_of(span[0])), span)
        going = code.rstrip().endswith("\\")
        at += len(line)
