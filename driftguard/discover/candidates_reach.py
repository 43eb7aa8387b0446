"""Candidate facts every language reader has a selector for: flags, environment variables, fields.

``reach(tree, path, text, lang)`` asks the file's own reader (``extract`` with
the very selector a config will name) for the command-line flags the file defines,
the environment variables it reads (each with its default, when the code gives one)
and the fields of its configuration records (Go structs with ``yaml`` or ``json``
tags, Python dataclasses, attrs and pydantic models, TypeScript interfaces named as
options or config). A cheap look at the text first decides which selectors are worth
asking, so a file with no flag is never searched for flags.

Each flag or variable with a default also becomes a scalar candidate: one entry of the
map ``flags``/``env`` read with ``defaults: true``, which a document's ``Default:`` line
under the option's heading (or its sentence naming the option) may state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from driftguard.config.specs import Env, Fields, Flags
from driftguard.discover.model import CodeScalar, CodeSet, SetSelector
from driftguard.discover.words import name_stems
from driftguard.model import DriftguardError, Item, Kind, Value
from driftguard.sources import load_reader, reader_name
from driftguard.sources.base import Reader

FLAG_HINTS = {
    "go": (".Flag(", "flag.", "Flags().", "&cli.", "kingpin."),
    "python": ("add_argument(", ".option(", "typer.Option", "click.argument"),
    "typescript": (".option(", ".options(", "yargs"),
}
ENV_HINTS = {
    "go": ("os.Getenv(", "os.LookupEnv("),
    "python": ("os.environ", "getenv("),
    "typescript": ("process.env", "import.meta.env"),
}
"""Substrings a file defining flags or reading environment variables holds: a cheap test
that spares the readers' searches of a file that has neither."""


def shaped(lang: str, text: str) -> bool:
    """Whether the file may define flags or read environment variables (both shapes live in bodies)."""
    return any(hint in text for hint in (*FLAG_HINTS.get(lang, ()), *ENV_HINTS.get(lang, ())))


_GO_STRUCT = re.compile(r"^type\s+([A-Z]\w*)\s+struct\s*\{", re.MULTILINE)
_GO_TAG = re.compile(r"\b(yaml|toml|mapstructure|json):\"[^\"-]")
_GO_CONFIG = re.compile(r"(?:Config|Options|Settings|Spec)$")
"""A struct read by its ``json`` tags only when named as configuration: most json-tagged structs
are wire records no reference lists field by field."""
_PY_RECORD = re.compile(r"^class\s+([A-Z]\w*)", re.MULTILINE)
_PY_RECORD_MARK = re.compile(r"@(?:\w+\.)*(?:dataclass|define|frozen|attrs)\b"
                             r"|\b(?:BaseModel|BaseSettings|TypedDict|NamedTuple)\b")
_TS_OPTIONS = re.compile(r"^(?:export\s+)?interface\s+([A-Z]\w*(?:Options|Config|Settings|Opts))\b", re.MULTILINE)


@dataclass
class Reach:
    """The candidates ``reach`` found in one file."""

    sets: list[CodeSet] = field(default_factory=list)
    scalars: list[CodeScalar] = field(default_factory=list)


def reader_of(path: str) -> Reader:
    """The reader of the file's language, as the engine loads it."""
    return load_reader(reader_name(path, Flags()))


def reach(tree: object, path: str, text: str, lang: str, seen: set[frozenset[str]]) -> Reach:
    """Flags, environment variables and configuration fields of one file (``lang``: go,
    python or typescript); ``seen`` holds the value sets the file's other candidates took."""
    reader = reader_of(path)
    found = Reach()
    stem = PurePosixPath(path).stem
    if stem in ("main", "__main__", "index") and PurePosixPath(path).parent.name:
        stem = PurePosixPath(path).parent.name  # cmd/relayd/main.go: the flags of relayd
    if any(hint in text for hint in FLAG_HINTS.get(lang, ())):
        _named_map(reader, tree, path, Flags(), Flags(defaults=True), "flags", f"{stem} flags", found, seen)
    if any(hint in text for hint in ENV_HINTS.get(lang, ())):
        _named_map(reader, tree, path, Env(), Env(defaults=True), "env", "environment", found, seen)
    for record, tag in _records(text, lang):
        _add(reader, tree, path, Fields(type=record, tag=tag), "fields", record, found.sets, seen)
    return found


def _records(text: str, lang: str) -> Iterable[tuple[str, str | None]]:
    """The configuration records of the file worth reading fields from, with the Go tag to read."""
    if lang == "go":
        for m in _GO_STRUCT.finditer(text):
            body = text[m.end():text.find("\n}", m.end())]
            tags = {t.group(1) for t in _GO_TAG.finditer(body)} if "`" in body else set()
            tag = next((t for t in ("yaml", "toml", "mapstructure") if t in tags), None)
            if tag is None and "json" in tags and _GO_CONFIG.search(m.group(1)):
                tag = "json"
            if tag is not None:
                yield m.group(1), tag
    elif lang == "python" and _PY_RECORD_MARK.search(text):
        for m in _PY_RECORD.finditer(text):
            yield m.group(1), None
    elif lang == "typescript":
        for m in _TS_OPTIONS.finditer(text):
            yield m.group(1), None


def _items(reader: Reader, tree: object, path: str, selector: SetSelector) -> list[Item]:
    try:
        return list(reader.extract(tree, selector, path))
    except (DriftguardError, RecursionError):
        return []


def _add(reader: Reader, tree: object, path: str, selector: SetSelector, origin: str, label: str,
         out: list[CodeSet], seen: set[frozenset[str]]) -> list[Item]:
    items = _items(reader, tree, path, selector)
    make_set(path, selector, origin, label, items, out, seen)
    return items


def _named_map(reader: Reader, tree: object, path: str, names: Flags | Env, with_defaults: Flags | Env,
               origin: str, label: str, found: Reach, seen: set[frozenset[str]]) -> None:
    """The set of names, and each name's default as one entry of the map selector: both
    from one read of the map (its entries are the names, each with its default)."""
    entries = [i for i in _items(reader, tree, path, with_defaults) if i.label]
    named = [Item(Value.string(i.label), i.location) for i in entries]
    defaults = [i for i in entries if _stated(i.value)]
    before = len(found.sets)
    make_set(path, names, origin, label, named, found.sets, seen)
    if len(found.sets) > before and defaults:
        made = found.sets[-1]
        found.sets[-1] = CodeSet(made.file, made.selector, made.values, made.line, made.origin, made.label,
                                 tuple((i.label, i.value) for i in defaults))
    for item in defaults:
        line = item.location.line if item.location and item.location.line else 1
        found.scalars.append(CodeScalar(path, item.label, item.value, line, name_stems(item.label),
                                        spec=with_defaults, option=item.label, owner=label))


def make_set(path: str, selector: SetSelector, origin: str, label: str, items: Iterable[Item],
             out: list[CodeSet], seen: set[frozenset[str]]) -> None:
    """Append a CodeSet for ``items`` when they are two or more strings not seen before."""
    items = list(items)
    if len(items) < 2 or any(i.value.kind is not Kind.STRING for i in items):
        return
    values = tuple(str(i.value.data) for i in items)
    key = frozenset(values)
    if key in seen or len(key) < 2:
        return
    seen.add(key)
    line = items[0].location.line if items[0].location and items[0].location.line else 1
    out.append(CodeSet(path, selector, values, line, origin, label))


def _stated(value: Value) -> bool:
    """Whether a default is one a document could state: not the empty string of "no default"."""
    return not (value.kind is Kind.STRING and value.data == "")
