"""Selectors that read a set of members: declared constants, the cases of a ``String``
method or a ``switch``, keys, names, flags, environment variables, fields, classes and
list elements (``flags`` and ``env`` with defaults read a map of name to default)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from driftguard.config.schema import Reader
from driftguard.config.selectors.base import SelectorSpec, defaults_of, spec_of
from driftguard.model import ConfigError


@dataclass(frozen=True)
class Constants(SelectorSpec):
    """A set: constants declared with ``type`` (Go) / members of Enum class ``type`` (Python),
    or whose name matches the regex ``name``. ``values="names"`` takes names instead of values."""

    type: str | None = None
    name: str | None = None
    values: str = "values"  # "values" | "names"
    scalar = False
    key: ClassVar[str] = "constants"
    siblings: ClassVar[frozenset[str]] = frozenset({"values"})


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Constants:
        spec = spec_of(r, body, cls.key, where, set(), {"type", "name", "values"})
        at = f"{where}.{cls.key}"
        values = r.choice(spec, "values", ("values", "names"), at, default=None) or r.choice(
            body, "values", ("values", "names"), where, default="values")
        type_ = r.value(spec, "type", str, at, default=None)
        name = r.regex(spec, "name", at) if "name" in spec else None
        if not type_ and not name:
            raise ConfigError(f"{at}: expected `type` or `name`", r.loc(body, cls.key))
        return cls(type=type_, name=name, values=values)


@dataclass(frozen=True)
class StringMethod(SelectorSpec):
    """A set: the strings returned by the cases of ``func (T) String() string`` (Go) or
    ``T.__str__`` (Python); the default case, and a case that returns no literal (the
    sentinel ``case lastState: return fmt.Sprintf(...)``), are left out."""

    type: str
    scalar = False
    key: ClassVar[str] = "string_method"
    names: ClassVar[bool] = True


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> StringMethod:
        return cls(type=r.value(body, cls.key, str, where))


@dataclass(frozen=True)
class MapKeys(SelectorSpec):
    """A set: the keys of the map/dict literal bound to ``name``; identifier keys give
    names, or with ``resolve`` the values of the constants they name."""

    name: str
    resolve: bool = False
    within: str | None = None  # a function or method (``Type.method``) the literal is bound inside
    scalar = False
    key: ClassVar[str] = "map_keys"
    names: ClassVar[bool] = True


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> MapKeys:
        if not isinstance(body[cls.key], dict):
            return cls(name=r.value(body, cls.key, str, where))
        spec = spec_of(r, body, cls.key, where, {"name"}, {"resolve", "within"})
        at = f"{where}.{cls.key}"
        return cls(name=r.value(spec, "name", str, at), resolve=r.value(spec, "resolve", bool, at, default=False),
                   within=r.value(spec, "within", str, at, default=None))


@dataclass(frozen=True)
class Symbols(SelectorSpec):
    """A set: every name the files define (functions, types, constants, variables,
    ``Type.method``, fields and their tags, enum members), with the string literals
    of those files as items labelled ``literal``."""

    scalar = False
    key: ClassVar[str] = "symbols"
    names: ClassVar[bool] = True


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Symbols:
        if r.value(body, cls.key, bool, where) is not True:
            r.fail(body, cls.key, f"{where}.symbols: expected `symbols: true`")
        return cls()


@dataclass(frozen=True)
class Flags(SelectorSpec):
    """The long names (no dashes) of the command-line flags a program defines, inside
    ``within`` or anywhere; with ``defaults`` a map from name to default value."""

    within: str | None = None
    defaults: bool = False
    scalar = False

    @property
    def map(self) -> bool:
        return self.defaults
    key: ClassVar[str] = "flags"
    siblings: ClassVar[frozenset[str]] = frozenset({"defaults"})
    names: ClassVar[bool] = True


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Flags:
        if body[cls.key] is True:
            return cls(defaults=defaults_of(r, body, {}, where))
        spec = spec_of(r, body, cls.key, where, set(), {"within", "defaults"})
        return cls(within=r.value(spec, "within", str, f"{where}.{cls.key}", default=None),
                   defaults=defaults_of(r, body, spec, where))


@dataclass(frozen=True)
class Env(SelectorSpec):
    """The names of the environment variables the code reads; with ``defaults`` a map
    from name to the default the code gives (a name read with no default keeps no value, ``""``)."""

    defaults: bool = False
    scalar = False

    @property
    def map(self) -> bool:
        return self.defaults
    key: ClassVar[str] = "env"
    siblings: ClassVar[frozenset[str]] = frozenset({"defaults"})
    names: ClassVar[bool] = True


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Env:
        if isinstance(body[cls.key], dict):
            spec = spec_of(r, body, cls.key, where, set(), {"defaults"})
            return cls(defaults=defaults_of(r, body, spec, where))
        if r.value(body, cls.key, bool, where) is not True:
            r.fail(body, cls.key, f"{where}.env: expected `env: true`")
        return cls(defaults=defaults_of(r, body, {}, where))


@dataclass(frozen=True)
class Fields(SelectorSpec):
    """The fields of a Go struct, a Python dataclass, attrs or pydantic model, TypedDict
    or NamedTuple, or a TypeScript interface, type literal or class named ``type``;
    with ``tag`` (Go) the names that struct tag gives (``json:"name,omitempty"``)."""

    type: str
    tag: str | None = None
    scalar = False
    key: ClassVar[str] = "fields"
    names: ClassVar[bool] = True


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Fields:
        spec = spec_of(r, body, cls.key, where, {"type"}, {"tag"})
        at = f"{where}.{cls.key}"
        return cls(type=r.value(spec, "type", str, at), tag=r.value(spec, "tag", str, at, default=None))


@dataclass(frozen=True)
class Cases(SelectorSpec):
    """The literal labels of the ``switch``/``match`` in function ``within``; ``switch``
    (the switched expression's text) picks one when the function holds several."""

    within: str
    switch: str | None = None
    scalar = False
    key: ClassVar[str] = "cases"


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Cases:
        spec = spec_of(r, body, cls.key, where, {"within"}, {"switch"})
        at = f"{where}.{cls.key}"
        return cls(within=r.value(spec, "within", str, at), switch=r.value(spec, "switch", str, at, default=None))


@dataclass(frozen=True)
class Classes(SelectorSpec):
    """Every class that derives from ``base``, directly or through another class of the files."""

    base: str
    scalar = False
    key: ClassVar[str] = "classes"
    names: ClassVar[bool] = True


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> Classes:
        spec = spec_of(r, body, cls.key, where, {"base"}, set())
        return cls(base=r.value(spec, "base", str, f"{where}.{cls.key}"))


@dataclass(frozen=True)
class ListOf(SelectorSpec):
    """The elements of the list, tuple, slice or array literal bound to ``name``
    (``__all__``, ``var deny = []string{...}``, ``export const X = [...] as const``)."""

    name: str
    within: str | None = None
    scalar = False
    key: ClassVar[str] = "list"


    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> ListOf:
        if not isinstance(body[cls.key], dict):
            return cls(name=r.value(body, cls.key, str, where))
        spec = spec_of(r, body, cls.key, where, {"name"}, {"within"})
        at = f"{where}.{cls.key}"
        return cls(name=r.value(spec, "name", str, at), within=r.value(spec, "within", str, at, default=None))
