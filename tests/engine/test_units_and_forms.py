"""What real projects' documents say: a fact's ``unit:``, byte sizes, booleans,
``case: insensitive`` and capture groups in ``code_spans``."""

from __future__ import annotations

from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.model import Kind, Value
from driftguard.quantities import format_like, parse_quantity, read_value, with_unit
from tests.helpers import write_tree

MiB = 1 << 20


def _run(root: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.chdir(root)
    return main(list(args))


def _project(tmp_path: Path, source: tuple[str, str], doc: str, facts: str, rules: str) -> Path:
    return write_tree(tmp_path, {
        source[0]: source[1],
        "docs/guide.md": doc,
        "driftguard.yaml": f"version: 1\nfacts:\n{facts}\nrules:\n{rules}\n",
    })


# -- unit: --------------------------------------------------------------------

TIMEOUT_PY = ("app/constants.py", 'import os\n\nREQUESTS_TIMEOUT = 15\n')


@pytest.mark.parametrize("said", ["15 seconds", "fifteen seconds", "15s", "15 sec"])
def test_a_number_in_seconds_equals_the_document_duration(tmp_path, monkeypatch, capsys, said):
    root = _project(tmp_path, TIMEOUT_PY, f"# G\n\nRequests time out after {said}.\n",
                    "  timeout: {file: app/constants.py, constant: REQUESTS_TIMEOUT, unit: seconds}",
                    "  - {id: timeout, fact: timeout, doc: docs/guide.md, phrase: 'time out after {value}'}")
    assert _run(root, monkeypatch, "check") == 0, capsys.readouterr().out


def test_a_number_in_seconds_differs_from_minutes(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, TIMEOUT_PY, "# G\n\nRequests time out after 15 minutes.\n",
                    "  timeout: {file: app/constants.py, constant: REQUESTS_TIMEOUT, unit: seconds}",
                    "  - {id: timeout, fact: timeout, doc: docs/guide.md, phrase: 'time out after {value}'}")
    assert _run(root, monkeypatch, "check") == 1
    out = capsys.readouterr().out
    assert "docs/guide.md:3: timeout:" in out and "'15 minutes'" in out and "duration 15s" in out


def test_without_a_unit_a_bare_number_never_equals_a_duration_and_the_finding_says_why(tmp_path, monkeypatch,
                                                                                       capsys):
    root = _project(tmp_path, TIMEOUT_PY, "# G\n\nRequests time out after 15 seconds.\n",
                    "  timeout: {file: app/constants.py, constant: REQUESTS_TIMEOUT}",
                    "  - {id: timeout, fact: timeout, doc: docs/guide.md, phrase: 'time out after {value}'}")
    assert _run(root, monkeypatch, "check") == 1
    out = capsys.readouterr().out
    assert "a duration cannot equal a bare number" in out and "`unit:`" in out


RATIO_GO = ("internal/cache/config.go", "package cache\n\nconst EvictionThreshold = 0.9\n")
RATIO_DOC = "# G\n\nEviction starts at 90% of capacity.\n"
RATIO_RULE = "  - {id: evict, fact: evict, doc: docs/guide.md, phrase: 'starts at {value} of'}"


def test_a_ratio_equals_its_percent_and_fix_writes_the_percent(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, RATIO_GO, RATIO_DOC,
                    "  evict: {file: internal/cache/config.go, constant: EvictionThreshold, unit: ratio}", RATIO_RULE)
    assert _run(root, monkeypatch, "check") == 0
    go = root / "internal/cache/config.go"
    go.write_text(go.read_text().replace("0.9", "0.8"))
    assert _run(root, monkeypatch, "check") == 1
    assert "docs/guide.md:3: evict:" in capsys.readouterr().out
    assert _run(root, monkeypatch, "fix") == 0
    assert (root / "docs/guide.md").read_text() == "# G\n\nEviction starts at 80% of capacity.\n"
    assert _run(root, monkeypatch, "check") == 0


def test_a_fraction_against_a_percent_without_a_unit_is_reported_and_never_written_as_a_fraction(
        tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, RATIO_GO, RATIO_DOC,
                    "  evict: {file: internal/cache/config.go, constant: EvictionThreshold}", RATIO_RULE)
    assert _run(root, monkeypatch, "check") == 1
    assert "give the fact `unit: ratio`" in capsys.readouterr().out
    _run(root, monkeypatch, "fix")
    out = capsys.readouterr().out
    assert "not fix" in out and "unit: ratio" in out
    assert (root / "docs/guide.md").read_text() == RATIO_DOC


def test_unit_on_a_value_that_is_not_a_bare_number_is_a_config_error(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, ("a.go", 'package a\n\nimport "time"\n\nconst TTL = 5 * time.Minute\n'),
                    "# G\n\nEntries expire after 5 minutes.\n",
                    "  ttl: {file: a.go, constant: TTL, unit: seconds}",
                    "  - {id: ttl, fact: ttl, doc: docs/guide.md, phrase: 'expire after {value}'}")
    assert _run(root, monkeypatch, "check") == 2
    out = capsys.readouterr().out
    assert "1 error" in out and "already a duration" in out and "(source: a.go:5)" in out


def test_unit_on_a_selector_of_names_is_refused_at_load(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, ("a.go", "package a\n\ntype K string\n\nconst A K = \"a\"\n"), "# G\n\n| K |\n|---|\n| `a` |\n",
                    "  k: {file: a.go, string_method: K, unit: bytes}",
                    "  - {id: k, fact: k, doc: docs/guide.md, table: K}")
    assert _run(root, monkeypatch, "check") == 2
    err = capsys.readouterr()
    assert "facts.k.unit" in err.out + err.err and "driftguard.yaml:" in err.out + err.err


@pytest.mark.parametrize("unit, n, want", [
    ("milliseconds", 250, Value(Kind.DURATION, 0.25)), ("nanoseconds", 500, Value(Kind.DURATION, 5e-7)),
    ("hours", 48, Value(Kind.DURATION, 172800)), ("days", 2, Value(Kind.DURATION, 172800)),
    ("percent", 75, Value(Kind.NUMBER, 75)), ("ratio", 0.75, Value(Kind.NUMBER, 75)),
    ("bytes", 4 * MiB, Value(Kind.BYTES, 4 * MiB)),
])
def test_with_unit(unit, n, want):
    assert with_unit(Value(Kind.NUMBER, n), unit).same(want)


def test_a_ratio_is_exact_in_percent():
    assert with_unit(Value(Kind.NUMBER, 0.9), "ratio").canonical == "90"


# -- byte sizes -----------------------------------------------------------------

@pytest.mark.parametrize("text, size", [
    ("4 MiB", 4 * MiB), ("4MiB", 4 * MiB), ("512 KiB", 512 * 1024), ("1 GiB", 1 << 30), ("1.5 GiB", 3 << 29),
    ("4 MB", 4_000_000), ("500 kB", 500_000), ("1 GB", 10**9), ("4096 bytes", 4096), ("`4 MiB`", 4 * MiB),
])
def test_byte_sizes_are_read(text, size):
    value = parse_quantity(text)
    assert value.kind is Kind.BYTES and value.data == size


def test_decimal_and_binary_sizes_differ():
    assert not read_value("4 MB").same(Value(Kind.BYTES, 4 << 20))
    assert read_value("4 MiB").same(Value(Kind.BYTES, 4 << 20))


@pytest.mark.parametrize("like, size, written", [
    ("4 MiB", 8 * MiB, "8 MiB"), ("4MiB", 3 * MiB // 2, "1536KiB"), ("500 kB", 1_500_000, "1500 kB"),
    ("1 GB", 2 * 10**9, "2 GB"), ("4096 bytes", 8192, "8192 bytes"), ("4 MiB", 4 * MiB + 1, "4194305 bytes"),
    ("4 MiB", 4_000_000, "4 MB"), ("1 GB", 1 << 30, "1 GiB"),
])
def test_fix_keeps_the_documents_unit_where_the_value_is_whole_in_it(like, size, written):
    assert format_like(Value(Kind.BYTES, size), parse_quantity(like)) == written


def test_a_byte_size_against_a_duration_is_a_mismatch_that_says_so(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, ("a.go", "package a\n\nconst MaxBody = 4 << 20\n"), "# G\n\nBodies may be 4 seconds.\n",
                    "  body: {file: a.go, constant: MaxBody, unit: bytes}",
                    "  - {id: body, fact: body, doc: docs/guide.md, phrase: 'may be {value}'}")
    assert _run(root, monkeypatch, "check") == 1
    out = capsys.readouterr().out
    assert "docs/guide.md:3: body:" in out and "a duration cannot equal a byte size" in out


def test_a_byte_limit_drifts_and_fix_writes_it_in_the_documents_unit(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, ("a.go", "package a\n\nconst MaxBody = 4 << 20\n"),
                    "# G\n\n| Limit | Value |\n|---|---|\n| Body | 4 MiB |\n",
                    "  body: {file: a.go, constant: MaxBody, unit: bytes}",
                    "  - {id: body, doc: docs/guide.md, table: Limit, rows: {Body: body}}")
    assert _run(root, monkeypatch, "check") == 0
    (root / "a.go").write_text("package a\n\nconst MaxBody = 4 * 1000 * 1000\n")
    assert _run(root, monkeypatch, "check") == 1
    assert "docs/guide.md:5: body:" in capsys.readouterr().out
    assert _run(root, monkeypatch, "fix") == 0
    assert (root / "docs/guide.md").read_text().endswith("| Body | 4 MB |\n")
    assert _run(root, monkeypatch, "check") == 0


# -- booleans ------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    ("app/settings.py", "CREATE_VENV = True\n"),
    ("app/settings.go", "package app\n\nconst CreateVenv = true\n"),
])
def test_a_boolean_in_a_phrase_equals_the_code_and_fix_writes_the_documents_form(tmp_path, monkeypatch, capsys,
                                                                                source):
    name = "CREATE_VENV" if source[0].endswith(".py") else "CreateVenv"
    doc = "# G\n\n**Default**: `True`\n"
    root = _project(tmp_path, source, doc, f"  create: {{file: {source[0]}, constant: {name}}}",
                    "  - {id: create, fact: create, doc: docs/guide.md, phrase: 'Default: {value}'}")
    assert _run(root, monkeypatch, "check") == 0
    code = root / source[0]
    code.write_text(code.read_text().replace("True", "False").replace("true", "false"))
    assert _run(root, monkeypatch, "check") == 1
    assert "docs/guide.md:3: create:" in capsys.readouterr().out
    assert _run(root, monkeypatch, "fix") == 0
    assert (root / "docs/guide.md").read_text() == "# G\n\n**Default**: `False`\n"


