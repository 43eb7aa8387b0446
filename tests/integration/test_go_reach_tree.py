"""The Go selectors of issue 20 through every front end, on the fixture tree
``tests/fixtures/go_reach`` (prometheus', cobra's, Pulse's and urfave/cli's shapes
with the documents that state them): ``check`` clean and with drift injected in
each shape, ``facts`` for the map-shaped facts, ``pytest --driftguard`` and
``selftest``, whose mutations of each new selector are caught."""

from __future__ import annotations

import hashlib
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.config.loader import FactSpec, load_config
from driftguard.config.specs import Env, Flags, Selector
from driftguard.judging.engine import Engine
from driftguard.model import Fact, Status
from driftguard.selftest import SelftestResult, Verdict, render_selftest, run_selftest
from driftguard.sources import go as reader
from driftguard.sources.go import mutate
from driftguard.sources.mutation import NotApplicable

pytest_plugins = ["pytester"]

REACH = Path(__file__).resolve().parents[1] / "fixtures" / "go_reach"
RULES = {"prometheus-flags", "probe-flags", "cobra-flags", "mailer-flags", "snapshot-flags", "probe-env",
         "version-fields", "global-keys", "formats", "localhost", "template-funcs", "scrape-interval",
         "remote-timeout", "port", "read-timeout"}


