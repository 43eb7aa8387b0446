"""``driftguard fix`` racing an editor that appends to the same document: no appended line is lost.

An appender in a second process opens the document in append mode, writes one line and closes it,
the way an editor or a script adds to a file, while ``driftguard fix`` runs on it through the CLI.
Each run either applies the fix or reports, exit 2, that the document changed while fixing; in both
cases every appended line is still in the file, once. Around that: the refusals (hard links, another
owner), the kept mode and the deterministic cases of an edit landing in the rename's own instant.
"""

from __future__ import annotations

import io
import os
import random
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from driftguard.cli import main
from driftguard.fix import write
from driftguard.judging.workspace import Workspace
from driftguard.model import ReadError
from tests.helpers import write_tree

SOURCE = "from datetime import timedelta\n\nTTL = timedelta(minutes=15)\n"
CONFIG = """\
version: 1
facts:
  ttl: {file: src/conf.py, constant: TTL}
rules:
  - {id: ttl, fact: ttl, doc: docs/m.md, phrase: 'expire after {value}'}
"""
DOC = "# Cache\n\nEntries expire after ten minutes.\n\n## Notes\n\n"
FIXED = DOC.replace("ten minutes", "fifteen minutes")
CHANGED = "the document changed since driftguard read it"

APPENDER = """\
import random, sys, time
for command in sys.stdin:
    path, tag, delay, burst, gap = command.split()
    time.sleep(float(delay))
    for j in range(int(burst)):
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"- note {tag}-{j}\\n")
        time.sleep(random.uniform(0, float(gap)))
    print(burst, flush=True)
"""


@dataclass
class Appender:
    """A second process that appends ``burst`` lines to ``path`` on each command."""

    proc: subprocess.Popen[str]

    def send(self, path: Path, tag: str, delay: float, burst: int, gap: float) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{path} {tag} {delay:.6f} {burst} {gap:.6f}\n")
        self.proc.stdin.flush()

    def done(self) -> int:
        assert self.proc.stdout is not None
        return int(self.proc.stdout.readline())


@dataclass
class Tally:
    applied: int = 0
    changed: int = 0
    tails: int = 0
    losses: int = 0
    seen: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def appender() -> Iterator[Appender]:
    proc = subprocess.Popen([sys.executable, "-c", APPENDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    try:
        yield Appender(proc)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=10)


def make(base: Path, doc: str = DOC) -> Path:
    return write_tree(base, {"src/conf.py": SOURCE, "driftguard.yaml": CONFIG, "docs/m.md": doc.encode()})


def run_fix(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = main(["fix", "--config", str(root / "driftguard.yaml")])
    out, err = capsys.readouterr()
    return rc, out + err


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "docs").iterdir() if p.name != "m.md")


def count_tails(monkeypatch: pytest.MonkeyPatch, tally: Tally) -> None:
    real = write._append_tail

    def counted(path: Path, tail: bytes, new_id: tuple[int, int]) -> bool:
        tally.tails += 1
        return real(path, tail, new_id)

    monkeypatch.setattr(write, "_append_tail", counted)


def judge(root: Path, rc: int, out: str, lines: list[str], tally: Tally) -> None:
    """Every appended line kept exactly once; the fix applied or refused cleanly."""
    text = (root / "docs/m.md").read_text(encoding="utf-8")
    assert "Traceback" not in out and "internal error" not in out, out
    assert leftovers(root) == [], out
    kept = text.splitlines(keepends=True)[DOC.count("\n"):]
    tally.losses += sum(1 for line in lines if kept.count(line) != 1)
    assert sorted(kept) == sorted(lines), (out, text)
    if rc == 0:
        tally.applied += 1
        assert text.startswith(FIXED), (out, text)
    else:
        tally.changed += 1
        assert rc == 2 and f"docs/m.md: error: nothing written: {CHANGED}" in out, out
        assert text.startswith(DOC), (out, text)


# -- the race ---------------------------------------------------------------------------


ITERATIONS = 120


