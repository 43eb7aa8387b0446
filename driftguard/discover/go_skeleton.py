"""A Go file reduced to the declarations discovery reads, line numbers kept.

Most of a Go file's bytes are function bodies, which no candidate fact comes
from. ``skeleton`` blanks every top-level function except ``String()``
methods (each line of it becomes empty, so every line keeps its number) and
keeps package, imports, comments, const, var and type declarations. It relies
on gofmt's layout (a top-level declaration starts in column 0 and its closing
brace or parenthesis sits in column 0); ``scan_go`` parses the skeleton with
tree-sitter and falls back to the whole file when the skeleton does not parse
cleanly, so an unusual layout costs time, never a wrong fact. What the
skeleton cannot show is a syntax error inside a blanked function body; the
engine check that ``discover`` runs on its proposals (and ``check`` itself)
reports such a file.
"""

from __future__ import annotations

import re

_STRING_METHOD = re.compile(r"func\s*\(\s*\w*\s*\*?\s*[\w.]+(?:\[[^\]]*\])?\s*\)\s*String\s*\(\s*\)\s*string\b")
_OPENERS = ("const (", "var (", "type (", "import (")


def skeleton(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    until: str | None = None  # the column-0 closer that ends the current block
    blank = False
    for line in lines:
        if until is not None:
            out.append("" if blank else line)
            if line.startswith(until):
                until, blank = None, False
            continue
        if line.startswith("func"):
            keep = _STRING_METHOD.match(line) is not None
            out.append(line if keep else "")
            if not line.rstrip().endswith("}"):
                until, blank = "}", not keep
            continue
        out.append(line)
        stripped = line.rstrip()
        if stripped.startswith(_OPENERS) and stripped.endswith("("):
            until = ")"
        elif stripped.startswith(("var ", "type ", "const ")) and stripped.endswith(("{", "(")):
            until = "}" if stripped.endswith("{") else ")"
    return "\n".join(out)
