"""The TypeScript selectors through the engine, the CLI and ``pytest --driftguard`` on
the fixture tree ``tests/fixtures/ts_reach``: vite's own source shapes (constants,
unions, frozen defaults objects, an index with ``export type * as``, a cac CLI),
a commander and a yargs script, and a frontend (a vite config, a TSX file with a
bare ``&``, an API client), with the guide pages that state them. The tree passes;
drift injected into each shape is a finding naming the document, its line and the
value."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.config.loader import load_config
from driftguard.judging.engine import Engine
from driftguard.judging.result import Result
from driftguard.model import Status

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "ts_reach"
NODE = "packages/vite/src/node"
RULES = {
    "dev-port", "strict-port", "server-options", "dev-server", "deny", "inline-limit", "chunk-limit",
    "build-defaults", "lib-formats", "app-types", "log-levels", "config-defaults", "extensions", "config-keys",
    "ports", "dev-flags", "build-flags", "release-flags", "serve-flags", "vite-env", "frontend-env", "preprocessors",
    "handled-langs", "priorities", "critical", "module-kinds", "loaders", "errors", "frontend-port",
    "request-timeout", "aliases", "methods", "routes",
}


@pytest.fixture
def shapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "app"
    shutil.copytree(SHAPES, root)
    monkeypatch.setenv("DRIFTGUARD_NO_CACHE", "1")
    return root


def run(root: Path) -> Result:
    return Engine(load_config(root / "driftguard.yaml")).run()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def findings(result: Result) -> list[tuple[str, str, str | None, str | None, int | None]]:
    return [(f.rule, f.kind.kind, f.value, f.doc.path if f.doc else None, f.doc.line if f.doc else None)
            for f in result.findings]


def test_the_fixture_tree_passes_every_rule(shapes: Path) -> None:
    result = run(shapes)
    assert {rr.rule.id for rr in result.rules} == RULES
    assert [rr.status for rr in result.rules] == [Status.PASS] * len(RULES), findings(result)


SERVER = "docs/config/server-options.md"
BUILD = "docs/config/build-options.md"
SHARED = "docs/config/shared-options.md"
CLI = "docs/guide/cli.md"
ENV = "docs/guide/env.md"
API = "docs/guide/api.md"

DRIFTS = [
    # constant, through Object.freeze(... satisfies ...) and a key path
    (f"{NODE}/constants.ts", "DEFAULT_DEV_PORT = 5173", "DEFAULT_DEV_PORT = 5174",
     ("dev-port", "value-mismatch", "5173", SERVER, 12)),
    (f"{NODE}/constants.ts", "DEFAULT_ASSETS_INLINE_LIMIT = 4_096", "DEFAULT_ASSETS_INLINE_LIMIT = 8_192",
     ("inline-limit", "value-mismatch", "4096", BUILD, 15)),
    (f"{NODE}/build.ts", "chunkSizeWarningLimit: 500", "chunkSizeWarningLimit: 1000",
     ("chunk-limit", "value-mismatch", "500", BUILD, 23)),
    (f"{NODE}/build.ts", "outDir: 'dist'", "outDir: 'build'", ("build-defaults", "value-mismatch", "dist", BUILD, 9)),
    (f"{NODE}/config.ts", "const DEFAULT_PREVIEW_PORT = 4173", "const DEFAULT_PREVIEW_PORT = 4174",
     ("config-defaults", "value-mismatch", "4173", SHARED, 29)),
    # constants: a union, an enum, a const object, names by pattern
    (f"{NODE}/config.ts", "'spa' | 'mpa' | 'custom'", "'spa' | 'mpa' | 'ssr' | 'custom'",
     ("app-types", "missing-in-doc", "ssr", SHARED, 5)),
    (f"{NODE}/logger.ts", "LogType | 'silent'", "LogType | 'silent' | 'debug'",
     ("log-levels", "missing-in-doc", "debug", SHARED, 13)),
    (f"{NODE}/plugins/css.ts", "  stylus = 'stylus',\n}", "  stylus = 'stylus',\n  pcss = 'pcss',\n}",
     ("preprocessors", "missing-in-doc", "pcss", API, 5)),
    (f"{NODE}/plugins/css.ts", "  Critical,\n}", "  Critical,\n  Urgent,\n}",
     ("priorities", "missing-in-doc", "Urgent", API, 25)),
    (f"{NODE}/plugins/css.ts", "  Critical,\n}", "  Critical = 20,\n}", ("critical", "value-mismatch", "11", API, 32)),
    (f"{NODE}/plugins/css.ts", "compose: 'composes',", "compose: 'composes',\n  deep: ':deep',",
     ("module-kinds", "missing-in-doc", ":deep", API, 34)),
    (f"{NODE}/constants.ts", "export const DEFAULT_PREVIEW_PORT = 4173",
     "export const DEFAULT_PREVIEW_PORT = 4173\nexport const DEFAULT_HMR_PORT = 24678",
     ("ports", "missing-in-doc", "24678", SERVER, 1)),
    # map_keys, list, fields, classes, cases
    (f"{NODE}/config.ts", "  appType: 'spa',", "  appType: 'spa',\n  cacheDir: '.vite',",
     ("config-keys", "missing-in-doc", "cacheDir", SHARED, 43)),
    (f"{NODE}/plugins/css.ts", "  sass: 'sass-embedded',", "  sass: 'sass-embedded',\n  pcss: 'postcss',",
     ("loaders", "missing-in-doc", "pcss", API, 40)),
    ("frontend/vite.config.ts", "'@api': path", "'@lib': path", ("aliases", "missing-in-doc", "@lib", API, 59)),
    (f"{NODE}/constants.ts", "  '.json',\n]", "  '.json',\n  '.cjs',\n]",
     ("extensions", "missing-in-doc", ".cjs", SHARED, 33)),
    (f"{NODE}/server/index.ts", "'*.{crt,pem}'", "'*.{crt,pem}', '.npmrc'", ("deny", "missing-in-doc", ".npmrc", SERVER, 46)),
    (f"{NODE}/server/index.ts", "  cors?: boolean", "  cors?: boolean\n  hmr?: boolean",
     ("server-options", "missing-in-doc", "hmr", SERVER, 30)),
    (f"{NODE}/server/index.ts", "    readonly httpServer", "    public watcher: unknown,\n    readonly httpServer",
     ("dev-server", "missing-in-doc", "watcher", SERVER, 40)),
    (f"{NODE}/errors.ts", "export class TimeoutError extends Error {}",
     "export class TimeoutError extends PluginError {}", ("errors", "missing-in-doc", "TimeoutError", API, 48)),
    (f"{NODE}/plugins/css.ts", "    case 'stylus':", "    case 'stylus':\n    case 'pcss':",
     ("handled-langs", "missing-in-doc", "pcss", API, 15)),
    # default, call, calls
    (f"{NODE}/server/index.ts", "  strictPort = false,", "  strictPort = true,",
     ("strict-port", "value-mismatch", "false", SERVER, 24)),
    (f"{NODE}/logger.ts", "level: LogLevel = 'info'", "level: LogLevel = 'warn'",
     ("config-defaults", "value-mismatch", "info", SHARED, 31)),
    ("frontend/vite.config.ts", "port: 7655", "port: 7656", ("frontend-port", "value-mismatch", "7655", API, 57)),
    ("frontend/src/api/client.ts", "API_TIMEOUT_MS = 30_000", "API_TIMEOUT_MS = 60_000",
     ("request-timeout", "value-mismatch", "30 seconds", API, 57)),
    ("frontend/src/api/client.ts", "{ method: 'PUT', body }", "{ method: 'PATCH', body }",
     ("methods", "missing-in-doc", "PATCH", API, 64)),
    ("frontend/src/api/client.ts", "router.get('/metrics')", "router.get('/metrics')\n  router.get('/ready')",
     ("routes", "missing-in-doc", "/ready", API, 70)),
    # flags and env
    (f"{NODE}/cli.ts", "  .option('-w, --watch'", "  .option('--emptyOutDir', `[boolean] empty outDir`)\n  .option('-w, --watch'",
     ("build-flags", "missing-in-doc", "emptyOutDir", CLI, 17)),
    (f"{NODE}/cli.ts", "  .option('-m, --mode <mode>', `[string] set env mode`)",
     "  .option('-m, --mode <mode>', `[string] set env mode`)\n  .option('--profile', `[boolean] profile`)",
     ("dev-flags", "missing-in-doc", "profile", CLI, 3)),
    ("tools/release.js", "'--no-git'", "'--no-push'", ("release-flags", "missing-in-doc", "push", CLI, 25)),
    ("tools/serve.mjs", "cors: { type: 'boolean' },", "cors: { type: 'boolean' },\n    gzip: { type: 'boolean' },",
     ("serve-flags", "missing-in-doc", "gzip", CLI, 30)),
    (f"{NODE}/env.ts", "process.env.DEBUG", "process.env.VITE_DEBUG", ("vite-env", "missing-in-doc", "VITE_DEBUG", ENV, 5)),
    ("frontend/src/App.tsx", "import.meta.env.DEV", "import.meta.env.MODE", ("frontend-env", "missing-in-doc", "MODE", ENV, 17)),
]


@pytest.mark.parametrize(("file", "old", "new", "expected"), DRIFTS, ids=[f"{d[3][0]}-{d[3][2]}" for d in DRIFTS])
def test_drift_in_each_shape_is_a_finding_naming_document_line_and_value(
        shapes: Path, file: str, old: str, new: str, expected: tuple) -> None:
    edit(shapes / file, old, new)
    result = run(shapes)
    rule, kind, value, doc, line = expected
    found = [f for f in findings(result) if f[:4] == (rule, kind, value, doc)]
    assert found, findings(result)
    assert found[0][4] == line  # 1: a `mentions` finding names the document's first heading
    assert result.exit_code == 1


def test_a_member_gone_from_code_is_missing_in_code_at_its_declaration(shapes: Path) -> None:
    edit(shapes / f"{NODE}/config.ts", "'spa' | 'mpa' | 'custom'", "'spa' | 'mpa'")
    result = run(shapes)
    [finding] = [f for f in result.findings if f.rule == "app-types"]
    assert (finding.kind.kind, finding.value, finding.doc.line) == ("missing-in-code", "custom", 9)
    assert finding.declared == "type AppType" and finding.source.line == 12


def test_a_target_inside_an_error_fails_the_rule_naming_file_and_line(shapes: Path) -> None:
    edit(shapes / f"{NODE}/build.ts", "chunkSizeWarningLimit: 500,", "chunkSizeWarningLimit: 500 +,")
    result = run(shapes)
    [finding] = [f for f in result.findings if f.rule == "chunk-limit"]
    assert finding.kind.kind == "parse-error" and (finding.source.path, finding.source.line) == (f"{NODE}/build.ts", 21)
    assert "syntax error at line 21, column 30 (`+` does not parse)" in finding.message
    statuses = {rr.rule.id: rr.status for rr in result.rules}
    assert statuses["build-defaults"] is Status.PASS  # other keys of the same literal are still read
    assert result.exit_code == 2


# -- the CLI and pytest ------------------------------------------------------------


def test_check_prints_each_drift_as_a_documented_line(shapes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(shapes / f"{NODE}/constants.ts", "DEFAULT_DEV_PORT = 5173", "DEFAULT_DEV_PORT = 5174")
    edit(shapes / "tools/release.js", "'--no-git'", "'--no-push'")
    code = main(["check", "--config", str(shapes / "driftguard.yaml")])
    assert code == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{SERVER}:12: dev-port: the sentence 'Default: {{value}}' says '5173' (number 5173) but the code has "
        f"`5174` (number 5174); the document should say '5174' (source: {NODE}/constants.ts:33)",
        f"{SERVER}:1: ports: `5174` is declared in code but missing from the document (source: {NODE}/constants.ts:33)",
        f"{CLI}:25: release-flags: `push` is declared in code but missing from section 'Release script' "
        "(source: tools/release.js:12)",
        f"{CLI}:28: release-flags: `git` is stated in section 'Release script' but not declared in code "
        "(facts: release_flags) (source: tools/release.js:8)",
        f"{NODE}/server/index.ts:4: warning: `type` does not parse",  # export type * as ns: tree-sitter 0.23
        "frontend/src/App.tsx:5: warning: `& Run` does not parse",  # a bare & in JSX text
        "driftguard: 33 rules: 30 passed, 3 failed",
    ]


def test_facts_lists_a_map_of_flag_and_env_defaults(shapes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (shapes / "maps.yaml").write_text(
        "version: 1\nfacts:\n"
        "  release_defaults: {file: tools/release.js, flags: {defaults: true}}\n"
        "  port_env: {file: packages/vite/src/node/env.ts, env: {defaults: true}}\n"
        "rules:\n  - {id: r, fact: release_defaults, doc: docs/guide/cli.md, section: Release script, "
        "code_spans: '--(\\w+)'}\n", encoding="utf-8")
    assert main(["facts", "--config", str(shapes / "maps.yaml")]) == 0
    out = capsys.readouterr().out
    assert "tools/release.js:9: tag = latest" in out and "tools/release.js:10: retries = 3" in out
    assert "packages/vite/src/node/env.ts:16: PORT = 5173" in out and "env.ts:7: BROWSER = chrome" in out
    assert 'note: tools/release.js: line 8: option dry-run has no default; it maps to ""' in out


pytest_plugins = ["pytester"]


def test_pytest_driftguard_runs_every_typescript_rule_and_fails_on_drift(pytester: pytest.Pytester,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    monkeypatch.setenv("DRIFTGUARD_NO_CACHE", "1")
    shutil.copytree(SHAPES, pytester.path, dirs_exist_ok=True)
    pytester.runpytest("--driftguard").assert_outcomes(passed=len(RULES))
    edit(pytester.path / "tools/serve.mjs", "default: false", "default: true")  # a default no rule reads
    edit(pytester.path / f"{NODE}/plugins/css.ts", "  Critical,\n}", "  Critical,\n  Urgent,\n}")
    result = pytester.runpytest("--driftguard")
    result.assert_outcomes(passed=len(RULES) - 1, failed=1)
    result.stdout.fnmatch_lines([f"*{API}:*priorities*Urgent*"])
