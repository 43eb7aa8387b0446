"""Progress for long runs: one status line on a terminal's standard error.

A ``Progress`` is the ``Callable[[str], None]`` the tools accept as their
``progress`` argument. On a terminal each message replaces the last one in
place (a carriage return, the message cut to the terminal's width so it never
wraps, blanks over what is left of a longer one), and the line is wiped when
the run ends. When standard error is not a terminal (a CI log, a pipe, a
file) it writes nothing at all, so logs hold only what the command reports.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType
from typing import TextIO

from driftguard.text import printable

DEFAULT_WIDTH = 80


class Progress:
    """Write each message over the previous one on ``stream`` (standard error by default)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.live = _is_terminal(self.stream)
        self._shown = 0  # the widest message written since the line was last wiped

    def __call__(self, message: str) -> None:
        if not self.live:
            return
        text = " ".join(printable(message).split())[: _width(self.stream) - 1]
        self._write("\r" + text.ljust(self._shown))
        self._shown = max(self._shown, len(text))

    def clear(self) -> None:
        """Wipe the status line, leaving the cursor where the line began."""
        if self.live and self._shown:
            self._write("\r" + " " * self._shown + "\r")
        self._shown = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.clear()

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken terminal: progress is never worth an error
            self.live = False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _width(stream: TextIO) -> int:
    """The terminal's columns, ``DEFAULT_WIDTH`` where they cannot be told."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return DEFAULT_WIDTH
    return columns if columns > 1 else DEFAULT_WIDTH
