"""Apply a ``FixPlan``: verify each document, then write it atomically (or show a diff).

A document is written only when its candidate text passes ``fix_verify``, the
file on disk is still the one the plan read, and its real path (symlinks
followed) lies inside the root. The write goes to a temporary file in the same
folder, keeps the BOM, line endings, trailing newline and file mode, and
replaces the original with ``os.replace``; on any failure the original stays.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from glob import escape as glob_escape
from pathlib import Path

from driftguard.fix.plan import Change, DocPlan, FixPlan, Unfixed
from driftguard.fix.verify import Unsafe, apply_changes, verify
from driftguard.judging.engine import Engine
from driftguard.judging.result import Result
from driftguard.judging.workspace import Workspace
from driftguard.model import DriftguardError, Finding, Location, ReadError
from driftguard.text import split_bom

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@dataclass(frozen=True)
class DocOutcome:
    path: str
    status: str  # "written" | "would-write" | "refused" | "failed"
    changes: tuple[Change, ...]
    reason: str = ""
    diff: str = ""


@dataclass(frozen=True)
class FixOutcome:
    plan: FixPlan
    dry_run: bool
    docs: tuple[DocOutcome, ...]
    after: Result  # the rules as judged once the documents were written (the plan's for a dry run)

    @property
    def remaining(self) -> tuple[Finding, ...]:
        return self.after.findings

    @property
    def unfixed(self) -> tuple[Unfixed, ...]:
        return self.plan.unfixed

    @property
    def exit_code(self) -> int:
        """0 nothing left to fix, 1 findings remain, 2 an error (a rule not judged, a write failed)."""
        if self.after.exit_code == 2 or any(d.status == "failed" for d in self.docs):
            return 2
        return 1 if self.remaining else 0


def apply_fixes(plan: FixPlan, dry_run: bool) -> FixOutcome:
    """Verify and write (or, with ``dry_run``, diff) every planned document."""
    ws = Workspace(plan.config.root, plan.config.max_file_size)
    docs = tuple(_apply(plan, doc, ws, dry_run) for doc in plan.docs)
    written = any(d.status == "written" for d in docs)
    after = Engine(plan.config).run(r.rule for r in plan.result.rules) if written else plan.result
    return FixOutcome(plan, dry_run, docs, after)


def _apply(plan: FixPlan, doc: DocPlan, ws: Workspace, dry_run: bool) -> DocOutcome:
    new, offsets = apply_changes(doc.text, doc.changes)
    try:
        verify(plan.config, doc, new, offsets)
    except Unsafe as exc:
        return DocOutcome(doc.path, "refused", doc.changes, f"nothing written: {exc}")
    diff = unified_diff(doc.path, doc.text, new)
    if dry_run:
        return DocOutcome(doc.path, "would-write", doc.changes, diff=diff)
    try:
        write_document(ws, doc.path, doc.text, new)
    except DriftguardError as exc:
        return DocOutcome(doc.path, "failed", doc.changes, f"nothing written: {exc.message}", diff)
    return DocOutcome(doc.path, "written", doc.changes, diff=diff)


def write_document(ws: Workspace, relpath: str, expected: str, new: str) -> None:
    """Replace the document at ``relpath`` (whose text must still be ``expected``) with ``new``."""
    where = Location(relpath)
    real = ws.resolve(relpath)  # ReadError when a symlink or '..' leaves the root
    try:
        info = real.stat()
        data = real.read_bytes()
    except OSError as exc:
        raise ReadError(f"cannot read the document again: {exc.strerror or exc}", where) from None
    if not stat.S_ISREG(info.st_mode):
        raise ReadError("not a regular file; refused", where)
    text = data.decode("utf-8", errors="replace")
    bom, rest = split_bom(text)
    if rest != expected:
        raise ReadError("the document changed since driftguard read it; run fix again", where)
    try:
        atomic_write(real, (bom + new).encode("utf-8"), stat.S_IMODE(info.st_mode))
    except OSError as exc:
        raise ReadError(f"cannot write the document: {exc.strerror or exc}", where) from None


TEMP_SUFFIX = ".driftguard-tmp"
STALE_TEMP_SECONDS = 600
"""A temporary file of ours this old was left by a run that was killed: the next write removes it."""


def _remove_stale_temps(path: Path) -> None:
    """Remove ``.NAME.*.driftguard-tmp`` files beside ``path`` left by a killed run
    (a younger one may belong to a run still writing, and is left alone)."""
    import time

    cutoff = time.time() - STALE_TEMP_SECONDS
    for temp in path.parent.glob(f".{glob_escape(path.name)}.*{TEMP_SUFFIX}"):
        try:
            info = temp.lstat()
            if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                temp.unlink()
        except OSError:
            pass


def atomic_write(path: Path, data: bytes, mode: int) -> None:
    """Write ``path`` whole or not at all: a temporary file beside it, fsynced, then a rename."""
    _remove_stale_temps(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff with ``a/`` and ``b/`` paths; a last line without a newline is marked."""
    lines = difflib.unified_diff(_lines(old), _lines(new), fromfile=f"a/{path}", tofile=f"b/{path}")
    out = []
    for line in lines:
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    """``text`` split after each line break (CRLF, LF or CR), as markdown counts lines."""
    return [m.group() for m in _LINE.finditer(text) if m.group()]


