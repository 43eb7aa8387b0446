"""``selftest`` on the Python shapes of real projects: a ``calls`` set gains a call
like its last one, a dict local to a property gains an entry, a value read by a
key path and an ``os.getenv`` default are changed, and each is caught."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from driftguard.config.loader import FactSpec
from driftguard.config.specs import Calls, Constant, MapKeys, Selector
from driftguard.model import Fact
from driftguard.selftest import SelftestResult, Verdict, render_selftest
from driftguard.sources import python as reader
from driftguard.sources.mutation import CannotApply, Edit, NotApplicable
from driftguard.sources.python import mutate
from tests.helpers import digest, selftest_of_copy

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "python_shapes"
PATH = "src/mod.py"


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> tuple[SelftestResult, Path, dict[str, str]]:
    return selftest_of_copy(SHAPES, tmp_path_factory.mktemp("shapes") / "app")


def test_every_shape_rule_is_caught_and_the_tree_is_untouched(result) -> None:  # type: ignore[no-untyped-def]
    outcome, root, before = result
    table = render_selftest(outcome)
    verdicts = {(o.rule, o.mutation): o.verdict for o in outcome.outcomes}
    code = {key for key in verdicts if key[1].startswith("code")}
    assert {key[0] for key in code} >= {"timeout", "retries", "settings", "parallel", "version-options",
                                         "config-keys"}, table
    assert all(verdicts[key] is Verdict.CAUGHT for key in code if key[0] != "levels"), table
    assert Verdict.MISSED not in verdicts.values() and Verdict.ERROR not in verdicts.values(), table
    assert digest(root) == before


@pytest.mark.parametrize(("rule", "mutation", "what", "line"), [
    ("timeout", "code: value changed (requests_timeout)",
     "`15` -> `16` in `REQUESTS_TIMEOUT = int(os.getenv('APP_REQUESTS_TIMEOUT', 15))`", 5),
    ("retries", "code: value changed (retries)", "`\"3\"` -> `\"4\"` in `RETRIES = int(os.getenv('APP_RETRIES', '3'))`", 6),
    ("settings", "code: value changed (create_venv)", "`True` -> `False`", 17),
    ("settings", "code: value changed (always_copy)", "`False` -> `True`", 19),
    ("settings", "code: value changed (listen_port)", "`8443` -> `8444`", 10),
    ("parallel", "code: value changed (parallel)", "`True` -> `False`", 21),
    ("version-options", "code: new member (version_options)",
     'added `option("driftguard-selftest", None, "Increment the phase of the current version")`', 28),
    ("config-keys", "code: new member (config_keys)", 'added the entry `"driftguard_selftest": ...`', 43),
])
def test_each_code_mutation_is_shaped_like_its_neighbour(result, rule, mutation, what, line) -> None:  # type: ignore[no-untyped-def]
    outcome = next(o for o in result[0].outcomes if (o.rule, o.mutation) == (rule, mutation))
    assert outcome.verdict is Verdict.CAUGHT, outcome.detail
    assert outcome.what == what
    assert outcome.where is not None and outcome.where.line == line
    assert outcome.finding is not None and outcome.finding.doc.path == "docs/guide.md"


# -- the mutations on their own ---------------------------------------------------


def fact_of(source: str, selector: Selector) -> tuple[str, FactSpec, Fact]:
    text = textwrap.dedent(source)
    items = reader.extract(reader.parse(PATH, text), selector, PATH)
    spec = FactSpec(name="f", file=PATH, selector=selector, line=1, files=(PATH,))
    return text, spec, Fact("f", tuple(items), selector.scalar)


def reread(edit: Edit, selector: Selector) -> list:
    return [i.value.data for i in reader.extract(reader.parse(PATH, edit.text), selector, PATH)]


def test_a_call_statement_gains_a_copy_after_it() -> None:
    selector = Calls("parser.add_argument", arg=0, within="build")
    text, spec, fact = fact_of('''
        def build(parser):
            parser.add_argument("--verbose", action="store_true")  # loud
            parser.add_argument("--quiet", action="store_true")
            return parser
        ''', selector)
    edit = mutate.add_member(text, spec, fact)
    assert reread(edit, selector) == ["--verbose", "--quiet", "driftguard-selftest"]
    assert '    parser.add_argument("--quiet", action="store_true")\n' \
           '    parser.add_argument("driftguard-selftest", action="store_true")\n    return parser' in edit.text
    assert edit.expect == ("driftguard-selftest",)


def test_a_call_in_a_one_line_tuple_gains_a_copy_next_to_it() -> None:
    selector = Calls("option", arg=1)
    text, spec, fact = fact_of('OPTIONS = (option("a", 1), option("b", 2))\n', selector)
    edit = mutate.add_member(text, spec, fact)
    assert edit.text == 'OPTIONS = (option("a", 1), option("b", 2), option("b", 3))\n'
    assert reread(edit, selector) == [1, 2, 3]


def test_a_call_argument_that_is_no_literal_cannot_be_copied_anew() -> None:
    selector = Calls("option", arg=0)
    text, spec, fact = fact_of('A = 1.5\nOPTIONS = [option(A)]\n', selector)
    with pytest.raises(NotApplicable):
        mutate.add_member(text, spec, fact)


def test_a_local_dict_with_name_keys_gains_an_entry_and_its_constant() -> None:
    selector = MapKeys("table", resolve=True, within="Registry.build")
    text, spec, fact = fact_of('''
        A = "alpha"

        class Registry:
            def build(self):
                table = {A: 1}
                return table
        ''', selector)
    edit = mutate.add_member(text, spec, fact)
    assert reread(edit, selector) == ["alpha", "driftguard_selftest"]
    assert 'A = "alpha"\nA_SELFTEST = "driftguard_selftest"\n\nclass Registry:' in edit.text  # at the top level


@pytest.mark.parametrize(("source", "selector", "changed", "value"), [
    ('import os\nX = os.environ.get("LEVEL", "info")\n', Constant("X"), '"LEVEL", "driftguard_selftest"',
     "driftguard_selftest"),
    ("import os\nX = float(os.getenv('RATIO', default='0.5'))\n", Constant("X"), "default='1.5'", 1.5),
    ('import os\nX = int(os.getenv("N", "-2"))\n', Constant("X"), '"N", "-1"', -1),
    ('import os\nX = bool(os.getenv("ON", False))\n', Constant("X"), '"ON", True', True),
    ('C = {"a": {"b": [1, "two"]}}\n', Constant("C", ("a", "b", 1)), '[1, "driftguard_selftest"]',
     "driftguard_selftest"),
    ('N = 7\nC = {"a": {"b": N}}\n', Constant("C", ("a", "b")), "N = 8", 8),
])
def test_a_scalar_default_or_key_path_value_is_changed(source: str, selector: Selector, changed: str,
                                                        value: object) -> None:
    text, spec, fact = fact_of(source, selector)
    edit = mutate.change_scalar(text, spec, fact)
    assert changed in edit.text
    assert reread(edit, selector) == [value]


def test_an_environment_read_without_a_default_is_not_a_literal_to_change() -> None:
    text = 'import os\nDEFAULT = 3\nX = int(os.getenv("N", DEFAULT))\n'
    text, spec, fact = fact_of(text, Constant("X"))
    assert "DEFAULT = 4" in mutate.change_scalar(text, spec, fact).text  # the named default's definition
    fact = Fact("f", fact.items, True)
    with pytest.raises(CannotApply):
        mutate.change_scalar('import os\nX = int(os.getenv("N", os.sep))\n', spec, fact)
