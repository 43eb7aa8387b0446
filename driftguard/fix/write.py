"""Apply a ``FixPlan``: verify each document, then write it atomically (or show a diff).

A document is written only when its candidate text passes ``fix_verify``, the
file on disk is still the one the plan read, its real path (symlinks followed)
lies inside the root, and it is a regular file of this user with no other hard
link. The write goes to a temporary file in the same folder, fsynced, keeps the
BOM, line endings, trailing newline, mode and group; the document is then read
and compared once more and at once replaced with ``os.replace``. On any failure
the original stays and no temporary file is left.
"""

from __future__ import annotations

import difflib
import errno
import os
import re
import stat
import tempfile
import time
from dataclasses import dataclass
from glob import escape as glob_escape
from pathlib import Path

from driftguard.fix.changes import Change, Unfixed
from driftguard.fix.plan import DocPlan, FixPlan
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
    except PartlyWritten as exc:
        return DocOutcome(doc.path, "failed", doc.changes, exc.message, diff)
    except DriftguardError as exc:
        return DocOutcome(doc.path, "failed", doc.changes, f"nothing written: {exc.message}", diff)
    return DocOutcome(doc.path, "written", doc.changes, diff=diff)


class PartlyWritten(ReadError):
    """The fix was written, but the document changed in the instant of the rename in a way that
    could not be carried over; the text it replaced was saved beside it."""


CHANGED = "the document changed since driftguard read it; run fix again"
_OPEN_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_HOLD_OLD = os.name != "nt"  # Windows cannot rename over a file that is still open
_LATE_ROUNDS = 20
_SETTLE_SECONDS = 0.002
"""After the rename the old file is read again at once and once more this long after, for an
append that opened it just before the rename and writes just after."""


def write_document(ws: Workspace, relpath: str, expected: str, new: str) -> None:
    """Replace the document at ``relpath`` (whose text must still be ``expected``) with ``new``.

    The new text goes to a temporary file beside it, fsynced; only then is the document read
    once more and compared, and on a match renamed over at once. Text appended to the old file
    in the instant between that compare and the rename is appended to the new one."""
    where = Location(relpath)
    real = ws.resolve(relpath)  # ReadError when a symlink or '..' leaves the root
    fd, info, data = _open_target(real, where)
    os.close(fd)
    bom, rest = split_bom(data.decode("utf-8", errors="replace"))
    if rest != expected:
        raise ReadError(CHANGED, where)
    _remove_stale_temps(real)
    try:
        tmp, new_id = _temp_beside(real, (bom + new).encode("utf-8"), stat.S_IMODE(info.st_mode), info.st_gid)
    except OSError as exc:
        raise ReadError(f"cannot write the document: {exc.strerror or exc}", where) from None
    old = -1
    try:
        old, final, seen = _open_target(real, where)
        if seen != data or _owner_and_mode(final) != _owner_and_mode(info):
            raise ReadError(CHANGED, where)
        if not _HOLD_OLD:
            os.close(old)
            old = -1
        os.replace(tmp, real)
    except BaseException as exc:
        _unlink_quietly(tmp)
        if old >= 0:
            os.close(old)
        if isinstance(exc, OSError):
            raise ReadError(f"cannot write the document: {exc.strerror or exc}", where) from None
        raise
    if old >= 0:
        try:
            _keep_late_changes(old, seen, real, new_id, where)
        finally:
            os.close(old)


def _open_target(path: Path, where: Location) -> tuple[int, os.stat_result, bytes]:
    """An open descriptor on the document, its status and its bytes, once it is known safe to replace."""
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    except OSError as exc:
        raise ReadError(f"cannot read the document again: {exc.strerror or exc}", where) from None
    try:
        info = os.fstat(fd)
        _refuse_unsafe(info, where)
        return fd, info, _read_all(fd)
    except BaseException as exc:
        os.close(fd)
        if isinstance(exc, OSError):
            raise ReadError(f"cannot read the document again: {exc.strerror or exc}", where) from None
        raise


