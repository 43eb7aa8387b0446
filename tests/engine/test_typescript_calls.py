"""The TypeScript reader on calls, command-line options and environment reads as real
trees write them (vite's cac CLI, a commander release script, a yargs server,
``process.env.X ?? default`` chains, ``defineConfig({...})``), the map facts
``flags`` and ``env`` give with ``defaults: true``, and files the grammar cannot
fully read (``export type * as ns``, a bare ``&`` in TSX text)."""

from __future__ import annotations

import textwrap

import pytest

from driftguard.config.specs import Call, Calls, Constant, Constants, Env, Flags, MapKeys, Selector
from driftguard.model import AmbiguousFact, FactNotFound, Kind, ParseError
from driftguard.sources import typescript as reader

PATH = "src/node/cli.ts"


def read(source: str, selector: Selector, path: str = PATH) -> list:
    return list(reader.extract(reader.parse(path, textwrap.dedent(source)), selector, path))


def values(source: str, selector: Selector, path: str = PATH) -> list:
    return [item.value.data for item in read(source, selector, path)]


def entries(source: str, selector: Selector, path: str = PATH) -> list[tuple[str, object, int]]:
    return [(i.label, i.value.data, i.location.line) for i in read(source, selector, path)]


def skipped(source: str, selector: Selector, path: str = PATH) -> list[str]:
    return reader.skipped(reader.parse(path, textwrap.dedent(source)), selector, path)


def parse_error(source: str, selector: Selector, path: str = PATH) -> ParseError:
    with pytest.raises(ParseError) as caught:
        read(source, selector, path)
    return caught.value


# -- call and calls -----------------------------------------------------------------

CLIENT = """\
import { defineConfig } from 'vite'
const TIMEOUT = 30_000
export default defineConfig({
  server: { port: 7655, hosts: ['a', 'b'] },
  preview: { port: 4173 },
})
export async function listNodes() {
  const METHOD = 'GET'
  return fetch('/api/nodes', { method: METHOD, timeout: TIMEOUT })
}
export async function saveNode(id: string) {
  return fetch(`/api/nodes/${id}`, { method: 'PUT' })
}
export function registerRoutes(router: Router) {
  router.get('/health')
  router.get('/version')
  router.get(dynamicPath())
}
const client = new Client('https://api.example.com', { retries: 3 })
"""


@pytest.mark.parametrize(("selector", "data", "line"), [
    (Call("defineConfig", 0, path=("server", "port")), 7655, 4),
    (Call("defineConfig", 0, path=("server", "hosts", 1)), "b", 4),
    (Call("fetch", "method", within="listNodes"), "GET", 9),
    (Call("fetch", "timeout"), 30000, 9),
    (Call("Client", 0), "https://api.example.com", 19),
    (Call("Client", "retries"), 3, 19),
    (Call("router.get", within="registerRoutes", where=((0, "'/version'"),)), "/version", 16),
])
def test_call_reads_a_position_a_property_or_a_path_inside_an_argument(selector: Call, data: object,
                                                                        line: int) -> None:
    [item] = read(CLIENT, selector)
    assert (item.value.data, item.location.line) == (data, line)


def test_calls_read_each_literal_once_and_list_the_calls_they_leave_out() -> None:
    assert values(CLIENT, Calls("fetch", "method")) == ["GET", "PUT"]
    assert values(CLIENT, Calls("router.get", within="registerRoutes")) == ["/health", "/version"]
    assert skipped(CLIENT, Calls("router.get", within="registerRoutes")) == [
        "line 17: argument arg0 `dynamicPath()` of `router.get(dynamicPath())` is not a literal "
        "(is a call of dynamicPath, not a constant expression); left out"]


def test_call_says_what_is_ambiguous_or_missing() -> None:
    with pytest.raises(AmbiguousFact, match=r"call of fetch \(reading method\) matches 2 places \(lines 9, 12\)"):
        read(CLIENT, Call("fetch", "method"))
    with pytest.raises(FactNotFound, match="no call of fetch within registerRoutes"):
        read(CLIENT, Call("fetch", 0, within="registerRoutes"))
    with pytest.raises(FactNotFound, match=r'`arg0` \(line 3\) has no key "port"'):
        read(CLIENT, Call("defineConfig", 0, path=("port",)))


# -- flags ----------------------------------------------------------------------------

CAC = """\
const cli = cac('vite')
cli
  .option('-c, --config <file>', `[string] use specified config file`)
  .option('--base <path>', `[string] public base path (default: /)`, { type: [String] })
cli
  .command('[root]', 'start dev server')
  .option('--port <port>', `[number] specify port`, { default: 5173 })
  .option('--strictPort', `[boolean] exit if specified port is already in use`)
cli
  .command('build [root]', 'build for production')
  .option('--outDir <dir>', `[string] output directory (default: dist)`, { default: 'dist' })
  .option('--assetsInlineLimit <number>', `[number] inline threshold (default: 4096)`)
"""

