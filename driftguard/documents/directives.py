"""MyST and Docusaurus directives that wrap prose: a fence whose info string is a
directive in braces (```` ```{note} ````), a colon fence (``:::{warning}``,
``:::tip Title``). CommonMark would read the first as a code block, hiding its prose,
and the second as stray text. Their opening and closing lines (and a MyST directive's
``:option: value`` lines) are blanked before parsing, so the prose inside is read as
prose and every line keeps its number. A directive that holds code (``{code-block}``,
``{code}``, ``{eval-rst}``) stays a block.
"""

from __future__ import annotations

import re

from driftguard.documents.parser import block_tokens

_MAYBE = re.compile(r"^[ \t]*(?:(?:```+|~~~+)[ \t]*\{|:::)", re.M)
_COLON = re.compile(r"^[ \t]*:::+")
_OPTION = re.compile(r"^[ \t]*:[\w-]+:")
_CODE = frozenset({"code-block", "code", "code-cell", "sourcecode", "eval-rst", "literalinclude", "math", "mermaid"})


def blank_directives(text: str) -> str:
    """``text`` with the fences and options of prose directives blanked (spaces, line
    breaks kept); ``text`` itself when it has none."""
    if not _MAYBE.search(text):
        return text
    lines = text.splitlines(keepends=True)
    blank: set[int] = set()
    code: set[int] = set()
    for tok in block_tokens(text, inline=False):  # fences are blocks: no inline is read
        if tok.type not in ("fence", "code_block") or not tok.map:
            continue
        first, end = tok.map
        name = tok.info.strip()
        if tok.type == "fence" and name.startswith("{") and "}" in name and name[1:name.index("}")] not in _CODE:
            blank.add(first)
            if end - 1 > first and lines[end - 1].strip().startswith(tok.markup):
                blank.add(end - 1)
            at = first + 1
            while at < end - 1 and _OPTION.match(lines[at]):
                blank.add(at)
                at += 1
        else:
            code.update(range(first, end))
    blank.update(i for i, line in enumerate(lines) if i not in code and _COLON.match(line))
    if not blank:
        return text
    return "".join(_spaces(line) if i in blank else line for i, line in enumerate(lines))


def _spaces(line: str) -> str:
    body = line.rstrip("\r\n")
    return " " * len(body) + line[len(body):]
