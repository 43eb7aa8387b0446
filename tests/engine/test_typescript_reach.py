"""The TypeScript reader on the declaration shapes real trees hold (vite's enums,
string-literal unions, ``Object.freeze({...} satisfies X)`` defaults, interfaces,
error classes, switches): each selector reads what is there, leaves out and lists
what has no value, and says what it could not find.

Calls, flags, environment reads and partial parses are in
``test_typescript_calls.py``; the engine on the fixture tree in
``test_typescript_fixture.py``.
"""

from __future__ import annotations

import textwrap

import pytest

from driftguard.config.specs import (
    Cases,
    Classes,
    Constant,
    Constants,
    Default,
    Fields,
    ListOf,
    MapKeys,
    Selector,
    StringMethod,
)
from driftguard.model import AmbiguousFact, ConfigError, FactNotFound
from driftguard.sources import typescript as reader

PATH = "src/node/config.ts"


def read(source: str, selector: Selector, path: str = PATH) -> list:
    return list(reader.extract(reader.parse(path, textwrap.dedent(source)), selector, path))


def values(source: str, selector: Selector, path: str = PATH) -> list:
    return [item.value.data for item in read(source, selector, path)]


def lines(source: str, selector: Selector) -> list:
    return [item.location.line for item in read(source, selector)]


def skipped(source: str, selector: Selector) -> list[str]:
    return reader.skipped(reader.parse(PATH, textwrap.dedent(source)), selector, PATH)


def not_found(source: str, selector: Selector) -> str:
    with pytest.raises(FactNotFound) as caught:
        read(source, selector)
    return caught.value.message


def declared(source: str, selector: Selector) -> tuple[int, str]:
    found = reader.declaration(reader.parse(PATH, textwrap.dedent(source)), selector, PATH)
    assert found is not None
    return found[0].line, found[1]


# -- constants ------------------------------------------------------------------

SHAPES = """\
export enum PreprocessLang {
  less = 'less',
  sass = 'sass',
  stylus = 'stylus',
}
export const enum Priority { Low, Normal, High = 10, Critical }
export type AppType = 'spa' | 'mpa' | 'custom'
export type LogType = 'error' | 'warn' | 'info'
export type LogLevel = LogType | 'silent' | `x-${string}`
export type Port = 80 | 443 | -1
export type Options = { port: number }
export const cssModuleKinds = {
  global: ':global',
  local: ':local',
  nested: { no: 'value' },
} as const
export const DEFAULT_DEV_PORT = 5173
export const DEFAULT_PREVIEW_PORT = 4173
export const DEFAULT_HOST = undefined
let DEFAULT_LET = 1
"""


@pytest.mark.parametrize(("selector", "expected"), [
    (Constants(type="PreprocessLang"), ["less", "sass", "stylus"]),
    (Constants(type="Priority"), [0, 1, 10, 11]),
    (Constants(type="Priority", values="names"), ["Low", "Normal", "High", "Critical"]),
    (Constants(type="AppType"), ["spa", "mpa", "custom"]),
    (Constants(type="Port"), [80, 443, -1]),
    (Constants(type="cssModuleKinds"), [":global", ":local"]),
    (Constants(type="cssModuleKinds", values="names"), ["global", "local", "nested"]),
    (Constants(type="Priority", name="^(Low|High)$"), [0, 10]),
    (Constants(name="^DEFAULT_"), [5173, 4173]),
    (Constants(name="^DEFAULT_", values="names"), ["DEFAULT_DEV_PORT", "DEFAULT_PREVIEW_PORT", "DEFAULT_HOST"]),
])
def test_constants_read_enums_unions_const_objects_and_named_consts(selector: Constants, expected: list) -> None:
    assert values(SHAPES, selector) == expected


def test_each_member_is_read_at_its_own_line() -> None:
    assert lines(SHAPES, Constants(type="PreprocessLang")) == [2, 3, 4]
    assert lines(SHAPES, Constants(type="cssModuleKinds")) == [13, 14]


