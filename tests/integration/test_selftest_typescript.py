"""``selftest`` on the TypeScript fixture tree: every selector's mutation (a new enum or
union member, object key, array element, field, case, subclass, option, env read,
call; a changed constant, default or argument) is shaped like its neighbour and
caught, and an edit that would break the file is refused."""

from __future__ import annotations

import hashlib
import shutil
import textwrap
from pathlib import Path

import pytest

from driftguard.config.loader import FactSpec, load_config
from driftguard.config.specs import Constant, Constants, Env, Flags, ListOf, MapKeys, Selector
from driftguard.model import Fact
from driftguard.selftest import SelftestResult, Verdict, render_selftest, run_selftest
from driftguard.sources import typescript as reader
from driftguard.sources.mutation import CannotApply, Edit
from driftguard.sources.typescript.edits import TsSource

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "ts_reach"
NODE = "packages/vite/src/node"


def digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> tuple[SelftestResult, Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("ts") / "app"
    shutil.copytree(SHAPES, root)
    before = digest(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DRIFTGUARD_NO_CACHE", "1")
        return run_selftest(load_config(root / "driftguard.yaml")), root, before


def test_every_mutation_of_every_typescript_rule_is_caught_and_the_tree_is_untouched(result) -> None:  # type: ignore[no-untyped-def]
    outcome, root, before = result
    table = render_selftest(outcome)
    verdicts = {(o.rule, o.mutation): o.verdict for o in outcome.outcomes}
    assert len({rule for rule, mutation in verdicts if mutation.startswith("code")}) == 33, table
    assert set(verdicts.values()) == {Verdict.CAUGHT}, table
    assert digest(root) == before


@pytest.mark.parametrize(("rule", "mutation", "what", "line"), [
    ("dev-port", "code: value changed (dev_port)", "`5173` -> `5174`", 33),
    ("inline-limit", "code: value changed (inline_limit)", "`4_096` -> `4097`", 37),
    ("config-defaults", "code: value changed (preview_port)", "`4173` -> `4174` in `DEFAULT_PREVIEW_PORT = 4173`", 3),
    ("strict-port", "code: value changed (strict_port)", "`false` -> `true`", 49),
    ("frontend-port", "code: value changed (frontend_port)", "`7655` -> `7656`", 14),
    ("critical", "code: value changed (critical)", "`Critical` -> `Critical = 12`", 13),
    ("app-types", "code: new member (app_types)", "added `| 'driftguard_selftest'` to type AppType", 12),
    ("preprocessors", "code: new member (preprocess_langs)",
     "added the enum member `stylus_selftest = 'driftguard_selftest'`", 7),
    ("priorities", "code: new member (priorities)", "added the enum member `CriticalSelftest`", 14),
    ("module-kinds", "code: new member (module_kinds)", "added the key `compose_selftest`", 20),
    ("ports", "code: new member (ports)", "added `export const DEFAULT_PREVIEW_SELFTEST_PORT = 5174`", 36),
    ("config-keys", "code: new member (config_keys)", "added the key `driftguardSelftest`", 39),
    ("extensions", "code: new member (extensions)", "added the element 'driftguard_selftest'", 29),
    ("server-options", "code: new member (server_options)", "added the property `cors_selftest?: string`", 13),
    ("dev-server", "code: new member (dev_server)", "added the parameter property `httpServerSelftest`", 23),
    ("errors", "code: new member (errors)", "added `class HmrErrorSelftest extends HmrError {}`", 16),
    ("handled-langs", "code: new member (handled_langs)", "added `case 'driftguard_selftest':`", 37),
    ("methods", "code: new member (methods)",
     "added `fetch(`/api/nodes/${id}`, { method: 'driftguard_selftest' })`", 13),
    ("routes", "code: new member (routes)", "added `router.get('driftguard_selftest')`", 19),
    ("build-flags", "code: new member (build_flags)",
     "added `.option('--driftguardSelftest', `[boolean] rebuilds when modules have changed on disk`)`", 39),
    ("release-flags", "code: new member (release_flags)",
     "added `.addOption(new Option('--driftguard-selftest <url>', 'npm registry')"
     ".default('https://registry.np...`", 13),
    ("serve-flags", "code: new member (serve_flags)", "added the key `driftguard_selftest`", 12),
    ("vite-env", "code: new member (vite_env)", "added `void process.env.NO_COLOR_SELFTEST`", 28),
    ("frontend-env", "code: new member (frontend_env)", "added `void import.meta.env.DEV_SELFTEST`", 11),
])
def test_each_code_mutation_is_shaped_like_its_neighbour(result, rule, mutation, what, line) -> None:  # type: ignore[no-untyped-def]
    outcome = next(o for o in result[0].outcomes if (o.rule, o.mutation) == (rule, mutation))
    assert outcome.verdict is Verdict.CAUGHT, outcome.detail
    assert (outcome.what, outcome.where.line if outcome.where else None) == (what, line)
    assert outcome.finding is not None and outcome.finding.doc is not None


# -- the mutations on their own ---------------------------------------------------

PATH = "src/mod.ts"


def fact_of(source: str, selector: Selector, path: str = PATH) -> tuple[str, FactSpec, Fact]:
    text = textwrap.dedent(source)
    items = reader.extract(reader.parse(path, text), selector, path)
    spec = FactSpec(name="f", file=path, selector=selector, line=1, files=(path,))
    return text, spec, Fact("f", tuple(items), selector.scalar)


def reread(edit: Edit, selector: Selector, path: str = PATH) -> list:
    return [i.value.data for i in reader.extract(reader.parse(path, edit.text), selector, path)]


def test_a_multiline_enum_gains_a_member_on_its_own_line() -> None:
    selector = Constants(type="Level")
    text, spec, fact = fact_of("enum Level {\n  Low = 1,\n  High = 3\n}\n", selector)
    edit = reader.add_member(text, spec, fact)
    assert edit.text == "enum Level {\n  Low = 1,\n  High = 3,\n  HighSelftest = 4\n}\n"
    assert reread(edit, selector) == [1, 3, 4] and edit.expect == ("4",)


def test_a_one_line_array_gains_an_element_in_its_quotes() -> None:
    selector = ListOf("KEYS")
    text, spec, fact = fact_of('export const KEYS = ["a", "b"] as const\n', selector)
    edit = reader.add_member(text, spec, fact)
    assert edit.text == 'export const KEYS = ["a", "b", "driftguard_selftest"] as const\n'
    assert reread(edit, selector) == ["a", "b", "driftguard_selftest"]


def test_a_map_gains_a_key_after_a_trailing_comma() -> None:
    selector = MapKeys("hooks")
    text, spec, fact = fact_of("const hooks = {\n  load: 1,\n  'transform-css': 2, // last\n}\n", selector)
    edit = reader.add_member(text, spec, fact)
    assert "  'transform-css': 2, // last\n  'driftguard-selftest': 2,\n}" in edit.text
    assert reread(edit, selector) == ["load", "transform-css", "driftguard-selftest"]


def test_a_commander_option_gains_a_copy_chained_after_it() -> None:
    selector = Flags()
    text, spec, fact = fact_of("program\n  .option('-p, --port <n>', 'port', '3000')\n  .parse()\n", selector,
                               "bin/cli.js")
    edit = reader.add_member(text, spec, fact)
    assert edit.text == ("program\n  .option('-p, --port <n>', 'port', '3000')\n"
                         "  .option('--driftguard_selftest <n>', 'port', '3000')\n  .parse()\n")
    assert reread(edit, selector, "bin/cli.js") == ["port", "driftguard_selftest"]


def test_an_environment_read_is_added_in_the_files_spelling() -> None:
    selector = Env()
    text, spec, fact = fact_of("const a = import.meta.env.VITE_A\n", selector)
    edit = reader.add_member(text, spec, fact)
    assert edit.text.endswith("void import.meta.env.VITE_A_SELFTEST\n")
    assert reread(edit, selector) == ["VITE_A", "VITE_A_SELFTEST"]


@pytest.mark.parametrize(("source", "selector", "changed", "value"), [
    ("const PORT = process.env.PORT ?? 5173\n", Constant("PORT"), "?? 5174", 5174),
    ("const HOST = process.env['HOST'] || 'localhost'\n", Constant("HOST"), "|| 'driftguard_selftest'",
     "driftguard_selftest"),
    ("const LIMIT = Number('3000')\n", Constant("LIMIT"), "Number('3001')", 3001),
    ("const BASE = 0x10\nconst D = Object.freeze({ n: BASE } satisfies X)\n", Constant("D", ("n",)), "BASE = 17", 17),
    ("const D = { on: true }\n", Constant("D", ("on",)), "on: false", False),
    ("enum E { A, B }\n", Constant("E.B"), "B = 2", 2),
])
def test_a_scalar_is_changed_where_its_value_is_written(source: str, selector: Selector, changed: str,
                                                         value: object) -> None:
    text, spec, fact = fact_of(source, selector)
    edit = reader.change_scalar(text, spec, fact)
    assert changed in edit.text
    assert reread(edit, selector) == [value]


def test_an_edit_that_would_add_a_syntax_error_is_refused() -> None:
    source = TsSource("src/mod.ts", "type Mode = 'a' | 'b'\n")
    with pytest.raises(CannotApply, match=r"the mutated file would not parse \(a broken line\)"):
        source.edit(0, 0, "type = = ;\n", "a broken line")


def test_a_file_that_already_has_an_error_can_still_be_mutated_elsewhere() -> None:
    selector = Constants(type="Mode")
    text, spec, fact = fact_of("export type * as ns from 'm'\nexport type Mode = 'a' | 'b'\n", selector)
    edit = reader.add_member(text, spec, fact)
    assert reread(edit, selector) == ["a", "b", "driftguard_selftest"]
