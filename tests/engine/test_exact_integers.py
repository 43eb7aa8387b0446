"""Integers stay exact from source to document: past 2**53 a float would make
9007199254740992 equal 9007199254740993."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from driftguard.cli import main
from driftguard.config.specs import Constant
from driftguard.model import Kind, Value
from driftguard.quantities import format_like, read_value
from driftguard.sources import load_reader
from tests.helpers import write_tree

BIG = 2**53 + 1


def _python(expr: str) -> Value:
    reader = load_reader("driftguard.sources.python")
    return reader.extract(reader.parse("a.py", f"A = {expr}\n"), Constant(name="A"), "a.py")[0].value


def _go(expr: str) -> Value:
    reader = load_reader("driftguard.sources.go")
    return reader.extract(reader.parse("a.go", f"package p\n\nconst A = {expr}\n"), Constant(name="A"), "a.go")[0].value


@pytest.mark.parametrize("expr, want", [
    ("2**53+1", BIG), ("10 ** 30", 10**30), ("9007199254740993", BIG), ("0x20000000000001", BIG),
    ("(1 << 53) + 1", BIG), ("-7 // 2", -4), ("2**53 * 3 - 1", 3 * 2**53 - 1),
])
def test_python_integer_arithmetic_is_exact(expr, want):
    value = _python(expr)
    assert type(value.data) is int and value.data == want


@pytest.mark.parametrize("expr, want", [("7 / 2", 3.5), ("2 ** -1", 0.5), ("1.5 * 2", 3.0)])
def test_python_true_division_and_floats_stay_floats(expr, want):
    value = _python(expr)
    assert type(value.data) is float and value.data == want


@pytest.mark.parametrize("expr", ["1<<53 + 1", "9007199254740993", "0x20000000000001", "1<<53 | 1"])
def test_go_integer_constants_are_exact(expr):
    value = _go(expr)
    assert type(value.data) is int and value.data == BIG
    assert value.canonical == "9007199254740993"


def test_a_document_one_off_a_large_integer_differs():
    assert not read_value("9007199254740992").same(_go("1<<53 + 1"))
    assert read_value("9007199254740993").same(_go("1<<53 + 1"))
    assert read_value("9,007,199,254,740,993").same(_python("2**53+1"))


def test_floats_still_compare_within_rounding():
    assert Value(Kind.NUMBER, 0.1 + 0.2).same(Value(Kind.NUMBER, 0.3))
    assert Value(Kind.NUMBER, 3).same(Value(Kind.NUMBER, 3.0))
    assert not Value(Kind.NUMBER, 10**400).same(Value(Kind.NUMBER, 1e308))


@given(st.integers(min_value=-(10**40), max_value=10**40))
def test_every_integer_reads_back_exactly_and_differs_from_its_neighbour(n):
    value = read_value(str(n))
    assert type(value.data) is int and value.data == n
    assert not value.same(Value(Kind.NUMBER, n + 1))
    assert read_value(format_like(Value(Kind.NUMBER, n + 1), value)).data == n + 1


def test_check_fails_on_a_document_one_off_and_fix_writes_the_exact_value(tmp_path: Path, capsys):
    root = write_tree(tmp_path, {
        "limits.go": "package p\n\nconst MaxID = 1<<53 + 1\n",
        "docs/limits.md": "# Limits\n\nIDs go up to 9007199254740992.\n",
        "driftguard.yaml": """
            version: 1
            facts:
              max_id: {file: limits.go, constant: MaxID}
            rules:
              - {id: max-id, fact: max_id, doc: docs/limits.md, phrase: 'up to {value}'}
        """,
    })
    cwd = Path.cwd()
    os.chdir(root)
    try:
        assert main(["check"]) == 1
        out = capsys.readouterr().out
        assert "docs/limits.md:3" in out and "9007199254740992" in out and "9007199254740993" in out
        assert main(["fix"]) == 0
        assert (root / "docs/limits.md").read_text() == "# Limits\n\nIDs go up to 9007199254740993.\n"
        assert main(["check"]) == 0
    finally:
        os.chdir(cwd)