@pytest.mark.parametrize("text, flag", [("true", True), ("FALSE", False), ("`True`", True), ("False", False)])
def test_booleans_are_read_in_any_case(text, flag):
    value = parse_quantity(text)
    assert value.kind is Kind.BOOL and value.data is flag


def test_a_word_containing_true_is_not_a_boolean():
    assert read_value("untrue").kind is Kind.STRING and read_value("trueish").kind is Kind.STRING


# -- case: insensitive -----------------------------------------------------------

ROLES = ("roles.go", 'package r\n\ntype Role string\n\nconst (\n\tPrimary Role = "PRIMARY"\n\tReplica Role = "REPLICA"\n)\n')
ROLES_DOC = "# G\n\n| Role | Meaning |\n|---|---|\n| `primary` | takes writes |\n| `replica` | serves reads |\n"


def test_case_insensitive_sets_match_across_case(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, ROLES, ROLES_DOC, "  roles: {file: roles.go, constants: {type: Role}}",
                    "  - {id: roles, fact: roles, doc: docs/guide.md, table: Role, case: insensitive}")
    assert _run(root, monkeypatch, "check") == 0
    (root / "roles.go").write_text(ROLES[1].replace('"REPLICA"', '"STANDBY"'))
    assert _run(root, monkeypatch, "check") == 1
    out = capsys.readouterr().out
    assert "`STANDBY` is declared in code but missing" in out
    assert "docs/guide.md:6: roles: `replica` is stated" in out


