"""The Go reader's ``fields``, ``cases``, ``list``, ``map_keys`` on a keyed field,
``call`` with ``path:``, ``unwrap`` and partial parses, on the shapes of prometheus'
web API, config and templates."""

from __future__ import annotations

import pytest

from driftguard.config.specs import (
    Call,
    Calls,
    Cases,
    Constant,
    Constants,
    Fields,
    Flags,
    ListOf,
    MapKeys,
    Selector,
    StringMethod,
)
from driftguard.model import AmbiguousFact, ConfigError, FactNotFound, Kind, ParseError
from driftguard.sources import go as reader
from tests.go_reading import PATH, entries, fixture, line_of, parse, read, skipped, values

API = fixture("web/api/api.go", """
    type Edge struct {
    \tBuildUser string `json:"buildUser,omitempty" yaml:"build_user"`
    \tIgnored   string `json:"-"`
    \tDash      string `json:"-,"`
    \tNoTag     bool
    \tinternal  string `json:"internal"`
    \t*Embedded
    \tBase `json:"base"`
    }

    func two(code int, kind string) {
    \tswitch code {
    \tcase 400, 422:
    \tcase 503:
    \t}
    \tswitch strings.ToLower(kind) {
    \tcase "a":
    \t}
    \tswitch v := x.(type) {
    \tcase int:
    \t}
    }
""")


# -- fields ----------------------------------------------------------------------------


def test_fields_without_a_tag_are_the_go_names_and_embedded_types_by_name() -> None:
    assert values(API, Fields("Edge")) == ["BuildUser", "Ignored", "Dash", "NoTag", "internal", "Embedded", "Base"]


def test_fields_with_a_tag_are_its_names_as_encoding_json_gives_them() -> None:
    items = read(API, Fields("PrometheusVersion", tag="json"))
    assert [(i.value.data, i.location.line) for i in items] == [
        (name, line_of(API, f'json:"{name}"')) for name in
        ("version", "revision", "branch", "buildUser", "buildDate", "goVersion")]
    assert values(API, Fields("Edge", tag="json")) == ["buildUser", "-", "NoTag", "base"]


def test_fields_left_out_by_the_tag_are_said() -> None:
    assert skipped(API, Fields("Edge", tag="json")) == [
        f'line {line_of(API, "Ignored")}: Ignored is tagged json:"-"; left out',
        f"line {line_of(API, 'internal  string `json')}: internal is unexported, which encoders skip; left out",
        f"line {line_of(API, '*Embedded')}: embedded Embedded has no name in its json tag (its fields may be "
        "inlined); left out"]


def test_a_yaml_tag_gives_its_name_and_the_lowercased_go_name_without_one() -> None:
    assert values(API, Fields("Edge", tag="yaml"))[:4] == ["build_user", "ignored", "dash", "notag"]


def test_fields_of_a_type_that_is_no_struct_or_is_missing_are_fact_not_found() -> None:
    with pytest.raises(FactNotFound, match="type errorNum is not a struct"):
        read(API, Fields("errorNum"))
    with pytest.raises(FactNotFound, match="no struct type RuntimeInfo in this file"):
        read(API, Fields("RuntimeInfo"))


def test_the_declaration_of_fields_is_the_struct_type() -> None:
    location, label = reader.declaration(parse(API), Fields("PrometheusVersion"), PATH)
    assert (location.line, label) == (line_of(API, "type PrometheusVersion struct"), "type PrometheusVersion struct")


# -- cases ---------------------------------------------------------------------------------


def test_case_labels_mix_literals_and_constants_and_leave_default_out() -> None:
    items = read(API, Cases("API.respondFormat"))
    assert [(i.value.data, i.location.line) for i in items] == [
        ("json", line_of(API, 'case "json"')), ("protobuf", line_of(API, "case formatProtobuf")),
        ("text", line_of(API, "case formatProtobuf"))]
    assert values(API, Cases("API.statsParamWarning")) == ["", "true", "all"]


