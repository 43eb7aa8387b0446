"""The ``query`` reader on its own: what a capture reads as (literals unquoted, numbers
as numbers), sets, scalars and maps, predicates, files that do not fully parse, and the
selftest's mutations of a capture."""

from __future__ import annotations

import re
import textwrap

import pytest

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Query
from driftguard.model import AmbiguousFact, ConfigError, Fact, FactNotFound, Kind, Location, ParseError, PatternError
from driftguard.sources import query as reader
from driftguard.sources.mutation import NotApplicable
from driftguard.sources.query.literals import code_number, unescape
from driftguard.sources.query.predicates import prepare, scan

PATH = "src/file"


def _items(language: str, query: str, source: str, scalar: bool = False):
    text = textwrap.dedent(source).lstrip("\n")
    return reader.extract(reader.parse(PATH, text), Query(language=language, query=query, scalar=scalar), PATH)


def _values(language: str, query: str, source: str) -> list:
    return [item.value.data for item in _items(language, query, source)]


def _scalar(language: str, query: str, source: str):
    (item,) = _items(language, query, source, scalar=True)
    return item.value


# -- what a capture reads as ----------------------------------------------------------

@pytest.mark.parametrize(("language", "source", "expected"), [
    ("rust", r'''const A: &str = "tab\there \"q\" \u{e9}";''', 'tab\there "q" é'),
    ("rust", '''const A: &str = r#"raw \\n "quoted""#;''', 'raw \\n "quoted"'),
    ("rust", '''const A: char = '\\n';''', "\n"),
    ("rust", '''const A: &[u8] = b"bytes";''', "bytes"),
    ("java", '''class A { static final String A = "a\\u0041\\\\b"; }''', "aA\\b"),
    ("java", '''class A { static final char A = 'x'; }''', "x"),
    ("c", '''const char *A = "one " "two\\x21";''', "one two!"),
    ("c", '''char A = '\\101';''', "A"),
    ("cpp", '''auto A = R"(raw\\n)";''', "raw\\n"),
    ("cpp", '''auto A = u8"utf";''', "utf"),
    ("ruby", '''A = 'single\\n quoted' ''', "single\\n quoted"),
    ("ruby", '''A = "double\\n"''', "double\n"),
    ("ruby", '''A = :symbol''', "symbol"),
    ("ruby", '''A = "with #{interpolation}"''', '"with #{interpolation}"'),
    ("python", '''A = "py\\tthon"''', "py\tthon"),
    ("python", '''A = f"{x}"''', 'f"{x}"'),
    ("go", "package p\nconst A = `raw\\n`", "raw\\n"),
    ("typescript", "const A = `plain template`;", "plain template"),
    ("javascript", "const A = 'single';", "single"),
])
def test_a_string_literal_reads_as_its_contents_unquoted(language, source, expected):
    queries = {
        "rust": "(const_item value: (_) @value)",
        "java": "(variable_declarator value: (_) @value)",
        "c": "(init_declarator value: (_) @value)",
        "cpp": "(init_declarator value: (_) @value)",
        "ruby": "(assignment right: (_) @value)",
        "python": "(assignment right: (_) @value)",
        "go": "(const_spec value: (expression_list (_) @value))",
        "typescript": "(variable_declarator value: (_) @value)",
        "javascript": "(variable_declarator value: (_) @value)",
    }
    assert _values(language, queries[language], source) == [expected]


@pytest.mark.parametrize(("text", "zero_octal", "expected"), [
    ("8_080u16", False, 8080), ("0x1F", True, 31), ("0b1010", True, 10), ("0o17", False, 15),
    ("100L", True, 100), ("10ULL", True, 10), ("1'000", True, 1000), ("017", True, 15), ("017", False, 17),
    ("1.5f", True, 1.5), ("2.5e3", True, 2500.0), ("-3", True, -3), ("0", True, 0),
])
def test_a_number_literal_reads_as_a_number_in_its_language(text, zero_octal, expected):
    value = code_number(text, zero_octal)
    assert value is not None and value.kind is Kind.NUMBER and value.data == expected and value.text == text


@pytest.mark.parametrize("text", ["x", "1_000j", "0x", "08", "1e", "true", "'7'"])
def test_what_is_no_number_literal_is_not_read_as_one(text):
    assert code_number(text, zero_octal=True) is None


