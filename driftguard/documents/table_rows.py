"""Table rows split from their source line exactly as markdown-it splits them.

markdown-it-py gives each cell's trimmed content but not where it sits in the
line; ``cell_runs`` splits the line again (unescaped pipes separate cells, a
backslash before a pipe is dropped), lines the pieces up with markdown-it's
cells, and returns runs from each cell's content to offsets in the line.
"""

from __future__ import annotations

import re

from driftguard.documents.inline import Run, push_run

TRIM = " \t\n\r\f\v"  # the whitespace markdown-it trims around cells

Segment = tuple[str, list[Run]]  # trimmed cell text, runs into its source line


def cell_runs(line: str, contents: list[str]) -> list[list[Run]]:
    """Runs from each cell's content to offsets in ``line``, split the way markdown-it splits rows.

    An empty cell gets one zero-length run: its place in the line.
    """
    segments = _split_row(line.rstrip(TRIM), len(contents) + 1)
    end: list[Run] = [(0, len(line.rstrip(TRIM)), 0)]
    for skip in (0, 1):  # skip a leading pipe (an empty first segment, perhaps after a '>' prefix)
        picked = segments[skip:skip + len(contents)]
        if all(seg.endswith(want) if j == 0 and skip == 0 else seg == want
               for j, ((seg, _), want) in enumerate(zip(picked, contents))):
            return [_cut(picked[j], want) if j < len(picked) else end for j, want in enumerate(contents)]
    out, cursor = [], 0  # the split did not agree with markdown-it: find each cell in order
    for want in contents:
        col = line.find(want, cursor, cursor + len(want) + 256) if want else -1  # bounded: stays linear
        out.append([(0, col, len(want))] if col >= 0 else [(0, cursor, 0)])
        cursor = col + len(want) if col >= 0 else cursor
    return out


def _split_row(line: str, limit: int) -> list[Segment]:
    """The first ``limit`` (or so) segments between unescaped pipes, each trimmed, with runs
    into ``line``; a trailing empty segment is dropped, as markdown-it drops it."""
    segments: list[Segment] = []
    parts: list[str] = []
    runs: list[Run] = []
    size = last = 0
    for m in re.finditer(r"\|", line):
        escaped = m.start() > 0 and line[m.start() - 1] == "\\"
        cut = m.start() - 1 if escaped else m.start()  # an escaped pipe: drop the backslash only
        push_run(runs, size, last, cut - last)
        parts.append(line[last:cut])
        size += cut - last
        if escaped:
            last = m.start()
            continue
        segments.append(_trimmed("".join(parts), runs, m.start()))
        parts, runs, size, last = [], [], 0, m.end()
        if len(segments) > limit:
            return segments
    push_run(runs, size, last, len(line) - last)
    parts.append(line[last:])
    if segments and not "".join(parts):
        return segments
    segments.append(_trimmed("".join(parts), runs, len(line)))
    return segments


def _trimmed(raw: str, runs: list[Run], end: int) -> Segment:
    """``raw`` trimmed, with its runs cut to match; an empty one anchored at ``end``."""
    text = raw.strip(TRIM)
    if not text:
        return text, [(0, end, 0)]
    lead = len(raw) - len(raw.lstrip(TRIM))
    return text, [(a - lead, s, min(n, len(text) - a + lead)) for a, s, n in _drop(runs, lead) if a - lead < len(text)]


def _drop(runs: list[Run], count: int) -> list[Run]:
    """``runs`` without their first ``count`` derived characters."""
    out = []
    for a, s, n in runs:
        if a + n <= count:
            continue
        cut = max(count - a, 0)
        out.append((a + cut, s + cut, n - cut))
    return out


def _cut(segment: Segment, want: str) -> list[Run]:
    """The runs of the cell content ``want``: the end of ``segment`` (after any container prefix)."""
    text, runs = segment
    shift = len(text) - len(want)
    if not want:
        a, s, n = runs[-1]
        return [(0, s + n, 0)]
    return [(a - shift, s, n) for a, s, n in _drop(runs, shift)]


def locate_piece(line: str, piece: str) -> tuple[int, int]:
    """Where ``piece`` (a line of block content) sits in its source line: ``piece[lead:]`` starts at col."""
    if line.endswith(piece):
        return 0, len(line) - len(piece)
    stripped = line.rstrip(TRIM)
    if stripped.endswith(piece):
        return 0, len(stripped) - len(piece)
    col = line.find(piece)
    if col >= 0:
        return 0, col
    core = piece.lstrip(TRIM)  # a tab that markdown-it expanded to spaces
    col = line.find(core) if core else -1
    if col >= 0:
        return len(piece) - len(core), col
    return 0, max(len(line) - len(piece), 0)