def test_labels_naming_vars_are_left_out_and_a_switch_of_nothing_else_is_fact_not_found() -> None:
    with pytest.raises(FactNotFound) as caught:
        read(API, Cases("getDefaultErrorCode"))
    assert caught.value.message.startswith("no label of the switch within getDefaultErrorCode has a literal value: "
                                           f"line {line_of(API, 'case errorBadData')}: case errorBadData is not a "
                                           "literal")
    assert caught.value.location.line == line_of(API, "switch errType")


def test_several_switches_are_ambiguous_naming_lines_and_expressions() -> None:
    with pytest.raises(AmbiguousFact) as caught:
        read(API, Cases("two"))
    assert caught.value.message == (
        f"two holds 2 switches (line {line_of(API, 'switch code')}: `switch code`, line "
        f"{line_of(API, 'switch strings')}: `switch strings.ToLower(kind)`); name one with `switch:`")


def test_switch_picks_one_by_its_expression_whatever_the_spacing() -> None:
    assert values(API, Cases("two", switch="code")) == [400, 422, 503]
    assert values(API, Cases("two", switch="strings.ToLower( kind )")) == ["a"]


def test_a_switch_expression_no_switch_has_is_fact_not_found_listing_them() -> None:
    with pytest.raises(FactNotFound) as caught:
        read(API, Cases("two", switch="kind"))
    assert caught.value.message == (f"no switch on `kind` within two; its switches: `code` (line "
                                    f"{line_of(API, 'switch code')}), `strings.ToLower(kind)` (line "
                                    f"{line_of(API, 'switch strings')})")


# -- list ----------------------------------------------------------------------------------


def test_a_list_gives_its_elements_in_order() -> None:
    items = read(API, ListOf("LocalhostRepresentations"))
    assert [(i.value.data, i.location.column) for i in items] == [("127.0.0.1", 41), ("localhost", 54), ("::1", 67)]


def test_list_elements_evaluate_constants_and_leave_out_calls_and_literals_said() -> None:
    source = API + '\nfunc deny() {\n\tdeny := [...]string{statsAll, strings.ToUpper("x"), 3: "rm"}\n\t_ = deny\n}\n'
    assert values(source, ListOf("deny")) == ["all", "rm"]
    assert values(source, ListOf("deny", within="deny")) == ["all", "rm"]
    assert skipped(source, ListOf("deny")) == [
        f'line {line_of(source, "deny := [")}: element `strings.ToUpper("x")` is not a literal '
        '(`strings.ToUpper("x")` is a call, not a constant expression); left out']


def test_a_map_or_struct_literal_is_no_list() -> None:
    with pytest.raises(FactNotFound):
        read(API, ListOf("errorTimeout"))


# -- map_keys on a keyed field -----------------------------------------------------------------

TEMPLATE = '''
package template

import (
	html_template "html/template"
	text_template "text/template"
)

func NewTemplateExpander(text string) *Expander {
	return &Expander{
		text: text,
		funcMap: text_template.FuncMap{
			"query": func(q string) (queryResult, error) {
				return query(q)
			},
			"first":   first,
			"toUpper": strings.ToUpper,
		},
	}
}

func (te Expander) ExpandHTML() {
	tmpl := html_template.New(te.name).Funcs(html_template.FuncMap(te.funcMap))
	tmpl.Funcs(html_template.FuncMap{
		"tmpl": func(name string) string { return name },
	})
}

func other() {
	_ = html_template.FuncMap{"other": nil}
}
'''


def test_map_keys_reads_the_map_bound_to_a_keyed_field_of_a_returned_literal() -> None:
    assert values(TEMPLATE, MapKeys("funcMap")) == ["query", "first", "toUpper"]
    location, label = reader.declaration(parse(TEMPLATE), MapKeys("funcMap"), PATH)
    assert (location.line, label) == (11, "map funcMap")


