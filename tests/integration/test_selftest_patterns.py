"""``run_selftest`` on ``pattern`` facts and ``code_spans`` sections: the captured text is
mutated so the rule fails, what cannot be mutated is reported as such, and the exit
codes are those the guide documents."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.config.loader import load_config
from driftguard.model import MISSING_IN_CODE, MISSING_IN_DOC, VALUE_MISMATCH, FindingKind
from driftguard.selftest import Outcome, SelftestResult, Verdict, render_selftest, run_selftest
from driftguard.sources.text.samples import examples, variants

DOC = """# App

Every request times out after 15 minutes, with a grace period of 1h30m.

| Setting | Value |
|---|---|
| Workers | 9 |
| Debug | true |
| Port | 9999 |

## Ports

It listens on `8080` and `9999` (see `netstat`).

## Codes

It answers `200` or `404`; try `curl`.

## Methods

Use `GET` or `POST`.

## Hosts

`alpha` and `beta`.

## Langs

`go` and `py`.
"""

CONFIG = r"""
version: 1
facts:
  timeout: {file: etc/app.yaml, pattern: '^\s+timeout: (\d+m)$', scalar: true}
  grace: {file: etc/app.yaml, pattern: '^grace: (\d+h\d+m)$', scalar: true}
  workers: {file: etc/app.toml, pattern: '^workers = (\d)$', scalar: true}
  debug: {file: etc/.env, pattern: '^DEBUG=(true|false)$', scalar: true}
  port: {file: etc/.env, pattern: '(?<=^PORT=)(\d{4})$', scalar: true}
  ports: {file: etc/ports.txt, pattern: '^port (\d+)$'}
  codes: {file: etc/codes.txt, pattern: '^code (\d+)$'}
  methods: {file: etc/methods.txt, pattern: '^(GET|POST|PUT|DELETE)$'}
  hosts: {file: etc/hosts.yaml, pattern: '^- name: (\w+)\n  enabled: true$'}
  langs: {file: etc/app.toml, pattern: '"(\w+)"(?=[,\]])'}
rules:
  - {id: timeout, fact: timeout, doc: README.md, phrase: 'times out after {value}'}
  - {id: grace, fact: grace, doc: README.md, phrase: 'grace period of {value}'}
  - {id: settings, doc: README.md, table: Setting, column: Value, rows: {Workers: workers, Debug: debug, Port: port}}
  - {id: ports, fact: ports, doc: README.md, section: Ports, code_spans: '^\d+$'}
  - {id: codes, fact: codes, doc: README.md, section: Codes, code_spans: '^[1-5]\d\d$'}
  - {id: methods, fact: methods, doc: README.md, section: Methods, code_spans: '^(GET|POST|PUT|DELETE)$'}
  - {id: hosts, fact: hosts, doc: README.md, section: Hosts}
  - {id: langs, fact: langs, doc: README.md, section: Langs}
"""

FILES = {
    "driftguard.yaml": CONFIG,
    "README.md": DOC,
    "etc/app.yaml": "production:\n  timeout: 15m\nstaging:\n  timeout: 15m\ngrace: 1h30m\n",
    "etc/app.toml": 'workers = 9\nlangs = ["go", "py"]\n',
    "etc/.env": "DEBUG=true\nPORT=9999\n",
    "etc/ports.txt": "port 8080\nport 9999\n",
    "etc/codes.txt": "code 200\ncode 404\n",
    "etc/methods.txt": "GET\nPOST\n",
    "etc/hosts.yaml": "- name: alpha\n  enabled: true\n- name: beta\n  enabled: true\n- name: gamma\n  enabled: false\n",
}

# rules the selftest cannot show to fail: every value the regex can capture is taken
CLOSED = r"""
version: 1
facts:
  verbs: {file: etc/verbs.txt, pattern: '^(GET|POST|PUT|DELETE)$'}
  modes: {file: etc/modes.txt, pattern: '^mode (fast|slow)$'}
