"""The Go reader: every selector on the Pulse-shaped fixture tree, and inline
sources for the failing cases (not found, ambiguous, syntax errors on and off
the path to a fact, comments, iota, evaluation)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.config.specs import Call, Constant, Constants, MapKeys, Pattern, Selector, StringMethod
from driftguard.model import AmbiguousFact, ConfigError, FactNotFound, Kind, ParseError, Value
from driftguard.sources import go, load_reader, reader_name
from driftguard.sources.go import reader as go_reader
from driftguard.sources.go.evaluate import Evaluator
from reference_impl.agentcapabilities.errors import AgentErrorCode
from reference_impl.agentcapabilities.tool_response import ToolErrorCode
from tests.work import assert_linear, metered

PULSE = Path(__file__).resolve().parents[1] / "fixtures" / "pulse"
GO_FILES = sorted(p.relative_to(PULSE).as_posix() for p in PULSE.rglob("*.go"))


def read(rel: str, selector: Selector) -> list:
    return go.extract(go.parse(rel, (PULSE / rel).read_text(encoding="utf-8")), selector, rel)


def inline(source: str, selector: Selector, path: str = "x.go") -> list:
    return go.extract(go.parse(path, source), selector, path)


def where(rel: str, needle: str, word: str | None = None) -> tuple[int, int]:
    """(line, column) of ``word`` (default: ``needle``) on the one line containing ``needle``."""
    lines = (PULSE / rel).read_text(encoding="utf-8").splitlines()
    found = [i for i, line in enumerate(lines) if needle in line]
    assert len(found) == 1, f"{needle!r} is on {len(found)} lines of {rel}"
    return found[0] + 1, lines[found[0]].index(word or needle) + 1


def values(items: list) -> list:
    return [i.value.data for i in items]


# -- the fixture tree --------------------------------------------------------


def test_every_fixture_is_valid_go() -> None:
    assert len(GO_FILES) == 11
    for rel in GO_FILES:
        tree = go.parse(rel, (PULSE / rel).read_text(encoding="utf-8"))
        assert not tree.root.has_error, rel


def test_session_states_in_order_at_their_names() -> None:
    rel = "internal/ai/chat/fsm.go"
    items = read(rel, Constants(type="SessionState"))
    assert values(items) == ["RESOLVING", "READING", "WRITING", "VERIFYING"]
    assert all(i.value.kind is Kind.STRING for i in items)
    for item, name in zip(items, ["StateResolving", "StateReading", "StateWriting", "StateVerifying"]):
        line, col = where(rel, f"\t{name} SessionState", name)
        assert (item.location.path, item.location.line, item.location.column) == (rel, line, col)


def test_recovery_ttl_is_a_ten_minute_duration() -> None:
    rel = "internal/ai/chat/fsm.go"
    [item] = read(rel, Constant("RecoveryTTL"))
    assert item.value.kind is Kind.DURATION and item.value.data == 600.0
    assert item.value.text == "10 * time.Minute"
    assert (item.location.line, item.location.column) == where(rel, "const RecoveryTTL", "RecoveryTTL")


def test_tool_kinds_from_the_string_method_without_default() -> None:
    rel = "internal/agentcapabilities/tool_call.go"
    items = read(rel, StringMethod("ToolCallKind"))
    assert values(items) == ["resolve", "read", "write", "user_input"]
    assert "unknown" not in values(items)
    assert (items[3].location.line, items[3].location.column) == where(rel, 'return "user_input"', '"user_input"')


def test_iota_block_with_bare_specs() -> None:
    rel = "internal/agentcapabilities/tool_call.go"
    assert values(read(rel, Constants(type="ToolCallKind"))) == [0.0, 1.0, 2.0, 3.0]
    names = read(rel, Constants(type="ToolCallKind", values="names"))
    assert values(names) == ["ToolCallKindResolve", "ToolCallKindRead", "ToolCallKindWrite", "ToolCallKindUserInput"]
    # a bare spec is located at its own name, on the line after its comment
    assert (names[2].location.line, names[2].location.column) == (where(rel, "// ToolCallKindWrite changes")[0] + 1, 2)


def test_signal_types() -> None:
    items = read("internal/ai/patrol_signals.go", Constants(type="SignalType"))
    assert values(items) == ["smart_failure", "high_cpu", "high_memory", "high_disk",
                             "backup_failed", "backup_stale", "guest_unreachable"]


@pytest.mark.parametrize(("name", "kind", "data"), [
    ("signalStorageWarningPercent", Kind.NUMBER, 75.0),
    ("signalStorageCriticalPercent", Kind.NUMBER, 95.0),
    ("signalHighCPUPercent", Kind.NUMBER, 70.0),
    ("signalHighMemoryPercent", Kind.NUMBER, 80.0),
    ("signalBackupStaleThreshold", Kind.DURATION, 48 * 3600.0),
])
def test_signal_thresholds_in_a_gofmt_aligned_block(name: str, kind: Kind, data: float) -> None:
    rel = "internal/ai/patrol_signals.go"
    [item] = read(rel, Constant(name))
    assert item.value.kind is kind and item.value.data == data
    assert (item.location.line, item.location.column) == where(rel, f"\t{name} ", name)


@pytest.mark.parametrize(("name", "kind", "data"), [
    ("investigationCooldown", Kind.DURATION, 3600.0),
    ("investigationTimeoutCooldown", Kind.DURATION, 600.0),
    ("maxInvestigationAttempts", Kind.NUMBER, 3.0),  # not the commented-out 5
])
def test_investigation_limits_ignore_comments(name: str, kind: Kind, data: float) -> None:
    rel = "internal/ai/findings.go"
    [item] = read(rel, Constant(name))
    assert item.value.kind is kind and item.value.data == data
    assert item.location.line == where(rel, f"\t{name} ", name)[0]


def test_look_gate_bound() -> None:
    rel = "internal/ai/chat/agentic.go"
    [item] = read(rel, Constant("maxLookGateBlocks"))
    assert item.value == Value(Kind.NUMBER, 2.0)
    assert item.location.line == where(rel, "const maxLookGateBlocks")[0]


@pytest.mark.parametrize("within", ["executeWithTools", "AgenticLoop.executeWithTools"])
def test_concurrency_cap_from_the_make_call(within: str) -> None:
    rel = "internal/ai/chat/agentic.go"
    [item] = read(rel, Call("make", arg=1, within=within, where=((0, "chan struct{}"),)))
    assert item.value == Value(Kind.NUMBER, 4.0)
    assert (item.location.line, item.location.column) == where(rel, "sem := make(chan struct{}, 4)", "4)")


def test_make_call_without_within_is_ambiguous() -> None:
    rel = "internal/ai/chat/agentic.go"
    with pytest.raises(AmbiguousFact) as err:
        read(rel, Call("make", arg=1, where=((0, "chan struct{}"),)))
    sem = where(rel, "sem := make(chan struct{}, 4)")[0]
    stop = where(rel, "stop := make(chan struct{}, 1)")[0]
    assert f"lines {sem}, {stop}" in err.value.message


def test_make_call_in_another_function_and_unevaluable_argument() -> None:
    rel = "internal/ai/chat/agentic.go"
    [item] = read(rel, Call("make", arg=1, within="heartbeat", where=((0, "chan struct{}"),)))
    assert item.value.data == 1.0
    with pytest.raises(FactNotFound) as err:
        read(rel, Call("make", arg=1, within="executeWithTools", where=((0, "[]ToolResult"),)))
    assert "len(calls)" in err.value.message
    assert err.value.location.line == where(rel, "results := make([]ToolResult, len(calls))")[0]


def test_agent_error_codes_match_the_reference() -> None:
    rel = "internal/agentcapabilities/errors.go"
    items = read(rel, Constants(name="^AgentErrCode"))
    # the fixture mirrors an older upstream errors.go (45 codes); HEAD (c313a80da) has two
    # more, which the reference keeps at HEAD's places
    newer = {"action_execution_availability_failed", "action_refresh_not_allowed"}
    assert values(items) == [c.value for c in AgentErrorCode if c.value not in newer]
    assert len(items) == 45
    assert items[-1].value.data == "raw_command_retired"  # written as a raw string
    assert items[-1].value.text == "`raw_command_retired`"
    names = read(rel, Constants(name="^AgentErrCode", values="names"))
    assert values(names)[:2] == ["AgentErrCodeResourceNotFound", "AgentErrCodeOperatorStateNotSet"]


def test_tool_error_codes_match_the_reference() -> None:
    items = read("internal/agentcapabilities/tool_response.go", Constants(name="^ErrCode"))
    assert values(items) == [c.value for c in ToolErrorCode]
    assert "RATE_LIMITED" not in values(items)


def test_tool_names_across_comment_lines() -> None:
    items = read("internal/agentcapabilities/tool_names.go", Constants(name="ToolName$"))
    got = values(items)
    assert len(got) == 32
    assert {"pulse_query", "patrol_get_findings", "patrol_propose_action", "pulse_question"} <= set(got)
    assert "pulse_delete_guest" not in got


def test_registry_map_keys_are_identifier_names() -> None:
    rel = "internal/agentcapabilities/invocation.go"
    items = read(rel, MapKeys("registryInvocationDescriptors"))
    got = values(items)
    assert len(got) == 16
    assert got[0] == "PulseQueryToolName" and got[-1] == "PatrolResolveFindingToolName"
    assert "get" not in got and "PatrolAssessFindingToolName" not in got  # nested key; commented out
    assert (items[8].location.line, items[8].location.column) == where(rel, "\tPulseDiscoveryToolName: {", "Pulse")


def test_the_engine_routes_go_files_here() -> None:
    assert load_reader(reader_name("a/b.go", Constant("X"))) is go


# -- not found, ambiguous ----------------------------------------------------

SMALL = """
package x