def test_map_keys_by_the_literals_type_reads_a_map_passed_straight_to_a_call() -> None:
    assert values(TEMPLATE, MapKeys("FuncMap", within="Expander.ExpandHTML")) == ["tmpl"]
    with pytest.raises(AmbiguousFact, match="lines 11, 23, 29"):
        read(TEMPLATE, MapKeys("FuncMap"))


def test_a_name_bound_by_a_var_wins_over_a_keyed_field_of_that_name() -> None:
    source = TEMPLATE + '\nvar funcMap = map[string]int{"bound": 1}\n'
    assert values(source, MapKeys("funcMap")) == ["bound"]


# -- call path, unwrap ---------------------------------------------------------------------------

SERVER = '''
package server

import (
	"time"

	"github.com/prometheus/common/model"
)

var DefaultGlobalConfig = GlobalConfig{
	ScrapeInterval: model.Duration(1 * time.Minute),
	Timeouts:       []model.Duration{model.Duration(10 * time.Second)},
}

const DefaultRemoteTimeout = model.Duration(30 * time.Second)

func Start() {
	New(Config{
		Port:        8080,
		ReadTimeout: time.Duration(15) * time.Second,
		TLS:         TLSConfig{MinVersion: "1.2"},
		Labels:      map[string]string{"tier": "backend"},
	})
	New(Config{Port: 9090})
}
'''


@pytest.mark.parametrize(("path", "kind", "data", "line"), [
    (("Port",), Kind.NUMBER, 8080, 18),
    (("ReadTimeout",), Kind.DURATION, 15.0, 19),
    (("TLS", "MinVersion"), Kind.STRING, "1.2", 20),
    (("Labels", "tier"), Kind.STRING, "backend", 21),
])
def test_a_path_reads_inside_a_keyed_literal_argument(path: tuple, kind: Kind, data: object, line: int) -> None:
    item = read(SERVER, Calls("New", path=path))[0]
    assert (item.value.kind, item.value.data, item.location.line) == (kind, data, line)


def test_a_path_reads_every_call_and_leaves_out_one_without_the_key() -> None:
    [one] = read(SERVER.replace("New(Config{Port: 9090})", ""), Call("New", path=("Port",)))
    assert one.value.data == 8080
    assert values(SERVER, Calls("New", path=("Port",))) == [8080, 9090]
    assert skipped(SERVER, Calls("New", path=("TLS", "MinVersion"))) == [
        'line 23: `New(Config{Port: 9090})`: `arg0` (line 23) has no key "TLS" (its keys: Port); left out']


def test_a_string_arg_is_still_refused_for_go() -> None:
    with pytest.raises(ConfigError, match="a Go call passes its arguments by position"):
        read(SERVER, Call("New", arg="cfg"))


def test_a_conversion_named_in_unwrap_is_read_through_everywhere() -> None:
    with pytest.raises(FactNotFound, match="is a call, not a constant expression"):
        read(SERVER, Constant("DefaultRemoteTimeout"))
    [item] = read(SERVER, Constant("DefaultRemoteTimeout", unwrap=("model.Duration",)))
    assert (item.value.kind, item.value.data) == (Kind.DURATION, 30.0)
    [item] = read(SERVER, Constant("DefaultGlobalConfig", keys=("ScrapeInterval",), unwrap=("model.Duration",)))
    assert (item.value.kind, item.value.data) == (Kind.DURATION, 60.0)
    [item] = read(SERVER, Constant("DefaultGlobalConfig", keys=("Timeouts", 0), unwrap=("Duration",)))
    assert item.value.data == 10.0
    assert values(SERVER, Constants(name="^Default", unwrap=("model.Duration",))) == [30.0]


