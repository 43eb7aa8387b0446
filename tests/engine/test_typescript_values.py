"""TypeScript and JavaScript constants evaluate as the language computes them, read
through the wrappers real code puts around a value (``as const``, ``satisfies``,
``Object.freeze``, ``Number()``, an environment read's fallback), and what cannot
be computed is refused with its reason, never guessed."""

from __future__ import annotations

import pytest

from driftguard.config.specs import Constant
from driftguard.model import FactNotFound, Kind
from driftguard.sources import typescript as reader

PATH = "src/constants.ts"

PRELUDE = """\
import { IMPORTED } from './other'
export const BASE = 1_000
const HOST = 'localhost'
let MUTABLE = 3
export enum Mode { Spa, Mpa = 5, Custom, Named = 'named' }
export class Config { static PORT = 8080; static readonly NAME = 'cfg' }
const DEFAULTS = Object.freeze({ server: { port: 5173, hosts: ['a', 'b'] }, ...BASE_DEFAULTS } satisfies Options)
"""


def value(expression: str, path: str = PATH, unwrap: tuple[str, ...] = ()) -> tuple[Kind, object]:
    source = f"{PRELUDE}export const VALUE = {expression}\n"
    [item] = reader.extract(reader.parse(path, source), Constant("VALUE", unwrap=unwrap), path)
    assert item.location is not None and item.location.line == 8
    return item.value.kind, item.value.data


def refusal(expression: str) -> str:
    source = f"{PRELUDE}export const VALUE = {expression}\n"
    with pytest.raises(FactNotFound) as caught:
        reader.extract(reader.parse(PATH, source), Constant("VALUE"), PATH)
    return caught.value.message


@pytest.mark.parametrize(("expression", "kind", "data"), [
    ("5173", Kind.NUMBER, 5173),
    ("1_000", Kind.NUMBER, 1000),
    ("0x10", Kind.NUMBER, 16),
    ("0b101", Kind.NUMBER, 5),
    ("1e3", Kind.NUMBER, 1000.0),
    (".5", Kind.NUMBER, 0.5),
    ("9007199254740993n", Kind.NUMBER, 9007199254740993),
    ("2 ** 53 + 1", Kind.NUMBER, 9007199254740993),
    ("-(4 * 1024)", Kind.NUMBER, -4096),
    ("7 / 2", Kind.NUMBER, 3.5),
    ("4096 / 2", Kind.NUMBER, 2048),
    ("-7 % 3", Kind.NUMBER, -1),
    ("1 << 20", Kind.NUMBER, 1048576),
    ("BASE * 60", Kind.NUMBER, 60000),
    ("'single'", Kind.STRING, "single"),
    ('"double\\tquoted"', Kind.STRING, "double\tquoted"),
    ("`template`", Kind.STRING, "template"),
    ("`http://${HOST}:${BASE}`", Kind.STRING, "http://localhost:1000"),
    ("'v' + 1.5", Kind.STRING, "v1.5"),
    ("true", Kind.BOOL, True),
    ("!true", Kind.BOOL, False),
    ("BASE > 10 ? 'big' : 'small'", Kind.STRING, "big"),
    ("(HOST as string)", Kind.STRING, "localhost"),
    ("`development|production` as const", Kind.STRING, "development|production"),
    ("HOST satisfies string", Kind.STRING, "localhost"),
    ("HOST!", Kind.STRING, "localhost"),
    ("Object.freeze(BASE)", Kind.NUMBER, 1000),
    ("Number('5173')", Kind.NUMBER, 5173),
    ("Number('0x1F')", Kind.NUMBER, 31),
    ("String(BASE)", Kind.STRING, "1000"),
    ("parseInt('42px', 10)", Kind.NUMBER, 42),
    ("parseFloat('2.5s')", Kind.NUMBER, 2.5),
    ("Mode.Spa", Kind.NUMBER, 0),
    ("Mode.Custom", Kind.NUMBER, 6),
    ("Mode.Named", Kind.STRING, "named"),
    ("Config.PORT", Kind.NUMBER, 8080),
    ("Config.NAME", Kind.STRING, "cfg"),
    ("DEFAULTS.server.port", Kind.NUMBER, 5173),
    ("DEFAULTS['server'].hosts[1]", Kind.STRING, "b"),
    ("process.env.PORT ?? 5173", Kind.NUMBER, 5173),
    ("Number(process.env.VITE_PORT ?? process.env.PORT ?? '5173')", Kind.NUMBER, 5173),
    ("import.meta.env.VITE_HOST || HOST", Kind.STRING, "localhost"),
    ("process.env['LEVEL'] ?? 'info'", Kind.STRING, "info"),
    ("null ?? 3", Kind.NUMBER, 3),
    ("0 || 4", Kind.NUMBER, 4),
])
def test_a_constant_evaluates_as_javascript_computes_it(expression: str, kind: Kind, data: object) -> None:
    found = value(expression)
    assert found == (kind, data) and type(found[1]) is type(data)


