"""SARIF 2.1.0 for GitHub code scanning.

One run; ``tool.driver.rules`` has one entry per finding code (``DG101``...),
in the order of ``FINDING_KINDS``. Each result's first location is the document
(a root-relative URI against ``%SRCROOT%``), the source is its related location,
and ``partialFingerprints["driftguard/v1"]`` hashes what identifies the drift
(code, rule, value, document path) but no line numbers, so an unrelated edit
that shifts lines keeps the alert. Every level is ``error``: drift fails
``check`` as much as a tool error does; tags tell the two apart.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from driftguard._version import __version__
from driftguard.judging.result import Result
from driftguard.model import FINDING_KINDS, Finding, FindingKind, Location

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/driftguard/driftguard"
FINGERPRINT = "driftguard/v1"

_GUIDE: dict[str, tuple[str, str]] = {
    # kind: (what it means, how to fix it)
    "missing-in-doc": (
        "The code declares a value that the document's claim does not state.",
        "Add the value to the document where the rule reads its claim, or narrow the fact's selector if the "
        "value is not meant to be documented.",
    ),
    "missing-in-code": (
        "The document states a value that the code does not declare.",
        "Remove or correct the value in the document, or declare it in the source the fact reads.",
    ),
    "value-mismatch": (
        "The document states a different value than the code has.",
        "Change the document to the code's value (the message gives it in the document's own wording), or "
        "change the code if the document is right.",
    ),
    "claim-not-found": (
        "The table, row, section or sentence the rule reads is no longer in the document.",
        "Restore the claim in the document, or point the rule at where the document now states it.",
    ),
    "fact-not-found": (
        "The source no longer has what the fact's selector reads.",
        "Update the fact's selector to the source's new shape; `driftguard facts NAME` shows what it extracts.",
    ),
    "ambiguous": (
        "A scalar selector matches more than one declaration.",
        "Make the selector specific enough to match exactly one declaration.",
    ),
    "unresolved-reference": (
        "The document names a function, type, constant or path that nothing in the code or the repository "
        "defines any more.",
        "Rename the reference to what the code now calls it (the message names the closest symbol and where "
        "it is), or remove it; list a span the project wants left alone under `ignore`.",
    ),
    "broken-link": (
        "A relative link points at a file, a heading anchor or a line range that does not exist.",
        "Point the link at the file or heading that now holds the text, or remove it.",
    ),
    "read-error": (
        "A file the rule needs could not be read.",
        "Check that the file exists inside the root, is UTF-8 text and is below the size limit.",
    ),
    "parse-error": (
        "A source file could not be parsed, so no fact can be read from it.",
        "Fix the syntax error at the reported line, or point the fact at a file that parses.",
    ),
    "config-error": (
        "The driftguard configuration is invalid.",
        "Fix the configuration at the reported line; docs/configuration.md describes every key.",
    ),
    "pattern-error": (
        "A regular expression in the configuration could not be used.",
        "Fix the regular expression, or simplify it so that it cannot backtrack without bound.",
    ),
}


def rule_descriptor(kind: FindingKind) -> dict[str, Any]:
    full, fix = _GUIDE.get(kind.kind, (kind.summary, "See docs/configuration.md."))
    return {
        "id": kind.code,
        "name": kind.kind,
        "shortDescription": {"text": kind.summary},
        "fullDescription": {"text": full},
        "help": {"text": fix, "markdown": fix},
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["documentation", "tool-error" if kind.is_error else "drift"]},
    }


def _codes() -> list[str]:
    return [kind.code for kind in FINDING_KINDS.values()]


def driver() -> dict[str, Any]:
    return {
        "name": "driftguard",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [rule_descriptor(kind) for kind in FINDING_KINDS.values()],
    }


def physical(loc: Location) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": loc.line or 1}
    if loc.column:
        region["startColumn"] = loc.column
    if PurePosixPath(loc.path).is_absolute():  # outside the root: an absolute file URI
        artifact = {"uri": PurePosixPath(loc.path).as_uri()}
    else:
        artifact = {"uri": quote(loc.path, safe="/"), "uriBaseId": "%SRCROOT%"}
    return {"artifactLocation": artifact, "region": region}


def fingerprint(f: Finding, doc_path: str) -> str:
    key = "\0".join((f.code, f.kind.kind, f.rule, f.value or "", doc_path))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def result_entry(f: Finding, fallback: Location, index: dict[str, int], seen: dict[str, int]) -> dict[str, Any]:
    primary = f.doc or f.source or fallback
    text = f"{f.rule}: {f.message}"
    if f.source is not None and f.source is not primary:
        text += f" (declared: {f.source}, {f.declared})" if f.declared else f" (source: {f.source})"
    print_ = fingerprint(f, primary.path)
    seen[print_] = seen.get(print_, 0) + 1
    if seen[print_] > 1:  # the same drift twice in a run still gets distinct alerts
        print_ = f"{print_}:{seen[print_]}"
    entry: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": "error",
        "message": {"text": text},
        "locations": [{"physicalLocation": physical(primary)}],
        "partialFingerprints": {FINGERPRINT: print_},
        "properties": {"rule": f.rule, "kind": f.kind.kind, "value": f.value},
    }
    if f.source is not None and f.source is not primary:
        what = "where the problem is" if f.is_error else "where the code declares it"
        if f.declared:
            what = f"where the code declares the set: {f.declared}"
        entry["relatedLocations"] = [{"id": 1, "physicalLocation": physical(f.source), "message": {"text": what}}]
    return entry


def _log(run: dict[str, Any]) -> str:
    return json.dumps({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


def render(result: Result) -> str:
    index = {code: i for i, code in enumerate(_codes())}
    fallback = Location(result.config.display_path)
    seen: dict[str, int] = {}
    results = [result_entry(f, fallback, index, seen) for f in result.findings]
    run = {
        "tool": {"driver": driver()},
        "invocations": [{"executionSuccessful": result.exit_code != 2, "exitCode": result.exit_code}],
        "results": results,
    }
    return _log(run)


def render_error(exc: Exception) -> str:
    """A run that stopped before judging anything: no results, one notification."""
    from driftguard.reporters.github import workspace_path

    kind = FINDING_KINDS.get(getattr(exc, "kind", ""), FINDING_KINDS["config-error"])
    loc: Location | None = getattr(exc, "location", None)
    note: dict[str, Any] = {
        "level": "error",
        "message": {"text": getattr(exc, "message", None) or str(exc)},
        "descriptor": {"id": kind.code, "index": _codes().index(kind.code)},
    }
    if loc is not None:
        note["locations"] = [{"physicalLocation": physical(Location(workspace_path(loc.path), loc.line, loc.column))}]
    run = {
        "tool": {"driver": driver()},
        "invocations": [{"executionSuccessful": False, "exitCode": 2, "toolExecutionNotifications": [note]}],
        "results": [],
    }
    return _log(run)