# -- text -----------------------------------------------------------------------


def render_fix(outcome: FixOutcome) -> str:
    """What ``driftguard fix`` prints: diffs (dry run), what changed, what was left, a summary."""
    lines: list[str] = []
    if outcome.dry_run:
        lines += [d.diff.rstrip("\n") for d in outcome.docs if d.diff and d.status == "would-write"]
    verbs = {"written": "fixed", "would-write": "would fix", "refused": "not fixed", "failed": "not fixed"}
    for doc in outcome.docs:
        for change in doc.changes:
            lines.append(f"{change.path}:{change.line}: {change.rule}: {verbs[doc.status]}: {change.what}")
        if doc.reason:
            lines.append(f"{doc.path}: {'error' if doc.status == 'failed' else 'refused'}: {doc.reason}")
    for left in outcome.unfixed:
        f = left.finding
        lines.append(f"{f.doc or f.rule}: {f.rule}: {left.reason}: {f.message}")
    lines.append(_summary(outcome))
    return "\n".join(line for line in lines if line) + "\n"


def _summary(outcome: FixOutcome) -> str:
    count = {s: sum(len(d.changes) for d in outcome.docs if d.status == s) for s in
             ("written", "would-write", "refused", "failed")}
    files = sum(1 for d in outcome.docs if d.status in ("written", "would-write"))
    left = len(outcome.remaining)
    name = "driftguard fix --dry-run" if outcome.dry_run else "driftguard fix"
    if outcome.dry_run:
        left -= sum(len(c.findings) for d in outcome.docs if d.status == "would-write" for c in d.changes)
        head = f"{name}: {_n(count['would-write'], 'fix')} in {_n(files, 'document')} (nothing written)"
    else:
        head = f"{name}: {_n(count['written'], 'fix')} written to {_n(files, 'document')}"
    if not outcome.docs:
        head = f"{name}: nothing to fix"
    if count["refused"] or count["failed"]:
        head += f", {_n(count['refused'] + count['failed'], 'fix')} not applied"
    if not left:
        return head + f"; nothing {'would remain' if outcome.dry_run else 'remains'}"
    verb = "would remain" if outcome.dry_run else ("remains" if left == 1 else "remain")
    errors = sum(1 for f in outcome.remaining if f.is_error)
    return head + f"; {_n(left, 'finding')} {verb}" + (f" ({_n(errors, 'error')})" if errors else "")


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else ('es' if word.endswith('x') else 's')}"