type T string

const (
	A T = "a"
	B T = "b"
)

const Limit = 5

func (t T) String() string {
	switch t {
	case A:
		return "first"
	}
	return "other"
}

func run() {
	ch := make(chan int, Limit)
	_ = ch
}
"""


@pytest.mark.parametrize(("selector", "words"), [
    (Constants(type="U"), "consts of type U"),
    (Constants(name="^Nope"), "/^Nope/"),
    (Constant("Missing"), "const Missing"),
    (StringMethod("U"), "String method of U"),
    (MapKeys("table"), "map literal bound to table"),
    (Call("make", arg=1, within="walk"), "function or method walk"),
    (Call("make", arg=1, within="run", where=((0, "chan bool"),)), "call of make within run"),
    (Call("close", within="run"), "call of close"),
])
def test_fact_not_found_says_what_was_looked_for(selector: Selector, words: str) -> None:
    with pytest.raises(FactNotFound) as err:
        inline(SMALL, selector)
    assert words in err.value.message
    assert err.value.location is not None and err.value.location.path == "x.go"


def test_a_selector_the_go_reader_lacks_is_a_config_error_naming_what_it_reads() -> None:
    with pytest.raises(ConfigError) as err:
        inline(SMALL, Pattern(regex="(x)"))
    assert "the Go reader does not read `pattern`" in err.value.message and "`flags`" in err.value.message


def test_small_source_reads() -> None:
    assert values(inline(SMALL, StringMethod("T"))) == ["first"]
    [cap] = inline(SMALL, Call("make", arg=1, within="run"))
    assert cap.value.data == 5.0 and cap.value.text == "Limit"


def test_duplicate_constant_is_ambiguous_with_lines() -> None:
    src = "package x\n\nconst N = 1\n\nfunc f() {}\n\nconst N = 2\n"
    with pytest.raises(AmbiguousFact) as err:
        inline(src, Constant("N"))
    assert "lines 3, 7" in err.value.message


def test_two_matching_calls_are_ambiguous() -> None:
    src = "package x\n\nfunc f() {\n\ta := make(chan int, 1)\n\tb := make(chan int, 2)\n}\n"
    with pytest.raises(AmbiguousFact) as err:
        inline(src, Call("make", arg=1, within="f"))
    assert "lines 4, 5" in err.value.message


def test_map_bound_twice_is_ambiguous() -> None:
    src = "package x\n\nfunc f() {\n\tm := map[string]int{\"a\": 1}\n\t_ = m\n}\n\nfunc g() {\n\tm := map[string]int{\"b\": 1}\n\t_ = m\n}\n"
    with pytest.raises(AmbiguousFact):
        inline(src, MapKeys("m"))


# -- syntax errors -------------------------------------------------------------


@pytest.mark.parametrize(("source", "selector", "line", "column", "detail"), [
    ("package x\n\ntype T string\n\nconst (\n\tA T = \"a\"\n\tB T = \"b\" +\n)\n", Constants(type="T"), 7, 2, "unexpected"),
    ("package x\n\nconst X = (1 + 2\n\nconst Y = 3\n", Constant("Y"), 3, 9, "unexpected"),
    ("package x\n\nfunc f() {\n\tx := make(chan struct{}, \n}\n", Call("make", arg=1, within="f"), 4, 26, "missing `)`"),
    ("package x\n\nvar m = map[string]int{\n\t\"a\": 1,\n\t\"b\" 2,\n}\n", MapKeys("m"), 5, 6, "unexpected `2`"),
    ("package x\n\ntype K int\n\nfunc (k K) String() string {\n\tswitch k {\n\tcase 0:\n\t\treturn \"a\"\n\tcase 1\n"
     "\t\treturn \"b\"\n\t}\n\treturn \"\"\n}\n", StringMethod("K"), 9, 7, "unexpected"),
    ("}{][", Constant("X"), 1, 1, "unexpected"),
])
def test_syntax_error_on_the_path_has_line_and_column(
    source: str, selector: Selector, line: int, column: int, detail: str
) -> None:
    with pytest.raises(ParseError) as err:
        inline(source, selector)
    loc = err.value.location
    assert (loc.path, loc.line, loc.column) == ("x.go", line, column)
    assert f"line {line}, column {column}" in err.value.message and detail in err.value.message


BROKEN_ELSEWHERE = """
package x

