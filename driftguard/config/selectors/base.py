"""What every selector is, and the helpers their ``from_config`` share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from driftguard.config.schema import Reader

_KEY_PATH = re.compile(r"""([^\[\]"']+)((?:\[(?:"[^"\\]*"|'[^'\\]*'|-?[0-9]+)\])*)""")
_KEY = re.compile(r"""\[(?:"([^"]*)"|'([^']*)'|(-?[0-9]+))\]""")


@dataclass(frozen=True)
class SelectorSpec:
    """What every selector carries: the project's conversion functions to read values through."""

    unwrap: tuple[str, ...] = field(default=(), kw_only=True)

    key: ClassVar[str]
    siblings: ClassVar[frozenset[str]] = frozenset()  # fact keys beside the selector's own that it reads
    names: ClassVar[bool] = False  # it yields names, which carry no unit

    @property
    def map(self) -> bool:
        return False

    @classmethod
    def from_config(cls, r: Reader, body: Any, where: str) -> SelectorSpec:
        """The selector the fact mapping ``body`` describes under its key (``where`` is the
        fact's key path, for messages)."""
        raise NotImplementedError


def spec_of(r: Reader, body: Any, kind: str, where: str, required: set[str], optional: set[str]) -> Any:
    """The selector's mapping, checked for its keys."""
    return r.child(body, kind, f"{where}.{kind}", required=required, optional=optional)


def key_path(written: str) -> tuple[str, tuple[str | int, ...]] | None:
    """``name["key"][0]`` as (name, keys); None when it is not one."""
    m = _KEY_PATH.fullmatch(written.strip())
    if not m or not m.group(1).strip():
        return None
    keys: list[str | int] = []
    for part in _KEY.finditer(m.group(2)):
        quoted = part.group(1) if part.group(1) is not None else part.group(2)
        keys.append(quoted if quoted is not None else int(part.group(3)))
    return m.group(1).strip(), tuple(keys)



def argument(r: Reader, spec: Any, where: str) -> int | str:
    """``arg``: a position from 0, or a keyword name."""
    if "arg" not in spec:
        return 0
    arg = spec["arg"]
    if isinstance(arg, bool) or not isinstance(arg, (int, str)) or isinstance(arg, str) and not arg.isidentifier():
        r.fail(spec, "arg", f"{where}.arg: expected a position from 0 or a keyword name, got {arg!r}")
    if isinstance(arg, int) and arg < 0:
        r.fail(spec, "arg", f"{where}.arg: expected a position from 0, got {arg}")
    return arg


def path_of(r: Reader, spec: Any, key: str, where: str) -> tuple[str | int, ...]:
    """A key path such as ``server["port"]`` or ``["server"]["port"]`` (its first key may be bare)."""
    if key not in spec:
        return ()
    written = r.value(spec, key, str, where)
    found = key_path(written) if not written.startswith("[") else key_path("_" + written)
    if found is None:
        r.fail(spec, key, f"{where}.{key}: expected keys such as server[\"port\"] or [0], got {written!r}")
    head, keys = found
    return keys if written.startswith("[") else (head, *keys)


def defaults_of(r: Reader, body: Any, spec: Any, where: str) -> bool:
    """``defaults: true`` inside the selector's mapping or beside it in the fact."""
    inside = r.value(spec, "defaults", bool, where, default=False) if spec else False
    return bool(inside or r.value(body, "defaults", bool, where, default=False))
