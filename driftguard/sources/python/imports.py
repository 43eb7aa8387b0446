"""What the names a module imports stand for.

``import click`` and ``import click as c`` bind ``click`` and ``c`` to ``click``;
``from click import option as opt`` binds ``opt`` to ``click.option``; ``from
._config import DEFAULT_LIMITS`` binds ``DEFAULT_LIMITS`` to
``._config.DEFAULT_LIMITS``. Imports are read at the top level of the module and
in its ``if``/``try``/``with`` blocks (an ``except ImportError:`` fallback), not
inside functions. A star import binds nothing that can be named.

The readers use it to tell ``click.option`` from another ``option``, ``getenv``
from ``os`` from a project's own, and to say where an imported constant lives
when a value cannot be evaluated in this file.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from driftguard.sources.python.evaluate import dotted_name, nested_blocks, small_statements

__all__ = ["Imports"]


class Imports:
    """The import table of one module, built on first use."""

    def __init__(self, module: cst.Module) -> None:
        self._module = module
        self._table: dict[str, str] | None = None

    def origin(self, name: str) -> str | None:
        """The dotted name ``name`` stands for through an import, or None when its
        first part is not imported (``c.option`` -> ``click.option``)."""
        head, dot, rest = name.partition(".")
        found = self.table.get(head)
        return None if found is None else found + dot + rest

    def canonical(self, name: str) -> str:
        """``name`` with its first part replaced by what it imports, else as written."""
        return self.origin(name) or name

    def imports(self, module: str) -> bool:
        """Whether the module imports ``module`` or something from it."""
        return any(origin == module or origin.startswith(module + ".") for origin in self.table.values())

    @property
    def table(self) -> dict[str, str]:
        if self._table is None:
            self._table = {}
            _collect(self._module.body, self._table)
        return self._table


def _collect(statements: Sequence[cst.CSTNode], table: dict[str, str]) -> None:
    for statement in statements:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        for small in small_statements([statement]):
            if isinstance(small, cst.Import):
                for alias in small.names:
                    _import(alias, table)
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                base = "." * len(small.relative) + (dotted_name(small.module) or "" if small.module else "")
                for alias in small.names:
                    name = dotted_name(alias.name)
                    if name is not None:
                        table[_bound(alias) or name] = f"{base}.{name}" if not base.endswith(".") else base + name
        for block in nested_blocks(statement):
            _collect(block, table)


def _import(alias: cst.ImportAlias, table: dict[str, str]) -> None:
    """``import a.b`` binds ``a`` to ``a``; ``import a.b as c`` binds ``c`` to ``a.b``."""
    name = dotted_name(alias.name)
    if name is None:
        return
    bound = _bound(alias)
    if bound is not None:
        table[bound] = name
    else:
        head = name.split(".", 1)[0]
        table[head] = head


def _bound(alias: cst.ImportAlias) -> str | None:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return None