def test_unknown_escapes_stay_as_written():
    assert unescape(r"\q\n\x41\u{110000}") == "\\q\nA\\u{110000}"


def test_a_scalar_reads_a_number_a_quantity_or_a_string():
    query = '((const_item name: (identifier) @_n value: (_) @value) (#eq? @_n "{}"))'
    source = 'const P: u16 = 0x1F90;\nconst T: &str = "10 minutes";\nconst N: &str = "name";\nconst B: bool = true;\n'
    assert _scalar("rust", query.replace("{}", "P"), source).data == 8080
    timeout = _scalar("rust", query.replace("{}", "T"), source)
    assert timeout.kind is Kind.DURATION and timeout.data == 600
    assert _scalar("rust", query.replace("{}", "N"), source).data == "name"
    assert _scalar("rust", query.replace("{}", "B"), source).data is True


def test_a_define_loses_its_comments_and_a_lone_string_is_unquoted():
    source = '#define A 1 /* one */\n#define B "hi\\n" // second\n#define C (1 << 3)\n'
    items = _items("c", "(preproc_def name: (identifier) @name value: (preproc_arg) @value)", source)
    assert [(i.label, i.value.data) for i in items] == [("A", 1), ("B", "hi\n"), ("C", "(1 << 3)")]


# -- sets, scalars and maps ---------------------------------------------------------------

RUST = '''
enum Mode {
    Fast,
    Slow,
    Fast2,
}
enum Other { Fast, Odd }
'''


def test_a_set_keeps_the_first_of_each_value_in_file_order_as_strings():
    items = _items("rust", "(enum_variant name: (identifier) @value)", RUST)
    assert [i.value.data for i in items] == ["Fast", "Slow", "Fast2", "Odd"]
    assert [(i.location.line, i.location.column) for i in items] == [(2, 5), (3, 5), (4, 5), (6, 20)]
    assert _values("c", "(number_literal) @value", "int a[] = {1, 2};") == ["1", "2"]  # members stay strings


def test_a_scalar_with_two_different_values_is_ambiguous_naming_their_lines():
    with pytest.raises(AmbiguousFact, match=r"captures 2 different values \(lines 2, 3\): `Fast`, `Slow`"):
        _items("rust", "(enum_variant name: (identifier) @value (#match? @value \"^(Fast|Slow)$\"))", RUST,
               scalar=True)
    assert _scalar("rust", '((enum_variant name: (identifier) @value) (#eq? @value "Fast"))', RUST).data == "Fast"


def test_a_query_capturing_name_yields_a_map_one_entry_per_match():
    source = 'H = { "port" => 8080, host: "localhost", :tls => true }\n'
    items = _items("ruby", "(pair key: (_) @name value: (_) @value)", source)
    assert [(i.label, i.value.kind, i.value.data) for i in items] == [
        ("port", Kind.NUMBER, 8080), ("host", Kind.STRING, "localhost"), ("tls", Kind.BOOL, True)]


def test_a_map_giving_one_name_two_values_is_ambiguous():
    source = "#ifdef WIN\n#define SEP 1\n#else\n#define SEP 2\n#endif\n"
    with pytest.raises(AmbiguousFact, match=r"gives `SEP` two values: `1` \(line 2\) and `2` \(line 4\)"):
        _items("c", "(preproc_def name: (identifier) @name value: (preproc_arg) @value)", source)


