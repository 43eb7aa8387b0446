"""Progress on standard error: one line rewritten in place on a terminal, nothing elsewhere."""

from __future__ import annotations

import functools
import io
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.progress import DEFAULT_WIDTH, Progress

Tree = Callable[[dict[str, str | bytes]], Path]


class Stream(io.StringIO):
    """A text stream that says whether it is a terminal."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_on_a_terminal_each_message_overwrites_the_last_and_the_end_wipes_it() -> None:
    stream = Stream(tty=True)
    with Progress(stream) as progress:
        progress("scanning a.md")
        progress("b.md")
        progress("scanning c.md")
    assert stream.getvalue() == (
        "\rscanning a.md"
        "\rb.md         "  # blanks over what was left of the longer line
        "\rscanning c.md"
        "\r             \r"
    )


def test_off_a_terminal_nothing_is_written() -> None:
    stream = Stream(tty=False)
    with Progress(stream) as progress:
        assert not progress.live
        progress("scanning a.md")
    assert stream.getvalue() == ""


def test_a_stream_without_isatty_counts_as_no_terminal() -> None:
    class Bare:
        def write(self, text: str) -> int:
            raise AssertionError("progress wrote to a stream that is no terminal")

    progress = Progress(Bare())  # type: ignore[arg-type]
    progress("x")
    progress.clear()
    assert not progress.live


def test_the_default_stream_is_standard_error_at_creation(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = Stream(tty=True)
    monkeypatch.setattr(sys, "stderr", fake)
    Progress()("rules proven: 1/2")
    assert fake.getvalue() == "\rrules proven: 1/2"


def test_a_long_message_is_cut_to_the_width_so_it_never_wraps() -> None:
    stream = Stream(tty=True)
    Progress(stream)("x" * 200)
    assert stream.getvalue() == "\r" + "x" * (DEFAULT_WIDTH - 1)


def test_control_characters_and_line_breaks_in_a_message_cannot_move_the_cursor() -> None:
    stream = Stream(tty=True)
    Progress(stream)("docs/\x1b[2Ja.md\nnext")
    assert stream.getvalue() == "\rdocs/\\x1b[2Ja.md next"


def test_clearing_when_nothing_was_shown_writes_nothing() -> None:
    stream = Stream(tty=True)
    Progress(stream).clear()
    assert stream.getvalue() == ""


def test_the_line_is_wiped_when_the_run_raises() -> None:
    stream = Stream(tty=True)
    with pytest.raises(RuntimeError), Progress(stream) as progress:
        progress("abc")
        raise RuntimeError
    assert stream.getvalue() == "\rabc\r   \r"


# -- the commands --------------------------------------------------------------

SOURCE = 'package fsm\n\ntype State string\n\nconst (\n\tStateIdle State = "IDLE"\n\tStateBusy State = "BUSY"\n)\n'
DOC = "# Machine\n\n| State | Meaning |\n|---|---|\n| `IDLE` | idle |\n| `BUSY` | busy |\n"
OTHER = "# Other\n\n| State | Meaning |\n|---|---|\n| `IDLE` | idle |\n"
CONFIG = ("version: 1\nfacts:\n  states: {file: fsm.go, constants: {type: State}}\nrules:\n"
          "  - {id: states, fact: states, doc: m.md, table: State}\n"
          "  - {id: other, fact: states, doc: other.md, table: State, direction: doc-to-code}\n")


@pytest.fixture
def repo(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tree({"fsm.go": SOURCE, "m.md": DOC, "other.md": OTHER, "driftguard.yaml": CONFIG})
    monkeypatch.chdir(root)
    return root


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tty: bool,
        *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    fake = Stream(tty)
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stderr", fake)
        code = main(list(argv))
    return code, capsys.readouterr().out, fake.getvalue()


def shown(stderr: str) -> list[str]:
    """The messages of a progress stream, in order, without their padding."""
    return [part.rstrip() for part in stderr.split("\r") if part.strip()]


@pytest.mark.parametrize("command", ["coverage", "selftest"])
def test_off_a_terminal_a_command_writes_nothing_extra(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, err = run(monkeypatch, capsys, False, command)
    assert code == 0 and out and err == ""


def test_coverage_on_a_terminal_shows_the_rules_judged_and_the_files_scanned(
        repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    quiet = run(monkeypatch, capsys, False, "coverage")
    code, out, err = run(monkeypatch, capsys, True, "coverage")
    assert (code, out) == quiet[:2]
    messages = [
        "coverage: judging rule 1/2: states",
        "coverage: judging rule 2/2: other",
        "coverage: scanning document 1/2: m.md",
        "coverage: scanning document 2/2: other.md",
    ]
    assert shown(err) == messages
    assert err.endswith("\r" + " " * max(map(len, messages)) + "\r")  # the widest line is wiped


def test_selftest_on_a_terminal_shows_each_rule_as_it_is_proven(
        repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    quiet = run(monkeypatch, capsys, False, "selftest")
    code, out, err = run(monkeypatch, capsys, True, "selftest")
    assert (code, out) == quiet[:2]
    assert shown(err)[-2:] == ["selftest: proving rule 1/2: states", "selftest: proving rule 2/2: other"]
    assert err.endswith("\r")
    assert err.split("\r")[-2].strip() == ""  # the last write wipes the line


def test_discover_shows_the_files_scanned_on_a_terminal_only(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, quiet = run(monkeypatch, capsys, False, "discover", "--jobs", "1")
    assert code == 0 and "\r" not in quiet and "scanned fsm.go" not in quiet
    code, again, err = run(monkeypatch, capsys, True, "discover", "--jobs", "1")
    assert (code, again) == (0, out)
    progress, _, summary = err.rpartition("\r")
    assert {"scanned fsm.go", "scanned m.md", "scanned other.md"} <= set(shown(progress))
    timeless = functools.partial(re.sub, r"[0-9.]+ s\b", "T s")
    assert timeless(summary) == timeless(quiet)  # the line is wiped before the summary is written