def test_a_union_member_that_is_another_type_is_left_out_and_listed() -> None:
    assert values(SHAPES, Constants(type="LogLevel")) == ["silent"]
    assert skipped(SHAPES, Constants(type="LogLevel")) == [
        "line 9: `LogType` is not a literal type; left out",
        "line 9: ``x-${string}`` is not a literal type; left out",
    ]


def test_what_a_const_object_or_a_name_pattern_leaves_out_is_listed() -> None:
    assert skipped(SHAPES, Constants(type="cssModuleKinds")) == [
        "key nested (line 15): `{ no: 'value' }` has no value (is an object literal, not one value); left out"]
    assert skipped(SHAPES, Constants(name="^DEFAULT_")) == [
        "const DEFAULT_HOST (line 19): `undefined` has no value (is null or undefined, which is no value to "
        "compare); left out"]


def test_constants_name_what_they_could_not_find() -> None:
    assert not_found(SHAPES, Constants(type="Missing")) == "no enum, const object or union type Missing in this file"
    assert not_found(SHAPES, Constants(type="Options")).startswith(
        "type Options (line 11) is an object type, not a union of literals; `fields` reads its properties")


def test_constants_declaration_is_the_enum_type_or_const() -> None:
    assert declared(SHAPES, Constants(type="PreprocessLang")) == (1, "enum PreprocessLang")
    assert declared(SHAPES, Constants(type="AppType")) == (7, "type AppType")
    assert declared(SHAPES, Constants(type="cssModuleKinds")) == (12, "const cssModuleKinds")


# -- constant with a key path -----------------------------------------------------

DEFAULTS = """\
const DEFAULT_PREVIEW_PORT = 4173
import { DEFAULT_ASSETS_INLINE_LIMIT } from './constants'

const _buildDefaults = Object.freeze({
  outDir: 'dist',
  assetsInlineLimit: DEFAULT_ASSETS_INLINE_LIMIT,
  'chunk-size': 500,
  watch: null,
  commonjsOptions: { extensions: ['.js', '.cjs'] },
} satisfies BuildOptions)
export const buildDefaults: Readonly<BuildOptions> = _buildDefaults

const configDefaults = Object.freeze({
  build: buildDefaults,
  preview: { port: DEFAULT_PREVIEW_PORT },
  ...shared,
} satisfies UserConfig)
"""


@pytest.mark.parametrize(("name", "keys", "data", "line"), [
    ("_buildDefaults", ("outDir",), "dist", 5),
    ("buildDefaults", ("chunk-size",), 500, 7),
    ("buildDefaults", ("commonjsOptions", "extensions", -1), ".cjs", 9),
    ("configDefaults", ("build", "outDir"), "dist", 5),
    ("configDefaults", ("preview", "port"), 4173, 15),
])
def test_a_key_path_reads_inside_frozen_satisfies_objects_and_follows_names(
        name: str, keys: tuple, data: object, line: int) -> None:
    [item] = read(DEFAULTS, Constant(name, keys))
    assert (item.value.data, item.location.line) == (data, line)