def test_without_the_option_a_case_only_difference_shows_both_spellings(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, ROLES, ROLES_DOC, "  roles: {file: roles.go, constants: {type: Role}}",
                    "  - {id: roles, fact: roles, doc: docs/guide.md, table: Role}")
    assert _run(root, monkeypatch, "check") == 1
    out = capsys.readouterr().out
    assert "`PRIMARY` is declared in code but missing" in out and "the document has `primary`" in out
    assert "docs/guide.md:5: roles: `primary` is stated" in out and "the code has `PRIMARY`" in out
    assert "case: insensitive" in out


def test_case_is_checked_against_its_choices(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, ROLES, ROLES_DOC, "  roles: {file: roles.go, constants: {type: Role}}",
                    "  - {id: roles, fact: roles, doc: docs/guide.md, table: Role, case: ignore}")
    assert _run(root, monkeypatch, "check") == 2
    err = capsys.readouterr()
    assert "rules[0].case: expected one of sensitive, insensitive" in err.out + err.err


# -- code_spans capture groups ---------------------------------------------------

FLAGS_PY = ("cli.py", 'SHORT = "short"\nDRY_RUN = "dry-run"\n')
FLAGS_DOC = "# G\n\n## Options\n\n- `--short (-s)`: print the version only\n- `--dry-run`: change nothing\n"


def test_code_spans_take_group_one_when_the_regex_has_a_group(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path, FLAGS_PY, FLAGS_DOC, "  flags: {file: cli.py, constants: {name: '^[A-Z_]+$'}}",
                    "  - {id: flags, fact: flags, doc: docs/guide.md, section: Options, code_spans: '^--([a-z][\\w-]*)'}")
    assert _run(root, monkeypatch, "check") == 0, capsys.readouterr().out
    (root / "docs/guide.md").write_text(FLAGS_DOC.replace("--dry-run", "--dryrun"))
    assert _run(root, monkeypatch, "check") == 1
    out = capsys.readouterr().out
    assert "docs/guide.md:6: flags: `dryrun` is stated" in out


def test_fix_rewrites_only_the_group_inside_the_span(tmp_path):
    from driftguard.config.specs import SectionClaim
    from driftguard.documents.claims import read_claim
    from driftguard.documents.reader import parse_document

    doc = parse_document("g.md", FLAGS_DOC)
    claim = read_claim(doc, SectionClaim(section="Options", code_spans=r"^--([a-z][\w-]*)"))
    assert [i.value.data for i in claim.items] == ["short", "dry-run"]
    assert [FLAGS_DOC[slice(*i.span)] for i in claim.items if i.span] == ["short", "dry-run"]
    whole = read_claim(doc, SectionClaim(section="Options", code_spans=r"^--"))
    assert [i.value.data for i in whole.items] == ["--short (-s)", "--dry-run"]