@pytest.fixture
def reach(tmp_path: Path) -> Path:
    root = tmp_path / "reach"
    shutil.copytree(REACH, root)
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_check_passes_every_rule_of_the_fixture_tree(reach: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = Engine(load_config(reach / "driftguard.yaml")).run()
    assert {rr.rule.id for rr in result.rules} == RULES
    assert [rr.status for rr in result.rules] == [Status.PASS] * len(RULES), result.findings
    assert main(["check", "--config", str(reach / "driftguard.yaml"), "--no-cache"]) == 0
    assert capsys.readouterr().out == ("internal/snapshot/snapshot.go:12: warning: `string` does not parse\n"
                                       "driftguard: 15 rules: 15 passed\n")  # new(string(out)): Go 1.26


@pytest.mark.parametrize(("file", "old", "new", "expected"), [
    ("cmd/prometheus/main.go", '"web.max-connections"', '"web.max-conns"',
     "docs/command-line/prometheus.md:7: prometheus-flags: `web.max-conns` is declared in code but missing from "
     "section 'Flags' (source: cmd/prometheus/main.go:50)"),
    ("cmd/prometheus/main.go", '"rules.max-concurrent-evals"', '"rules.max-evals"',
     "docs/command-line/prometheus.md:15: prometheus-flags: `rules.max-concurrent-evals` is stated in section "
     "'Flags' but not declared in code (facts: prometheus_flags) (declared: cmd/prometheus/main.go:36, func main)"),
    ("cmd/probe/main.go", '"kube-max-pods"', '"kube-pods"',
     "docs/probe.md:3: probe-flags: `kube-pods` is declared in code but missing from section 'Flags' "
     "(source: cmd/probe/main.go:29)"),
    ("cmd/completion/completions.go", 'helpFlagName             = "help"', 'helpFlagName             = "usage"',
     "docs/completion.md:3: cobra-flags: `usage` is declared in code but missing from section 'Flags' "
     "(source: cmd/completion/completions.go:27)"),
    ("cmd/mailer/main.go", 'Name: "retries"', 'Name: "attempts"',
     "docs/mailer.md:3: mailer-flags: `attempts` is declared in code but missing from the 'Flag' table "
     "(source: cmd/mailer/main.go:20)"),
    ("internal/snapshot/snapshot.go", '"keep"', '"retain"',
     "docs/snapshots.md:3: snapshot-flags: `retain` is declared in code but missing from section 'Flags' "
     "(source: internal/snapshot/snapshot.go:17)"),
    ("cmd/probe/main.go", '"PULSE_DATA_DIR"', '"PULSE_STATE_DIR"',
     "docs/probe.md:8: probe-env: `PULSE_STATE_DIR` is declared in code but missing from section 'Environment' "
     "(source: cmd/probe/main.go:42)"),
    ("web/api/api.go", 'json:"buildUser"', 'json:"builder"',
     "docs/api.md:5: version-fields: `builder` is declared in code but missing from the 'Field' table "
     "(source: web/api/api.go:41)"),
    ("config/config.go", 'yaml:"scrape_timeout,omitempty"', 'yaml:"scrape_deadline,omitempty"',
     "docs/configuration.md:5: global-keys: `scrape_deadline` is declared in code but missing from the 'Key' "
     "table (source: config/config.go:22)"),
    ("web/api/api.go", 'case formatProtobuf, "text":', 'case formatProtobuf, "plain":',
     "docs/api.md:14: formats: `plain` is declared in code but missing from section 'Formats' "
     "(source: web/api/api.go:80)"),
    ("web/api/api.go", '"localhost", "::1"}', '"localhost", "[::1]"}',
     "docs/api.md:18: localhost: `[::1]` is declared in code but missing from section 'Localhost' "
     "(source: web/api/api.go:34)"),
    ("template/template.go", '"toLower": strings.ToLower', '"lower": strings.ToLower',
     "docs/template_reference.md:5: template-funcs: `lower` is declared in code but missing from the 'Name' "
     "table (source: template/template.go:27)"),
    ("template/template.go", '"tmpl": func', '"template": func',
     "docs/template_reference.md:5: template-funcs: `template` is declared in code but missing from the 'Name' "
     "table (source: template/template.go:35)"),
    ("config/config.go", "ScrapeInterval:     model.Duration(1 * time.Minute)",
     "ScrapeInterval:     model.Duration(2 * time.Minute)",
     "docs/configuration.md:12: scrape-interval: the sentence 'scraped every {value} by default' says '1m' "
     "(duration 1m) but the code has `model.Duration(2 * time.Minute)` (duration 2m); the document should say "
     "'2m' (source: config/config.go:12)"),
    ("config/config.go", "model.Duration(30 * time.Second)", "model.Duration(45 * time.Second)",
     "docs/configuration.md:12: remote-timeout: the sentence 'time out after {value}' says '30s' (duration 30s) "
     "but the code has `model.Duration(45 * time.Second)` (duration 45s); the document should say '45s' "
     "(source: config/config.go:17)"),
    ("server/server.go", "Port:        8080", "Port:        9090",
     "docs/configuration.md:16: port: the sentence 'listens on port {value}' says '8080' (number 8080) but the "
     "code has `9090` (number 9090); the document should say '9090' (source: server/server.go:20)"),
    ("server/server.go", "time.Duration(15) * time.Second", "time.Duration(20) * time.Second",
     "docs/configuration.md:16: read-timeout: the sentence 'a read after {value}' says '15 seconds' (duration "
     "15s) but the code has `time.Duration(20) * time.Second` (duration 20s); the document should say "
     "'20 seconds' (source: server/server.go:21)"),
])
def test_drift_in_each_shape_is_reported_at_the_document_line_with_the_value(
    reach: Path, capsys: pytest.CaptureFixture[str], file: str, old: str, new: str, expected: str
) -> None:
    edit(reach / file, old, new)
    assert main(["check", "--config", str(reach / "driftguard.yaml"), "--no-cache"]) == 1
    assert expected in capsys.readouterr().out.splitlines()


def test_a_syntax_error_in_the_flag_definitions_fails_the_rule_naming_file_and_line(
    reach: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(reach / "internal/snapshot/snapshot.go", '"how many snapshots to keep")', '"how many snapshots to keep" +)')
    assert main(["check", "--config", str(reach / "driftguard.yaml"), "--no-cache"]) == 2
    out = capsys.readouterr().out
    assert "internal/snapshot/snapshot.go:17" in out and "Go syntax error at line 17" in out


FLAG_DEFAULTS = """
version: 1
facts:
  defaults: {file: cmd/prometheus/main.go, flags: {within: main, defaults: true}}
  env_defaults: {file: cmd/probe/main.go, env: true, defaults: true}
rules:
  - {id: config-file, fact: defaults, entry: config.file, doc: docs/command-line/prometheus.md,
     phrase: 'configuration file path {value}'}
"""


def test_facts_prints_each_default_and_what_was_left_out(reach: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (reach / "defaults.yaml").write_text(textwrap.dedent(FLAG_DEFAULTS).lstrip(), encoding="utf-8")
    assert main(["facts", "--config", str(reach / "defaults.yaml"), "--no-cache"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:8] == [
        "defaults (map of 6) from cmd/prometheus/main.go:",
        '  cmd/prometheus/main.go:43: config.file = prometheus.yml  ["prometheus.yml"]',
        '  cmd/prometheus/main.go:48: web.config.file =   [""]',
        '  cmd/prometheus/main.go:51: web.max-connections = 512  ["512"]',
        "  cmd/prometheus/main.go:53: web.external-url = ",
        '  cmd/prometheus/main.go:57: rules.max-concurrent-evals = 4  ["4"]',
        "  cmd/prometheus/main.go:63: alertmanager.notification-batch-size = ",
        "  note: cmd/prometheus/main.go: line 59: --scrape.timestamp-tolerance is hidden from help (`.Hidden()`); "
        "left out",
    ]
    assert out[8].startswith("  note: cmd/prometheus/main.go: line 63: the default of "
                             "--alertmanager.notification-batch-size, `strconv.Itoa(defaultMaxBatchSize)`")
    assert any(line.startswith("  cmd/probe/main.go:41: ") and line.endswith(' = info  ["info"]') for line in out)


def map_fact(file: str, selector: Selector, text: str) -> tuple[FactSpec, Fact]:
    items = reader.extract(reader.parse(file, text), selector, file)
    return FactSpec(name="f", file=file, selector=selector, line=1, files=(file,)), Fact("f", tuple(items), False)


@pytest.mark.parametrize(("file", "selector", "label", "before", "after"), [
    ("cmd/prometheus/main.go", Flags(within="main", defaults=True), "web.max-connections", "512",
     "driftguard_selftest"),
    ("cmd/probe/main.go", Flags(defaults=True), "kube-max-pods", 200, 201),
    ("cmd/probe/main.go", Flags(defaults=True), "event-timeout", 5.0, 6.0),
    ("cmd/completion/completions.go", Flags(defaults=True), "no-descriptions", False, True),
    ("cmd/mailer/main.go", Flags(defaults=True), "retries", 3, 4),
    ("cmd/probe/main.go", Env(defaults=True), "PULSE_LOG_LEVEL", "info", "driftguard_selftest"),
])
def test_a_changed_default_is_the_default_of_the_entry_the_fact_names(
    file: str, selector: Selector, label: str, before: object, after: object
) -> None:
    text = (REACH / file).read_text(encoding="utf-8")
    spec, fact = map_fact(file, selector, text)
    entry = next(i for i in fact.items if i.label == label)
    assert entry.value.data == before
    edit_ = mutate.change_scalar(text, spec, Fact("f", (entry,), True))
    changed = {i.label: i.value.data for i in map_fact(file, selector, edit_.text)[1].items}
    assert changed[label] == after
    assert {k: v for k, v in changed.items() if k != label} == {
        i.label: i.value.data for i in fact.items if i.label != label}


def test_a_flag_with_no_default_in_the_code_has_no_default_to_change() -> None:
    text = (REACH / "cmd/prometheus/main.go").read_text(encoding="utf-8")
    spec, fact = map_fact("cmd/prometheus/main.go", Flags(within="main", defaults=True), text)
    entry = next(i for i in fact.items if i.label == "web.external-url")
    with pytest.raises(NotApplicable, match="no default for `web.external-url`"):
        mutate.change_scalar(text, spec, Fact("f", (entry,), True))


# -- pytest --driftguard ---------------------------------------------------------------------


def test_pytest_driftguard_runs_every_rule_of_the_fixture_tree(pytester: pytest.Pytester,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    shutil.copytree(REACH, pytester.path, dirs_exist_ok=True)
    result = pytester.runpytest("--driftguard", "-q")
    result.assert_outcomes(passed=len(RULES))


# -- selftest ------------------------------------------------------------------------------------


def digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


Selftested = tuple[SelftestResult, Path, dict[str, str]]
Tree = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture(scope="module")
def selftest(tmp_path_factory: pytest.TempPathFactory) -> Selftested:
    root = tmp_path_factory.mktemp("go-reach") / "reach"
    shutil.copytree(REACH, root)
    before = digest(root)
    return run_selftest(load_config(root / "driftguard.yaml")), root, before


def test_selftest_catches_every_mutation_and_leaves_the_tree_untouched(selftest: Selftested) -> None:
    outcome, root, before = selftest
    verdicts = {(o.rule, o.mutation): o.verdict for o in outcome.outcomes}
    assert {rule for rule, mutation in verdicts if mutation.startswith("code")} == RULES
    assert set(verdicts.values()) == {Verdict.CAUGHT}, render_selftest(outcome)
    assert digest(root) == before


@pytest.mark.parametrize(("rule", "what", "line"), [
    ("prometheus-flags", 'added the flag --driftguard-selftest (`serverOnlyFlag(a, "driftguard-selftest", '
     '"The maximum number of notifications...`)', 64),
    ("probe-flags", 'added the flag --driftguard-selftest (`flag.Bool("driftguard-selftest", false, '
     '"Print every event")`)', 38),
    ("cobra-flags", 'added the flag --driftguard-selftest (`rootCmd.Flags().BoolP("driftguard-selftest", "", false, '
     '"help for this command")`)', 28),
    ("mailer-flags", 'added the flag --driftguard-selftest (`&cli.BoolFlag{Name: "driftguard-selftest", '
     'Usage: "send nothing"}`)', 22),
    ("snapshot-flags", 'added the flag --driftguard-selftest (`fs.Int("driftguard-selftest", 7, '
     '"how many snapshots to keep")`)', 18),
    ("probe-env", 'added the read of DRIFTGUARD_SELFTEST (`os.LookupEnv("DRIFTGUARD_SELFTEST")`)', 42),
    ("version-fields", 'added the field `GoVersionSelftest string `json:"driftguardSelftest"``', 45),
    ("global-keys", 'added the field `ExternalLabelsSelftest map[string]string '
     '`yaml:"driftguard_selftest,omitempty"``', 25),
    ("formats", 'added the case label "driftguard_selftest"', 80),
    ("localhost", 'added the element `"driftguard_selftest"`', 34),
    ("scrape-interval", "`1` -> `2` in `model.Duration(1 * time.Minute)`", 12),
    ("port", "`8080` -> `8081`", 20),
])
def test_each_new_selectors_code_mutation_is_shaped_like_its_neighbour(selftest: Selftested, rule: str, what: str,
                                                                        line: int) -> None:
    outcome = next(o for o in selftest[0].outcomes if o.rule == rule and o.mutation.startswith("code"))
    assert (outcome.verdict, outcome.what, outcome.where.line) == (Verdict.CAUGHT, what, line)


# -- a glob holding a file the grammar cannot fully read --------------------------------------

GLOB = {
    "internal/state/state.go": '''
        package state

        import "flag"

        type State string

        const (
        \tStateIdle State = "idle"
        \tStateBusy State = "busy"
        )

        func (s State) String() string {
        \tswitch s {
        \tcase StateIdle:
        \t\treturn "idle"
        \tcase StateBusy:
        \t\treturn "busy"
        \t}
        \treturn ""
        }

        var limits = map[string]int{"cpu": 2}

        func Register(fs *flag.FlagSet) {
        \tfs.String("state-dir", "/var/lib/state", "where state is kept")
        }
    ''',
    "internal/state/describe.go": '''
        package state

        import "os/exec"

        func describe() *string {
        \tout, _ := exec.Command("git", "describe").Output()
        \treturn new(string(out))
        }
    ''',
    "docs/state.md": '''
        # State

        | State | Meaning |
        | --- | --- |
        | `idle` | waiting |
        | `busy` | working |

        ## Limits

        - `cpu`

        ## Flags

        `--state-dir` is where state is kept.
    ''',
    "driftguard.yaml": '''
        version: 1
        facts:
          states: {file: 'internal/state/*.go', constants: {type: State}}
          names: {file: 'internal/state/*.go', string_method: State}
          limits: {file: 'internal/state/*.go', map_keys: limits}
          flags: {file: 'internal/state/*.go', flags: true}
          calls: {file: 'internal/state/*.go', calls: {function: fs.String}}
        rules:
          - {id: states, fact: states, doc: docs/state.md, table: State}
          - {id: names, fact: names, doc: docs/state.md, table: State}
          - {id: limits, fact: limits, doc: docs/state.md, section: Limits, list: true}
          - {id: flags, fact: flags, doc: docs/state.md, section: Flags, code_spans: '^--([a-z-]+)$'}
          - {id: calls, fact: calls, doc: docs/state.md, section: Flags, code_spans: '^--([a-z-]+)$'}
    ''',
}


def test_a_file_of_a_glob_the_grammar_cannot_fully_read_fails_no_fact_it_does_not_hold(tree: Tree) -> None:
    root = tree(GLOB)
    assert reader.problems(reader.parse("d.go", (root / "internal/state/describe.go").read_text()), "d.go") == [
        (7, "`string` does not parse")]
    result = Engine(load_config(root / "driftguard.yaml")).run()
    assert [(rr.rule.id, rr.status) for rr in result.rules] == [
        ("states", Status.PASS), ("names", Status.PASS), ("limits", Status.PASS), ("flags", Status.PASS),
        ("calls", Status.PASS)], result.findings


def test_a_set_the_unreadable_part_may_hold_fails_naming_the_file_and_line(tree: Tree) -> None:
    files = dict(GLOB)
    files["internal/state/describe.go"] += '\n        func more(fs *flag.FlagSet) {\n        \tfs.String("x", "", new(string(out)))\n        }\n'
    result = Engine(load_config(tree(files) / "driftguard.yaml")).run()
    statuses = {rr.rule.id: rr.status for rr in result.rules}
    assert statuses == {"states": Status.PASS, "names": Status.PASS, "limits": Status.PASS,
                        "flags": Status.ERROR, "calls": Status.ERROR}
    [finding] = [f for f in result.findings if f.rule == "flags"]
    assert (finding.kind.kind, finding.source.path if finding.source else None) == (
        "parse-error", "internal/state/describe.go")
    assert "Go syntax error at line 11" in finding.message