@pytest.mark.parametrize(("name", "keys", "message"), [
    ("_buildDefaults", ("outdir",), '`_buildDefaults` (line 4) has no key "outdir" (its keys: outDir, '
     "assetsInlineLimit, chunk-size, watch, commonjsOptions)"),
    ("_buildDefaults", ("assetsInlineLimit",), '`_buildDefaults["assetsInlineLimit"]` (line 6) cannot be '
     "evaluated: `DEFAULT_ASSETS_INLINE_LIMIT` is imported from './constants'; only constants of this file are read"),
    ("_buildDefaults", ("watch",), '`_buildDefaults["watch"]` (line 8) cannot be evaluated: `null` is null or '
     "undefined, which is no value to compare"),
    ("_buildDefaults", ("outDir", "x"), '`_buildDefaults["outDir"]` (line 5) is not an object or array literal: '
     "`'dist'`"),
    ("configDefaults", ("server",), '`configDefaults` (line 13) has no key "server" (its keys: build, preview; '
     "the spread `...shared` may hold it)"),
    ("buildDefaults", ("commonjsOptions", "extensions", 2), '`buildDefaults["commonjsOptions"]["extensions"]` '
     "(line 9) has no element 2 (it has 2)"),
    ("missing", ("a",), "no const missing in this file"),
])
def test_a_key_path_that_is_not_there_names_the_path_reached(name: str, keys: tuple, message: str) -> None:
    assert not_found(DEFAULTS, Constant(name, keys)) == message


def test_a_name_imported_from_another_file_says_where_to_read_it() -> None:
    assert not_found(DEFAULTS, Constant("DEFAULT_ASSETS_INLINE_LIMIT")) == (
        "`DEFAULT_ASSETS_INLINE_LIMIT` is imported from './constants'; read it in that file")


def test_a_const_declared_twice_is_ambiguous() -> None:
    with pytest.raises(AmbiguousFact, match=r"const PORT matches 2 places \(lines 1, 2\)"):
        read("var PORT = 1\nvar PORT = 2\n", Constant("PORT", ("a",)))


# -- map_keys and list -----------------------------------------------------------

LITERALS = """\
const KEY = 'computed'
export const preprocessorLoaders = {
  less: 'less',
  'sass-embedded': 'sass',
  4: 'four',
  [KEY]: 1,
  [Symbol.iterator]: 2,
  shorthand,
  method() {},
  ...rest,
}
export default defineConfig({
  resolve: { alias: { '@': './src', '@api': './src/api' } },
  server: { proxy: { '/ws': { ws: true } } },
})
export function plugin() {
  const hooks = { transform: 1, load: 2 }
  return { name: 'p', hooks }
}
export const DEFAULT_EXTENSIONS: string[] = ['.mjs', '.js', , '.ts', ...more, KEY, { no: 1 }]
const kinds = new Set(['less', 'sass'] as const)
"""


def test_map_keys_reads_identifier_string_number_computed_and_method_keys() -> None:
    items = read(LITERALS, MapKeys("preprocessorLoaders"))
    assert [i.value.data for i in items] == ["less", "sass-embedded", 4, "computed", "shorthand", "method"]
    assert [i.location.line for i in items] == [3, 4, 5, 6, 8, 9]
    assert skipped(LITERALS, MapKeys("preprocessorLoaders")) == [
        "line 7: the computed key `[Symbol.iterator]` cannot be evaluated; left out",
        "line 10: the spread `...rest`: its keys are not read; left out"]


def test_map_keys_reads_an_object_bound_to_a_property_of_another_literal() -> None:
    assert values(LITERALS, MapKeys("alias")) == ["@", "@api"]
    assert values(LITERALS, MapKeys("proxy")) == ["/ws"]
    assert values(LITERALS, MapKeys('resolve["alias"]')) == ["@", "@api"]
    assert declared(LITERALS, MapKeys("alias")) == (13, "alias")


def test_map_keys_within_a_function_reads_its_local() -> None:
    assert values(LITERALS, MapKeys("hooks", within="plugin")) == ["transform", "load"]
    assert "no const or property loaders inside plugin" in not_found(LITERALS, MapKeys("loaders", within="plugin"))


def test_map_keys_on_a_name_two_literals_give_is_ambiguous() -> None:
    with pytest.raises(AmbiguousFact, match=r"property port matches 2 places \(lines 1, 2\)"):
        read("a({ port: { x: 1 } })\nb({ port: { y: 2 } })\n", MapKeys("port"))