def test_fix_racing_an_appending_editor_loses_nothing(tmp_path: Path, appender: Appender,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Appends start at a random moment of the fix (before its read, during it, around the write)."""
    rng = random.Random(20240611)
    tally = Tally()
    count_tails(monkeypatch, tally)
    root = make(tmp_path / "repo")
    for i in range(ITERATIONS):
        (root / "docs/m.md").write_text(DOC, encoding="utf-8")
        burst = rng.randint(1, 4)
        appender.send(root / "docs/m.md", str(i), rng.uniform(0, 0.04), burst, rng.uniform(0, 0.003))
        rc, out = run_fix(root, capsys)
        assert appender.done() == burst
        judge(root, rc, out, [f"- note {i}-{j}\n" for j in range(burst)], tally)
    with capsys.disabled():
        print(f"\nfix racing an append, {ITERATIONS} runs: {tally.applied} applied, {tally.changed} "
              f"'changed' errors, {tally.tails} late tails carried over, {tally.losses} lines lost")
    assert tally.losses == 0  # which outcomes a real race reaches depends on the machine's load: see below


def test_an_append_fired_at_the_rename_itself_loses_nothing(tmp_path: Path, appender: Appender,
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The append is started as the rename is called, so it lands on either side of it."""
    rng = random.Random(7)
    tally = Tally()
    count_tails(monkeypatch, tally)
    root = make(tmp_path / "repo")
    doc = root / "docs/m.md"
    real_replace = os.replace
    pending: list[tuple[str, int]] = []

    def racing_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if Path(dst) == doc.resolve() and pending:
            tag, burst = pending.pop()
            appender.send(doc, tag, 0, burst, 0.0002)
            for _ in range(rng.randrange(4000)):  # a varying head start for the appender, counted, not timed
                pass
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", racing_replace)
    for i in range(ITERATIONS):
        doc.write_text(DOC, encoding="utf-8")
        burst = rng.randint(1, 3)
        pending.append((str(i), burst))
        rc, out = run_fix(root, capsys)
        assert not pending
        assert appender.done() == burst
        judge(root, rc, out, [f"- note {i}-{j}\n" for j in range(burst)], tally)
    with capsys.disabled():
        print(f"\nappend fired at the rename, {ITERATIONS} runs: {tally.applied} applied, {tally.tails} late "
              f"tails carried over, {tally.losses} lines lost")
    assert tally.losses == 0 and tally.applied == ITERATIONS


# -- an append at every step of the fix, deterministically ------------------------------------------------

IO_CALLS = ("open", "read", "fstat", "stat", "lstat", "close", "fsync", "replace")
"""The calls to the operating system through which a fix reads, compares and replaces a document."""


def append_before_call(monkeypatch: pytest.MonkeyPatch, number: int | None, doc: Path, line: str) -> list[str]:
    """Count the ``IO_CALLS`` that touch the document's folder (by path, or by a descriptor opened
    there; the list returned grows by one name a call) and append ``line`` to ``doc`` just before
    call ``number`` (from 0; None: never)."""
    made: list[str] = []
    folder = doc.resolve().parent
    descriptors: set[int] = set()

    def touches(arg: object) -> bool:
        if isinstance(arg, int):
            return arg in descriptors
        return isinstance(arg, (str, Path)) and Path(os.path.abspath(arg)).parent == folder  # no call to the system

    def counted(name: str, real: Callable[..., object]) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            relevant = bool(args) and touches(args[0])
            if relevant:
                if len(made) == number:
                    append_line(doc, line)
                made.append(name)
            result = real(*args, **kwargs)
            if relevant and name == "open" and isinstance(result, int):
                descriptors.add(result)
            if name == "close" and args and args[0] in descriptors:
                descriptors.discard(args[0])
            return result
        return call

    for name in IO_CALLS:
        monkeypatch.setattr(os, name, counted(name, getattr(os, name)))
    return made


def test_an_append_before_any_step_of_the_fix_loses_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The race above, without the race: the append lands before the first call to the system the
    fix makes, then before the second, and so on to the last; each run applies the fix or says
    the document changed, keeps the line once, and both outcomes and a carried-over tail occur."""
    monkeypatch.setenv("DRIFTGUARD_NO_CACHE", "1")  # the same calls each run: no cache entries written, then read
    root = make(tmp_path / "repo")
    doc = root / "docs/m.md"
    assert run_fix(make(tmp_path / "warm-up"), capsys)[0] == 0  # imports done: the same calls from here on
    with monkeypatch.context() as patch:
        made = append_before_call(patch, None, doc, "")
        assert run_fix(root, capsys)[0] == 0
    steps = len(made)
    assert steps > 10, made  # the engine's read, the fix's read, its temporary file, compare, rename, tail
    tally = Tally()
    count_tails(monkeypatch, tally)
    for number in range(steps):
        doc.write_text(DOC, encoding="utf-8")
        line = f"- note {number}\n"
        with monkeypatch.context() as patch:
            made = append_before_call(patch, number, doc, line)
            rc, out = run_fix(root, capsys)
        assert len(made) > number, (number, made)  # the append did happen, inside the run
        judge(root, rc, out, [line], tally)
    with capsys.disabled():
        print(f"\nan append before each of the fix's {steps} calls: {tally.applied} applied, {tally.changed} "
              f"'changed' errors, {tally.tails} late tails carried over, {tally.losses} lines lost")
    assert tally.losses == 0
    assert tally.applied and tally.changed and tally.tails, tally


# -- the instant of the rename, deterministically ----------------------------------------------------------


def around_replace(monkeypatch: pytest.MonkeyPatch, before: Callable[[Path], object] = lambda p: None,
                   after: Callable[[Path, object], None] = lambda p, s: None) -> None:
    """Run ``before(target)`` just before the rename and ``after(target, its result)`` just after."""
    real_replace = os.replace

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        state = before(Path(dst))
        real_replace(src, dst)
        after(Path(dst), state)

    monkeypatch.setattr(os, "replace", replace)


def append_line(path: Path, line: str = "- a late note\n") -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(line)


def test_an_append_between_the_compare_and_the_rename_is_carried_over(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = make(tmp_path / "repo")
    around_replace(monkeypatch, before=append_line)
    rc, out = run_fix(root, capsys)
    assert rc == 0, out
    assert (root / "docs/m.md").read_text(encoding="utf-8") == FIXED + "- a late note\n"
    assert leftovers(root) == []


def test_a_file_opened_before_the_rename_and_written_after_it_is_carried_over(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = make(tmp_path / "repo")

    def finish(path: Path, handle: object) -> None:
        assert isinstance(handle, io.TextIOBase)
        handle.write("- written after the rename\n")
        handle.close()

    around_replace(monkeypatch, before=lambda p: open(p, "a", encoding="utf-8"), after=finish)
    rc, out = run_fix(root, capsys)
    assert rc == 0, out
    assert (root / "docs/m.md").read_text(encoding="utf-8") == FIXED + "- written after the rename\n"


def test_an_in_place_rewrite_in_that_instant_is_saved_beside_the_document(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = make(tmp_path / "repo")
    edited = DOC.replace("# Cache", "# CACHE")

    def rewrite(path: Path) -> None:
        with open(path, "r+", encoding="utf-8") as f:
            f.write(edited)

    around_replace(monkeypatch, before=rewrite)
    rc, out = run_fix(root, capsys)
    assert rc == 2, out
    assert "the fix was written, but the document changed during the rename" in out
    assert "Traceback" not in out
    (saved,) = leftovers(root)
    assert saved.startswith("m.md.") and saved.endswith(write.SAVED_SUFFIX) and saved in out
    assert (root / "docs" / saved).read_text(encoding="utf-8") == edited
    assert (root / "docs/m.md").read_text(encoding="utf-8") == FIXED


def test_a_change_during_the_fsync_is_caught_by_the_final_compare(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = make(tmp_path / "repo")
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        real_fsync(fd)
        append_line(root / "docs/m.md", "- added while the temporary file was synced\n")

    monkeypatch.setattr(os, "fsync", fsync)
    rc, out = run_fix(root, capsys)
    assert rc == 2 and f"docs/m.md: error: nothing written: {CHANGED}; run fix again" in out, out
    assert (root / "docs/m.md").read_text(encoding="utf-8") == DOC + "- added while the temporary file was synced\n"
    assert leftovers(root) == []


# -- refusals and the kept mode ---------------------------------------------------------------------------


def test_a_hard_linked_document_is_refused_and_nothing_written(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    root = make(tmp_path / "repo")
    os.link(root / "docs/m.md", root / "other.md")
    rc, out = run_fix(root, capsys)
    assert rc == 2, out
    assert "docs/m.md: error: nothing written: the document has 2 hard links" in out
    assert (root / "docs/m.md").read_text(encoding="utf-8") == DOC
    assert (root / "other.md").read_text(encoding="utf-8") == DOC
    assert os.stat(root / "docs/m.md").st_ino == os.stat(root / "other.md").st_ino
    assert leftovers(root) == []


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="no user ids here")
def test_a_document_of_another_user_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = make(tmp_path / "repo")
    owner = os.stat(root / "docs/m.md").st_uid
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)
    rc, out = run_fix(root, capsys)
    assert rc == 2, out
    assert f"docs/m.md: error: nothing written: the document belongs to another user (uid {owner})" in out
    assert (root / "docs/m.md").read_text(encoding="utf-8") == DOC
    assert leftovers(root) == []


def test_mode_0640_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make(tmp_path / "repo")
    os.chmod(root / "docs/m.md", 0o640)
    rc, out = run_fix(root, capsys)
    assert rc == 0, out
    assert stat.S_IMODE(os.stat(root / "docs/m.md").st_mode) == 0o640
    assert (root / "docs/m.md").read_text(encoding="utf-8") == FIXED


# -- properties of write_document -------------------------------------------------------------------------

texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=texts, new=texts, tail=st.binary(min_size=1, max_size=100),
       mode=st.sampled_from([0o600, 0o640, 0o644, 0o664, 0o700, 0o604]))
def test_a_tail_appended_before_the_rename_ends_the_new_text(old: str, new: str, tail: bytes, mode: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "d.md"
        path.write_bytes(old.encode("utf-8"))
        os.chmod(path, mode)
        real_replace = os.replace

        def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
            with open(dst, "ab") as f:
                f.write(tail)
            real_replace(src, dst)

        with mock.patch.object(os, "replace", replace):
            write.write_document(Workspace(Path(folder), 1 << 20), "d.md", old, new)
        assert path.read_bytes() == new.encode("utf-8") + tail
        assert stat.S_IMODE(path.stat().st_mode) == mode
        assert sorted(os.listdir(folder)) == ["d.md"]


@settings(max_examples=40, deadline=None)
@given(old=texts, new=texts, edit=texts)
def test_a_document_that_differs_from_the_plan_is_never_written(old: str, new: str, edit: str) -> None:
    assume(edit)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "d.md"
        path.write_bytes((old + edit).encode("utf-8"))
        with pytest.raises(ReadError, match=CHANGED):
            write.write_document(Workspace(Path(folder), 1 << 20), "d.md", old, new)
        assert path.read_bytes() == (old + edit).encode("utf-8")
        assert sorted(os.listdir(folder)) == ["d.md"]