rules:
  - {id: verbs, fact: verbs, doc: README.md, section: Methods, code_spans: '^(GET|POST|PUT|DELETE)$', direction: doc-to-code}
  - {id: modes, fact: modes, doc: README.md, section: Modes, direction: code-to-doc}
"""

CLOSED_FILES = {
    "driftguard.yaml": CLOSED,
    "README.md": "# App\n\n## Methods\n\nUse `GET` or `POST`.\n\n## Modes\n\n`fast` and `slow`.\n",
    "etc/verbs.txt": "GET\nPOST\nPUT\nDELETE\n",
    "etc/modes.txt": "mode fast\nmode slow\n",
}


def write(folder: Path, files: dict[str, str]) -> Path:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def patterns(tmp_path_factory: pytest.TempPathFactory) -> SelftestResult:
    folder = write(tmp_path_factory.mktemp("patterns"), FILES)
    return run_selftest(load_config(folder / "driftguard.yaml"))


def outcome(result: SelftestResult, rule: str, mutation: str) -> Outcome:
    found = [o for o in result.outcomes if o.rule == rule and o.mutation == mutation]
    assert len(found) == 1, render_selftest(result)
    return found[0]


def assert_caught(result: SelftestResult, rule: str, mutation: str, kind: FindingKind, file: str,
                  value: str) -> Outcome:
    """Caught by a finding of ``kind`` on README.md that names ``file`` and ``value``."""
    got = outcome(result, rule, mutation)
    assert got.verdict is Verdict.CAUGHT, f"{got.detail}\n{render_selftest(result)}"
    finding = got.finding
    assert finding is not None and finding.kind is kind
    assert finding.doc is not None and finding.doc.path == "README.md"
    named = finding.doc if file == "README.md" else finding.source
    assert named is not None and named.path == file, finding
    assert value in f"{finding.value} {finding.message}", finding
    assert got.where is not None and got.where.path == file
    return got


def test_every_pattern_and_span_rule_is_caught(patterns: SelftestResult) -> None:
    table = render_selftest(patterns)
    assert patterns.exit_code == 0, table
    assert all(r.clean and r.can_fail for r in patterns.rules), table
    assert {o.verdict for o in patterns.outcomes} == {Verdict.CAUGHT}, table
    assert table.splitlines()[-1].endswith("every rule caught every mutation")


def test_a_scalar_captured_twice_changes_at_both_places(patterns: SelftestResult) -> None:
    # changing one of two `timeout: 15m` made the fact ambiguous: MISSED before
    got = assert_caught(patterns, "timeout", "code: value changed (timeout)", VALUE_MISMATCH, "etc/app.yaml", "`30m`")
    assert got.what == "`15m` -> `30m` (at all 2 places the pattern captures it)"
    assert [f.kind for f in got.found] == [VALUE_MISMATCH]


@pytest.mark.parametrize(("rule", "mutation", "file", "what", "value"), [
    ("grace", "code: value changed (grace)", "etc/app.yaml", "`1h30m` -> `1h31m`", "`1h31m`"),
    ("settings", "code: value changed (workers)", "etc/app.toml", "`9` -> `8`", "`8`"),
    ("settings", "code: value changed (debug)", "etc/.env", "`true` -> `false`", "`false`"),
    ("settings", "code: value changed (port)", "etc/.env", "`9999` -> `9998`", "`9998`"),
])
def test_a_scalar_the_bump_does_not_fit_gets_another_value_the_regex_captures(
        patterns: SelftestResult, rule: str, mutation: str, file: str, what: str, value: str) -> None:
    # `3h`, `10`, `true_selftest` and `10000` do not match: not applicable before
    got = assert_caught(patterns, rule, mutation, VALUE_MISMATCH, file, value)
    assert got.what == what


def test_a_set_gets_a_value_not_already_there(patterns: SelftestResult) -> None:
    # `port 9999` (the bogus number) was already a value: MISSED before
    got = assert_caught(patterns, "ports", "code: new member (ports)", MISSING_IN_DOC, "etc/ports.txt", "8888")
    assert got.what == "added the line `port 8888`"
    got = assert_caught(patterns, "methods", "code: new member (methods)", MISSING_IN_DOC, "etc/methods.txt", "PUT")
    assert got.what == "added the line `PUT`"


def test_a_match_over_two_lines_is_copied_whole(patterns: SelftestResult) -> None:
    got = assert_caught(patterns, "hosts", "code: new member (hosts)", MISSING_IN_DOC, "etc/hosts.yaml",
                        "driftguard_selftest")
    assert got.what == "added the lines `- name: driftguard_selftest` `enabled: true`"
    # `beta` still matches: the only finding is the new host
    assert [(f.kind, f.value) for f in got.found] == [(MISSING_IN_DOC, "driftguard_selftest")]


def test_a_value_in_an_inline_list_is_added_with_its_separator(patterns: SelftestResult) -> None:
    got = assert_caught(patterns, "langs", "code: new member (langs)", MISSING_IN_DOC, "etc/app.toml",
                        "driftguard_selftest")
    assert got.what == 'added `driftguard_selftest` after `py`: `langs = ["go", "py", "driftguard_selftest"]`'
    assert len(got.found) == 1


@pytest.mark.parametrize(("rule", "value"), [
    ("ports", "8888"),  # `9999` is in the section already: MISSED before
    ("codes", "405"),  # no bogus value matches ^[1-5]\d\d$: not applicable before
    ("methods", "PUT"),  # an alternative the code does not declare: not applicable before
])
def test_a_filtered_section_gets_a_span_the_filter_keeps(patterns: SelftestResult, rule: str, value: str) -> None:
    got = assert_caught(patterns, rule, "doc: new code span", MISSING_IN_CODE, "README.md", value)
    assert got.what == f"added the sentence 'The selftest names `{value}` here.' to section '{rule.title()}'"
    assert [f.value for f in got.found] == [value]


def test_a_rule_no_mutation_can_reach_is_reported_not_passed(tmp_path: Path) -> None:
    result = run_selftest(load_config(write(tmp_path, CLOSED_FILES) / "driftguard.yaml"))
    table = render_selftest(result)
    assert result.exit_code == 1, table
    by_rule = {r.rule.id: r for r in result.rules}
    verbs, modes = by_rule["verbs"], by_rule["modes"]
    # doc-to-code: every span the filter keeps is declared in code, so none can be missing in it
    assert [(o.mutation, o.verdict) for o in verbs.outcomes] == [("doc: new code span", Verdict.NOT_APPLICABLE)]
    assert "/^(GET|POST|PUT|DELETE)$/" in verbs.outcomes[0].detail
    assert "declared in code" in verbs.outcomes[0].detail
    # code-to-doc: the regex captures only `fast` and `slow`, both there
    assert [(o.mutation, o.verdict) for o in modes.outcomes] == [("code: new member (modes)", Verdict.NOT_APPLICABLE)]
    assert "no line the selftest can write matches /^mode (fast|slow)$/" in modes.outcomes[0].detail
    assert not verbs.can_fail and not modes.can_fail
    assert "cannot be shown to fail: verbs, modes" in table.splitlines()[-1]
    assert sum("(any)" in line and "MISSED" in line for line in table.splitlines()) == 2


# -- exit codes -------------------------------------------------------------------


def test_cli_exits_0_when_every_rule_caught_every_mutation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--config", str(write(tmp_path, FILES) / "driftguard.yaml")]) == 0
    assert "every rule caught every mutation" in capsys.readouterr().out


def test_cli_exits_1_when_a_rule_cannot_be_shown_to_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--config", str(write(tmp_path, CLOSED_FILES) / "driftguard.yaml")]) == 1
    assert "MISSED" in capsys.readouterr().out


def test_cli_exits_2_when_a_rule_is_not_clean_before_mutating(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {**FILES, "etc/ports.txt": "port 8080\n"})  # the document states 9999
    assert main(["selftest", "--config", str(tmp_path / "driftguard.yaml")]) == 2
    out = capsys.readouterr().out
    assert "not clean" in out and out.splitlines()[-1].endswith("not clean before mutating: ports")


def test_cli_exits_2_on_a_config_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {**FILES, "driftguard.yaml": CONFIG.replace("pattern: '^port (\\d+)$'", "pattern: '^port \\d+$'")})
    assert main(["selftest", "--config", str(tmp_path / "driftguard.yaml")]) == 2
    assert "error" in capsys.readouterr().err
    assert main(["selftest", "--config", str(tmp_path / "missing.yaml")]) == 2


def test_a_mutated_copy_that_cannot_be_judged_is_an_error_not_a_miss(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import driftguard.sources.text as pattern

    real = pattern.change_scalar
    monkeypatch.setattr(pattern, "change_scalar", lambda *args: (e := real(*args)).__class__(
        e.text + "\x00", e.what, e.line, e.expect))
    result = run_selftest(load_config(write(tmp_path, FILES) / "driftguard.yaml"))
    got = outcome(result, "grace", "code: value changed (grace)")
    assert got.verdict is Verdict.ERROR
    assert "the mutated copy could not be judged" in got.detail and "etc/app.yaml" in got.detail
    assert result.exit_code == 2
    assert outcome(result, "ports", "code: new member (ports)").verdict is Verdict.CAUGHT


# -- candidate values -------------------------------------------------------------


def test_examples_follow_the_regex_and_give_up_where_it_cannot() -> None:
    assert examples(r"^(fast|slow)$") == ["fast", "slow"]
    assert examples(r"^PORT=(\d{4})$", 1) == ["1111", "9999", "0000"]
    codes = examples(r"^[1-5]\d\d$")
    assert codes and all(re.fullmatch(r"[1-5]\d\d", code) for code in codes)
    assert examples(r"(\w)\1") == []  # a backreference: nothing proposed
    assert examples(r"\p{L}+") == []  # regex-library syntax re's parser does not read


@pytest.mark.parametrize("pattern, group, expected", [
    (r"(?P<key>[a-c])=(?P<value>\d)", 2, ["1", "9", "0"]),  # a named group counts as re counts it
    (r"(?x) ^ (?: on | off )  # a switch", None, ["on", "off"]),  # verbose: spaces and comments skipped
    (r"(?=(\d{2}))\w+", 1, ["11", "99", "00"]),  # a group inside a lookahead is found
    (r"(a)?(?(1)(b)|c)", 2, ["b"]),  # and one inside a conditional
    (r"\x41\u0042\103\0{0}\N{DIGIT ONE}", None, ["ABC1"]),  # escapes are characters
    (r"[^\W\d_]x{2,}?", None, ["axx", "axxx", "axxxx", "zxx", "zxxx", "zxxxx", "Axx", "Axxx", "Axxxx"]),
    (r"a{x}|b{}", None, ["a{x}", "b{}"]),  # braces that are no quantifier are literals, as in re
    (r"(?P<n>a)(?P=n)", None, []),  # a backreference: nothing proposed
    (r"(?P<n>a)(?P=n)", 1, ["a"]),  # but the group before it still is
    (r"(?<name>a)", None, []),  # regex-library syntax
    (r"a(?i)", None, []),  # global flags past the start: re refuses them
    (r"a**", None, []),  # a repeat of a repeat
    ("(" * 5000 + "a" + ")" * 5000, None, []),  # nesting too deep to read
])
def test_examples_read_the_pattern_as_re_reads_it(pattern: str, group: int | None, expected: list[str]) -> None:
    assert examples(pattern, group) == expected
    if group is None:
        assert all(re.fullmatch(pattern, sample) for sample in expected)


def test_variants_keep_the_shape_of_the_value() -> None:
    assert variants("1h30m")[:2] == ["1h31m", "1h29m"]
    assert variants("007")[:2] == ["008", "006"]
    assert variants("True")[0] == "False" and variants("off")[0] == "on"
    assert "9999" not in variants("9999")