def test_list_reads_the_elements_and_lists_what_it_leaves_out() -> None:
    assert values(LITERALS, ListOf("DEFAULT_EXTENSIONS")) == [".mjs", ".js", ".ts", "computed"]
    assert skipped(LITERALS, ListOf("DEFAULT_EXTENSIONS")) == [
        "line 20: `{ no: 1 }` has no value (is an object literal, not one value); left out",
        "line 20: the spread `...more`: its elements are not read; left out"]
    assert values(LITERALS, ListOf("kinds")) == ["less", "sass"]
    assert "is not an array literal" in not_found(LITERALS, ListOf("preprocessorLoaders"))


# -- default -----------------------------------------------------------------------

FUNCTIONS = """\
export function createLogger(
  level: LogLevel = 'info',
  options: LoggerOptions = {},
): Logger {
  const {
    prefix = '[vite]',
    allowClearScreen = true,
  } = options
}
export function resolveServerOptions({ port = 5173, host: hostname = 'localhost', open } = {}) {}
export const startServer = async (retries = 3) => retries
export class Client {
  constructor(private timeout = 5_000) {}
  request(method = 'GET') {}
}
function overloaded(a: string): void
function overloaded(a: string, b = 2): void {}
"""


@pytest.mark.parametrize(("function", "param", "data", "line"), [
    ("createLogger", "level", "info", 2),
    ("createLogger", "prefix", "[vite]", 6),
    ("createLogger", "allowClearScreen", True, 7),
    ("resolveServerOptions", "port", 5173, 10),
    ("resolveServerOptions", "host", "localhost", 10),
    ("resolveServerOptions", "hostname", "localhost", 10),
    ("startServer", "retries", 3, 11),
    ("Client.constructor", "timeout", 5000, 13),
    ("Client", "timeout", 5000, 13),
    ("Client.request", "method", "GET", 14),
    ("overloaded", "b", 2, 17),
])
def test_default_reads_plain_destructured_and_body_destructured_parameters(
        function: str, param: str, data: object, line: int) -> None:
    [item] = read(FUNCTIONS, Default(function=function, param=param))
    assert (item.value.data, item.location.line) == (data, line)


def test_default_says_what_is_missing() -> None:
    assert not_found(FUNCTIONS, Default(function="resolveServerOptions", param="open")) == (
        "parameter open of resolveServerOptions (line 10) has no default")
    assert not_found(FUNCTIONS, Default(function="createLogger", param="colors")) == (
        "createLogger (line 1) has no parameter colors (its parameters: level, options)")
    assert not_found(FUNCTIONS, Default(function="missing", param="x")).startswith("no function or method missing")


def test_default_on_a_name_two_functions_share_is_ambiguous() -> None:
    with pytest.raises(AmbiguousFact, match="function run matches 2 places"):
        read("class A { run(x = 1) {} }\nclass B { run(x = 2) {} }\n", Default(function="run", param="x"))


# -- fields ------------------------------------------------------------------------

TYPES = """\
export interface ServerOptions extends CommonServerOptions {
  host?: string | boolean
  'allowed-hosts'?: string[]
  port?: number
  [key: string]: unknown
  listen(): void
  onError: (err: Error) => void
}
export interface ServerOptions { strictPort?: boolean }
export type Resolved = Base & { root: string; mode: string }
export class ViteDevServer extends Server {
  middlewareMode = false
  static instances = 0
  #closed = false
  get url() { return '' }
  constructor(public config: Config, readonly httpServer: Http, port: number) { super() }
  close(): void {}
}
"""


@pytest.mark.parametrize(("type_", "expected"), [
    ("ServerOptions", ["host", "allowed-hosts", "port", "onError", "strictPort"]),
    ("Resolved", ["root", "mode"]),
    ("ViteDevServer", ["middlewareMode", "config", "httpServer"]),
])
def test_fields_read_interfaces_object_types_and_classes(type_: str, expected: list) -> None:
    assert values(TYPES, Fields(type=type_)) == expected


