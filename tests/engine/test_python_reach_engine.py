"""The newer Python selectors end to end, on ``tests/fixtures/python_reach``: an
httpx-shaped library (its client, config, exceptions and click CLI), a Pulse-shaped
argparse script and a typer command, each guarded by a rule against its docs.

The tree passes clean; a drift injected into each shape fails its rule with a
finding that names the document, the line and the value; the CLI (``check`` and
``facts``) and ``pytest --driftguard`` say the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from driftguard.model import Status
from tests.helpers import cli_on, edit, judge

REACH = Path(__file__).resolve().parents[1] / "fixtures" / "python_reach"
RULES = {"follow-redirects", "keepalive-expiry", "settings-max-redirects", "default-timeout", "max-connections",
         "server-port", "pool-timeout", "read-chunk", "cli-options", "report-flags", "fetch-options", "env-vars",
         "settings-fields", "auth-schemes", "status-classes", "http-errors", "client-exports"}


@pytest.fixture
def reach(tmp_path: Path) -> Path:
    root = tmp_path / "httpish"
    shutil.copytree(REACH, root)
    return root


def test_the_fixture_tree_passes_every_rule(reach: Path) -> None:
    result = judge(reach)
    assert {rr.rule.id for rr in result.rules} == RULES
    assert [(rr.rule.id, rr.status) for rr in result.rules if rr.status is not Status.PASS] == []


DRIFTS = [
    # (rule, file, old, new, finding kind, value, document, line, words in the message)
    ("follow-redirects", "src/httpish/_client.py", "follow_redirects: bool = False,\n        limits",
     "follow_redirects: bool = True,\n        limits", "value-mismatch", "False", "docs/clients.md", 5, "`True`"),
    ("keepalive-expiry", "src/httpish/_config.py", "keepalive_expiry: float | None = 5.0",
     "keepalive_expiry: float | None = 10.0", "value-mismatch", "5 seconds", "docs/advanced/resource-limits.md", 9,
     "10"),
    ("settings-max-redirects", "src/httpish/_models.py", "field(default=20)", "field(default=30)",
     "value-mismatch", "20", "docs/clients.md", 25, "30"),
    ("default-timeout", "src/httpish/_config.py", "Timeout(timeout=5.0)", "Timeout(timeout=8.0)",
     "value-mismatch", "5 seconds", "docs/advanced/timeouts.md", 5, "8 seconds"),
    ("max-connections", "src/httpish/_config.py", "max_connections=100,", "max_connections=200,",
     "value-mismatch", "100", "docs/advanced/resource-limits.md", 7, "200"),
    ("server-port", "src/httpish/_settings.py", '"port": 8080', '"port": 9090', "value-mismatch", "8080",
     "docs/clients.md", 29, "9090"),
    ("pool-timeout", "src/httpish/_config.py", "Seconds(30)", "Seconds(45)", "value-mismatch", "30 seconds",
     "docs/advanced/timeouts.md", 8, "45 seconds"),
    ("read-chunk", "src/httpish/_config.py", "int(65_536)", "int(32_768)", "value-mismatch", "65536 bytes",
     "docs/clients.md", 29, "32768 bytes"),
    ("cli-options", "src/httpish/_main.py", '"--follow-redirects"', '"--redirects"', "missing-in-doc", "redirects",
     "docs/cli.md", 3, "`redirects` is declared in code"),
    ("report-flags", "scripts/adoption_report.py", '"--since-days"', '"--since-weeks"', "missing-in-doc",
     "since-weeks", "docs/cli.md", 13, "`since-weeks` is declared in code"),
    ("fetch-options", "src/httpish/_typer_cli.py", "    insecure: bool = False,\n",
     "    insecure: bool = False,\n    proxy: str = \"\",\n", "missing-in-doc", "proxy", "docs/cli.md", 22,
     "`proxy` is declared in code"),
    ("env-vars", "src/httpish/_config.py", '"HTTPISH_RETRIES"', '"HTTPISH_MAX_RETRIES"', "missing-in-doc",
     "HTTPISH_MAX_RETRIES", "docs/environment_variables.md", 3, "`HTTPISH_MAX_RETRIES` is declared in code"),
    ("settings-fields", "src/httpish/_models.py", '    base_url: str = ""\n',
     '    base_url: str = ""\n    trust_env: bool = True\n', "missing-in-doc", "trust_env", "docs/clients.md", 17,
     "`trust_env` is declared in code"),
    ("auth-schemes", "src/httpish/_models.py", '"digest" | "bearer"', '"digest" | "bearer" | "ntlm"',
     "missing-in-doc", "ntlm", "docs/auth.md", 3, "`ntlm` is declared in code"),
    ("status-classes", "src/httpish/_models.py", "code == 404", "code == 410", "missing-in-code", "404",
     "docs/auth.md", 17, "`404` is stated in"),
    ("http-errors", "src/httpish/_exceptions.py", "class DecodingError(RequestError):",
     "class DecodingError(RequestError):\n    pass\n\n\nclass ContentError(DecodingError):", "missing-in-doc",
     "ContentError", "docs/exceptions.md", 3, "`ContentError` is declared in code"),
    ("client-exports", "src/httpish/_client.py", '"AsyncClient", "Client"]', '"AsyncClient", "Client", "Auth"]',
     "missing-in-doc", "Auth", "docs/clients.md", 7, "`Auth` is declared in code"),
]


@pytest.mark.parametrize(("rule", "file", "old", "new", "kind", "value", "doc", "line", "words"), DRIFTS,
                         ids=[d[0] for d in DRIFTS])
def test_drift_in_each_shape_fails_its_rule_at_the_document_line(
    reach: Path, rule: str, file: str, old: str, new: str, kind: str, value: str, doc: str, line: int, words: str
) -> None:
    edit(reach / file, old, new)
    result = judge(reach)
    found = [(f.kind.kind, f.value, f.doc.path if f.doc else None, f.doc.line if f.doc else None)
             for f in result.findings if f.rule == rule]
    assert (kind, value, doc, line) in found, found
    finding = next(f for f in result.findings if f.rule == rule and f.value == value)
    assert words in finding.message, finding.message
    assert {rr.rule.id for rr in result.rules if rr.status is not Status.PASS} == {rule}
    assert result.exit_code == 1


def test_every_rule_has_a_drift_case() -> None:
    assert {d[0] for d in DRIFTS} == RULES


def test_a_default_imported_from_another_module_is_fact_not_found_naming_it(reach: Path) -> None:
    config = reach / "driftguard.yaml"
    edit(config, "  follow_redirects: {file: src/httpish/_client.py, default: {function: 'Client.__init__', "
                 "param: follow_redirects}}",
         "  follow_redirects: {file: src/httpish/_client.py, default: {function: 'Client.__init__', "
         "param: max_redirects}}")
    [finding] = [f for f in judge(reach).findings if f.rule == "follow-redirects"]
    assert finding.kind.kind == "fact-not-found"
    assert ("the default of max_redirects of Client.__init__ (line 36) cannot be "
                                    "evaluated: DEFAULT_MAX_REDIRECTS is imported from ._config, not a constant "
                                    "of this file") in finding.message


# -- the CLI ------------------------------------------------------------------------


def test_check_on_the_clean_tree_passes_every_rule(reach: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli_on(capsys, reach, "check", "--no-cache")
    assert (code, out) == (0, f"driftguard: {len(RULES)} rules: {len(RULES)} passed\n")


def test_check_names_the_document_line_and_value_of_each_drift(reach: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    edit(reach / "src/httpish/_config.py", "Timeout(timeout=5.0)", "Timeout(timeout=8.0)")
    edit(reach / "scripts/adoption_report.py", '"--since-days"', '"--since-weeks"')
    edit(reach / "src/httpish/_config.py", 'os.environ.get("SSL_CERT_DIR")', 'os.environ.get("SSL_CERT_PATH")')
    code, out = cli_on(capsys, reach, "check", "--no-cache")
    assert code == 1
    lines = out.splitlines()
    assert any(line.startswith("docs/advanced/timeouts.md:5: default-timeout:") and "5 seconds" in line
               and "8 seconds" in line for line in lines), out
    assert any(line.startswith("docs/cli.md:13: report-flags: `since-weeks`") for line in lines), out
    assert any(line.startswith("docs/environment_variables.md:3: env-vars: `SSL_CERT_PATH`") for line in lines), out
    assert lines[-1] == f"driftguard: {len(RULES)} rules: {len(RULES) - 3} passed, 3 failed"


def test_facts_lists_a_map_facts_defaults_and_what_it_left_out(reach: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli_on(capsys, reach, "facts", "report_defaults", "env_defaults", "--no-cache")
    assert code == 0
    assert out.splitlines() == [
        "report_defaults (map of 6) from scripts/adoption_report.py:",
        '  scripts/adoption_report.py:16: db-path = licenses.sqlite  ["licenses.sqlite"]',
        "  scripts/adoption_report.py:17: since-days = 7",
        '  scripts/adoption_report.py:20: github-repo = rcourtman/Pulse  ["rcourtman/Pulse"]',
        "  scripts/adoption_report.py:24: include-mock-fleet = false",
        "  scripts/adoption_report.py:29: quiet = false",
        '  scripts/adoption_report.py:33: format = text  ["text"]',
        "env_defaults (map of 4) from src/httpish/_config.py:",
        "  src/httpish/_config.py:15: SSL_CERT_FILE = ",
        "  src/httpish/_config.py:17: SSL_CERT_DIR = ",
        '  src/httpish/_config.py:58: HTTPISH_LOG_LEVEL = warning  [os.getenv("HTTPISH_LOG_LEVEL", "warning")]',
        '  src/httpish/_config.py:59: HTTPISH_RETRIES = 3  [int(os.getenv("HTTPISH_RETRIES", 3))]',
    ]


def test_facts_says_which_options_it_left_out(reach: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(reach / "scripts/adoption_report.py", '    group = parser', '    parser.add_argument(flag_name())\n'
         '    group = parser')
    code, out = cli_on(capsys, reach, "facts", "report_flags", "--no-cache")
    assert code == 0
    assert out.splitlines()[-1] == ("  note: scripts/adoption_report.py: line 28: option name "
                                    '`flag_name()` is not a literal; left out')