@pytest.mark.parametrize(("query", "scalar", "message"), [
    ("(const_item name: (identifier) @name type: (_) @name value: (_) @value)", False,
     "a map's match captures one `@name` and one `@value`; the match at line 2 captures 2 and 1"),
    ("(enum_variant name: (identifier) @name @value)", True, "yields a map, not a scalar: drop `scalar: true`"),
])
def test_a_map_query_of_the_wrong_shape_is_a_config_error(query, scalar, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        _items("rust", query, "enum E { A, B }\nconst C: u8 = 1;\n", scalar=scalar)


# -- predicates -----------------------------------------------------------------------------

CONSTS = "const K_A: u8 = 1;\nconst K_B: u8 = 2;\nconst lower: u8 = 3;\nconst OTHER: u8 = 4;\n"


@pytest.mark.parametrize(("predicate", "expected"), [
    ('(#eq? @value "K_B")', ["K_B"]),
    ('(#not-eq? @value "K_B")', ["K_A", "lower", "OTHER"]),
    ('(#match? @value "^K_")', ["K_A", "K_B"]),
    ('(#not-match? @value "^[A-Z_]+$")', ["lower"]),
    ('(#any-of? @value "OTHER" "lower")', ["lower", "OTHER"]),
    ('(#not-any-of? @value "OTHER" "lower")', ["K_A", "K_B"]),
])
def test_predicates_narrow_the_matches(predicate, expected):
    assert _values("rust", f"((const_item name: (identifier) @value) {predicate})", CONSTS) == expected


@pytest.mark.parametrize(("predicate", "expected"), [
    ('(#match? @_t "^u")', []), ('(#any-match? @_t "^u")', ["K_A", "K_B", "lower", "OTHER"]),
    ('(#not-match? @_t "^1$")', ["K_B", "lower", "OTHER"]), ('(#any-not-match? @_t "^u")', ["K_A", "K_B", "lower", "OTHER"]),
    ('(#eq? @_t "u8")', []), ('(#any-eq? @_t "1")', ["K_A"]), ('(#any-of? @_t "u8" "2")', ["K_B"]),
])
def test_a_capture_holding_several_nodes_must_satisfy_a_predicate_with_every_node_or_any(predicate, expected):
    query = f"((const_item name: (identifier) @value type: (_) @_t value: (_) @_t) {predicate})"
    if not expected:
        with pytest.raises(FactNotFound):
            _items("rust", query, CONSTS)
    else:
        assert _values("rust", query, CONSTS) == expected


def test_eq_compares_two_captures():
    source = "const A: u8 = 1;\nconst B: B = B;\n"
    query = "((const_item name: (identifier) @value value: (_) @_v) (#eq? @value @_v))"
    assert _values("rust", query, source) == ["B"]
    assert _values("rust", query.replace("#eq?", "#not-eq?"), source) == ["A"]


def test_the_scan_skips_strings_and_comments_and_reads_arguments():
    found = scan('; (#fake? x)\n((identifier) @v (#eq? @v "(#not? \\"a\\")") (#match? @v "\\\\d"))')
    assert [(p.name, p.args) for p in found] == [
        ("eq?", (("capture", "v"), ("string", '(#not? "a")'))), ("match?", (("capture", "v"), ("string", "\\d")))]


def test_regex_predicates_go_through_driftguards_regex_with_its_time_bound(monkeypatch):
    prepared = prepare('((identifier) @v (#match? @v "^K"))', Location(PATH), "rust")
    assert prepared.text == '((identifier) @v (#driftguard-match? @v "^K"))' and set(prepared.regexes) == {"^K"}
    monkeypatch.setenv("DRIFTGUARD_REGEX_TIMEOUT", "0.05")
    slow = "const " + "a" * 40 + "b: u8 = 1;\n"
    with pytest.raises(PatternError, match="took longer than"):
        _items("rust", '((identifier) @value (#match? @value "^(a|a)*$"))', slow)


@pytest.mark.parametrize(("predicate", "message"), [
    ('(#match? "x" @value)', "`#match?` takes a capture and a quoted regex"),
    ('(#eq? @value)', "`#eq?` takes a capture and a quoted text or another capture"),
    ('(#any-of? @value)', "`#any-of?` takes a capture and one or more quoted texts"),
])
def test_a_predicate_with_the_wrong_arguments_is_a_config_error(predicate, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        _items("rust", f"((identifier) @value {predicate})", "const A: u8 = 1;")


# -- files that do not fully parse ------------------------------------------------------------

def test_an_error_elsewhere_leaves_the_fact_read_and_is_listed_as_a_problem():
    source = "enum Mode { Fast, Slow }\nfn broken( {\n"
    tree = reader.parse(PATH, source)
    selector = Query(language="rust", query="(enum_variant name: (identifier) @value)")
    assert [i.value.data for i in reader.extract(tree, selector, PATH)] == ["Fast", "Slow"]
    assert reader.skipped(tree, selector, PATH) == []
    assert [line for line, _ in reader.problems(tree, PATH)] == [2]


def test_a_match_touching_an_error_is_left_out_and_said():
    source = "enum Mode { Fast, Slow }\nenum Bad { Odd$, Even }\n"
    tree = reader.parse(PATH, source)
    selector = Query(language="rust", query="(enum_variant name: (identifier) @value)")
    assert [i.value.data for i in reader.extract(tree, selector, PATH)] == ["Fast", "Slow", "Even"]
    assert reader.skipped(tree, selector, PATH) == ["line 2: `Odd` left out: line 2: `$` does not parse"]


def test_when_every_match_touches_an_error_the_fact_is_a_parse_error_naming_the_line():
    with pytest.raises(ParseError, match=r"does not parse where the query matches: line 2: `\$`") as caught:
        _items("rust", "(enum_variant name: (identifier) @value)", "// x\nenum Bad { Odd$ }\n")
    assert caught.value.location == Location(PATH, 2)


def test_a_query_matching_nothing_in_a_broken_file_says_it_does_not_fully_parse():
    with pytest.raises(FactNotFound, match=r"matches nothing \(the file does not fully parse: line 1: "):
        _items("cpp", "(enum_specifier body: (enumerator_list (enumerator) @value))",
               "MACRO_OPEN enum class E : int { A };\n")


def test_columns_count_characters_and_lines_follow_any_line_break():
    source = 'const É: &str = "é";\r\nenum E { Ünï, B }\r\n'
    items = _items("rust", "(enum_variant name: (identifier) @value)", source)
    assert [(i.value.data, i.location.line, i.location.column) for i in items] == [("Ünï", 2, 10), ("B", 2, 15)]


# -- the selftest's mutations --------------------------------------------------------------

def _spec(language: str, query: str, scalar: bool = False) -> FactSpec:
    return FactSpec(name="f", file=PATH, selector=Query(language=language, query=query, scalar=scalar), line=1)


def _fact(spec: FactSpec, text: str) -> Fact:
    items = reader.extract(reader.parse(PATH, text), spec.selector, PATH)
    return Fact("f", tuple(items), spec.scalar)


def test_a_new_member_is_written_after_the_last_with_its_neighbours_separator():
    text = "enum Mode {\n    Fast,\n    /// Slowly.\n    Slow,\n}\n"
    spec = _spec("rust", "(enum_variant name: (identifier) @value)")
    edit = reader.add_member(text, spec, _fact(spec, text))
    assert edit.text == "enum Mode {\n    Fast,\n    /// Slowly.\n    Slow,\n    SlowSelftest,\n}\n"
    assert (edit.line, edit.expect, edit.what) == (5, ("SlowSelftest",), "added `SlowSelftest`")


def test_a_map_gains_a_new_name_and_each_entry_changes_its_value():
    text = '#define A 1\n#define B "hello"\n'
    spec = _spec("c", "(preproc_def name: (identifier) @name value: (preproc_arg) @value)")
    fact = _fact(spec, text)
    assert reader.add_member(text, spec, fact).text == text + '#define B_SELFTEST "hello"\n'
    edit = reader.change_scalar(text, spec, fact)
    assert edit.text == '#define A 2\n#define B "hello_selftest"\n'
    assert edit.what == "`1` -> `2` (and 1 other entry)"


def test_a_scalar_changes_at_every_place_the_query_captures_it():
    text = "const A: u8 = 7;\nconst B: u8 = 7;\n"
    spec = _spec("rust", "(const_item value: (_) @value)", scalar=True)
    edit = reader.change_scalar(text, spec, _fact(spec, text))
    assert edit.text == "const A: u8 = 8;\nconst B: u8 = 8;\n"
    assert edit.what == "`7` -> `8` (at all 2 places the query captures it)"


def test_a_member_the_query_would_not_read_is_not_applicable():
    text = "enum Mode { Fast, Slow }\n"
    spec = _spec("rust", '((enum_variant name: (identifier) @value) (#any-of? @value "Fast" "Slow"))')
    with pytest.raises(NotApplicable, match="no copy of `Slow` with a new name is read by the query"):
        reader.add_member(text, spec, _fact(spec, text))