def test_fields_list_the_methods_signatures_and_inherited_fields_they_leave_out() -> None:
    assert skipped(TYPES, Fields(type="ServerOptions")) == [
        "line 1: `extends CommonServerOptions`: the fields it brings are not read",
        "line 5: index signature `[key: string]: unknown` left out",
        "line 6: method `listen(): void` left out"]
    assert skipped(TYPES, Fields(type="ViteDevServer"))[1:] == [
        "line 13: static field instances left out", "line 14: private field #closed left out",
        "line 15: method `get url() { return '' }` left out", "line 17: method `close(): void {}` left out"]


def test_fields_refuse_a_go_struct_tag_and_name_a_missing_type() -> None:
    with pytest.raises(ConfigError, match="`tag: json` reads Go struct tags"):
        read(TYPES, Fields(type="ServerOptions", tag="json"))
    assert not_found(TYPES, Fields(type="Missing")) == "no interface, type or class Missing in this file"
    assert declared(TYPES, Fields(type="ViteDevServer")) == (11, "class ViteDevServer")


# -- cases and classes -----------------------------------------------------------------

SWITCHES = """\
export function loadPreprocessor(lang: PreprocessLang, mode: string) {
  switch (lang) {
    case PreprocessLang.less:
      return 'less'
    case 'sass':
    case 'scss':
      return 'sass'
    case 3:
    case other:
      return 'three'
    default:
      throw new Error(lang)
  }
  switch (mode) { case 'dev': break }
}
enum PreprocessLang { less = 'less' }
"""


def test_cases_read_the_evaluated_labels_of_the_switch_chosen_by_its_expression() -> None:
    assert values(SWITCHES, Cases(within="loadPreprocessor", switch="lang")) == ["less", "sass", "scss", 3]
    assert skipped(SWITCHES, Cases(within="loadPreprocessor", switch="lang")) == [
        "line 9: `other` has no value (is not a constant of this file); left out"]
    assert values(SWITCHES, Cases(within="loadPreprocessor", switch="(mode)")) == ["dev"]


def test_cases_in_a_function_with_two_switches_need_switch() -> None:
    with pytest.raises(AmbiguousFact, match="pick one with `switch:`"):
        read(SWITCHES, Cases(within="loadPreprocessor"))
    assert not_found(SWITCHES, Cases(within="loadPreprocessor", switch="kind")) == (
        "no switch in loadPreprocessor on `kind`")


CLASSES = """\
export class ViteError extends Error {}
export class ConfigError extends ViteError {}
export class PluginHookError extends PluginError<Hook> {}
export abstract class PluginError extends errors.ViteError {}
export const HmrError = class extends ViteError {}
export default class extends ConfigError {}
class Unrelated extends Error {}
"""


def test_classes_read_every_class_extending_the_base_directly_or_through_the_file() -> None:
    items = read(CLASSES, Classes(base="ViteError"))
    assert [(i.value.data, i.location.line) for i in items] == [
        ("ConfigError", 2), ("PluginHookError", 3), ("PluginError", 4), ("HmrError", 5)]
    assert skipped(CLASSES, Classes(base="ViteError")) == ["line 6: an anonymous class extends ConfigError; left out"]
    assert declared(CLASSES, Classes(base="ViteError")) == (1, "class ViteError")


def test_javascript_classes_read_the_same_way() -> None:
    source = "class A extends Base {}\nclass B extends A { x = 1 }\n"
    assert values(source, Classes(base="Base"), "lib/errors.js") == ["A", "B"]
    assert not_found(source, Classes(base="Missing")) == "the classes extending Missing has no member with a value"


def test_string_method_is_still_a_selector_typescript_does_not_read() -> None:
    with pytest.raises(ConfigError, match="does not read `string_method`; it reads `constants`, `constant`"):
        read(SHAPES, StringMethod(type="AppType"))