def test_a_value_is_written_as_the_source_spells_it() -> None:
    [item] = reader.extract(reader.parse(PATH, f"{PRELUDE}export const VALUE = 4 *  1024\n"), Constant("VALUE"), PATH)
    assert item.value.text == "4 * 1024" and item.value.canonical == "4096"


def test_the_projects_own_conversions_are_read_through_with_unwrap() -> None:
    assert value("ms(30_000)", unwrap=("ms",)) == (Kind.NUMBER, 30000)
    assert value("units.seconds(5)", unwrap=("seconds",)) == (Kind.NUMBER, 5)
    assert "is a call of ms" in refusal("ms(30_000)")


def test_javascript_reads_the_same_constants() -> None:
    source = "const HOST = 'localhost'\nexport const URL = `http://${HOST}:` + (5000 + 173)\n"
    [item] = reader.extract(reader.parse("lib/url.mjs", source), Constant("URL"), "lib/url.mjs")
    assert item.value.data == "http://localhost:5173"


@pytest.mark.parametrize(("expression", "reason"), [
    ("IMPORTED", "`IMPORTED` is imported from './other'; only constants of this file are read"),
    ("MUTABLE + 1", "`MUTABLE` is declared with `let`, so it may change; only a `const` is read"),
    ("UNKNOWN", "`UNKNOWN` is not a constant of this file"),
    ("process.env.PORT", "reads the environment and gives no default here"),
    ("null", "is null or undefined, which is no value to compare"),
    ("undefined", "is null or undefined, which is no value to compare"),
    ("compute(3)", "is a call of compute, not a constant expression"),
    ("1 / 0", "divides by zero"),
    ("Number('five')", "`five` is not a finite number"),
    ("{ port: 1 }", "is an object literal, not one value"),
    ("[1, 2]", "is an array literal, not one value"),
    ("DEFAULTS.server.missing", 'has no key "missing" (its keys: port, hosts)'),
    ("DEFAULTS.other", "the spread `...BASE_DEFAULTS` may hold it"),
    ("Mode.Gone", "enum Mode has no member Gone"),
    ("Config.MISSING", "has no static field MISSING with a value (its static fields: PORT, NAME)"),
    ("`${HOST}${Date.now()}`", "is a call of Date.now, not a constant expression"),
])
def test_what_cannot_be_computed_is_refused_with_the_reason(expression: str, reason: str) -> None:
    message = refusal(expression)
    assert message.startswith("`VALUE` (line 8) cannot be evaluated: ") and reason in message


def test_a_constant_defined_in_terms_of_itself_is_refused() -> None:
    source = "const A = B + 1\nconst B = A + 1\nexport const VALUE = A\n"
    with pytest.raises(FactNotFound, match="defined in terms of itself"):
        reader.extract(reader.parse(PATH, source), Constant("VALUE"), PATH)


def test_an_enum_member_auto_increments_and_reads_earlier_members() -> None:
    source = "enum Flag { None = 0, A = 1 << 0, B = 1 << 1, AB = A | B, Next }\n"
    tree = reader.parse(PATH, source)
    assert [reader.extract(tree, Constant(f"Flag.{name}"), PATH)[0].value.data
            for name in ("None", "A", "B", "AB", "Next")] == [0, 1, 2, 3, 4]
