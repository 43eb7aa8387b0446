"""The source lines of a reStructuredText document, and raw text placed back in them.

docutils gives each block its line (not always the first) and its raw text with
the indentation, the bullet or the table borders removed, but no offsets.
``Source.place`` finds that raw text again, line by line, near the given line
(within a column range for a table cell), and returns runs from the raw text to
document offsets. docutils expands tabs (8 columns) and strips trailing
whitespace; a line is compared as docutils saw it and mapped back column by column.
"""

from __future__ import annotations

from bisect import bisect_right

from driftguard.documents.inline import Run, push_run
from driftguard.text import EOL

_NEAR = (0, -1, 1, -2, 2, -3, 3)  # the lines tried around the given one, nearest first
_FAR = 40


class Source:
    """The document's lines: ``starts[i]`` and ``ends[i]`` of line ``i`` (0-based)."""

    def __init__(self, text: str, bom: int, view: str | None = None) -> None:
        self.text = text
        self.view = text if view is None else view  # the text as docutils was given it, character for character
        self.starts, self.ends = [bom], []
        for m in EOL.finditer(text):
            self.ends.append(m.start())
            self.starts.append(m.end())
        self.ends.append(len(text))
        self._expanded: dict[int, tuple[str, list[int]]] = {}

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, index: int) -> str:
        return self.view[self.starts[index]:self.ends[index]]

    def clamp(self, index: int) -> int:
        return min(max(index, 0), len(self.starts) - 1)

    def line_of(self, offset: int) -> int:
        """The 1-based line holding ``offset``."""
        return max(bisect_right(self.starts, offset), 1)

    def seen(self, index: int) -> tuple[str, list[int] | None]:
        """Line ``index`` as docutils reads it (tabs expanded, right-stripped), and for an
        expanded line the source column of each of its columns."""
        line = self.line(index)
        if "\t" not in line:
            return line.rstrip(), None
        if index not in self._expanded:
            out: list[str] = []
            cols: list[int] = []
            for col, ch in enumerate(line):
                piece = " " * (8 - len(out) % 8) if ch == "\t" else ch
                out.extend(piece)
                cols.extend([col] * len(piece))
            text = "".join(out).rstrip()
            self._expanded[index] = (text, cols[:len(text)])
        return self._expanded[index]

    def place(self, raw: str, line: int, lo: int = 0, hi: int | None = None, first: bool = False) -> list[Run] | None:
        """Runs from ``raw`` (a block's text, its lines without their indent) to the document,
        its first line looked for at the 1-based ``line`` or near it; ``lo``/``hi`` bound the
        columns a line may use (a table cell); with ``first`` the leftmost match is taken (a
        cell), else the one that ends the line (a paragraph after a bullet or a field name)."""
        pieces = raw.split("\n")
        tried = [line - 1 + d for d in _NEAR] + [line - 1 + d for d in range(4, _FAR)]
        tried += [line - 1 - d for d in range(4, _FAR)]
        for index in tried:
            if 0 <= index and index + len(pieces) <= len(self.starts):
                runs = self._at(pieces, index, lo, hi, first)
                if runs is not None:
                    return runs
        return None

    def _at(self, pieces: list[str], index: int, lo: int, hi: int | None, first: bool) -> list[Run] | None:
        runs: list[Run] = []
        offset = 0
        for k, piece in enumerate(pieces):
            seen, cols = self.seen(index + k)
            col = _find(seen, piece, lo, hi, first or k > 0)
            if col < 0:
                return None
            if k:
                push_run(runs, offset - 1, self.ends[index + k - 1], 1)  # the line break
            start = self.starts[index + k]
            if cols is None:
                push_run(runs, offset, start + col, len(piece))
            else:
                for j in range(len(piece)):
                    push_run(runs, offset + j, start + cols[col + j], 1)
            offset += len(piece) + 1
        return runs


def _find(seen: str, piece: str, lo: int, hi: int | None, leftmost: bool) -> int:
    """The column of ``piece`` in ``seen`` within ``[lo, hi)``, or -1."""
    stop = len(seen) if hi is None else min(hi, len(seen))
    if not piece:
        return min(lo, len(seen)) if not seen[lo:stop].strip() else -1
    if not leftmost and hi is None and seen.endswith(piece) and len(seen) - len(piece) >= lo:
        return len(seen) - len(piece)
    col = seen.find(piece, lo, stop)
    if col >= 0 and leftmost and seen[lo:col].strip() and hi is not None:
        return -1  # a cell's text starts its column's text
    return col
