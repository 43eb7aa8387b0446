"""The blocks a document ties to code: each fenced block whose opening fence follows an
HTML comment ``<!-- driftguard: snippet TARGET -->`` (blank lines between allowed). The
claim holds one item per marked block: its body (as written) labelled with its target,
placed on the body's span so that ``fix`` can rewrite it, and valued as ``normal`` makes it
(common indentation removed), as the code it names is compared."""

from __future__ import annotations

import re
import textwrap

from driftguard.config.forms.snippets import MARKER
from driftguard.config.specs import SnippetClaim
from driftguard.documents.model import Document
from driftguard.documents.scope import not_found, scope_of, within
from driftguard.model import Claim, Item, Location, Value

_MARKER = re.compile(r"<!--\s*" + re.escape(MARKER) + r"\s+(.+?)\s*-->")


def snippet_claim(doc: Document, form: SnippetClaim) -> Claim:
    scope = scope_of(doc, form.section) if form.section else None
    items = []
    blocks = within(doc.blocks, scope, lambda b: b.span[0])
    for m in _MARKER.finditer(doc.text):
        block = next((b for b in blocks if b.span[0] >= m.end() and not doc.text[m.end():b.span[0]].strip()), None)
        if block is None:
            continue
        body = doc.text[block.body_span[0]:block.body_span[1]]
        items.append(Item(Value.string(normal(body)), Location(doc.path, block.body_line), block.body_span,
                          label=m.group(1)))
    if not items:
        raise not_found(doc, f"no fenced block follows a `<!-- {MARKER} ... -->` marker", scope)
    return Claim(tuple(items), items[0].location or Location(doc.path))


def normal(text: str) -> str:
    """``text`` as snippets compare it: common indentation removed, trailing spaces and the
    blank lines around it dropped, line breaks as ``\\n``."""
    lines = [line.rstrip() for line in textwrap.dedent(text.replace("\r\n", "\n").replace("\r", "\n")).split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)
