"""The Python reader (libcst): every selector, the evaluation table, positions and errors."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.config.specs import Call, Constant, Constants, MapKeys, Pattern, StringMethod
from driftguard.model import AmbiguousFact, FactNotFound, Kind, ParseError, PatternError, Value
from driftguard.sources import python as reader

N, D, S, B = Kind.NUMBER, Kind.DURATION, Kind.STRING, Kind.BOOL
PATH = "pkg/mod.py"


def read(source: str, selector):
    return reader.extract(reader.parse(PATH, textwrap.dedent(source)), selector, PATH)


def values(source: str, selector) -> list:
    return [item.value.data for item in read(source, selector)]


def lines(source: str, selector) -> list[int]:
    return [item.location.line for item in read(source, selector)]


STATES = """\
from enum import Enum, auto

# class SessionState(Enum):  OLD = "OLD"
class SessionState(str, Enum):
    \"\"\"The states.\"\"\"

    RESOLVING = "RESOLVING"  # first
    # STALE = "STALE"
    READING = "READING"
    WRITING: str = "WRITING"
    VERIFYING = "VERIFY" "ING"
    _ignore_ = ["scratch"]
    scratch = 1
    _order_ = "x"
    __slots__ = ()
    label: str
    helper = property(lambda self: 1)

    def describe(self) -> str:
        inner = "not a member"
        return inner
"""


# -- constants {type} -------------------------------------------------------


def test_enum_members_values_lines_and_columns():
    items = read(STATES, Constants(type="SessionState"))
    assert [i.value.data for i in items] == ["RESOLVING", "READING", "WRITING", "VERIFYING"]
    assert [i.location.line for i in items] == [7, 9, 10, 11]
    assert {i.location.column for i in items} == {5}
    assert all(i.location.path == PATH and i.value.kind is S for i in items)
    assert items[3].value.text == '"VERIFY" "ING"'


def test_enum_member_names():
    assert values(STATES, Constants(type="SessionState", values="names")) == [
        "RESOLVING", "READING", "WRITING", "VERIFYING"]


def test_enum_members_filtered_by_name_and_nested_class():
    src = """\
    from enum import IntEnum
    class Outer:
        class Level(IntEnum):
            LOW = 1
            HIGH = LOW + 9
            EXTRA_HIGH = 100
    """
    assert values(src, Constants(type="Level")) == [1.0, 10.0, 100.0]
    assert values(src, Constants(type="Outer.Level", name="HIGH$")) == [10.0, 100.0]


def test_enum_auto_cannot_be_evaluated_but_names_can():
    src = "import enum\nclass K(enum.Enum):\n    A = enum.auto()\n    B = auto()\n"
    with pytest.raises(FactNotFound, match=r"A \(line 3\) is auto\(\).*values: names"):
        read(src, Constants(type="K"))
    assert values(src, Constants(type="K", values="names")) == ["A", "B"]


def test_enum_member_values_deduplicated_keeping_first():
    src = "class K(Enum):\n    A = 'x'\n    B = 'y'\n    ALIAS = 'x'\n"
    assert lines(src, Constants(type="K")) == [2, 3]


@pytest.mark.parametrize("src, error, message", [
    ("X = 1\n", FactNotFound, "no class SessionState"),
    ("class SessionState(Enum):\n    pass\n", FactNotFound, "has no members"),
    ("class SessionState(Enum):\n    A = [1]\n", FactNotFound, r"A \(line 2\) cannot be evaluated"),
    ("class SessionState(Enum):\n    A = 1\nclass SessionState(Enum):\n    B = 2\n", AmbiguousFact,
     r"2 classes are named SessionState \(lines 1, 3\)"),
])
def test_enum_selector_failures(src, error, message):
    with pytest.raises(error, match=message) as caught:
        read(src, Constants(type="SessionState"))
    assert caught.value.location.path == PATH


# -- constants {name} ---------------------------------------------------------


CODES = """\
AGENT_CODE_A = "resource_not_found"
# AGENT_CODE_OLD = "retired"
AGENT_CODE_B: str = "raw_command_retired"
OTHER = "x"
_AGENT_CODE_C = AGENT_CODE_A

def f():
    AGENT_CODE_LOCAL = "local"

class Holder:
    AGENT_CODE_IN_CLASS = "in_class"