def test_unwrap_reads_through_flag_defaults_list_elements_and_case_labels_too() -> None:
    source = SERVER + """
func register(fs *flag.FlagSet, d model.Duration) {
\tfs.Var(&d, "unused", "x")
\tfs.Duration("grace", model.Duration(5*time.Second), "grace period")
\twaits := []model.Duration{model.Duration(time.Second)}
\tswitch d {
\tcase model.Duration(time.Minute):
\t}
\t_ = waits
}
"""
    source = source.replace('import (', 'import (\n\t"flag"')
    unwrap = ("model.Duration",)
    assert entries(source, Flags(defaults=True, unwrap=unwrap))["grace"] == (Kind.DURATION, 5.0)
    assert values(source, ListOf("waits", unwrap=unwrap)) == [1.0]
    assert values(source, Cases("register", unwrap=unwrap)) == [60.0]
    assert skipped(source, ListOf("waits"))[0].endswith("is a call, not a constant expression); left out")


def test_an_unwrap_name_for_another_package_does_not_read_through() -> None:
    with pytest.raises(FactNotFound):
        read(SERVER, Constant("DefaultRemoteTimeout", unwrap=("other.Duration",)))


# -- partial parses --------------------------------------------------------------------------------

NEW_SYNTAX = '''
package snapshot

type State string

const (
	StateIdle State = "idle"
	StateBusy State = "busy"
)

func describe(out []byte) *string {
	return new(string(out))
}

var deny = []string{"rm", "dd"}

func (s State) String() string {
	switch s {
	case StateIdle:
		return "idle"
	}
	return ""
}
'''


@pytest.mark.parametrize(("selector", "expected"), [
    (Constants(type="State"), ["idle", "busy"]),
    (Constant("StateBusy"), ["busy"]),
    (StringMethod("State"), ["idle"]),
    (ListOf("deny"), ["rm", "dd"]),
    (Cases("State.String"), ["idle"]),
])
def test_a_fact_outside_every_error_range_is_read(selector: Selector, expected: list) -> None:
    assert reader.problems(parse(NEW_SYNTAX), PATH) == [(11, "`string` does not parse")]
    assert values(NEW_SYNTAX, selector) == expected


@pytest.mark.parametrize("selector", [Fields("Missing"), MapKeys("missing"), Calls("fs.String"), ListOf("gone")])
def test_a_fact_absent_from_a_partly_parsed_file_is_not_found_not_a_parse_error(selector: Selector) -> None:
    with pytest.raises(FactNotFound) as caught:
        read(NEW_SYNTAX, selector)
    assert not isinstance(caught.value, ParseError)


def test_a_set_whose_declaration_block_holds_the_error_fails_naming_the_line() -> None:
    source = NEW_SYNTAX.replace('StateBusy State = "busy"', 'StateBusy State = "busy" +')
    with pytest.raises(ParseError) as caught:
        read(source, Constants(type="State"))
    assert str(caught.value.location) == f"{PATH}:7"
    assert "Go syntax error at line 7" in caught.value.message


def test_an_error_range_mentioning_what_a_set_looks_for_fails_it() -> None:
    source = NEW_SYNTAX.replace("return new(string(out))", 'return new(string(out)) + deny[')
    with pytest.raises(ParseError):
        read(source, ListOf("deny"))


def test_a_syntax_error_is_reported_at_the_token_not_at_the_block() -> None:
    text = 'package p\n\ntype State string\n\n// states\nconst (\n\tStateB State = "B"\n\tStateA State = "A" +\n)\n'
    with pytest.raises(ParseError) as caught:
        reader.extract(reader.parse("s.go", text), Constants(type="State"), "s.go")
    assert caught.value.location.line == 8
    assert reader.problems(reader.parse("s.go", text), "s.go") == [(8, '`StateA State = "A" +` does not parse')]


def test_a_missing_token_is_a_problem_named_by_the_token() -> None:
    tree = reader.parse("x.go", "package x\n\nfunc f() {\n\tx := g(1\n}\n")
    assert reader.problems(tree, "x.go") == [(4, "missing `)`")]


def test_a_file_whose_package_clause_does_not_parse_fails_every_fact() -> None:
    with pytest.raises(ParseError):
        reader.extract(reader.parse("x.go", "}{]["), Fields("T"), "x.go")
