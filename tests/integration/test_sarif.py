"""``check --format sarif``: valid against the official SARIF 2.1.0 schema, stable fingerprints."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from driftguard.cli import main
from driftguard.judging.result import Result, RuleResult
from driftguard.model import FINDING_KINDS, ConfigError, Finding, Location, Status
from driftguard.reporters import sarif
from tests.helpers import judge

Tree = Callable[[dict[str, str | bytes]], Path]

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "data" / "sarif-schema-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
# The schema declares draft-04; draft-07 accepts it too, so both must pass.
VALIDATORS = [jsonschema.validators.validator_for(SCHEMA), jsonschema.Draft7Validator]

SOURCE = '''
from datetime import timedelta
from enum import Enum


class State(str, Enum):
    IDLE = "IDLE"
    BUSY = "BUSY"


TTL = timedelta(minutes=10)
LIMIT = 1
'''

DOC = '''
# Machine

| State | What it means |
|---|---|
| `IDLE` | nothing to do |
| `BUSY` | working |

Entries expire after ten minutes.
'''

CONFIG = '''
version: 1
facts:
  states: {file: src/fsm.py, constants: {type: State}}
  ttl: {file: src/fsm.py, constant: TTL}
  limit: {file: src/fsm.py, constant: LIMIT}
  attempts: {file: src/fsm.py, constant: ATTEMPTS}
  broken: {file: src/broken.py, constant: X}
rules:
  - {id: states, fact: states, doc: docs/m.md, table: State}
  - {id: ttl, fact: ttl, doc: docs/m.md, phrase: 'expire after {value}'}
'''

DRIFT_RULES = '''
  - {id: retries, fact: ttl, doc: docs/m.md, phrase: 'retried {value} times'}
  - {id: attempts, fact: attempts, doc: docs/m.md, phrase: 'expire after {value}'}
  - {id: limit, fact: limit, doc: docs/m.md, phrase: 'expire after {value}'}
  - {id: unread, fact: states, doc: docs/gone.md, table: State}
  - {id: broken, fact: broken, doc: docs/m.md, phrase: 'expire after {value}'}
  - {id: references, doc: docs/refs.md, references: true}
  - {id: links, doc: docs/refs.md, links: true}
'''


def drift(source: str = SOURCE, doc: str = DOC) -> dict[str, str]:
    """A tree with every drift and error kind the engine produces from files."""
    return {
        "src/fsm.py": source.replace('    BUSY = "BUSY"\n', '    BUSY = "BUSY"\n    DONE = "DONE"\n')
        .replace("minutes=10", "minutes=15").replace("LIMIT = 1\n", "LIMIT = 1\nLIMIT = 2\n"),
        "src/broken.py": "class Broken(:\n",
        "docs/refs.md": "# Refs\n\nCall `vanished_helper()`; see [the guide](missing.md).\n",
        "docs/m.md": doc.replace("| `BUSY` | working |\n", "| `BUSY` | working |\n| `GONE` | retired |\n"),
        "driftguard.yaml": CONFIG + DRIFT_RULES.lstrip("\n"),
    }


def with_injected_errors(result: Result) -> Result:
    """Add the error kinds the config loader catches before the engine runs."""
    rule = result.rules[0].rule
    extra = (
        Finding(FINDING_KINDS["pattern-error"], rule.id, "pattern too slow", doc=Location(rule.doc)),
        Finding(FINDING_KINDS["config-error"], rule.id, "bad key"),
    )
    return Result(result.config, result.rules + (RuleResult(rule, Status.ERROR, extra, (), None),))


def validate(log: dict[str, Any]) -> None:
    for validator in VALIDATORS:
        errors = sorted(validator(SCHEMA).iter_errors(log), key=str)
        assert not errors, f"{validator.__name__}: {errors[0]}"


def test_shipped_schema_is_the_untouched_oasis_file() -> None:
    assert hashlib.sha256(SCHEMA_PATH.read_bytes()).hexdigest() == SCHEMA_SHA256
    assert SCHEMA["id"] == sarif.SCHEMA_URI
    for validator in VALIDATORS:
        validator.check_schema(SCHEMA)


def test_the_validation_is_not_vacuous(tree: Tree) -> None:
    log = json.loads(sarif.render(judge(tree(drift()))))
    broken = copy.deepcopy(log)
    del broken["runs"][0]["results"][0]["message"]
    with pytest.raises(AssertionError):
        validate(broken)
    broken = copy.deepcopy(log)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(AssertionError):
        validate(broken)


def test_clean_run_is_valid_and_has_no_results(tree: Tree) -> None:
    root = tree({"src/fsm.py": SOURCE, "docs/m.md": DOC, "driftguard.yaml": CONFIG})
    result = judge(root)
    assert result.ok
    log = json.loads(sarif.render(result))
    validate(log)
    assert log["$schema"] == sarif.SCHEMA_URI and log["version"] == "2.1.0"
    (only,) = log["runs"]
    assert only["results"] == []
    assert only["invocations"] == [{"executionSuccessful": True, "exitCode": 0}]
    driver = only["tool"]["driver"]
    from driftguard._version import __version__

    assert (driver["name"], driver["version"]) == ("driftguard", __version__)
    assert driver["informationUri"].startswith("https://")


def test_drifted_run_is_valid_and_covers_every_kind(tree: Tree) -> None:
    result = with_injected_errors(judge(tree(drift())))
    log = json.loads(sarif.render(result))
    validate(log)
    results = log["runs"][0]["results"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert {r["ruleId"] for r in results} == {k.code for k in FINDING_KINDS.values()}
    assert log["runs"][0]["invocations"][0] == {"executionSuccessful": False, "exitCode": 2}
    for entry, finding in zip(results, result.findings, strict=True):
        assert rules[entry["ruleIndex"]]["id"] == entry["ruleId"] == finding.code
        assert entry["level"] == "error"
        assert finding.message in entry["message"]["text"] and finding.rule in entry["message"]["text"]
        first = entry["locations"][0]["physicalLocation"]
        expected = finding.doc or finding.source or Location("driftguard.yaml")
        assert first["artifactLocation"] == {"uri": expected.path, "uriBaseId": "%SRCROOT%"}
        assert first["region"]["startLine"] == (expected.line or 1)
        if finding.source is not None and finding.source is not expected:
            (related,) = entry["relatedLocations"]
            assert related["id"] == 1 and related["message"]["text"]
            assert related["physicalLocation"]["artifactLocation"]["uri"] == finding.source.path
            assert related["physicalLocation"]["region"]["startLine"] == (finding.source.line or 1)
        else:
            assert "relatedLocations" not in entry


def test_document_and_source_lines_of_a_drift(tree: Tree) -> None:
    log = json.loads(sarif.render(judge(tree(drift()))))
    by_value = {r["properties"]["value"]: r for r in log["runs"][0]["results"] if r["ruleId"] == "DG101"}
    done = by_value["DONE"]  # a new enum member: the table's line, the member's line
    assert done["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert done["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 8
    assert done["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/fsm.py"


def fingerprints(log: dict[str, Any]) -> list[str]:
    return [r["partialFingerprints"][sarif.FINGERPRINT] for r in log["runs"][0]["results"]]


def lines(log: dict[str, Any]) -> list[int]:
    return [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in log["runs"][0]["results"]]


def test_fingerprints_are_stable_across_runs_and_line_shifts(tree: Tree, tmp_path: Path) -> None:
    first = json.loads(sarif.render(judge(tree(drift()))))
    again = json.loads(sarif.render(judge(tree(drift()))))
    assert fingerprints(first) == fingerprints(again)
    assert len(set(fingerprints(first))) == len(fingerprints(first))  # one alert per finding

    shifted_doc = "Intro paragraph.\n\nAnother one.\n" + DOC
    shifted_source = "# a comment\n# another\n" + SOURCE
    moved = json.loads(sarif.render(judge(tree(drift(source=shifted_source, doc=shifted_doc)))))
    assert lines(moved) != lines(first)  # the edit did move the findings...
    assert fingerprints(moved) == fingerprints(first)  # ...and the alerts stay the same


def test_fingerprint_changes_with_what_drifted(tree: Tree) -> None:
    files = drift()
    base = {r["properties"]["value"]: r for r in json.loads(sarif.render(judge(tree(files))))["runs"][0]["results"]}
    files["src/fsm.py"] = files["src/fsm.py"].replace('DONE = "DONE"', 'DRAINING = "DRAINING"')
    other = {r["properties"]["value"]: r for r in json.loads(sarif.render(judge(tree(files))))["runs"][0]["results"]}
    assert "DONE" in base and "DRAINING" in other
    key = sarif.FINGERPRINT
    assert base["DONE"]["partialFingerprints"][key] != other["DRAINING"]["partialFingerprints"][key]
    assert base["GONE"]["partialFingerprints"] == other["GONE"]["partialFingerprints"]


def test_rule_entries_cover_every_code_with_help() -> None:
    rules = sarif.driver()["rules"]
    assert [r["id"] for r in rules] == [k.code for k in FINDING_KINDS.values()]
    for entry, kind in zip(rules, FINDING_KINDS.values()):
        assert entry["name"] == kind.kind
        assert entry["shortDescription"]["text"] == kind.summary
        assert entry["fullDescription"]["text"] and entry["fullDescription"]["text"] != kind.summary
        assert entry["help"]["text"].endswith(".") and entry["help"]["text"] != "See docs/configuration.md."
        assert entry["defaultConfiguration"]["level"] in ("error", "warning")
        assert ("tool-error" in entry["properties"]["tags"]) is kind.is_error


def test_uris_are_references(tmp_path: Path) -> None:
    spaced = sarif.physical(Location("docs/my doc#1.md", 4, 2))
    assert spaced == {"artifactLocation": {"uri": "docs/my%20doc%231.md", "uriBaseId": "%SRCROOT%"},
                      "region": {"startLine": 4, "startColumn": 2}}
    outside = sarif.physical(Location("/srv/x y/a.md"))
    assert outside["artifactLocation"] == {"uri": "file:///srv/x%20y/a.md"}
    assert outside["region"] == {"startLine": 1}


def test_cli_writes_a_valid_file(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(drift())
    monkeypatch.chdir(root)
    out = root.parent / f"{root.name}.sarif"  # outside the tree: a tree without git counts every file it holds
    assert main(["check", "--format", "sarif", "--output", str(out)]) == 2
    log = json.loads(out.read_text(encoding="utf-8"))
    validate(log)
    assert len(log["runs"][0]["results"]) == len(judge(root).findings)


def test_config_error_is_a_valid_log_with_a_notification(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "driftguard.yaml").write_text("version: 1\nrules: 7\n", encoding="utf-8")
    assert main(["check", "--format", "sarif", "--output", "x.sarif"]) == 2
    log = json.loads((tmp_path / "x.sarif").read_text(encoding="utf-8"))
    validate(log)
    (only,) = log["runs"]
    assert only["results"] == []
    (invocation,) = only["invocations"]
    assert invocation["executionSuccessful"] is False and invocation["exitCode"] == 2
    (note,) = invocation["toolExecutionNotifications"]
    assert note["descriptor"]["id"] == "DG203"
    assert only["tool"]["driver"]["rules"][note["descriptor"]["index"]]["id"] == "DG203"
    where = note["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "driftguard.yaml" and where["region"]["startLine"] >= 1
    assert "rules" in note["message"]["text"]
    assert capsys.readouterr().out == ""  # the document went to --output


def test_render_error_without_location_is_valid() -> None:
    log = json.loads(sarif.render_error(ConfigError("no driftguard.yaml here")))
    validate(log)
    note = log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]
    assert "locations" not in note and note["message"]["text"] == "no driftguard.yaml here"