"""


def test_module_constants_by_name_pattern():
    assert values(CODES, Constants(name="^AGENT_CODE")) == ["resource_not_found", "raw_command_retired"]
    assert lines(CODES, Constants(name="^AGENT_CODE")) == [1, 3]
    assert values(CODES, Constants(name="AGENT_CODE", values="names")) == [
        "AGENT_CODE_A", "AGENT_CODE_B", "_AGENT_CODE_C"]


def test_module_constants_by_name_failures():
    with pytest.raises(FactNotFound, match="no module-level assignment matches"):
        read(CODES, Constants(name="^NOTHING"))
    with pytest.raises(PatternError, match="does not compile"):
        read(CODES, Constants(name="(unclosed"))
    with pytest.raises(FactNotFound, match=r"X \(line 1\) cannot be evaluated"):
        read("X = compute()\n", Constants(name="X"))


# -- constant: the evaluation table -----------------------------------------

ENV = """\
from datetime import timedelta
import datetime
BASE = 4
TTL = timedelta(minutes=10)
NAME = "pulse"
class Limits:
    CAP = 8
"""

EVALUATIONS = [
    ("75.0", N, 75.0), ("10", N, 10.0), ("1_000", N, 1000.0), ("0x10", N, 16.0), ("-5", N, -5.0),
    ("+5", N, 5.0), ("2 * (3 + 4)", N, 14.0), ("7 // 2", N, 3.0), ("7 % 4", N, 3.0), ("7 / 2", N, 3.5),
    ("2 ** 10", N, 1024.0), ("10 - 2 - 3", N, 5.0), ("BASE * 2", N, 8.0), ("Limits.CAP + 1", N, 9.0),
    ('"ab" "cd"', S, "abcd"), ('"ab" + "cd"', S, "abcd"), ("NAME + '_query'", S, "pulse_query"),
    ("r'\\d'", S, "\\d"), ("True", B, True), ("False", B, False),
    ("timedelta(minutes=10)", D, 600.0), ("datetime.timedelta(hours=48)", D, 172800.0),
    ("timedelta(2)", D, 172800.0), ("timedelta(days=1, seconds=30)", D, 86430.0),
    ("timedelta(milliseconds=250)", D, 0.25), ("timedelta(microseconds=5)", D, 5e-6),
    ("timedelta(weeks=1)", D, 604800.0), ("timedelta(hours=1.5)", D, 5400.0),
    ("3 * timedelta(minutes=5)", D, 900.0), ("timedelta(hours=1) * 2", D, 7200.0),
    ("timedelta(hours=1) + timedelta(minutes=30)", D, 5400.0), ("TTL - timedelta(minutes=4)", D, 360.0),
    ("timedelta(hours=1) / 4", D, 900.0), ("timedelta(hours=1) / timedelta(minutes=1)", N, 60.0),
    ("timedelta(hours=1) // timedelta(minutes=7)", N, 8.0), ("-timedelta(seconds=5)", D, -5.0),
    ("TTL * BASE", D, 2400.0), ("timedelta(minutes=1) // 7", D, 8.571428), ("(\n    2\n    * BASE\n)", N, 8.0),
]


@pytest.mark.parametrize("expr, kind, data", EVALUATIONS)
def test_evaluation_table(expr, kind, data):
    src = ENV + f"VALUE = {expr}\n"
    (item,) = read(src, Constant("VALUE"))
    assert item.value == Value(kind, data)
    assert item.location.line == ENV.count("\n") + 1 and item.location.column == 1


@pytest.mark.parametrize("expr", [
    "timedelta(minutes=1) + 5", "1 / 0", "compute()", "None", "f'x{NAME}'", "b'x'", "UNKNOWN",
    "timedelta(fortnights=1)", "timedelta(days=1, days=2)", "'a' * 3", "1e999", "[1, 2]", "'a' + 1",
    "True + 1", "2 ** 5000", "lambda: 1", "timedelta(hours='1')", "-'a'",
])
def test_unevaluable_expressions_are_fact_not_found(expr):
    with pytest.raises(FactNotFound, match="VALUE .* cannot be evaluated"):
        read(ENV + f"VALUE = {expr}\n", Constant("VALUE"))


def test_constant_text_is_the_folded_source_and_names_keep_their_spelling():
    src = ENV + "A = (TTL\n     * 2)\nB = TTL\nC = NAME\n"
    assert read(src, Constant("A"))[0].value.text == "(TTL * 2)"
    assert read(src, Constant("B"))[0].value.text == "timedelta(minutes=10)"
    assert read(src, Constant("C"))[0].value.text == '"pulse"'


def test_class_constant_and_recursion():
    src = "A = B + 1\nB = 2\nclass Loop:\n    CAP = A * 2\n    MORE = CAP + 1\n"
    assert values(src, Constant("Loop.MORE")) == [7.0]
    assert lines(src, Constant("Loop.CAP")) == [4]


@pytest.mark.parametrize("src, error, message", [
    ("A = B\nB = A\n", FactNotFound, "defined in terms of itself"),
    ("A = A + 1\n", FactNotFound, "defined in terms of itself"),
    ("OTHER = 1\n", FactNotFound, "no assignment to A at the module's top level"),
    ("def f():\n    A = 1\n", FactNotFound, "no assignment to A"),
    ("A = 1\nif x:\n    pass\nA = 2\n", AmbiguousFact, r"A is assigned 2 times \(lines 1, 4\)"),
    ("A = 1\nA += 1\n", AmbiguousFact, r"lines 1, 2"),
    ("A, B = f()\n", FactNotFound, "not a plain assignment"),
    ("X = 1\nX = 2\nA = X\n", FactNotFound, "X is assigned more than once"),
])
def test_constant_failures(src, error, message):
    with pytest.raises(error, match=message):
        read(src, Constant("A"))


def test_unpacking_and_chained_assignment():
    src = "A, B = 1, 'two'\nC = D = 3\n"
    assert values(src, Constant("B")) == ["two"]
    assert values(src, Constant("D")) == [3.0]
    assert lines(src, Constant("C")) == [2]


@settings(deadline=None, max_examples=60)
@given(st.recursive(
    st.integers(min_value=-50, max_value=50).map(str),
    lambda inner: st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner)
    .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    max_leaves=8,
))
def test_arithmetic_matches_python(expr):
    try:
        expected = eval(expr)  # noqa: S307 - generated integer arithmetic only
    except ZeroDivisionError:
        with pytest.raises(FactNotFound):
            read(f"X = {expr}\n", Constant("X"))
        return
    assert values(f"X = {expr}\n", Constant("X")) == [float(expected)]


@settings(deadline=None, max_examples=60)
@given(st.dictionaries(
    st.sampled_from(["weeks", "days", "hours", "minutes", "seconds", "milliseconds"]),
    st.integers(min_value=0, max_value=1000), min_size=1,
))
def test_timedelta_matches_the_standard_library(kwargs):
    call = "timedelta(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")"
    (item,) = read(f"X = {call}\n", Constant("X"))
    assert item.value.kind is D
    assert item.value.same(Value(D, timedelta(**kwargs).total_seconds()))


# -- string_method ------------------------------------------------------------


def test_str_with_match_excludes_the_default_and_the_fallback():
    src = """\
    class ToolKind(Enum):
        def __str__(self) -> str:
            match self:
                case ToolKind.RESOLVE:
                    return "resolve"
                case ToolKind.READ | ToolKind.PEEK:
                    return "read"
                case ToolKind.WRITE if self.ok:
                    return "write"
                case _:
                    return "unknown"
            # return "commented"
            return "fallback"
    """
    assert values(src, StringMethod("ToolKind")) == ["resolve", "read", "write"]
    assert lines(src, StringMethod("ToolKind")) == [5, 7, 9]


def test_str_with_if_chain_excludes_else_and_fallback_and_nested_functions():
    src = """\
    class Kind:
        def __str__(self):
            def helper():
                return "inner"
            if self is Kind.A:
                return 'a'
            elif self is Kind.B:
                return "b"
            else:
                return "other"
            if self is Kind.C: return "c"
            return "unknown"
    """
    assert values(src, StringMethod("Kind")) == ["a", "b", "c"]


def test_str_returning_self_value_or_name_of_an_enum():
    src = """\
    class ToolKind(Enum):
        RESOLVE = "resolve"
        USER_INPUT = "user_input"
        def __str__(self) -> str:
            return self.value
    class Named(Enum):
        A = 1
        def __str__(self):
            return self.name
    """
    items = read(src, StringMethod("ToolKind"))
    assert [i.value.data for i in items] == ["resolve", "user_input"]
    assert [i.location.line for i in items] == [2, 3]
    assert values(src, StringMethod("Named")) == ["A"]


def test_str_with_a_single_return_and_returns_inside_other_blocks():
    src = "class K:\n    def __str__(self):\n        return 'only'\n"
    assert values(src, StringMethod("K")) == ["only"]
    src = "class K:\n    def __str__(self):\n        with lock:\n            return NAME\nNAME = 'named'\n"
    assert values(src, StringMethod("K")) == ["named"]


@pytest.mark.parametrize("src, message", [
    ("class K(Enum):\n    A = 1\n", "defines no __str__"),
    ("class K:\n    def __str__(self):\n        return f'k{self.x}'\n", "returns no string literal"),
    ("class K:\n    value = 1\n    def __str__(self):\n        return self.value\n", "no string literal"),
    ("class J:\n    def __str__(self):\n        return 'j'\n", "no class K"),
])
def test_string_method_failures(src, message):
    with pytest.raises(FactNotFound, match=message):
        read(src, StringMethod("K"))


# -- map_keys -------------------------------------------------------------------


def test_map_keys_strings_names_attributes_and_spread():
    src = """\
    BASE = {"pulse_base": 0}
    REGISTRY: dict[str, object] = {
        "pulse_query": 1,
        # "pulse_old": 2,
        PULSE_READ: 3,
        tools.PULSE_WRITE: 4,
        **BASE,
        "pulse_query": 5,
    }
    """
    items = read(src, MapKeys("REGISTRY"))
    assert [i.value.data for i in items] == ["pulse_query", "PULSE_READ", "PULSE_WRITE", "pulse_base"]
    assert [(i.location.line, i.location.column) for i in items] == [(3, 5), (5, 5), (6, 5), (1, 9)]


def test_map_keys_through_a_wrapper_and_in_a_class():
    src = "import types\nM = types.MappingProxyType({'a': 1, 2: 'b'})\nclass C:\n    T = {'x': 1}\n"
    assert values(src, MapKeys("M")) == ["a", 2.0]
    assert values(src, MapKeys("C.T")) == ["x"]


@pytest.mark.parametrize("src, error, message", [
    ("M = [1, 2]\n", FactNotFound, r"M \(line 1\) is not a dict literal"),
    ("M = {}\n", FactNotFound, "empty dict"),
    ("N = {}\n", FactNotFound, "no assignment to M"),
    ("M = {f(): 1}\n", FactNotFound, "a key of M"),
    ("M = {'a': 1}\nM = {'b': 1}\n", AmbiguousFact, "lines 1, 2"),
    ("M = {**M}\n", FactNotFound, r"M \(line 1\) includes itself"),
    ("M = {**N}\nN = {**M}\n", FactNotFound, r"N \(line 2\) includes itself"),
    ("M = {**f()}\n", FactNotFound, "unpacks something that is not a name"),
])
def test_map_keys_failures(src, error, message):
    with pytest.raises(error, match=message):
        read(src, MapKeys("M"))


# -- call -----------------------------------------------------------------------

LOOP = """\
import asyncio
import threading
MAX_PARALLEL_TOOLS = 4

