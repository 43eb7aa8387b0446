"""``selftest`` on the Go shapes of real services: a ``calls`` set gains a call like
its last one, an error var block gains a var, a map local to a method gains a key,
values read by key path (a bool, a number behind a constant, a duration, a string)
are changed, and each is caught."""

from __future__ import annotations

import hashlib
import shutil
import textwrap
from pathlib import Path

import pytest

from driftguard.config.loader import FactSpec, load_config
from driftguard.config.specs import Calls, Constant, Constants, MapKeys, Selector
from driftguard.model import Fact
from driftguard.selftest import SelftestResult, Verdict, render_selftest, run_selftest
from driftguard.sources import go as reader
from driftguard.sources.go import mutate
from driftguard.sources.mutation import SELFTEST, NotApplicable

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "go_shapes"
PATH = "internal/svc/svc.go"


def digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> tuple[SelftestResult, Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("go-shapes") / "svc"
    shutil.copytree(SHAPES, root)
    before = digest(root)
    return run_selftest(load_config(root / "driftguard.yaml")), root, before


def test_every_shape_rule_is_caught_and_the_tree_is_untouched(result) -> None:  # type: ignore[no-untyped-def]
    outcome, root, before = result
    table = render_selftest(outcome)
    verdicts = {(o.rule, o.mutation): o.verdict for o in outcome.outcomes}
    code = {key for key in verdicts if key[1].startswith("code")}
    assert {key[0] for key in code} == {"states", "error-names", "error-messages", "settings", "client-options",
                                        "flags"}, table
    assert set(verdicts.values()) == {Verdict.CAUGHT}, table
    assert digest(root) == before


@pytest.mark.parametrize(("rule", "mutation", "what", "line"), [
    ("flags", "code: new member (flags)",
     'added `fs.String("driftguard-selftest", "/var/lib/app", "where data is kept")`', 28),
    ("client-options", "code: new member (client_options)", 'added the key line `"driftguard_selftest": 64,`', 18),
    ("error-messages", "code: new member (error_messages)",
     'added var `ErrWorkflowNotFoundSelftest = errors.New("driftguard_selftest")`', 58),
    ("settings", "code: value changed (parallel)", "`true` -> `false`", 22),
    ("settings", "code: value changed (max_workers)", "`4` -> `5` in `defaultWorkers = 4`", 17),
    ("settings", "code: value changed (install_timeout)", "`10` -> `11` in `10 * time.Second`", 24),
    ("settings", "code: value changed (tls_port)", "`8443` -> `8444`", 26),
    ("settings", "code: value changed (tier)", '`"backend"` -> `"driftguard_selftest"`', 28),
])
def test_each_code_mutation_is_shaped_like_its_neighbour(result, rule, mutation, what, line) -> None:  # type: ignore[no-untyped-def]
    outcome = next(o for o in result[0].outcomes if (o.rule, o.mutation) == (rule, mutation))
    assert outcome.verdict is Verdict.CAUGHT, outcome.detail
    assert outcome.what == what
    assert outcome.where is not None and outcome.where.line == line
    assert outcome.finding is not None and outcome.finding.doc.path == "docs/guide.md"


# -- the mutations on their own ---------------------------------------------------


def fact_of(source: str, selector: Selector) -> tuple[str, FactSpec, Fact]:
    text = textwrap.dedent(source).lstrip()
    items = reader.extract(reader.parse(PATH, text), selector, PATH)
    spec = FactSpec(name="f", file=PATH, selector=selector, line=1, files=(PATH,))
    return text, spec, Fact("f", tuple(items), selector.scalar)


def reread(text: str, selector: Selector) -> list:
    return [i.value.data for i in reader.extract(reader.parse(PATH, text), selector, PATH)]


FLAGS = '''
package svc

func register(fs *FlagSet) {
	fs.String("listen", ":8080", "address")
	port := fs.Int("port", 80, "port")
	_ = port
}

var options = []Option{
	option("a", 1),
	option("b", 2),
}

var inline = []Option{option("x", 1), option("y", 2)}
'''


@pytest.mark.parametrize(("selector", "added", "expected"), [
    (Calls("fs.String", within="register"), '\tfs.String("listen", ":8080", "address")\n'
     '\tfs.String("driftguard_selftest", ":8080", "address")\n', ["listen", SELFTEST]),
    (Calls("Int", within="register"), '\tport := fs.Int("port", 80, "port")\n'
     '\t_ = fs.Int("driftguard_selftest", 80, "port")\n\t_ = port\n', ["port", SELFTEST]),
    (Calls("option", arg=1, within=None, where=((0, '"a"'),)), '\toption("a", 1),\n\toption("a", 2),\n', [1, 2]),
    (Calls("option", arg=0), 'option("x", 1), option("y", 2), option("driftguard_selftest", 2)}',
     ["a", "b", "x", "y", SELFTEST]),
])
def test_a_calls_set_gains_a_copy_of_its_last_call(selector: Calls, added: str, expected: list) -> None:
    text, spec, fact = fact_of(FLAGS, selector)
    edit = mutate.add_member(text, spec, fact)
    assert added in edit.text
    assert reread(edit.text, selector) == expected
    assert len(edit.expect) == 1 and edit.expect[0] in {str(v) for v in expected[-1:]}


def test_a_dashed_flag_set_gains_a_dashed_flag() -> None:
    source = 'package svc\n\nfunc f() {\n\tflag.Bool("dry-run", false, "")\n}\n'
    text, spec, fact = fact_of(source, Calls("flag.Bool"))
    edit = mutate.add_member(text, spec, fact)
    assert reread(edit.text, Calls("flag.Bool")) == ["dry-run", "driftguard-selftest"]


def test_a_call_argument_that_is_no_literal_cannot_be_copied_anew() -> None:
    source = 'package svc\n\nconst name = "n"\n\nfunc f() {\n\tflag.Bool(name, false, "")\n}\n'
    text, spec, fact = fact_of(source, Calls("flag.Bool"))
    with pytest.raises(NotApplicable):
        mutate.add_member(text, spec, fact)


def test_an_error_var_block_gains_a_var_aligned_like_its_neighbours() -> None:
    selector = Constants(name="^Err")
    source = '''
package svc

var (
	ErrClosing  = errors.New("closing")
	ErrNotFound = errors.New("not found")
)
'''
    text, spec, fact = fact_of(source, selector)
    edit = mutate.add_member(text, spec, fact)
    assert '\tErrNotFound = errors.New("not found")\n\tErrNotFoundSelftest = errors.New("driftguard_selftest")\n' \
        in edit.text
    assert reread(edit.text, selector) == ["closing", "not found", SELFTEST]


def test_a_lone_error_var_gains_a_var_after_it_by_name() -> None:
    selector = Constants(name="^Err", values="names")
    text, spec, fact = fact_of('package svc\n\nvar ErrClosed = errors.New("closed")\n', selector)
    edit = mutate.add_member(text, spec, fact)
    assert edit.text.endswith('var ErrClosedSelftest = errors.New("driftguard_selftest")\n')
    assert reread(edit.text, selector) == ["ErrClosed", "ErrClosedSelftest"] and edit.expect == ("ErrClosedSelftest",)


def test_a_local_map_gains_a_key() -> None:
    selector = MapKeys("opts", within="Server.Options")
    source = '''
package svc

func (s *Server) Options() map[string]int {
	opts := map[string]int{
		"verbose": 1,
	}
	return opts
}
'''
    text, spec, fact = fact_of(source, selector)
    edit = mutate.add_member(text, spec, fact)
    assert reread(edit.text, selector) == ["verbose", SELFTEST]


@pytest.mark.parametrize(("keys", "changed", "value"), [
    (("Installer", "Parallel"), "Parallel: false", False),
    (("Installer", "Workers"), "const workers = 5", 5),
    (("Installer", "Timeout"), "Timeout: 11 * time.Second", 11.0),
    (("Labels", "tier"), '"tier": "driftguard_selftest"', SELFTEST),
    (("Ports", 1), "[]int{80, 444}", 444),
])
def test_a_value_read_by_key_path_is_changed_where_the_path_leads(keys: tuple, changed: str, value: object) -> None:
    source = '''
package svc

const workers = 4

var DefaultConfig = &Config{
	Installer: InstallerConfig{Parallel: true, Workers: workers, Timeout: 10 * time.Second},
	Labels:    map[string]string{"tier": "backend"},
	Ports:     []int{80, 443},
}
'''
    selector = Constant("DefaultConfig", keys)
    text, spec, fact = fact_of(source, selector)
    edit = mutate.change_scalar(text, spec, fact)
    assert changed in edit.text
    assert reread(edit.text, selector) == [value]
