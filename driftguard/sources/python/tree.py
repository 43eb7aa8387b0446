"""The parsed Python file: a libcst module, its definitions, and positions.

``parse`` builds a ``PyTree``. Comments are never nodes in libcst, so
commented-out code is never read. Positions come from one code generation pass
per tree, cached on it (several times cheaper than libcst's
``PositionProvider``). Module constants are the assignments at the top level of
the module; classes and functions are found at any depth.
"""

from __future__ import annotations

import ast
import bisect
import warnings
from collections.abc import Sequence
from itertools import accumulate
from typing import cast

import libcst as cst

from driftguard.model import Location, ParseError
from driftguard.sources.python.bounds import check_bounds
from driftguard.sources.python.evaluate import block_statements, nested_blocks
from driftguard.sources.python.scopes import Resolver
from driftguard.text import line_starts

try:  # the hook libcst's own PositionProvider is built on
    from libcst._nodes.internal import CodegenState as _CodegenState
except ImportError:  # pragma: no cover - a libcst without it: the public metadata API
    _CodegenState = None  # type: ignore[assignment,misc]  # the public metadata API serves instead


def parse(path: str, text: str) -> PyTree:
    """Parse ``text``; a syntax error raises ``ParseError`` at its line and column, and so
    does a shape the parser cannot take safely (``bounds``)."""
    check_bounds(path, text)
    try:
        return PyTree(path, text, cst.parse_module(text))
    except cst.ParserSyntaxError as exc:
        line, column, reason = _syntax_error(text, exc)
        raise ParseError(f"{path} is not valid Python: {reason}", Location(path, line, column)) from None
    except (RecursionError, MemoryError):
        raise ParseError(f"{path} is nested too deeply to parse", Location(path)) from None


def _syntax_error(text: str, exc: cst.ParserSyntaxError) -> tuple[int, int, str]:
    """CPython's position and wording where it rejects the text too (it points
    at the culprit more often), else libcst's own."""
    nul = text.find("\x00")
    if nul >= 0:  # libcst's tokenizer places it at the start of the file
        line = text.count("\n", 0, nul) + 1
        return line, nul - (text.rfind("\n", 0, nul) + 1) + 1, "a NUL byte is not valid in Python source"
    try:
        with warnings.catch_warnings():  # the user's SyntaxWarnings are not ours to print
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as err:
        if err.lineno:
            return err.lineno, max(err.offset or 1, 1), err.msg
    except (ValueError, RecursionError, MemoryError):
        pass
    return exc.raw_line, exc.raw_column + 1, exc.message


