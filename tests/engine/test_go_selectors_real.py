"""The Go selectors on the shapes real services take: a state enum whose ``String``
has a sentinel case, error vars, a keyed default-config composite literal read by
key path, a map local to a method, and repeated flag-style calls.

The reader is tested on each shape directly; the engine on the fixture tree
``tests/fixtures/go_shapes`` (a guide and its code), clean and with drift.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from driftguard.config.loader import load_config
from driftguard.config.specs import Call, Calls, Constant, Constants, MapKeys, StringMethod
from driftguard.judging.result import Result
from driftguard.model import AmbiguousFact, FactNotFound, Kind, ParseError, Status
from driftguard.sources import go as reader
from tests.helpers import edit, judge

PATH = "internal/svc/svc.go"
SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "go_shapes"


def parse(source: str) -> reader.reader.GoTree:
    return reader.parse(PATH, textwrap.dedent(source).lstrip())


def read(source: str, selector):
    return reader.extract(parse(source), selector, PATH)


def values(source: str, selector) -> list:
    return [item.value.data for item in read(source, selector)]


def not_found(source: str, selector) -> FactNotFound:
    with pytest.raises(FactNotFound) as caught:
        read(source, selector)
    assert caught.value.location is not None and caught.value.location.path == PATH
    return caught.value


def skipped(source: str, selector) -> list[str]:
    return reader.skipped(parse(source), selector, PATH)


# -- string_method: a sentinel case is left out, and said -------------------------

STATE = '''
package svc

import "fmt"

type state int

const (
	stateIdle state = iota
	stateBusy
	stateDone
	stateCount
)

func (s state) String() string {
	switch s {
	case stateIdle:
		return "idle"
	case stateBusy, stateDone:
		return "working"
	case stateCount:
		return fmt.Sprintf("invalid state %d", int(s))
	default:
		return s.name()
	}
}
'''


def test_a_case_that_returns_no_literal_is_left_out_like_default() -> None:
    items = read(STATE, StringMethod("state"))
    assert [(i.value.data, i.location.line) for i in items] == [("idle", 17), ("working", 19)]


def test_skipped_names_the_sentinel_case_its_line_and_what_it_returns() -> None:
    assert skipped(STATE, StringMethod("state")) == [
        'case stateCount (line 21): returns fmt.Sprintf("invalid state %d", int(s)), not a literal; left out']


def test_no_case_returning_a_literal_is_fact_not_found_saying_why() -> None:
    source = STATE.replace('return "idle"', "return s.label").replace('return "working"', "return s.label")
    error = not_found(source, StringMethod("state"))
    assert "String method of state returns no literal string" in error.message
    assert "case stateIdle (line 17): returns s.label" in error.message
    assert "case stateCount (line 21)" in error.message


def test_skipped_is_empty_where_nothing_is_left_out_or_nothing_reads() -> None:
    plain = STATE.replace('fmt.Sprintf("invalid state %d", int(s))', '"invalid"')
    assert values(plain, StringMethod("state")) == ["idle", "working", "invalid"]
    assert skipped(plain, StringMethod("state")) == []
    assert skipped(STATE, StringMethod("other")) == []


def test_a_sentinel_returning_a_named_constant_is_still_read() -> None:
    source = STATE.replace('fmt.Sprintf("invalid state %d", int(s))', "invalidName") \
        + 'const invalidName = "invalid"\n'
    assert values(source, StringMethod("state")) == ["idle", "working", "invalid"]


# -- constants by name: top-level vars too ----------------------------------------

ERRORS = '''
package svc

import (
	"errors"
	"fmt"
)

const ErrCodePrefix = "E"

var (
	ErrWorkflowClosing  = errors.New("workflow closing")
	ErrWorkflowNotFound = errors.New("workflow not found")
	ErrStepTimeout      = fmt.Errorf("step timed out after %d attempts", 3)
)

var ErrUnset error
'''


def test_error_vars_are_members_by_name() -> None:
    selector = Constants(name="^Err", values="names")
    assert values(ERRORS, selector) == ["ErrCodePrefix", "ErrWorkflowClosing", "ErrWorkflowNotFound",
                                        "ErrStepTimeout"]  # ErrUnset has no initializer: no member
    assert skipped(ERRORS, selector) == []


def test_an_errors_new_value_is_its_message_and_an_unevaluable_var_is_left_out_and_said() -> None:
    items = read(ERRORS, Constants(name="^Err"))
    assert [(i.value.kind, i.value.data, i.location.line) for i in items] == [
        (Kind.STRING, "E", 8), (Kind.STRING, "workflow closing", 11), (Kind.STRING, "workflow not found", 12)]
    assert items[1].value.text == 'errors.New("workflow closing")'
    [note] = skipped(ERRORS, Constants(name="^Err"))
    assert note.startswith("var ErrStepTimeout (line 13): `fmt.Errorf(") and note.endswith(
        "is a call, not a constant expression; left out")


def test_only_unevaluable_vars_is_fact_not_found_as_for_constant() -> None:
    error = not_found(ERRORS, Constants(name="^ErrStep"))
    assert error.message == not_found(ERRORS, Constant("ErrStepTimeout")).message.replace(
        "const ErrStepTimeout", "consts or vars named /^ErrStep/")
    assert "cannot evaluate" in error.message and error.location.line == 13


def test_an_errors_new_var_is_a_scalar_constant() -> None:
    [item] = read(ERRORS, Constant("ErrWorkflowClosing"))
    assert item.value.data == "workflow closing"


def test_constants_of_a_type_take_vars_declared_with_it() -> None:
    source = '''
package svc

type Level string

const (
	LevelInfo  Level = "info"
	LevelDebug Level = "debug"
)

var LevelTrace Level = "trace"
var current Level
var other = Level("x")
'''
    assert values(source, Constants(type="Level")) == ["info", "debug", "trace"]
    assert values(source, Constants(type="Level", values="names")) == ["LevelInfo", "LevelDebug", "LevelTrace"]


# -- constant with a key path ------------------------------------------------------

CONFIG = '''
package svc

import "time"

const defaultWorkers = 4
const keyTier = "tier"

var DefaultConfig = &Config{
	Installer: InstallerConfig{
		Parallel:   true,
		MaxWorkers: defaultWorkers,
		Timeout:    10 * time.Second,
	},
	Ports:  []int{8080, 8443},
	Hosts:  [...]string{2: "c", 0: "a"},
	Labels: map[string]string{keyTier: "backend", "zone": "eu"},
	Nested: map[string]any{"installer": map[string]any{"parallel": false}},
	Plain:  map[string]Limit{"cpu": {Max: 2}},
	Codes:  map[int]string{404: "not found"},
	Hook:   nil,
}

var Settings = map[string]any{
	"installer": map[string]any{"max-workers": 8, "retries": []int{1, 2, 3}},
}

func DefaultLimits() *Limits {
	l := func() *Limits { return &Limits{CPU: 1} }
	_ = l
	return &Limits{CPU: 2, Burst: 1.5}
}
'''


@pytest.mark.parametrize(("name", "keys", "kind", "data", "line"), [
    ("DefaultConfig", ("Installer", "MaxWorkers"), Kind.NUMBER, 4, 11),
    ("DefaultConfig", ("Installer", "Parallel"), Kind.BOOL, True, 10),
    ("DefaultConfig", ("Installer", "Timeout"), Kind.DURATION, 10.0, 12),
    ("DefaultConfig", ("Ports", 1), Kind.NUMBER, 8443, 14),
    ("DefaultConfig", ("Hosts", 2), Kind.STRING, "c", 15),
    ("DefaultConfig", ("Labels", "tier"), Kind.STRING, "backend", 16),
    ("DefaultConfig", ("Labels", "keyTier"), Kind.STRING, "backend", 16),
    ("DefaultConfig", ("Nested", "installer", "parallel"), Kind.BOOL, False, 17),
    ("DefaultConfig", ("Plain", "cpu", "Max"), Kind.NUMBER, 2, 18),
    ("DefaultConfig", ("Codes", 404), Kind.STRING, "not found", 19),
    ("Settings", ("installer", "max-workers"), Kind.NUMBER, 8, 24),
    ("Settings", ("installer", "retries", 2), Kind.NUMBER, 3, 24),
    ("DefaultLimits", ("Burst",), Kind.NUMBER, 1.5, 30),
])
def test_a_key_path_reads_inside_the_literal(name: str, keys: tuple, kind: Kind, data: object, line: int) -> None:
    [item] = read(CONFIG, Constant(name, keys))
    assert (item.value.kind, item.value.data, item.location.line) == (kind, data, line)
    assert type(item.value.data) is type(data)


@pytest.mark.parametrize(("keys", "message"), [
    (("Installer", "Paralel"),
     '`DefaultConfig["Installer"]` (line 9) has no key "Paralel" (its keys: Parallel, MaxWorkers, Timeout)'),
    (("Installer", "Parallel", "x"), '`DefaultConfig["Installer"]["Parallel"]` (line 10) is not a composite '
                                     "literal: `true`"),
    (("Ports", 2), '`DefaultConfig["Ports"]` (line 14) has no element 2 (it has 2)'),
    (("Hosts", 1), '`DefaultConfig["Hosts"]` (line 15) has no key 1 (its keys: 2, 0)'),
    (("Labels", "region"), '`DefaultConfig["Labels"]` (line 16) has no key "region" (its keys: tier, zone)'),
    (("Hook",), '`DefaultConfig["Hook"]` (line 20) is nil, which is no value to compare'),
    (("Installer",), '`DefaultConfig["Installer"]` (line 9): cannot evaluate `InstallerConfig{'),
])
def test_a_key_path_that_is_not_there_names_the_path_reached(keys: tuple, message: str) -> None:
    error = not_found(CONFIG, Constant("DefaultConfig", keys))
    assert message in error.message


def test_a_key_path_error_carries_the_file_and_line_of_the_literal() -> None:
    error = not_found(CONFIG, Constant("DefaultConfig", ("Labels", "region")))
    assert (error.location.path, error.location.line) == (PATH, 16)


def test_a_key_path_into_a_missing_name_or_a_plain_value_is_fact_not_found() -> None:
    assert "no const, var or func Missing" in not_found(CONFIG, Constant("Missing", ("a",))).message
    assert "`defaultWorkers` (line 5) is not a composite literal: `4`" in \
        not_found(CONFIG, Constant("defaultWorkers", ("a",))).message


def test_a_key_path_through_a_syntax_error_is_a_parse_error() -> None:
    broken = CONFIG.replace("MaxWorkers: defaultWorkers,", "MaxWorkers: defaultWorkers +,")
    with pytest.raises(ParseError):
        read(broken, Constant("DefaultConfig", ("Installer", "MaxWorkers")))


# -- map_keys within a function or method -----------------------------------------

OPTIONS = '''
package svc

type Server struct{}

func (s *Server) Options() map[string]any {
	opts := map[string]any{
		"verbose": false,
		"dry-run": false,
	}
	return opts
}

func (c *Client) Options() map[string]any {
	var opts = map[string]any{"retries": 3}
	return opts
}

func defaults() {
	opts := map[string]int{"a": 1}
	if true {
		opts := map[string]int{"b": 2}
		_ = opts
	}
	_ = opts
}
'''


@pytest.mark.parametrize(("within", "expected", "line"), [
    ("Server.Options", ["verbose", "dry-run"], 6),
    ("Client.Options", ["retries"], 14),
])
def test_map_keys_within_reads_the_local_map_of_that_function(within: str, expected: list, line: int) -> None:
    selector = MapKeys("opts", within=within)
    assert values(OPTIONS, selector) == expected
    location, label = reader.declaration(parse(OPTIONS), selector, PATH)
    assert location.line == line and label == f"map opts in func ({within.split('.')[0]}) Options"


def test_map_keys_without_within_is_ambiguous_across_functions() -> None:
    with pytest.raises(AmbiguousFact):
        read(OPTIONS, MapKeys("opts"))


def test_map_keys_within_a_missing_function_names_it() -> None:
    error = not_found(OPTIONS, MapKeys("opts", within="Server.Flags"))
    assert "no function or method Server.Flags (looked for the map literal bound to opts)" in error.message


def test_map_keys_within_a_function_lacking_the_map_names_both() -> None:
    error = not_found(OPTIONS, MapKeys("flags", within="Server.Options"))
    assert error.message == "no map literal bound to flags within Server.Options" and error.location.line == 5


def test_map_keys_within_bound_twice_is_ambiguous() -> None:
    with pytest.raises(AmbiguousFact) as caught:
        read(OPTIONS, MapKeys("opts", within="defaults"))
    assert "lines 19, 21" in caught.value.message


# -- calls: every matching call -----------------------------------------------------

FLAGS = '''
package svc

import (
	"flag"
	"time"
)

const flagPort = "port"

func registerFlags(fs *flag.FlagSet, extra string) {
	fs.String("listen", ":8080", "address")
	fs.String("log-level", "info", "level")
	fs.Duration("shutdown-timeout", 10*time.Second, "grace")
	fs.String(extra, "", "named by the caller")
	fs.String("listen", ":9090", "declared twice")
	fs.String(flagPort, "80", "a constant name")
	fs.String("data-dir", "/var/lib/app", "where data is kept")
}

func other(fs *flag.FlagSet) {
	fs.String("elsewhere", "", "another function")
}
'''


def test_calls_read_every_literal_argument_in_order_once() -> None:
    items = read(FLAGS, Calls("fs.String", within="registerFlags"))
    assert [(i.value.data, i.location.line) for i in items] == [
        ("listen", 11), ("log-level", 12), ("port", 16), ("data-dir", 17)]


def test_calls_without_within_read_the_whole_file_and_match_the_last_part() -> None:
    assert values(FLAGS, Calls("String")) == ["listen", "log-level", "port", "data-dir", "elsewhere"]
    assert values(FLAGS, Calls("fs.Duration", arg=1)) == [10.0]


def test_calls_where_keeps_the_calls_whose_argument_has_that_text() -> None:
    assert values(FLAGS, Calls("fs.String", arg=0, where=((1, '"info"'),))) == ["log-level"]


def test_a_call_whose_argument_is_not_literal_is_left_out_and_said() -> None:
    assert skipped(FLAGS, Calls("fs.String", within="registerFlags")) == [
        'line 14: argument 0 `extra` of `fs.String(extra, "", "named by the caller")` is not a literal '
        "(`extra` is not a constant of this file); left out"]


def test_calls_with_no_literal_argument_is_fact_not_found_saying_why() -> None:
    source = FLAGS.replace('fs.String("', "fs.String(extra+\"").replace("fs.String(flagPort", "fs.String(extra")
    error = not_found(source, Calls("fs.String", within="registerFlags"))
    assert error.message.startswith("no call of fs.String within registerFlags (reading arg0) has a literal "
                                    "argument 0: line 11: argument 0 `extra+\"listen\"`")


@pytest.mark.parametrize(("selector", "message"), [
    (Calls("fs.Int"), "no call of fs.Int (reading arg0) in this file"),
    (Calls("fs.String", within="setup"), "no function or method setup (looked for call of fs.String"),
    (Calls("fs.String", arg=5), "no call of fs.String (reading arg5) in this file"),
])
def test_calls_that_match_nothing_are_fact_not_found(selector: Calls, message: str) -> None:
    assert message in not_found(FLAGS, selector).message


def test_the_scalar_call_selector_still_takes_the_one_match() -> None:
    assert values(FLAGS, Call("fs.Duration", arg=1)) == [10.0]
    with pytest.raises(AmbiguousFact):
        read(FLAGS, Call("fs.String"))


def test_declaration_of_calls_within_a_function_is_the_function() -> None:
    location, label = reader.declaration(parse(FLAGS), Calls("fs.String", within="registerFlags"), PATH)
    assert (location.line, label) == (10, "func registerFlags")


def test_a_syntax_error_in_a_region_calling_the_function_may_hide_a_member() -> None:
    broken = FLAGS + '\nfunc more(fs *flag.FlagSet) {\n\tfs.String("hidden", "", ")\n}\n'
    with pytest.raises(ParseError):
        read(broken, Calls("fs.String"))


# -- the engine on the fixture tree -------------------------------------------------


@pytest.fixture
def shapes(tmp_path: Path) -> Path:
    root = tmp_path / "svc"
    shutil.copytree(SHAPES, root)
    return root


def findings(result: Result) -> list[tuple[str, str, str | None, int | None]]:
    return [(f.rule, f.kind.kind, f.value, f.doc.line if f.doc else None) for f in result.findings]


def test_the_fixture_tree_passes_every_rule(shapes: Path) -> None:
    result = judge(shapes)
    assert [rr.status for rr in result.rules] == [Status.PASS] * len(result.rules), findings(result)
    assert {rr.rule.id for rr in result.rules} == {
        "states", "error-names", "error-messages", "settings", "client-options", "flags"}


STATE_GO = "internal/workflow/state.go"
CONFIG_GO = "internal/config/config.go"
OPTIONS_GO = "internal/server/options.go"


@pytest.mark.parametrize(("file", "old", "new", "expected", "named"), [
    (STATE_GO, 'return "paused"', 'return "suspended"',
     ("states", "missing-in-doc", "suspended", 5), "`suspended` is declared in code"),
    (STATE_GO, "ErrWorkflowNotFound = errors", "ErrWorkflowMissing = errors",
     ("error-names", "missing-in-doc", "ErrWorkflowMissing", 18), "`ErrWorkflowMissing` is declared in code"),
    (STATE_GO, '"workflow closing"', '"workflow is closing"',
     ("error-messages", "missing-in-doc", "workflow is closing", 22), "`workflow is closing` is declared in code"),
    (CONFIG_GO, "Parallel:   true", "Parallel:   false",
     ("settings", "value-mismatch", "true", 31), "'false'"),
    (CONFIG_GO, "const defaultWorkers = 4", "const defaultWorkers = 8",
     ("settings", "value-mismatch", "4", 32), "'8'"),
    (CONFIG_GO, "10 * time.Second", "30 * time.Second",
     ("settings", "value-mismatch", "10 seconds", 33), "30 seconds"),
    (CONFIG_GO, "8080, 8443", "8080, 9443", ("settings", "value-mismatch", "8443", 34), "9443"),
    (CONFIG_GO, '"tier": "backend"', '"tier": "frontend"', ("settings", "value-mismatch", "backend", 35),
     "frontend"),
    (OPTIONS_GO, '"dry-run":   false', '"dry-runs":  false',
     ("client-options", "missing-in-doc", "dry-runs", 37), "`dry-runs` is declared in code"),
    (OPTIONS_GO, 'fs.String("log-level"', 'fs.String("verbosity"',
     ("flags", "missing-in-doc", "verbosity", 43), "`verbosity` is declared in code"),
])
def test_drift_in_each_shape_is_a_finding_at_its_document_line(
    shapes: Path, file: str, old: str, new: str, expected: tuple, named: str
) -> None:
    edit(shapes / file, old, new)
    result = judge(shapes)
    found = [f for f in result.findings if (f.rule, f.kind.kind, f.value, f.doc.line) == expected]
    assert found, findings(result)
    assert found[0].doc.path == "docs/guide.md" and named in found[0].message
    assert result.exit_code == 1


def test_a_flag_gone_from_code_is_missing_in_code_at_the_function(shapes: Path) -> None:
    edit(shapes / OPTIONS_GO, '\tfs.String("data-dir", "/var/lib/app", "where data is kept")\n', "")
    [finding] = [f for f in judge(shapes).findings if f.rule == "flags"]
    assert (finding.kind.kind, finding.value, finding.doc.line) == ("missing-in-code", "data-dir", 47)
    assert finding.source.line == 22 and finding.declared == "func registerFlags"


def test_a_client_option_gone_is_missing_in_code_at_the_local_map(shapes: Path) -> None:
    edit(shapes / OPTIONS_GO, '\t\t"max-conns": 64,\n', "")
    [finding] = [f for f in judge(shapes).findings if f.rule == "client-options"]
    assert (finding.kind.kind, finding.value) == ("missing-in-code", "max-conns")
    assert finding.source.line == 14 and finding.declared == "map opts in func (Server) Options"


def test_a_misspelt_key_path_is_fact_not_found_naming_the_path(shapes: Path) -> None:
    edit(shapes / "driftguard.yaml", '["Installer"]["MaxWorkers"]', '["Installer"]["Workers"]')
    result = judge(shapes)
    [finding] = [f for f in result.findings if f.rule == "settings"]
    assert finding.kind.kind == "fact-not-found"
    assert '`DefaultConfig["Installer"]` (line 21) has no key "Workers" ' \
           "(its keys: Parallel, MaxWorkers, Timeout)" in finding.message
    assert result.exit_code == 1


def test_what_the_fixture_facts_leave_out_is_listed_for_the_facts_command(shapes: Path) -> None:
    config = load_config(shapes / "driftguard.yaml")
    notes = {}
    for name in ("states", "error_messages", "flags", "client_options"):
        spec = config.facts[name]
        tree = reader.parse(spec.file, (shapes / spec.file).read_text(encoding="utf-8"))
        notes[name] = reader.skipped(tree, spec.selector, spec.file)
    assert notes == {
        "states": ['case stateCount (line 48): returns fmt.Sprintf("invalid state %d", int(s)), not a literal; '
                   "left out"],
        "error_messages": ['var ErrStepTimeout (line 58): `fmt.Errorf("step timed out after %d attempts", '
                           "maxAttempts)` is a call, not a constant expression; left out"],
        "flags": ['line 26: argument 0 `extra` of `fs.String(extra, "", "a flag named by the caller")` is not a '
                  "literal (`extra` is not a constant of this file); left out"],
        "client_options": [],
    }