def make(*args): ...

class AgenticLoop:
    async def run(self, calls):
        gate = asyncio.Semaphore(MAX_PARALLEL_TOOLS)
        lock = threading.Semaphore(1)
        buf = make(list, len(calls))
        chan = make("chan  struct{}", 8)

        async def one(call):
            return make(  "chan struct{}",  16)

    def other(self):
        return make("chan struct{}", 2)
"""


@pytest.mark.parametrize("selector, data, line", [
    (Call("asyncio.Semaphore"), 4.0, 9),
    (Call("threading.Semaphore"), 1.0, 10),
    (Call("make", within="other", arg=1), 2.0, 18),
    (Call("make", within="AgenticLoop.other", where=((0, '"chan struct{}"'),), arg=1), 2.0, 18),
    (Call("make", within="run", where=((1, "8"),), arg=1), 8.0, 12),
    (Call("make", within="one", arg=1), 16.0, 15),
    (Call("make", within="AgenticLoop.run.one", where=((0, ' "chan struct{}" '),), arg=1), 16.0, 15),
])
def test_call_arguments(selector, data, line):
    (item,) = read(LOOP, selector)
    assert item.value == Value(N, data)
    assert item.location.line == line


def test_call_within_a_class_covers_its_methods():
    assert values(LOOP, Call("Semaphore", within="AgenticLoop", where=((0, "1"),))) == [1.0]
    with pytest.raises(AmbiguousFact, match="lines 9, 10"):
        read(LOOP, Call("Semaphore", within="AgenticLoop"))


def test_call_string_argument():
    (item,) = read(LOOP, Call("make", within="run", where=((1, "8"),)))
    assert item.value == Value.string("chan  struct{}") and item.value.text == '"chan  struct{}"'


def test_call_argument_text_and_column():
    (item,) = read(LOOP, Call("asyncio.Semaphore"))
    assert item.value.text == "4"
    assert item.location.column == LOOP.splitlines()[8].index("MAX_PARALLEL_TOOLS") + 1


@pytest.mark.parametrize("selector, error, message", [
    (Call("Semaphore"), AmbiguousFact, r"2 calls match the call of Semaphore \(lines 9, 10\)"),
    (Call("make", within="AgenticLoop.run", arg=1), AmbiguousFact, r"lines 11, 12, 15"),
    (Call("make", within="missing"), FactNotFound, "no function, method or class missing"),
    (Call("asyncio.Semaphore", arg=1), FactNotFound, "with an argument 1"),
    (Call("make", within="run", where=((0, "dict"),)), FactNotFound, "no call of make in run"),
    (Call("make", within="run", where=((0, '"chan struct{}"'),), arg=1), AmbiguousFact, "lines 12, 15"),
    (Call("make", within="run", where=((0, "list"),), arg=1), FactNotFound,
     r"argument 1 of the call of make in run \(line 11\) cannot be evaluated"),
    (Call("Lock"), FactNotFound, "no call of Lock"),
])
def test_call_failures(selector, error, message):
    with pytest.raises(error, match=message):
        read(LOOP, selector)


def test_call_outside_the_named_function_and_in_comments_is_not_read():
    src = "# gate = Semaphore(9)\nA = Semaphore(3)\ndef f():\n    '''Semaphore(7)'''\n    return Semaphore(5)\n"
    assert values(src, Call("Semaphore", within="f")) == [5.0]
    with pytest.raises(AmbiguousFact, match="lines 2, 5"):
        read(src, Call("Semaphore"))


# -- parsing, positions, isolation ----------------------------------------------


@pytest.mark.parametrize("src, line, column", [
    ("X = 1\ndef f(:\n    pass\n", 2, 7),
    ("X = (\n", 1, 5),
    ("X = 1\n  Y = 2\n", 2, None),
    ("A = 1\nB = a\x00b\n", 2, 6),
])
def test_syntax_error_is_a_parse_error_with_line_and_column(src, line, column):
    with pytest.raises(ParseError) as caught:
        reader.parse(PATH, src)
    assert caught.value.location.line == line
    if column is not None:
        assert caught.value.location.column == column
    assert PATH in caught.value.message
    assert caught.value.kind == "parse-error"


def test_fast_positions_match_libcsts_position_provider():
    import libcst as cst

    class Every(cst.CSTVisitor):
        def __init__(self) -> None:
            self.nodes: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, (cst.BaseExpression, cst.Arg, cst.DictElement)) and not (
                isinstance(node, cst.Tuple) and not node.elements  # libcst places `()` inside
            ):
                self.nodes.append(node)
            return True

    tree = reader.parse(PATH, STATES + LOOP + "\r\nX = {\r\n  'a': 1}\r\nif X:\r\n\tY = 2\r\n" + CODES)
    every = Every()
    tree.module.visit(every)
    fast = [tree.position(node) for node in every.nodes]
    fast_calls = [tree.position(c) for c in tree.all_calls()]
    tree._index_with_metadata()
    assert [tree.position(node) for node in every.nodes] == fast
    assert [tree.position(c) for c in tree.all_calls()] == fast_calls
    assert len(fast) > 100 and len(fast_calls) == 8


@pytest.mark.parametrize("source", [
    "X = " + "+".join(["1"] * 1500) + "\n",
    "X = " + "[" * 300 + "]" * 300 + "\n",
])
def test_deeply_nested_source_is_a_parse_error_not_a_crash(source):
    with pytest.raises(ParseError, match="the Python parser cannot take safely") as caught:
        read(source, Constant("X"))
    assert caught.value.location.path == PATH


def test_too_many_indentation_levels_is_a_parse_error():
    source = "".join("    " * i + "if a:\n" for i in range(101)) + "    " * 101 + "X = 1\n"
    with pytest.raises(ParseError, match="indentation"):
        reader.parse(PATH, source)


def test_pattern_selector_on_a_python_file_reads_the_text():
    found = values(CODES, Pattern(r'AGENT_CODE_\w+ = "(\w+)"'))
    assert found == ["resource_not_found", "retired", "local", "in_class"]  # raw text: comments too


def test_text_reader_and_package_do_not_import_libcst():
    code = (
        "import sys, driftguard.sources, driftguard.sources.text as t; "
        "t.extract(t.parse('a.txt', 'x=1'), driftguard.config.specs.Pattern('x=(\\\\d)'), 'a.txt'); "
        "assert 'libcst' not in sys.modules, 'libcst imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