COMMANDER = """\
const DEFAULT_TAG = 'latest'
function configure(program) {
  program
    .option('-d, --dry-run', 'print what would be released')
    .option('-t, --tag <tag>', 'dist-tag', DEFAULT_TAG)
    .option('-r, --retries <count>', 'retries', parseInt, 3)
    .requiredOption('--otp <code>', 'one-time password')
    .option('--no-git', 'skip the git tag')
    .option(flagFor('verbose'), 'dynamic')
    .addOption(new Option('--registry <url>').choices(['a']).default('https://registry.npmjs.org'))
}
"""

YARGS = """\
const DEFAULT_PORT = 8080
export const argv = yargs(process.argv)
  .option('port', { alias: 'p', type: 'number', default: DEFAULT_PORT })
  .options({ open: { type: 'boolean', default: false }, 'base-url': { type: 'string' } })
  .parse()
"""


@pytest.mark.parametrize(("source", "path", "selector", "expected"), [
    (CAC, PATH, Flags(), ["config", "base", "port", "strictPort", "outDir", "assetsInlineLimit"]),
    (CAC, PATH, Flags(within="build"), ["outDir", "assetsInlineLimit"]),
    (CAC, PATH, Flags(within="[root]"), ["port", "strictPort"]),
    (CAC, PATH, Flags(within="cli"), ["config", "base"]),
    (COMMANDER, "tools/release.js", Flags(within="configure"), ["dry-run", "tag", "retries", "otp", "git",
                                                                "registry"]),
    (YARGS, "tools/serve.mjs", Flags(), ["port", "open", "base-url"]),
])
def test_flags_read_the_long_names_of_cac_commander_and_yargs_options(source: str, path: str, selector: Flags,
                                                                      expected: list) -> None:
    assert values(source, selector, path) == expected


def test_an_option_whose_name_is_no_constant_is_left_out_and_listed() -> None:
    assert skipped(COMMANDER, Flags(), "tools/release.js") == [
        "line 9: the option `flagFor('verbose')` has no constant name (is a call of flagFor, not a constant "
        "expression); left out"]


def test_flags_with_defaults_map_each_name_to_its_default_or_to_nothing() -> None:
    assert entries(CAC, Flags(within="build", defaults=True)) == [
        ("outDir", "dist", 11), ("assetsInlineLimit", "", 12)]
    assert entries(COMMANDER, Flags(defaults=True), "tools/release.js") == [
        ("dry-run", "", 4), ("tag", "latest", 5), ("retries", 3, 6), ("otp", "", 7), ("git", "", 8),
        ("registry", "https://registry.npmjs.org", 10)]
    assert entries(YARGS, Flags(defaults=True), "tools/serve.mjs") == [
        ("port", 8080, 3), ("open", False, 4), ("base-url", "", 4)]


def test_a_default_written_only_in_the_description_is_not_read_and_is_listed() -> None:
    assert "line 12: option assetsInlineLimit has no default; it maps to \"\"" in skipped(
        CAC, Flags(within="build", defaults=True))


def test_flags_within_a_name_that_is_nothing_is_not_found() -> None:
    with pytest.raises(FactNotFound, match="no function, method, command or program preview"):
        read(CAC, Flags(within="preview"))


# -- env --------------------------------------------------------------------------------

ENV = """\
const DEBUG_KEY = 'VITE_DEBUG_FILTER'
export const filter = process.env[DEBUG_KEY]
const browser = process.env.BROWSER || 'chrome'
const port = Number(process.env.VITE_PORT ?? process.env.PORT ?? 5173)
const retries = Number(process.env.RETRIES) || 3
const api = import.meta.env.VITE_API_BASE ?? '/api'
const dev = import.meta.env['DEV']
process.env.VITE_USER_NODE_ENV = 'production'
delete process.env.TEMP
const { CI, NO_COLOR: noColor = '0', ...rest } = process.env
for (const key in process.env) void process.env[key]
const other = process.env.PORT ?? 7655
"""


def test_env_reads_every_spelling_of_a_read_once() -> None:
    assert values(ENV, Env()) == ["VITE_DEBUG_FILTER", "BROWSER", "VITE_PORT", "PORT", "RETRIES", "VITE_API_BASE",
                                  "DEV", "CI", "NO_COLOR"]


