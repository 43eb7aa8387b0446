"""``selftest`` and ``pytest --driftguard`` on the newer Python selectors
(``tests/fixtures/python_reach``): each code mutation is shaped like its neighbour
and caught; and the mutations on their own, for the shapes the fixture tree does
not hold (a map entry's default, a typer parameter, a ``click.Option`` in a list,
a functional ``namedtuple``, ``NAME.append``)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Calls, Cases, Classes, Default, Env, Fields, Flags, ListOf, Selector
from driftguard.model import Fact
from driftguard.selftest import SelftestResult, Verdict, render_selftest
from driftguard.sources import python as reader
from driftguard.sources.mutation import CannotApply, Edit, NotApplicable
from driftguard.sources.python import mutate
from tests.helpers import digest, selftest_of_copy

REACH = Path(__file__).resolve().parents[1] / "fixtures" / "python_reach"
PATH = "src/mod.py"

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> tuple[SelftestResult, Path, dict[str, str]]:
    return selftest_of_copy(REACH, tmp_path_factory.mktemp("reach") / "httpish")


def test_every_mutation_of_every_rule_is_caught_and_the_tree_is_untouched(result) -> None:  # type: ignore[no-untyped-def]
    outcome, root, before = result
    table = render_selftest(outcome)
    verdicts = {(o.rule, o.mutation): o.verdict for o in outcome.outcomes}
    assert len({rule for rule, mutation in verdicts if mutation.startswith("code")}) == 17, table
    assert set(verdicts.values()) == {Verdict.CAUGHT}, table
    assert digest(root) == before


@pytest.mark.parametrize(("rule", "mutation", "what", "line"), [
    ("follow-redirects", "code: value changed (follow_redirects)", "`False` -> `True`", 34),
    ("keepalive-expiry", "code: value changed (keepalive_expiry)", "`5.0` -> `6.0`", 46),
    ("settings-max-redirects", "code: value changed (settings_max_redirects)", "`20` -> `21`", 19),
    ("default-timeout", "code: value changed (default_timeout)", "`5.0` -> `6.0`", 61),
    ("server-port", "code: value changed (server_port)", "`8080` -> `8081`", 5),
    ("pool-timeout", "code: value changed (pool_timeout)", "`30` -> `31` in `POOL_TIMEOUT = Seconds(30)`", 56),
    ("cli-options", "code: new member (cli_options)",
     'added `click.option( "--driftguard-selftest", is_flag=True, is_eager=True, expose_value=False, '
     'callback=handle_help, help="Show this message and exit.", )`', 61),
    ("report-flags", "code: new member (report_flags)",
     'added `parser.add_argument( "--driftguard-selftest", choices=("text", "json"), default="text", )`', 31),
    ("fetch-options", "code: new member (fetch_options)", "added the parameter `driftguard_selftest: bool = False,`",
     17),
    ("env-vars", "code: new member (env_vars)", 'added the read `os.getenv("DRIFTGUARD_SELFTEST", 3)`', 60),
    ("settings-fields", "code: new member (settings_fields)", 'added the field `driftguard_selftest: str = ""`', 21),
    ("auth-schemes", "code: new member (auth_schemes)", 'added `case "driftguard_selftest":`', 45),
    ("status-classes", "code: new member (status_classes)", "added `elif code == 405:`", 56),
    ("http-errors", "code: new member (http_errors)", "added `class DriftguardSelftest(HTTPStatusError)`", 49),
    ("client-exports", "code: new member (client_exports)", 'added the element "driftguard_selftest"', 7),
])
def test_each_code_mutation_is_shaped_like_its_neighbour(result, rule, mutation, what, line) -> None:  # type: ignore[no-untyped-def]
    outcome = next(o for o in result[0].outcomes if (o.rule, o.mutation) == (rule, mutation))
    assert outcome.verdict is Verdict.CAUGHT, outcome.detail
    assert outcome.what == what
    assert outcome.where is not None and outcome.where.line == line
    assert outcome.finding is not None and outcome.finding.doc.path.startswith("docs/")


# -- pytest --driftguard ---------------------------------------------------------------


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    shutil.copytree(REACH, pytester.path, dirs_exist_ok=True)
    return pytester.path


def test_pytest_runs_one_passing_item_per_rule(pytester: pytest.Pytester, project: Path) -> None:
    result = pytester.runpytest("--driftguard", "-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=17)


def test_pytest_fails_the_drifted_rule_naming_the_document_line_and_value(pytester: pytest.Pytester,
                                                                          project: Path) -> None:
    config = project / "src/httpish/_models.py"
    config.write_text(config.read_text().replace('case "basic":', 'case "plain":'))
    result = pytester.runpytest("--driftguard", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=16, failed=1)
    result.stdout.fnmatch_lines(["*driftguard.yaml::auth-schemes FAILED*", "*docs/auth.md:3*plain*"])


# -- the mutations on their own ------------------------------------------------------


def fact_of(source: str, selector: Selector) -> tuple[str, FactSpec, Fact]:
    text = textwrap.dedent(source)
    items = reader.extract(reader.parse(PATH, text), selector, PATH)
    spec = FactSpec(name="f", file=PATH, selector=selector, line=1, files=(PATH,))
    return text, spec, Fact("f", tuple(items), selector.scalar)


def entry(source: str, selector: Selector, label: str) -> tuple[str, FactSpec, Fact]:
    """The fact narrowed to one entry of a map, as the selftest hands it over."""
    text, spec, fact = fact_of(source, selector)
    return text, spec, Fact("f", tuple(i for i in fact.items if i.label == label), True)


def reread(edit: Edit, selector: Selector) -> list:
    items = reader.extract(reader.parse(PATH, edit.text), selector, PATH)
    return [(i.label, i.value.data) if i.label else i.value.data for i in items]


ARGPARSE = '''
import argparse
DEFAULT_DB = "licenses.sqlite"
def build(parser):
    parser.add_argument("--since-days", type=int, default=7)
    parser.add_argument("--db-path", default=DEFAULT_DB)
    parser.add_argument("--mock", action="store_true")
    parser.add_argument(
        "--format",
        "-f",
    )
'''


@pytest.mark.parametrize(("label", "what", "after"), [
    ("since-days", "`7` -> `8`", 8),
    ("db-path", '`"licenses.sqlite"` -> `"driftguard_selftest"` in `DEFAULT_DB = \'licenses.sqlite\'`',
     "driftguard_selftest"),
    ("mock", "gave mock the default True", True),
    ("format", 'gave format the default "driftguard_selftest"', "driftguard_selftest"),
])
def test_a_flag_entry_changes_its_default_or_gains_one(label: str, what: str, after: object) -> None:
    selector = Flags(within="build", defaults=True)
    text, spec, fact = entry(ARGPARSE, selector, label)
    edit = mutate.change_scalar(text, spec, fact)
    assert edit.what == what
    assert dict(reread(edit, selector))[label] == after


ENV = '''
import os
TIMEOUT = int(os.getenv("APP_TIMEOUT", 15))
HOME = os.environ.get("APP_HOME")
CERT = os.environ["SSL_CERT_FILE"]
'''


def test_an_env_entry_changes_its_default_or_gains_one() -> None:
    selector = Env(defaults=True)
    edit = mutate.change_scalar(*entry(ENV, selector, "APP_TIMEOUT"))
    assert ("APP_TIMEOUT", 16) in reread(edit, selector)
    edit = mutate.change_scalar(*entry(ENV, selector, "APP_HOME"))
    assert 'os.environ.get("APP_HOME", "driftguard_selftest")' in edit.text
    with pytest.raises(NotApplicable, match="SSL_CERT_FILE is read without a default"):
        mutate.change_scalar(*entry(ENV, selector, "SSL_CERT_FILE"))


def test_a_parameter_default_named_by_a_string_constant_changes_the_constant() -> None:
    source = 'ENCODING = "utf-8"\nclass Client:\n    def __init__(self, *, default_encoding: str = ENCODING):\n' \
             '        pass\n'
    selector = Default("Client", "default_encoding")
    edit = mutate.change_scalar(*fact_of(source, selector))
    assert reread(edit, selector) == ["driftguard_selftest"]


@pytest.mark.parametrize(("source", "selector", "after"), [
    ('import typer\napp = typer.Typer()\n@app.command()\ndef main(name: str = typer.Option("x", "--name")):\n'
     '    pass\n', Flags(), ["name", "driftguard-selftest"]),
    ('import click\ncmd = click.Command("c", params=[click.Option(["--name", "-n"], default="w")])\n',
     Flags(), ["name", "driftguard-selftest"]),
    ('import click\n@click.command()\n@click.option("--shout/--no-shout")\ndef main(shout):\n    pass\n',
     Flags(), ["shout", "driftguard-selftest"]),
    ('from collections import namedtuple\nPoint = namedtuple("Point", "x, y")\n', Fields("Point"),
     ["x", "y", "driftguard_selftest"]),
    ('from typing import NamedTuple\nRow = NamedTuple("Row", [("key", str)])\n', Fields("Row"),
     ["key", "driftguard_selftest"]),
    ('from typing import TypedDict\nMovie = TypedDict("Movie", {"title": str})\n', Fields("Movie"),
     ["title", "driftguard_selftest"]),
    ('import attr\n@attr.s\nclass A:\n    x = attr.ib(default=3)\n', Fields("A"), ["x", "driftguard_selftest"]),
    ('__all__ = ["a"]\n__all__.append("b")\n', ListOf("__all__"), ["a", "b", "driftguard_selftest"]),
    ('def f(x):\n    match x:\n        case 1 | 2:\n            pass\n        case _:\n            pass\n',
     Cases("f"), [1, 2, 3]),
    ('class Base(Exception):\n    pass\nclass Leaf(Base):\n    """Doc."""\n', Classes("Base"),
     ["Leaf", "DriftguardSelftest"]),
    ('import os\nif os.environ.get("A") or "B" in os.environ:\n    pass\n', Env(), ["A", "B", "DRIFTGUARD_SELFTEST"]),
    ('A = setup({"server": {"port": 80}})\n', Calls("setup", path=("server", "port")), [80, 81]),
    ('LIMITS = [Limits(max_connections=10), Limits(max_connections=20)]\n', Calls("Limits", arg="max_connections"),
     [10, 20, 21]),
])
def test_a_set_gains_a_member_shaped_like_its_last(source: str, selector: Selector, after: list) -> None:
    edit = mutate.add_member(*fact_of(source, selector))
    assert reread(edit, selector) == after


def test_an_option_named_by_its_library_cannot_be_copied() -> None:
    source = 'import click\n@click.command()\n@click.version_option()\ndef main():\n    pass\n'
    with pytest.raises(NotApplicable, match="named by its library"):
        mutate.add_member(*fact_of(source, Flags()))


def test_an_edit_that_would_break_the_file_is_refused() -> None:
    from driftguard.sources.python.edits import Source

    source = Source("X = 1\n")
    target = source.module.body[0].body[0].targets[0].target  # type: ignore[attr-defined]
    with pytest.raises(CannotApply, match="renamed X to def would break the file"):
        source.edit(target, cst.Name("def"), "renamed X to def", 1, None)
