"""The front matter a page opens with (YAML between ``---`` lines, TOML between ``+++``),
as static site generators read it: never prose, and its ``title`` names the page."""

from __future__ import annotations

import re

_FRONT_MATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\r?\n(.*?\r?\n)?\1[ \t]*(?:\r?\n|\Z)", re.S)
_TITLE = re.compile(r"""^title\s*[:=]\s*(?:"([^"]*)"|'([^']*)'|(.*?))\s*$""", re.M)


def front_matter(text: str) -> tuple[int, str]:
    """The length of the YAML (``---``) or TOML (``+++``) front matter that opens ``text``
    (0 when none) and its ``title``."""
    m = _FRONT_MATTER.match(text)
    if m is None:
        return 0, ""
    title = _TITLE.search(m.group(2) or "")
    found = next((g for g in title.groups() if g is not None), "") if title else ""
    return m.end(), found.strip()
