"""The stable JSON format (documented in docs/configuration.md)."""

from __future__ import annotations

import json

from driftguard.judging.result import Result
from driftguard.reporters.records import result_record


def render(result: Result) -> str:
    return json.dumps(result_record(result), indent=2, sort_keys=False) + "\n"


def render_report(result: Result) -> str:
    return json.dumps(result_record(result, with_facts=True), indent=2, sort_keys=False) + "\n"
