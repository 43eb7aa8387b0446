"""Bindings and scopes of one Python module: which names a block assigns, and the
``Resolver`` that evaluates a name through them (module scope, class bodies),
memoised and cycle-safe.

The project's own conversions (a fact's ``unwrap:``, ``Seconds(30)`` read as 30)
are in force for the selectors read inside ``Resolver.unwrapping``; values are
memoised per set of conversions, so one selector's ``unwrap`` never leaks into
another's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import libcst as cst

from driftguard.model import Value
from driftguard.sources.python.evaluate import EvalError, Evaluator, block_statements, small_statements
from driftguard.sources.python.imports import Imports

__all__ = ["Binding", "Resolver", "bindings", "class_bindings"]


@dataclass(frozen=True)
class Binding:
    """A name assigned at the top of a block; ``value`` is None where the
    assignment is not plain (augmented, or an unpacking without a matching tuple)."""

    name: str
    target: cst.BaseExpression  # the assigned name, or for a call argument the argument itself
    value: cst.BaseExpression | None


def bindings(statements: Sequence[cst.CSTNode]) -> list[Binding]:
    """Every name bound by an assignment directly in ``statements``, in source
    order; annotations without a value bind nothing."""
    found: list[Binding] = []
    for small in small_statements(statements):
        if isinstance(small, cst.Assign):
            for target in small.targets:
                _bind(target.target, small.value, found)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            _bind(small.target, small.value, found)
        elif isinstance(small, cst.AugAssign):
            _bind(small.target, None, found)
    return found


def _bind(target: cst.BaseExpression, value: cst.BaseExpression | None, out: list[Binding]) -> None:
    if isinstance(target, cst.Name):
        out.append(Binding(target.value, target, value))
    elif isinstance(target, (cst.Tuple, cst.List)):
        values: list[cst.BaseExpression | None] = [None] * len(target.elements)
        if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(values):
            if not any(isinstance(e, cst.StarredElement) for e in value.elements):
                values = [e.value for e in value.elements]
        for element, element_value in zip(target.elements, values):
            if not isinstance(element, cst.StarredElement):
                _bind(element.value, element_value, out)


# -- name resolution ----------------------------------------------------------


class Resolver:
    """Module and class scopes of one module, and memoised, cycle-safe lookups.

    ``classes(name)`` finds class definitions by (dotted) name; ``line(node)``
    gives a node's line for messages.
    """

    def __init__(
        self,
        module: cst.Module,
        classes: Callable[[str], list[cst.ClassDef]],
        line: Callable[[cst.CSTNode], int],
    ) -> None:
        self.module, self.classes, self.line = module, classes, line
        self.module_bindings = bindings(module.body)
        self.imports = Imports(module)
        self.unwrap: tuple[str, ...] = ()
        self._scopes: dict[int, dict[str, list[Binding]]] = {}
        self._values: dict[tuple[int, tuple[str, ...]], Value] = {}
        self._resolving: set[int] = set()

    @contextmanager
    def unwrapping(self, names: tuple[str, ...]) -> Iterator[None]:
        """Evaluate with ``names`` (the fact's ``unwrap:``) read through, inside the block."""
        outer, self.unwrap = self.unwrap, names
        try:
            yield
        finally:
            self.unwrap = outer

    def scope(self, klass: cst.ClassDef | None) -> dict[str, list[Binding]]:
        """Name -> bindings, of the module (``None``) or of a class body."""
        key = id(klass)
        if key not in self._scopes:
            found = self.module_bindings if klass is None else class_bindings(klass)
            table: dict[str, list[Binding]] = {}
            for binding in found:
                table.setdefault(binding.name, []).append(binding)
            self._scopes[key] = table
        return self._scopes[key]

    def evaluate(self, node: cst.BaseExpression, klass: cst.ClassDef | None = None) -> Value:
        """The value of ``node``; names resolve in ``klass``'s body, then the module."""
        return Evaluator(self.module, lambda name: self.resolve(name, klass), self.unwrap).value(node)

    def resolve(self, name: str, klass: cst.ClassDef | None = None) -> Value:
        binding, owner = self._binding(name, klass)
        key = id(binding.target)
        if (key, self.unwrap) in self._values:
            return self._values[key, self.unwrap]
        if key in self._resolving:
            raise EvalError(f"{name} is defined in terms of itself")
        if binding.value is None:
            raise EvalError(f"{name} (line {self.line(binding.target)}) is not a plain assignment")
        self._resolving.add(key)
        try:
            value = self.evaluate(binding.value, owner)
        finally:
            self._resolving.discard(key)
        self._values[key, self.unwrap] = value
        return value

    def _binding(self, name: str, klass: cst.ClassDef | None) -> tuple[Binding, cst.ClassDef | None]:
        if "." in name:
            owner_name, name = name.rsplit(".", 1)
            owners = self.classes(owner_name)
            if len(owners) != 1:
                raise EvalError(f"{owner_name} is not a single class of this file")
            klass = owners[0]
        elif klass is not None and name not in self.scope(klass):
            klass = None
        found = self.scope(klass).get(name, [])
        if len(found) != 1:
            origin = self.imports.origin(name) if not found and klass is None else None
            source = (origin[:-len(name) - 1] if origin and origin.endswith("." + name) else "") or origin
            where = ("assigned more than once" if found else f"imported from {source}, not a constant of this file"
                     if origin else "not a constant of this file")
            raise EvalError(f"{name} is {where}")
        return found[0], klass


def class_bindings(klass: cst.ClassDef) -> list[Binding]:
    return bindings(block_statements(klass.body))