type T string

const (
	A T = "a"
	B T = "b"
)

const K = 3

func broken() {
	x := g(1
}

func good() {
	sem := make(chan struct{}, K)
	_ = sem
}
"""


@pytest.mark.parametrize(("selector", "expected"), [
    (Constants(type="T"), ["a", "b"]),
    (Constant("K"), [3.0]),
    (Call("make", arg=1, within="good"), [3.0]),
])
def test_syntax_error_elsewhere_does_not_affect_a_fact(selector: Selector, expected: list) -> None:
    assert values(inline(BROKEN_ELSEWHERE, selector)) == expected


def test_syntax_error_in_the_within_function_is_on_the_path() -> None:
    with pytest.raises(ParseError) as err:
        inline(BROKEN_ELSEWHERE, Call("g", within="broken"))
    assert err.value.location.line == 14


def test_broken_region_mentioning_the_type_may_hide_a_member() -> None:
    src = 'package x\n\ntype T string\n\nconst A T = "a"\n\nconst (\n\tB T = "b" +\n)\n'
    with pytest.raises(ParseError) as err:
        inline(src, Constants(type="T"))
    assert err.value.location.line == 8


@pytest.mark.parametrize("block", ["\tBase = 21\n\tOther = (\n", "\tOther = (\n\tBase = 21\n"])
def test_syntax_error_in_or_hiding_a_referenced_const_is_on_the_path(block: str) -> None:
    src = f"package x\n\nconst Total = Base * 2\n\nconst (\n{block})\n"
    with pytest.raises(ParseError) as err:
        inline(src, Constant("Total"))
    assert err.value.location.line in (6, 7)


def test_parse_never_raises() -> None:
    tree = go.parse("x.go", "\x00 func ( { const \ud800 `unterminated")
    assert tree.root.has_error
    with pytest.raises(ParseError):
        go.extract(tree, Constant("X"), "x.go")


# -- comments, iota, sets ------------------------------------------------------


def test_commented_out_constants_are_invisible() -> None:
    src = "package x\n\n// const X = 5\n\n/*\nconst Y = 6\n*/\n\nconst (\n\t// Z = 7\n\tW = 8 // V = 9\n)\n"
    for name in ("X", "Y", "Z", "V"):
        with pytest.raises(FactNotFound):
            inline(src, Constant(name))
    assert values(inline(src, Constants(name="."))) == [8.0]


def test_iota_inheritance_and_repetition() -> None:
    src = """
package x

type Size int64
type Flag uint

const (
	_ Size = 1 << (10 * iota)
	KB
	MB
	// a comment does not count as a spec
	GB
)

const (
	FlagA Flag = 1 << iota
	FlagB
	FlagC
	Mask = FlagA | FlagB | FlagC
)

const (
	Lo, Hi = iota, iota * 10
	Lo2, Hi2
)
"""
    assert values(inline(src, Constants(type="Size"))) == [1024.0, 1024.0**2, 1024.0**3]
    assert values(inline(src, Constants(type="Size", values="names"))) == ["KB", "MB", "GB"]
    assert values(inline(src, Constants(type="Flag"))) == [1.0, 2.0, 4.0]
    assert values(inline(src, Constant("Mask"))) == [7.0]
    assert values(inline(src, Constant("Hi2"))) == [10.0]
    assert values(inline(src, Constant("Lo2"))) == [1.0]


def test_sets_are_deduplicated_keeping_the_first() -> None:
    src = 'package x\n\nconst (\n\tCodeA = "same"\n\tCodeB = "other"\n\tCodeC = "same"\n)\n'
    items = inline(src, Constants(name="^Code"))
    assert values(items) == ["same", "other"] and items[0].location.line == 4


def test_constants_by_name_take_typed_and_untyped_consts_and_top_level_vars() -> None:
    src = 'package x\n\ntype T string\n\nconst KeyA T = "a"\nconst KeyB = "b"\nconst KeyC = T("c")\n\nvar KeyD = "d"\n'
    assert values(inline(src, Constants(name="^Key"))) == ["a", "b", "c", "d"]
    assert values(inline(src, Constants(type="T"))) == ["a", "c"]  # a conversion gives the type


def test_columns_count_characters() -> None:
    [item] = inline('package x\n\nconst S = "é"; const Z = 1\n', Constant("Z"))
    assert (item.location.line, item.location.column) == (3, 22)


# -- evaluation ----------------------------------------------------------------

EVAL_PRELUDE = 'package x\n\nimport "time"\n\ntype MyType int\n\nconst Base = 21\n\n'


@pytest.mark.parametrize(("expr", "kind", "data"), [
    ("10 * time.Minute", Kind.DURATION, 600.0),
    ("48 * time.Hour", Kind.DURATION, 172800.0),
    ("1.5 * time.Second", Kind.DURATION, 1.5),
    ("500 * time.Millisecond", Kind.DURATION, 0.5),
    ("250 * time.Microsecond", Kind.DURATION, 0.00025),
    ("time.Duration(5) * time.Second", Kind.DURATION, 5.0),
    ("time.Duration(90)", Kind.DURATION, 90e-9),
    ("time.Minute + 30*time.Second", Kind.DURATION, 90.0),
    ("-5 * time.Second", Kind.DURATION, -5.0),
    ("time.Hour / 2", Kind.DURATION, 1800.0),
    ("time.Hour / time.Minute", Kind.NUMBER, 60.0),
    ("(2 + 3) * 4", Kind.NUMBER, 20.0),
    ("7 / 2", Kind.NUMBER, 3.0),
    ("-7 / 2", Kind.NUMBER, -3.0),
    ("7.0 / 2", Kind.NUMBER, 3.5),
    ("7 % 3", Kind.NUMBER, 1.0),
    ("-7 % 3", Kind.NUMBER, -1.0),
    ("1 << 10", Kind.NUMBER, 1024.0),
    ("0xFF &^ 0x0F", Kind.NUMBER, 240.0),
    ("^0", Kind.NUMBER, -1.0),
    ("0x1F", Kind.NUMBER, 31.0),
    ("0o17", Kind.NUMBER, 15.0),
    ("017", Kind.NUMBER, 15.0),
    ("0b101", Kind.NUMBER, 5.0),
    ("1_000_000", Kind.NUMBER, 1e6),
    ("1e3", Kind.NUMBER, 1000.0),
    (".5", Kind.NUMBER, 0.5),
    ("0x1p-2", Kind.NUMBER, 0.25),
    ("75.0", Kind.NUMBER, 75.0),
    ("09.5", Kind.NUMBER, 9.5),
    ("0x_1F", Kind.NUMBER, 31.0),
    ("'a'", Kind.NUMBER, 97.0),
    ("'\\n'", Kind.NUMBER, 10.0),
    ("'\\x41'", Kind.NUMBER, 65.0),
    ('"a" + "b"', Kind.STRING, "ab"),
    ('"tab\\there"', Kind.STRING, "tab\there"),
    ('"quote\\"d"', Kind.STRING, 'quote"d'),
    ('"\\u00e9\\U0001F600"', Kind.STRING, "é\U0001F600"),
    ('"\\xc3\\xa9\\101"', Kind.STRING, "éA"),
    ("`raw\\n`", Kind.STRING, "raw\\n"),
    ("`two\nlines`", Kind.STRING, "two\nlines"),
    ("`cr\r\nlf`", Kind.STRING, "cr\nlf"),
    ("true", Kind.BOOL, True),
    ("!false", Kind.BOOL, True),
    ("1 < 2", Kind.BOOL, True),
    ("true && false", Kind.BOOL, False),
    ('"a" == "a"', Kind.BOOL, True),
    ("float64(3) / 2", Kind.NUMBER, 1.5),
    ("int64(7)", Kind.NUMBER, 7.0),
    ("MyType(5)", Kind.NUMBER, 5.0),
    ("Base * 2", Kind.NUMBER, 42.0),
    ("(Base + 1) * time.Second", Kind.DURATION, 22.0),
])
def test_evaluation(expr: str, kind: Kind, data: object) -> None:
    [item] = inline(EVAL_PRELUDE + f"const Target = {expr}\n", Constant("Target"))
    assert item.value.kind is kind
    if isinstance(data, float):
        assert item.value.data == pytest.approx(data, rel=1e-12)
    else:
        assert item.value.data == data


@pytest.mark.parametrize(("expr", "words"), [
    ("1i", "imaginary"),
    ("fn(3)", "a call"),
    ("len(\"abc\")", "a call"),
    ("pkg.Foo", "outside this file"),
    ("Undefined + 1", "not a constant of this file"),
    ("1 / 0", "division by zero"),
    ("10 / time.Second", "divided by a duration"),
    ('"a" * 2', "cannot apply"),
    ("1 << 1000", "shift count"),
    ("[]int{1}", "not a constant expression"),
    ('"bad \\q escape"', "invalid escape"),
    ("1e400", "overflows"),
])
def test_unevaluable_expressions_say_what_failed(expr: str, words: str) -> None:
    with pytest.raises(FactNotFound) as err:
        inline(EVAL_PRELUDE + f"const Target = {expr}\n", Constant("Target"))
    assert words in err.value.message and "Target" in err.value.message
    assert err.value.location.line == 9


def test_cycles_are_detected() -> None:
    src = "package x\n\nconst A = B + 1\n\nconst B = C * 2\n\nconst C = A\n"
    with pytest.raises(FactNotFound) as err:
        inline(src, Constant("A"))
    assert "`A` is defined in terms of itself" in err.value.message


def test_deep_nesting_is_bounded() -> None:
    expr = "(" * 400 + "1" + ")" * 400
    with pytest.raises((FactNotFound, ParseError)):
        inline(f"package x\n\nconst Deep = {expr}\n", Constant("Deep"))


def test_runaway_growth_is_bounded() -> None:
    lines = ["package x", "", "const C0 = 1 << 500"] + [f"const C{i} = C{i-1} * C{i-1}" for i in range(1, 40)]
    with pytest.raises(FactNotFound) as err:
        inline("\n".join(lines) + "\n", Constant("C39"))
    assert "overflows" in err.value.message


def test_shared_references_are_evaluated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """D59 = D58 + D58 and so on down: without remembering D58, that is 2**59 evaluations;
    remembered, a few per constant of the chain (an expression, its two names)."""
    lines = ["package x", "", "const D0 = 1"] + [f"const D{i} = D{i-1} + D{i-1}" for i in range(1, 60)]
    evaluations = metered(monkeypatch, Evaluator, "eval", budget=5 * 60)
    [item] = inline("\n".join(lines) + "\n", Constant("D59"))
    assert item.value.data == float(2**59)
    assert evaluations.calls <= 3 * 60


def test_top_level_var_with_a_literal_value() -> None:
    src = 'package x\n\nimport "time"\n\nvar (\n\tTimeout = 30 * time.Second\n\tTable = map[string]int{}\n)\n'
    assert values(inline(src, Constant("Timeout"))) == [30.0]
    with pytest.raises(FactNotFound) as err:
        inline(src, Constant("Table"))
    assert "cannot evaluate" in err.value.message


# -- String methods, maps, calls -----------------------------------------------


def test_string_method_forms() -> None:
    src = """
package x

type P int
type Q int

const (
	P0 P = iota
	P1
)

const prefix = "q_"

func (p *P) String() string {
	switch *p {
	case P0:
		return "zero"
	case P1:
		f := func() string { return "not a case" }
		_ = f
		switch {
		case true:
			return prefix + "nested"
		default:
			return "nested default"
		}
	default:
		return "none"
	}
}

func (q Q) String() string {
	return [...]string{"alpha", "beta", `gamma`}[q]
}
"""
    assert values(inline(src, StringMethod("P"))) == ["zero", "q_nested"]
    assert values(inline(src, StringMethod("Q"))) == ["alpha", "beta", "gamma"]


def test_map_key_forms() -> None:
    src = """
package x

import "pkg"

const Name = "n"

func build() {
	table := map[interface{}]int{
		"text": 1,
		Name:   2,
		pkg.Other: 3,
		42:     4,
	}
	_ = table
}

var empty = map[string]int{}
"""
    items = inline(src, MapKeys("table"))
    assert [(i.value.kind, i.value.data) for i in items] == [
        (Kind.STRING, "text"), (Kind.STRING, "Name"), (Kind.STRING, "Other"), (Kind.NUMBER, 42.0)]
    assert items[0].location.line == 10
    with pytest.raises(FactNotFound) as err:
        inline(src, MapKeys("empty"))
    assert "no keys" in err.value.message


CALLS = """
package x

import "golang.org/x/sync/semaphore"

const workers = 8

type Pool struct{}
type Other struct{}

func (p *Pool) run() {
	const local = 3
	a := make(chan   struct{},   2)
	b := make(chan int, local)
	c := semaphore.NewWeighted(workers)
	d := make(chan struct{})
	_, _, _, _ = a, b, c, d
}

func (o Other) run() {
	e := make(chan struct{}, 16)
	_ = e
}
"""


@pytest.mark.parametrize(("selector", "expected"), [
    (Call("make", arg=1, within="Pool.run", where=((0, "chan struct{}"),)), 2.0),
    (Call("make", arg=1, within="Other.run", where=((0, "chan struct{}"),)), 16.0),
    (Call("make", arg=1, within="Pool.run", where=((0, "chan int"),)), 3.0),
    (Call("NewWeighted", within="run"), 8.0),
    (Call("semaphore.NewWeighted"), 8.0),
])
def test_call_filters(selector: Selector, expected: float) -> None:
    [item] = inline(CALLS, selector)
    assert item.value.data == expected


def test_call_within_a_bare_method_name_spans_every_receiver() -> None:
    with pytest.raises(AmbiguousFact):
        inline(CALLS, Call("make", arg=1, within="run", where=((0, "chan struct{}"),)))


# -- speed ---------------------------------------------------------------------


def _big_go(statements: int) -> str:
    body = "\n".join(f"\tv{i} := make([]int, {i})\n\t_ = v{i}" for i in range(statements))
    consts = "\n".join(f"\tName{i} = \"value_{i}\"" for i in range(statements // 8))
    return (f"package x\n\nconst (\n{consts}\n)\n\nfunc (l *Loop) big() {{\n{body}\n"
            "\tsem := make(chan struct{}, 4)\n\t_ = sem\n}\n")


def _read_big(src: str) -> tuple[float, int]:
    """The ``make`` capacity inside ``Loop.big`` and how many ``Name`` constants there are."""
    tree = go.parse("big.go", src)
    [cap] = go.extract(tree, Call("make", arg=1, within="Loop.big", where=((0, "chan struct{}"),)), "big.go")
    return cap.value.data, len(go.extract(tree, Constants(name="^Name"), "big.go"))


def test_a_large_file_is_indexed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    src = _big_go(4000)
    assert len(src) > 120_000
    builds = metered(monkeypatch, go_reader, "build_index", budget=1)  # a second build fails at once
    assert _read_big(src) == (4.0, 500)
    assert builds.calls == 1


def test_reading_a_large_file_is_linear_in_its_size() -> None:
    """Twice the statements, at most GROWTH times the steps: finding a call inside one function
    and the constants of the file walk each once, never once per statement."""
    assert_linear(_big_go, _read_big, 1000)


# -- mutated fixtures ------------------------------------------------------------

FUZZ_FACTS = [
    ("internal/ai/chat/fsm.go", Constants(type="SessionState")),
    ("internal/ai/chat/fsm.go", Constant("RecoveryTTL")),
    ("internal/agentcapabilities/tool_call.go", StringMethod("ToolCallKind")),
    ("internal/agentcapabilities/tool_call.go", Constants(type="ToolCallKind")),
    ("internal/ai/patrol_signals.go", Constant("signalBackupStaleThreshold")),
    ("internal/ai/findings.go", Constant("maxInvestigationAttempts")),
    ("internal/ai/chat/agentic.go", Call("make", arg=1, within="executeWithTools", where=((0, "chan struct{}"),))),
    ("internal/agentcapabilities/errors.go", Constants(name="^AgentErrCode")),
    ("internal/agentcapabilities/invocation.go", MapKeys("registryInvocationDescriptors")),
]


@settings(deadline=None, max_examples=200, derandomize=True)
@given(
    which=st.integers(0, len(FUZZ_FACTS) - 1),
    at=st.floats(0, 1),
    cut=st.integers(0, 40),
    insert=st.text(alphabet='(){}[]"`\'/*\n\t =:,.;+-019x', max_size=4),
)
def test_a_mutated_fixture_reads_the_same_facts_or_reports_an_error(which: int, at: float, cut: int, insert: str) -> None:
    rel, selector = FUZZ_FACTS[which]
    original = (PULSE / rel).read_text(encoding="utf-8")
    i = int(at * len(original))
    mutated = original[:i] + insert + original[i + cut:]
    tree = go.parse(rel, mutated)
    try:
        got = [(x.value.kind, x.value.data) for x in go.extract(tree, selector, rel)]
    except (FactNotFound, ParseError, AmbiguousFact) as exc:
        assert exc.location is not None and exc.location.path == rel
        return
    if tree.root.has_error:  # a syntax error was judged off the path: the facts must be untouched
        assert got == [(x.value.kind, x.value.data) for x in read(rel, selector)]


def test_a_syntax_error_names_the_line_of_the_token_that_could_not_be_placed() -> None:
    from driftguard.config.specs import Constants
    from driftguard.model import ParseError

    text = ('package p\n\ntype State string\n\n// states\nconst (\n\tStateB State = "B"\n'
            '\tStateA State = "A" +\n)\n')
    with pytest.raises(ParseError) as info:
        go.extract(go.parse("s.go", text), Constants(type="State"), "s.go")
    assert info.value.location.line in (8, 9), info.value  # the dangling `+`, not the `const (` of line 6
    assert "Go syntax error at line" in info.value.message
