"""Candidate claims of an options reference: what one option's documentation states.

A reference documents options in a few shapes, and each yields candidates the
matchers bind to the code's flags, variables, fields and defaults:

- **a stated default**: a ``Default:`` line (``- **Default:** `5173```, "Defaults to
  `info`.") in the section whose heading names the option (``## server.port``,
  ``### `--log.level```), or a sentence naming the option in a code span and its
  default ("`follow_redirects` defaults to `False`"), or the Default column of a
  table whose rows name options. The claim carries the option's name: that the
  section, the sentence or the row names the option is the evidence that binds it.
- **headings per option**: the headings of one level under one scope that name
  options, read by ``headings: {level: N, match: REGEX}``;
- **list items**: the bullets of a section that each start with an option in a code
  span, read by ``items: true`` (with ``match`` for ``--flags``);
- **configuration blocks**: the keys under each top-level key of the YAML blocks, read by
  ``block: {lang: yaml, keys: PATH}``.

Every set claim's values are what the engine's own claim reader reads for its form.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from driftguard.config.specs import BlockClaim, Form, HeadingsClaim, ItemsClaim
from driftguard.discover.model import QuantityClaim, SentenceText, SetClaim, TableRef
from driftguard.discover.words import identifiers_in, text_stems
from driftguard.documents.claims import read_claim
from driftguard.documents.model import Document, Heading, Section, Sentence, Table
from driftguard.model import DriftguardError, Value
from driftguard.quantities import find_quantities, read_value

OPTION = re.compile(r"-{0,2}[A-Za-z_$][\w$]*(?:[.-][\w$]+)*")
"""An option's name: ``port``, ``server.port``, ``--log.level``, ``HTTPISH_TIMEOUT``."""
_IDENTIFIER = re.compile(r"^([a-z_$][\w$]*)$")
"""A heading that is one lower-case identifier (``root``, ``outDir``, ``max_batch_size``): an option,
when every heading of its level under one parent is one (prose headings have capitals or spaces)."""
_AFTER_NAME = re.compile(r"\s*(?:[<\[(=:]|,\s*-)|\s+[A-Z][A-Z0-9_]*\b")
"""What may follow an option's name in a heading or a code span: its argument (``<port>``,
``=VALUE``, ``PORT``), its type or another spelling (``-p, --port``)."""
_DEFAULT_LINE = re.compile(r"^\W*defaults?(?:\s+value)?\s*(?::|=|\bis\b|\bto\b)\s*", re.IGNORECASE)
_DEFAULTS_TO = re.compile(r"\bdefaults?(?:\s+value)?\s*(:|=|\bis\b|\bto\b|\bof\b)?\s*", re.IGNORECASE)
_HEADING_SOURCES = (
    (re.compile(r"^`?(--?[A-Za-z][\w.-]*)"), r"^`?--?([A-Za-z][\w.-]*)"),
    (re.compile(r"^`([A-Za-z_$][\w$.-]*)`$"), r"^`([A-Za-z_$][\w$.-]*)`$"),
)
_MENTIONS_DEFAULT = re.compile(r"default", re.IGNORECASE)
MAX_BLOCK = 64 * 1024


def option_name(heading: str) -> str | None:
    """The option a heading (or row label) names, dashes kept off: ``--log.level <lvl>`` -> ``log.level``."""
    text = heading.strip().strip("`").strip()
    m = OPTION.match(text)
    if m is None or (m.end() < len(text) and not _AFTER_NAME.match(text[m.end():])):
        return None
    return m.group().lstrip("-") or None


def stated_defaults(doc: Document, home: Callable[[int], Section | None], addressable: Callable[[Section], bool],
                    sentences: list[SentenceText], around: Callable[[int], frozenset[str]]) -> list[QuantityClaim]:
    """Each ``Default:`` line under an option's heading (``home``: the innermost section
    of an offset), and each sentence naming an option and its default; ``sentences``
    gains the sentences a phrase template will be cut from; ``around`` gives the words of
    the headings an offset is under, which tell two options of one name apart."""
    out: list[QuantityClaim] = []
    for sentence in doc.sentences:
        if _MENTIONS_DEFAULT.search(sentence.text) and not any(t.offset == sentence.span[0] for t in sentences):
            sentences.append(SentenceText(sentence.text, sentence.span[0]))  # a template must not read it by chance
        section = home(sentence.span[0])
        title = section.title if section is not None and addressable(section) else None
        option = option_name(title) if title is not None else None
        m = _DEFAULT_LINE.match(sentence.text)
        if m is not None and option is not None:
            found = _value(doc, sentence, m.end(), words=True)
            if found is not None:
                out.append(_claim(doc, sentence, found, option, title, sentences, around))
            continue
        for m in _DEFAULTS_TO.finditer(sentence.text):
            named = _named_before(doc, sentence, m.start())
            found = _value(doc, sentence, m.end(), words=bool(m.group(1))) if named else None
            if found is not None and named is not None:
                claim = _claim(doc, sentence, found, named[0], title, sentences, around)
                out.append(replace(claim, item=named[1]) if named[1] else claim)
                break
    return out


