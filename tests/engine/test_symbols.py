"""The ``symbols`` selector on Go, Python and TypeScript: every kind of name a
fixture defines, at its line, and its string literals labelled ``literal``."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftguard.config.specs import StringMethod, Symbols
from driftguard.model import ConfigError, Item
from driftguard.sources import load_reader, reader_name
from driftguard.sources.go.reader import parse as parse_go
from driftguard.sources.go.symbols import symbols as go_symbols

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "symbols"


def _read(name: str) -> list[Item]:
    path = f"tests/fixtures/symbols/{name}"
    text = (FIXTURES / name).read_text(encoding="utf-8")
    if name.endswith(".go"):
        return go_symbols(parse_go(path, text), path)
    reader = load_reader(reader_name(path, Symbols()))
    return reader.extract(reader.parse(path, text), Symbols(), path)


def _names(items: list[Item]) -> list[tuple[str, int]]:
    return [(str(i.value.data), i.location.line if i.location else 0) for i in items if i.label == ""]


def _literals(items: list[Item]) -> list[tuple[str, int]]:
    return [(str(i.value.data), i.location.line if i.location else 0) for i in items if i.label == "literal"]


GO_NAMES = [
    ("MaxTurns", 10), ("StateIdle", 13), ("StateBusy", 14), ("defaultName", 19), ("left", 20), ("right", 20),
    ("SessionState", 23), ("Alias", 25),
    ("Config", 27), ("Config.Name", 28), ("Name", 28), ("name", 28), ("display_name", 28),
    ("Config.Hidden", 29), ("Hidden", 29), ("Config.A", 30), ("A", 30), ("Config.B", 30), ("B", 30),
    ("Config.Base", 31), ("Base", 31), ("Config.Stringer", 32), ("Stringer", 32),
    ("Config.Limits", 33), ("Limits", 33), ("Config.Limits.Tokens", 34), ("Tokens", 34), ("tokens", 34),
    ("Store", 38), ("Store.items", 39), ("items", 39),
    ("Runner", 42), ("Runner.Run", 43),
    ("NewConfig", 47), ("Config.Validate", 51), ("Store.Get", 56),
]
GO_LITERALS = [
    ("fmt", 4), ("strings", 5), ("assistant", 19), ('json:"name,omitempty" yaml:"display_name"', 28),
    ('json:"-"', 29), ('yaml:"tokens"', 34), ("  spaced  ", 48), ("invalid config: %s\t%q", 52), ("raw\ntext", 52),
]


def test_go_yields_every_kind_of_name_at_its_line_in_source_order() -> None:
    assert _names(_read("shapes.go")) == GO_NAMES


def test_go_string_literals_are_labelled_decoded_and_never_read_from_comments() -> None:
    items = _read("shapes.go")
    assert _literals(items) == GO_LITERALS
    assert "not a literal" not in {i.value.data for i in items}
    assert "CommentName" not in {i.value.data for i in items}


def test_go_names_come_before_literals() -> None:
    labels = [i.label for i in _read("shapes.go")]
    assert labels == sorted(labels)


def test_go_a_broken_function_keeps_the_declarations_around_it() -> None:
    text = 'package p\n\nconst Before = 1\n\nfunc broken( {\n\treturn "x"\n}\n\ntype After struct{ F int }\n'
    items = go_symbols(parse_go("p.go", text), "p.go")
    names = dict(_names(items))
    assert names["Before"] == 3
    assert names["After"] == 9


def test_go_a_literal_spelled_like_a_name_is_kept_beside_it() -> None:
    text = 'package p\n\nvar x = "Thing"\n\ntype Thing int\n'
    items = go_symbols(parse_go("p.go", text), "p.go")
    assert [(str(i.value.data), i.label) for i in items] == [("x", ""), ("Thing", ""), ("Thing", "literal")]


PY_NAMES = [
    ("LIMIT", 6), ("TIMEOUT", 7), ("annotated_only", 8), ("first", 9), ("second", 9), ("third", 9),
    ("Alias", 12), ("FALLBACK", 19), ("helper", 22),
    ("Colour", 28), ("Colour.RED", 29), ("Colour.GREEN", 30),
    ("Service", 33), ("Service.retries", 36), ("Service.name", 37), ("Service.start", 39),
    ("Service.Config", 42), ("Service.Config.path", 43), ("Service.Config.label", 44), ("Service.Config.load", 46),
    ("greeting", 50),
]
PY_LITERALS = [
    ("json", 19), ("default", 22), ("inside", 24), ("joined together", 25), ("red", 29), ("green", 30),
    ("svc", 37), ("running", 40), ("quoted", 44),
]


def test_python_yields_module_names_and_dotted_class_members() -> None:
    assert _names(_read("shapes.py")) == PY_NAMES


def test_python_literals_leave_out_docstrings_fstrings_and_bytes() -> None:
    items = _read("shapes.py")
    assert _literals(items) == PY_LITERALS
    values = {i.value.data for i in items}
    assert not {"A module docstring is prose, not a literal.", "A class docstring.", "bytes are left out"} & values


TS_NAMES = [
    ("start", 3), ("generate", 7),
    ("Service", 9), ("Service.retries", 10), ("Service.#secret", 11), ("Service.run", 13), ("Service.state", 14),
    ("Shape", 17), ("Shape.area", 18),
    ("LIMIT", 21), ("ROUTE", 21), ("counter", 22), ("legacy", 23), ("left", 24), ("renamed", 24), ("rest", 24),
    ("Options", 26), ("Options.path", 27), ("Options.load", 28), ("Options.ttl", 29),
    ("Mode", 32), ("Colour", 34), ("Colour.Red", 34), ("Colour.Green", 34), ("Colour.Blue", 34),
    ("Tools", 36), ("Tools.depth", 37), ("register", 41), ("escaped", 44), ("empty", 45),
]
TS_LITERALS = [
    ("./helper", 1), ("not top-level", 4), ("hidden", 11), ("state-", 14), ("-ready", 14), ("/api/v1", 21),
    ("fast", 32), ("slow", 32), ("red", 34), ("Blue", 34), ("plugin", 40), ("tab\there", 44),
]


def test_typescript_yields_every_kind_of_name_at_its_line() -> None:
    assert _names(_read("shapes.ts")) == TS_NAMES


def test_typescript_literals_include_template_parts_without_substitutions() -> None:
    assert _literals(_read("shapes.ts")) == TS_LITERALS


def test_typescript_with_a_syntax_error_still_yields_the_symbols_before_it() -> None:
    items = _read("broken.ts")
    assert _names(items)[:4] == [("BEFORE", 1), ("working", 3), ("Intact", 5), ("Intact.method", 6)]
    assert ("before", 1) in _literals(items)


def test_jsx_is_read_with_the_javascript_grammar() -> None:
    items = _read("shapes.jsx")
    assert _names(items) == [("Widget", 1), ("Widget.size", 2), ("Widget.render", 3), ("make", 6)]
    assert _literals(items) == [("widget", 3), ("w", 6)]


@pytest.mark.parametrize("suffix", [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"])
def test_every_typescript_and_javascript_extension_goes_to_the_typescript_reader(suffix: str) -> None:
    assert reader_name(f"web/app{suffix}", Symbols()) == "driftguard.sources.typescript"


def test_tsx_parses_jsx_that_plain_typescript_cannot() -> None:
    reader = load_reader("driftguard.sources.typescript")
    text = 'export const View = () => <div title="hi">x</div>;\n'
    tsx = reader.parse("v.tsx", text)
    assert not tsx.root.has_error
    assert [(str(i.value.data), i.label) for i in reader.extract(tsx, Symbols(), "v.tsx")] == [
        ("View", ""), ("hi", "literal")]


def test_the_typescript_reader_names_the_file_for_any_other_selector() -> None:
    reader = load_reader("driftguard.sources.typescript")
    tree = reader.parse("web/app.ts", "export const A = 1;\n")
    with pytest.raises(ConfigError, match=r"web/app\.ts: the TypeScript reader does not read `string_method`; it reads"):
        reader.extract(tree, StringMethod(type="A"), "web/app.ts")
