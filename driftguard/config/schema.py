"""Typed accessors over the parsed YAML that raise ConfigError with file, line and key path."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any, NoReturn

from driftguard.model import ConfigError, Location, PatternError
from driftguard.user_regex import compile_user_regex

_TYPE_NAMES = {str: "a string", int: "a whole number", bool: "true or false", float: "a number"}
_MISSING = object()


class Reader:
    """Reads values out of ``yamlsafe`` mappings for one config file."""

    def __init__(self, path: str) -> None:
        self.path = path

    # -- locations ----------------------------------------------------------

    def line_of(self, mapping: Any, key: str) -> int | None:
        lines = getattr(mapping, "key_lines", None) or {}
        return lines.get(key, getattr(mapping, "line", None))

    def loc(self, mapping: Any, key: str) -> Location:
        return Location(self.path, self.line_of(mapping, key))

    def loc_of(self, node: Any, line: int | None = None) -> Location:
        return Location(self.path, getattr(node, "line", None) or line or None)

    def fail(self, mapping: Any, key: str, message: str) -> NoReturn:
        raise ConfigError(message, self.loc(mapping, key))

    @staticmethod
    def suggest(word: str, choices: Sequence[str] | dict[str, Any]) -> str:
        import difflib  # only when a key is wrong

        close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
        return f" (did you mean {close[0]!r}?)" if close else ""

    # -- shapes -------------------------------------------------------------

    def mapping(
        self,
        node: Any,
        where: str,
        required: AbstractSet[str] = frozenset(),
        optional: AbstractSet[str] = frozenset(),
        any_keys: bool = False,
        line: int | None = None,
    ) -> dict[str, Any]:
        """``node`` as a mapping with only known keys; ``line`` places a node that has none."""
        label = where or "the config"
        if not isinstance(node, dict):
            raise ConfigError(f"{label}: expected a mapping, got {_describe(node)}", self.loc_of(node, line))
        if any_keys:
            return node
        known = required | optional
        for key in node:
            if key not in known:
                prefix = f"{where}." if where else ""
                raise ConfigError(
                    f"unknown key {prefix}{key}{self.suggest(key, sorted(known))}; expected one of: "
                    f"{', '.join(sorted(known))}",
                    self.loc(node, key),
                )
        for key in sorted(required):
            if key not in node:
                raise ConfigError(f"{label}: missing required key `{key}`", self.loc_of(node))
        return node

    def child(self, mapping: Any, key: str, where: str, required: AbstractSet[str] = frozenset(),
              optional: AbstractSet[str] = frozenset(), any_keys: bool = False) -> dict[str, Any]:
        """``mapping[key]`` as a mapping (see ``mapping``); a value of another shape is refused
        at the key's line."""
        return self.mapping(mapping[key], where, required, optional, any_keys, line=self.line_of(mapping, key))

    def sequence(self, mapping: Any, key: str, where: str = "") -> list[Any]:
        value = mapping.get(key)
        if not isinstance(value, list):
            name = f"{where}.{key}" if where else key
            self.fail(mapping, key, f"{name}: expected a list, got {_describe(value)}")
        return value

    def value(self, mapping: Any, key: str, kind: type, where: str = "", default: Any = _MISSING) -> Any:
        if key not in mapping or mapping[key] is None and default is not _MISSING:
            if default is _MISSING:
                self.fail(mapping, key, f"{where or 'the config'}: missing required key `{key}`")
            return default
        value = mapping[key]
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            name = f"{where}.{key}" if where else key
            self.fail(mapping, key, f"{name}: expected {_TYPE_NAMES.get(kind, kind.__name__)}, got {_describe(value)}")
        if kind is str and not value.strip():
            self.fail(mapping, key, f"{where}.{key}: expected a non-empty string")
        return value

    def choice(self, mapping: Any, key: str, options: tuple[str, ...], where: str, default: Any) -> Any:
        value = self.value(mapping, key, str, where, default=default)
        if value is not default and value not in options:
            self.fail(
                mapping, key,
                f"{where}.{key}: expected one of {', '.join(options)}, got {value!r}{self.suggest(value, options)}",
            )
        return value

    def regex(self, mapping: Any, key: str, where: str, groups: int | None = None) -> str:
        text = self.value(mapping, key, str, where)
        try:
            compiled = compile_user_regex(text, self.loc(mapping, key))
        except PatternError as exc:
            self.fail(mapping, key, f"{where}.{key}: {exc.message}")
        if groups is not None and compiled.groups < groups:
            self.fail(mapping, key, f"{where}.{key}: expected a regular expression with one (group), got {text!r}")
        return text

    def relpaths(self, mapping: Any, key: str, where: str) -> tuple[str, ...]:
        """One path or glob, or a non-empty list of them, each as ``relpath`` checks it."""
        value = mapping.get(key)
        if not isinstance(value, list):
            return (self.relpath(mapping, key, where),)
        if not value:
            self.fail(mapping, key, f"{where}.{key}: expected a path, a glob, or a non-empty list of them")
        return tuple(self._relpath(mapping, key, where, text) for text in value)

    def relpath(self, mapping: Any, key: str, where: str) -> str:
        """A path relative to the root, normalised; absolute paths and ``..`` escapes refused."""
        return self._relpath(mapping, key, where, self.value(mapping, key, str, where))

    def _relpath(self, mapping: Any, key: str, where: str, text: Any) -> str:
        if not isinstance(text, str) or not text.strip():
            self.fail(mapping, key, f"{where}.{key}: expected a path or glob (a string), got {_describe(text)}")
        if "\\" in text or "\0" in text:
            self.fail(mapping, key, f"{where}.{key}: expected a relative path with / separators, got {text!r}")
        if text.startswith("/") or re.match(r"^[A-Za-z]:", text):
            self.fail(mapping, key, f"{where}.{key}: expected a path relative to the root, got absolute {text!r}")
        norm = posixpath.normpath(text)
        if norm == ".." or norm.startswith("../"):
            self.fail(mapping, key, f"{where}.{key}: the path {text!r} leaves the root")
        return norm

    def rows(self, mapping: Any, where: str) -> tuple[tuple[str, str], ...]:
        if "rows" not in mapping:
            return ()
        rows = mapping["rows"]
        if not isinstance(rows, dict) or not rows:
            self.fail(mapping, "rows", f"{where}.rows: expected a mapping of row label to fact name")
        for label, fact in rows.items():
            if not isinstance(fact, str):
                raise ConfigError(f"{where}.rows.{label}: expected a fact name, got {_describe(fact)}",
                                  self.loc(rows, label))
        return tuple((str(label), fact) for label, fact in rows.items())

    def where(self, mapping: Any, where: str) -> tuple[tuple[int, str], ...]:
        if "where" not in mapping:
            return ()
        spec = self.child(mapping, "where", f"{where}.where", any_keys=True)
        out = []
        for key, text in spec.items():
            match = re.fullmatch(r"arg(\d+)", key)
            if not match:
                raise ConfigError(f"{where}.where.{key}: expected keys arg0, arg1, ...", self.loc(spec, key))
            if not isinstance(text, str):
                raise ConfigError(f"{where}.where.{key}: expected source text (a string)", self.loc(spec, key))
            out.append((int(match.group(1)), " ".join(text.split())))
        return tuple(out)


def _describe(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the boolean {value}".lower()
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}"