def _named_before(doc: Document, sentence: Sentence, end: int) -> tuple[str, str] | None:
    """The option the last code span before ``end`` names, in the sentence's own words, else
    the one a bullet starts with ("- `keepalive_expiry`, time limit ... (Default 5)"), with
    that bullet's first code span ("" when the sentence itself names it)."""
    limit = sentence.doc_span(0, end)[1]
    spans = [c for c in doc.code_spans if sentence.span[0] <= c.span[0] < limit]
    if spans:
        named = option_name(spans[-1].text)
        return (named, "") if named else None
    item = next((i for i in doc.list_items if i.span[0] <= sentence.span[0] < i.span[1] and i.codes), None)
    if item is None or doc.text[item.span[0]:item.codes[0].span[0]].strip() not in ("`", ""):
        return None
    named = option_name(item.codes[0].text)
    return (named, item.codes[0].text) if named else None


def _value(doc: Document, sentence: Sentence, start: int, words: bool) -> tuple[int, int, Value] | None:
    """The value stated right at ``start`` of the sentence: a code span or a quantity, else
    (with ``words``: "defaults to", "Default:") one word."""
    rest = sentence.text[start:]
    at = sentence.doc_span(start, start)[0]
    code = next((c for c in doc.code_spans if sentence.span[0] <= c.span[0] < sentence.span[1]
                 and at <= c.span[0] <= at + 2), None)
    if code is not None:
        where = rest.find(code.text)
        if where < 0 or where > 2:
            return None
        begin = start + where
        return begin, begin + len(code.text), read_value(code.text)
    quantities = find_quantities(rest)
    if quantities and quantities[0][0] == 0:  # "(Default 5)": a number needs no "to" or ":"
        qs, qe, value = quantities[0]
        return start + qs, start + qe, value
    if not words:
        return None
    m = re.match(r"[\w%/'\"-]+(?:\.\w+)*", rest)
    return (start, start + m.end(), read_value(m.group())) if m is not None else None


def _claim(doc: Document, sentence: Sentence, found: tuple[int, int, Value], option: str, section: str | None,
           sentences: list[SentenceText], around: Callable[[int], frozenset[str]]) -> QuantityClaim:
    start, end, value = found
    index = next((i for i, t in enumerate(sentences) if t.offset == sentence.span[0]), None)
    if index is None:
        sentences.append(SentenceText(sentence.text, sentence.span[0]))
        index = len(sentences) - 1
    line = doc.line_of(sentence.doc_span(start, end)[0])
    words = text_stems(f"{option} {section or ''}")
    return QuantityClaim(doc.path, "default", value, line, sentence.text, start, end, words,
                         around(sentence.span[0]) | text_stems(sentence.text), identifiers_in(sentence.text),
                         sentence=index, section=section, option=option)


def default_column(table: Table) -> int | None:
    """The index of a table's Default column (``Default``, ``Default value``), if it has one."""
    return next((i for i, c in enumerate(table.header) if i and re.match(r"default\b", c.text, re.IGNORECASE)), None)


def default_cells(doc: Document, table: Table, ref: TableRef, section: str | None,
                  context: frozenset[str] = frozenset()) -> list[QuantityClaim]:
    """The Default column's cell of each row whose first cell names an option."""
    at = default_column(table)
    if at is None:
        return []
    labels = [r.cells[0].text if r.cells else "" for r in table.rows]
    out = []
    for row, label in zip(table.rows, labels):
        option = option_name(label) if label and labels.count(label) == 1 else None
        if option is None or at >= len(row.cells) or not row.cells[at].text:
            continue
        cell = row.cells[at]
        text = cell.codes[0].text if cell.codes else cell.text
        out.append(QuantityClaim(doc.path, "cell", read_value(text), row.line, cell.text, 0, len(cell.text),
                                 text_stems(label), context, identifiers_in(label), table=ref,
                                 column=table.header[at].text, label=label, section=section, option=option))
    return out


