"""GitHub Actions workflow commands: one ``::error`` annotation per finding.

Each finding becomes ``::error file=DOC,line=N,title=driftguard RULE::message``,
with the source location at the end of the message. Findings that have no
document location are placed on their source location; those with neither get
no ``file`` property, and GitHub shows them on the run. Errors of the tool
itself (read, parse, config and pattern errors) are annotations too.

Escaping follows the Actions toolkit (``@actions/core``): the message escapes
``%``, CR and LF; property values additionally escape ``:`` and ``,``.

The last line is the one-line summary as plain log text, not a workflow
command: it shows in the job log without adding an annotation to every clean
pull request, and it matches what ``check`` prints in the text format.
"""

from __future__ import annotations

import os
from pathlib import Path

from driftguard.judging.result import Result
from driftguard.model import Finding, Location
from driftguard.reporters.records import summary_line, warning_record

_DATA = (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"))
_PROPERTY = _DATA + ((":", "%3A"), (",", "%2C"))


def escape_data(text: str) -> str:
    """The message part of a workflow command, escaped as the toolkit does."""
    for raw, escaped in _DATA:
        text = text.replace(raw, escaped)
    return text


def escape_property(text: str) -> str:
    """A property value (``file``, ``title``...), escaped as the toolkit does."""
    for raw, escaped in _PROPERTY:
        text = text.replace(raw, escaped)
    return text


def command(name: str, message: str, **properties: object) -> str:
    """``::name k=v,k=v::message``; properties that are ``None`` are left out."""
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def annotation(f: Finding, why: str = "") -> str:
    where = f.doc or f.source
    message = f.message
    if f.source is not None and f.source is not where:
        message += f" (declared: {f.source}, {f.declared})" if f.declared else f" (source: {f.source})"
    if why:
        message += f"\nwhy: {why}"
    return command(
        "error",
        message,
        file=where.path if where else None,
        line=where.line if where else None,
        title=f"driftguard {f.rule}",
    )


def render(result: Result) -> str:
    lines = [annotation(f, rr.rule.why) for rr in result.rules for f in rr.findings]
    lines += [command("warning", w["message"], file=w["path"], line=w["line"], title="driftguard")
              for w in map(warning_record, result.warnings)]
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def render_error(exc: Exception) -> str:
    """A run-stopping error (the config failed to load) as one annotation."""
    loc: Location | None = getattr(exc, "location", None)
    kind = getattr(exc, "kind", "error")
    message = getattr(exc, "message", None) or str(exc)
    return command(
        "error",
        message,
        file=workspace_path(loc.path) if loc else None,
        line=loc.line if loc else None,
        title=f"driftguard {kind}",
    ) + "\n"


def workspace_path(path: str) -> str:
    """``path`` relative to the working folder when it lies inside it (annotations need
    repository-relative paths); otherwise unchanged."""
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    try:
        return p.resolve().relative_to(Path(os.getcwd()).resolve()).as_posix()
    except (ValueError, OSError):
        return path