def test_env_leaves_out_writes_deletes_and_dynamic_names_and_lists_them() -> None:
    assert skipped(ENV, Env()) == [
        "line 8: `process.env.VITE_USER_NODE_ENV` is assigned, not read; left out",
        "line 9: `process.env.TEMP` is deleted, not read; left out",
        "line 11: `process.env[key]` reads a name that is no constant; left out"]


def test_env_with_defaults_maps_each_name_to_its_fallback() -> None:
    assert entries(ENV, Env(defaults=True)) == [
        ("VITE_DEBUG_FILTER", "", 2), ("BROWSER", "chrome", 3), ("VITE_PORT", 5173, 4), ("PORT", 5173, 4),
        ("RETRIES", 3, 5), ("VITE_API_BASE", "/api", 6), ("DEV", "", 7), ("CI", "", 10), ("NO_COLOR", "0", 10)]
    notes = skipped(ENV, Env(defaults=True))
    assert "line 12: PORT falls back to `7655` here, to `5173` at line 4; the first is kept" in notes
    assert 'line 10: CI has no default; it maps to ""' in notes


def test_a_file_without_environment_reads_is_not_found() -> None:
    with pytest.raises(FactNotFound, match="no read of process.env or import.meta.env in this file"):
        read("const env = load()\n", Env())


# -- files the grammar cannot fully read ------------------------------------------------

INDEX = """\
export const DEFAULT_DEV_PORT = 5173
export type { HttpServer } from './http'
export type * as HttpProxy from 'http-proxy-3'
export enum Broken { A = 1, B = , C }
export type AppType = 'spa' | 'mpa'
export const retries = Number(process.env.RETRIES ?? 3)
"""


def test_problems_name_each_part_the_parser_could_not_read() -> None:
    assert reader.problems(reader.parse("src/node/index.ts", INDEX), "src/node/index.ts") == [
        (3, "`type` does not parse"), (4, "`=` does not parse")]
    assert reader.problems(reader.parse(PATH, "export const A = 1\n"), PATH) == []


def test_a_fact_outside_the_error_ranges_is_read() -> None:
    assert values(INDEX, Constant("DEFAULT_DEV_PORT"), "src/node/index.ts") == [5173]
    assert values(INDEX, Constants(type="AppType"), "src/node/index.ts") == ["spa", "mpa"]
    assert values(INDEX, Env(), "src/node/index.ts") == ["RETRIES"]


def test_a_fact_whose_declaration_holds_an_error_fails_naming_the_file_and_line() -> None:
    error = parse_error(INDEX, Constants(type="Broken"), "src/node/index.ts")
    assert (error.location.path, error.location.line) == ("src/node/index.ts", 4)
    assert error.message == "syntax error at line 4, column 31 (`=` does not parse) on the path to enum Broken"


def test_a_target_the_error_may_have_swallowed_fails_rather_than_is_missed() -> None:
    source = "const x = f<typeof import('./x')>()\nconst y = 2\n"
    error = parse_error(source, Constant("y"))
    assert error.location.line == 1 and "on the path to const y" in error.message
    with pytest.raises(FactNotFound, match="no const z in this file"):
        read(source, Constant("z"))


def test_a_member_an_error_may_hide_fails_a_set_gathered_over_the_file() -> None:
    hidden = "const a = process.env.A\nconst b = {{ process.env.C }}\n"
    error = parse_error(hidden, Env())
    assert error.location.line == 2 and error.message.endswith("on the path to environment reads")
    recovered = "const a = process.env.A\nconst b = f<typeof import('./x')>()\nconst c = process.env.C\n"
    assert values(recovered, Env()) == ["A", "C"]  # the parser read C as a read past the error
    apart = "const a = process.env.A\nconst b = f<typeof import('./x')>()\nconst c = 3\n"
    assert values(apart, Env()) == ["A"]


def test_tsx_text_with_a_bare_ampersand_still_yields_the_reads_around_it() -> None:
    source = "const api = import.meta.env.VITE_API_BASE\nexport const F = () => <p>Approve & Run</p>\n"
    tree = reader.parse("src/App.tsx", source)
    assert reader.problems(tree, "src/App.tsx") == [(2, "`& Run` does not parse")]
    assert [i.value.data for i in reader.extract(tree, Env(), "src/App.tsx")] == ["VITE_API_BASE"]


def test_a_map_inside_a_broken_literal_fails() -> None:
    source = "const hooks = { load: 1, transform: , resolve: 3 }\n"
    error = parse_error(source, MapKeys("hooks"))
    assert error.location.line == 1 and "on the path to `hooks`" in error.message


def test_a_value_read_as_a_number_is_a_number_of_its_kind() -> None:
    [item] = read(INDEX, Constant("retries"), "src/node/index.ts")
    assert (item.value.kind, item.value.data) == (Kind.NUMBER, 3)