def _refuse_unsafe(info: os.stat_result, where: Location) -> None:
    """ReadError unless replacing the file by a new one changes nothing but its text."""
    if not stat.S_ISREG(info.st_mode):
        raise ReadError("not a regular file; refused", where)
    if info.st_nlink > 1:
        raise ReadError(f"the document has {info.st_nlink} hard links and replacing it would cut it off from "
                        "the other names, which would keep the old text; refused", where)
    getuid = getattr(os, "getuid", None)
    if getuid is not None and info.st_uid != getuid():
        raise ReadError(f"the document belongs to another user (uid {info.st_uid}) and the rewritten file "
                        f"would belong to this one (uid {getuid()}); refused", where)


def _owner_and_mode(info: os.stat_result) -> tuple[int, int, int]:
    return info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _keep_late_changes(old: int, seen: bytes, real: Path, new_id: tuple[int, int], where: Location) -> None:
    """Carry over what reached the replaced file (``old``) after it was read as ``seen``: an appended
    tail is appended to the new file (the old file is read until it stays the same for
    ``_SETTLE_SECONDS``); anything else, or a tail that cannot be appended, is saved
    beside the document and raised as ``PartlyWritten``."""
    settled = False
    for _ in range(_LATE_ROUNDS):
        try:
            now = _read_all(old)
        except OSError:
            return
        if now == seen:
            if settled:
                return
            time.sleep(_SETTLE_SECONDS)
            settled = True
            continue
        if not now.startswith(seen) or not _append_tail(real, now[len(seen):], new_id):
            break
        seen = now
        settled = False
    try:
        saved = _save_beside(real, _read_all(old))
    except OSError as exc:
        raise PartlyWritten(f"the fix was written, but the document changed during the rename and its "
                            f"old text could not be saved: {exc.strerror or exc}", where) from None
    raise PartlyWritten(f"the fix was written, but the document changed during the rename; the text it "
                        f"replaced is saved in {saved.name}: merge your edit from there", where)


def _append_tail(path: Path, tail: bytes, new_id: tuple[int, int]) -> bool:
    """Append ``tail`` to ``path`` if it is still the file driftguard renamed there."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | _OPEN_FLAGS)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != new_id:
            return False
        view = memoryview(tail)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _save_beside(path: Path, data: bytes) -> Path:
    """``data`` in a new ``NAME.*.driftguard-saved`` file beside ``path``, kept only when whole."""
    fd, name = tempfile.mkstemp(prefix=f"{path.name}.", suffix=SAVED_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        _unlink_quietly(name)
        raise
    return Path(name)


TEMP_SUFFIX = ".driftguard-tmp"
SAVED_SUFFIX = ".driftguard-saved"
STALE_TEMP_SECONDS = 600
"""A temporary file of ours this old was left by a run that was killed: the next write removes it."""


def _remove_stale_temps(path: Path) -> None:
    """Remove ``.NAME.*.driftguard-tmp`` files beside ``path`` left by a killed run
    (a younger one may belong to a run still writing, and is left alone)."""
    cutoff = time.time() - STALE_TEMP_SECONDS
    for temp in path.parent.glob(f".{glob_escape(path.name)}.*{TEMP_SUFFIX}"):
        try:
            info = temp.lstat()
            if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                temp.unlink()
        except OSError:
            pass


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _temp_beside(path: Path, data: bytes, mode: int, gid: int | None = None) -> tuple[str, tuple[int, int]]:
    """A temporary file beside ``path`` holding ``data`` with ``mode`` (and group ``gid``), fsynced;
    its name and (device, inode). Nothing is left behind on failure."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            info = os.fstat(out.fileno())
            if gid is not None and gid != info.st_gid and hasattr(os, "chown"):
                try:
                    os.chown(tmp, -1, gid)
                except PermissionError:
                    raise PermissionError(errno.EPERM, f"its group (gid {gid}) could not be kept; refused") from None
            os.chmod(tmp, mode)
            os.fsync(out.fileno())
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return tmp, (info.st_dev, info.st_ino)


def atomic_write(path: Path, data: bytes, mode: int) -> None:
    """Write ``path`` whole or not at all: a temporary file beside it, fsynced, then a rename."""
    _remove_stale_temps(path)
    tmp, _ = _temp_beside(path, data, mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
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
    for doc in outcome.docs:
        for change in doc.changes:
            lines.append(f"{change.path}:{change.line}: {change.rule}: {change.describe(doc.status, doc.reason)}")
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