def heading_sets(doc: Document, addressable: dict[int, bool]) -> list[SetClaim]:
    """A claim per group of option headings: one level, under one parent heading."""
    groups: dict[tuple[int, int], list[Heading]] = {}
    parent: dict[int, Heading] = {}
    for heading in doc.headings:
        for level in [lv for lv in parent if lv >= heading.level]:
            del parent[level]
        owner = max(parent) if parent else 0
        groups.setdefault((owner and parent[owner].line, heading.level), []).append(heading)
        parent[heading.level] = heading
    out = []
    for (owner_line, level), headings in groups.items():
        form = _heading_form(doc, headings, level, owner_line, addressable)
        if form is not None:
            claim = _read(doc, form, "headings", headings[0].line)
            out += [claim] if claim is not None else []
    return out


def _heading_form(doc: Document, headings: list[Heading], level: int, owner_line: int,
                  addressable: dict[int, bool]) -> Form | None:
    sources = [doc.text[h.span[0]:h.span[1]].strip() for h in headings]
    owner = next((s for s in doc.sections if s.line == owner_line), None)
    section = owner.title if owner is not None and owner.level > 1 and addressable.get(owner_line) else None
    if owner is not None and owner.level > 1 and section is None:
        return None
    for shape, match in _HEADING_SOURCES:
        if sum(1 for s in sources if shape.match(s)) >= 2:
            return HeadingsClaim(level=level, match=match, section=section)
    if len(sources) >= 3 and all(_IDENTIFIER.fullmatch(s) for s in sources):
        return HeadingsClaim(level=level, match=_IDENTIFIER.pattern, section=section)  # ## root, ## outDir
    dotted = [s.rsplit(".", 1)[0] for s in sources if re.fullmatch(r"`?[A-Za-z_$][\w$]*(?:\.[\w$]+)+`?", s)]
    prefix = max(set(dotted), key=dotted.count) if dotted else ""
    if prefix and dotted.count(prefix) >= 2:
        tick = prefix.startswith("`")
        body = re.escape(prefix.lstrip("`")) + r"\.([A-Za-z_$][\w$]*)"
        return HeadingsClaim(level=level, match=f"^`{body}`$" if tick else f"^{body}$", section=section)
    return None


def item_sets(doc: Document, sections: Iterable[tuple[Section, bool]],
              home: Callable[[int], Section | None]) -> list[SetClaim]:
    """A claim per addressable section whose own bullets (not its subsections') each start
    with an option in a code span."""
    out = []
    for section, addressable in sections:
        if not addressable:
            continue
        items = [i for i in doc.list_items if home(i.span[0]) is section and i.codes]
        starts = [i for i in items if doc.text[i.span[0]:i.span[1]].lstrip().startswith("`")]
        if len(starts) < 2 or len(starts) * 2 < len(items):
            continue
        dashed = sum(1 for i in starts if i.codes[0].text.startswith("-"))
        match = r"^`--?([A-Za-z][\w.-]*)" if dashed * 2 > len(starts) else None
        claim = _read(doc, ItemsClaim(match=match, section=section.title), "items", section.line)
        out += [claim] if claim is not None else []
    return out


def block_sets(doc: Document) -> list[SetClaim]:
    """The keys under each top-level mapping of the YAML blocks (``global:``)."""
    import yaml

    out = []
    paths: dict[str, int] = {}
    for block in doc.blocks:
        if block.lang not in ("yaml", "yml") or len(block.body) > MAX_BLOCK:
            continue
        try:
            data = yaml.safe_load(block.body)
        except yaml.YAMLError:
            continue
        if isinstance(data, dict):  # the top level (`keys: ''`) is left out: the loader refuses an empty path
            for key, value in data.items():
                if isinstance(key, str) and isinstance(value, dict) and OPTION.fullmatch(key):
                    paths.setdefault(key, block.line)
    for path, line in paths.items():
        claim = _read(doc, BlockClaim(lang="yaml", keys=path), "block", line)
        out += [claim] if claim is not None else []
    return out


def _read(doc: Document, form: Form, kind: str, line: int) -> SetClaim | None:
    try:
        items = read_claim(doc, form).items
    except DriftguardError:
        return None
    values = tuple(dict.fromkeys(i.value.canonical for i in items))
    if len(values) < 2:
        return None
    return SetClaim(doc.path, kind, values, line, section=form.scope, form=form)