class PyTree:
    """A parsed module with its positions, definitions and scopes, each built
    on first use and kept, so every selector on the file shares them."""

    def __init__(self, path: str, text: str, module: cst.Module) -> None:
        self.path, self.text, self.module = path, text, module
        self.names = Resolver(module, self.classes, self.line)
        self._defs: tuple[list[tuple[str, cst.ClassDef]], list[tuple[str, cst.FunctionDef]]] | None = None
        self._marks: dict[int, int] | None = None

    def location(self, node: cst.CSTNode) -> Location:
        line, column = self.position(node)
        return Location(self.path, line, column)

    def line(self, node: cst.CSTNode) -> int:
        return self.position(node)[0]

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        """1-based line and column where the node's code starts."""
        offset = self.offset(node)
        row = bisect.bisect_right(self._line_starts, offset) - 1
        return row + 1, offset - self._line_starts[row] + 1

    def offset(self, node: cst.CSTNode) -> int:
        if self._marks is None:
            self._index_positions()
        marks = cast("dict[int, int]", self._marks)  # _index_positions sets it
        return self._sums[marks[id(node)]]

    def line_at(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        self.offset(self.module)
        return bisect.bisect_right(self._line_starts, offset)

    def end_offset(self, node: cst.FunctionDef | cst.ClassDef) -> int:
        self.offset(node)
        return self._sums[self._ends[id(node)]]

    def all_calls(self) -> list[cst.Call]:
        """Every call in the module, in source order."""
        self.offset(self.module)
        return self._calls

    def _index_positions(self) -> None:
        if _CodegenState is None:  # pragma: no cover
            return self._index_with_metadata()
        state = _MarkingState(self.module.default_indent, self.module.default_newline)
        self.module._codegen(state)
        self._ends, self._calls = state.ends, state.calls
        self._sums = list(accumulate(map(len, state.tokens), initial=0))
        self._set_line_starts("".join(state.tokens))
        self._marks = state.marks

    def _index_with_metadata(self) -> None:
        """The same indexes through libcst's public (slower) ``PositionProvider``."""
        from libcst.metadata import MetadataWrapper, PositionProvider

        ranges = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        self._set_line_starts(self.text)
        rows, count = self._line_starts, len(ranges)
        self._sums = [rows[r.start.line - 1] + r.start.column for r in ranges.values()]
        self._sums += [rows[r.end.line - 1] + r.end.column for r in ranges.values()]
        self._ends = {id(node): i + count for i, node in enumerate(ranges)}
        self._marks = {id(node): i for i, node in enumerate(ranges)}
        calls = [node for node in ranges if isinstance(node, cst.Call)]
        self._calls = sorted(calls, key=self.offset)

    def _set_line_starts(self, code: str) -> None:
        self._line_starts = line_starts(code)

    def classes(self, name: str) -> list[cst.ClassDef]:
        """Classes named ``name``, or whose dotted path ends with it, at any depth."""
        return [node for qualname, node in self._definitions()[0] if _names(qualname, name)]

    def functions(self, name: str) -> list[cst.FunctionDef]:
        return [node for qualname, node in self._definitions()[1] if _names(qualname, name)]

    def all_classes(self) -> list[cst.ClassDef]:
        """Every class of the module, at any depth, in source order."""
        return [node for _, node in self._definitions()[0]]

    def all_functions(self) -> list[cst.FunctionDef]:
        """Every function and method of the module, at any depth, in source order."""
        return [node for _, node in self._definitions()[1]]

    def owner(self, function: cst.FunctionDef) -> cst.ClassDef | None:
        """The class whose body defines ``function`` (a method), else None."""
        qualname = next(q for q, node in self._definitions()[1] if node is function)
        prefix = qualname.rpartition(".")[0]
        return next((node for q, node in self._definitions()[0] if q == prefix), None)

    def span(self, node: cst.FunctionDef | cst.ClassDef, decorators: bool = False) -> tuple[int, int]:
        """The offsets a definition's body (or, with ``decorators``, the whole definition) spans."""
        return self.offset(node if decorators else node.body), self.end_offset(node)

    def _definitions(self) -> tuple[list[tuple[str, cst.ClassDef]], list[tuple[str, cst.FunctionDef]]]:
        if self._defs is None:
            self._defs = ([], [])
            _collect_definitions(self.module.body, "", self._defs)
        return self._defs


class _MarkingState(_CodegenState or object):  # type: ignore[misc]  # a base chosen at import time
    """Code generation that notes, per node, how many tokens precede it."""

    __slots__ = ("marks", "ends", "calls")

    def __init__(self, indent: str, newline: str) -> None:
        super().__init__(default_indent=indent, default_newline=newline)
        self.marks: dict[int, int] = {}
        self.ends: dict[int, int] = {}
        self.calls: list[cst.Call] = []

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.marks[id(node)] = len(self.tokens)
        if type(node) is cst.Call:
            self.calls.append(node)

    def after_codegen(self, node: cst.CSTNode) -> None:
        if type(node) is cst.FunctionDef or type(node) is cst.ClassDef:
            self.ends[id(node)] = len(self.tokens)


def _names(qualname: str, name: str) -> bool:
    return qualname == name or qualname.endswith("." + name)


def _collect_definitions(statements: Sequence[cst.CSTNode], prefix: str, out: tuple[list, list]) -> None:
    for statement in statements:
        if isinstance(statement, (cst.ClassDef, cst.FunctionDef)):
            qualname = prefix + statement.name.value
            out[0 if isinstance(statement, cst.ClassDef) else 1].append((qualname, statement))
            _collect_definitions(block_statements(statement.body), qualname + ".", out)
        else:
            for block in nested_blocks(statement):
                _collect_definitions(block, prefix, out)
