"""Pathological markdown: every claim form over each shape within a time bound.

The shapes are generated here, after the inputs markdown-it-py keeps from
OSS-Fuzz (tests/test_fuzzer.py: ``>```\\n>``, ``>-\\n>\\n>``, ``[](so&#4H0;!``, and
``?c_`` repeated, which it notes is slow), its fatal.md (comment and CDATA
openers that once hung its regexes), and the pathological sequences markdown-it
(and cmark before it) time: nested and unmatched emphasis, brackets and links,
backtick runs, ``<`` runs, deep block quotes and lists. Sizes are close to theirs.
"""

from __future__ import annotations

import time

import pytest

from driftguard.config.specs import MentionsClaim, PhraseClaim, SectionClaim, TableClaim
from driftguard.documents.claims import read_claim
from driftguard.documents.reader import parse_document
from driftguard.model import AmbiguousClaim, ClaimNotFound, PatternError

BOUND = 5.0  # seconds per input, parse and every claim form: generous, the point is "never hangs"

SHAPES: dict[str, str] = {
    # markdown-it-py's OSS-Fuzz reproducers and fatal.md
    "oss-fuzz-55363": ">```\n>",
    "oss-fuzz-55367": ">-\n>\n>",
    "oss-fuzz-55371": "[](so&#4H0;!",
    "oss-fuzz-55401": "?c_" * 100_000 + "c_",
    "comment-opener": "foo <!--- " + "x" * 50_000 + " ->\n\nfoo <!" + "-" * 50_000 + ">",
    "cdata-opener": "foo <![CDATA[ " + "x" * 50_000 + " ]>",
    "bad-uri": "[foo](<&#x25;test>) [foo](%C3) [foo](&#xD800;) " * 2_000,
    # emphasis
    "nested-inlines": "*" * 30_000 + "a" + "*" * 30_000,
    "nested-strong-emph": "*a **a " * 5_000 + "b" + " a** a*" * 5_000,
    "emph-closers": "a_ " * 30_000,
    "emph-openers": "_a " * 30_000,
    "emph-mismatched": "*a_ " * 25_000,
    "emph-cmark-389": "*a " * 10_000 + "_a*_ " * 10_000,
    "emph-multiple-of-3": "a**b" + "c* " * 25_000,
    "emph-star-under": "**_* " * 20_000,
    # brackets and links
    "link-closers": "a]" * 10_000,
    "link-openers": "[a" * 10_000,
    "link-emph": "[ a_" * 10_000,
    "bracket-paren": "[ (](" * 20_000,
    "image-brackets": "![[]()" * 10_000,
    "nested-brackets": "[" * 20_000 + "a" + "]" * 20_000,
    "unclosed-link-a": "[a](<b" * 15_000,
    "unclosed-link-b": "[a](b" * 15_000,
    "unresolved-references": "[x] [y][z] " * 20_000,
    "many-definitions": "".join(f"[r{i}]: /u{i}\n" for i in range(10_000)) + "[r1] " * 1_000,
    # code, html, entities
    "backtick-runs": "".join("e" + "`" * i for i in range(2_000)),
    "backtick-escapes": "``\\" * 30_000,
    "angle-run": "<" * 200_000 + ">",
    "comment-run": "</" + "<!--" * 50_000,
    "entities": "&amp;" * 50_000 + "&#" * 50_000 + "&#x;" * 10_000,
    "hard-break-spaces": "x" + " " * 150_000 + "x  \nx",
    # blocks
    "blockquotes-spaced": "> " * 50_000 + "a",
    "blockquotes-tight": ">" * 20_000 + " The limit is 5 requests. `x`",
    "blockquote-ladder": "\n".join(">" * i + " x `c`" for i in range(1, 2_000)),
    "nested-lists": "".join("  " * i + "* a `c`\n" for i in range(1_000)),
    "nested-ordered": "".join("   " * i + "1. a\n" for i in range(1_000)),
    "list-quote-mix": "".join(("> " if i % 2 else "- ") * i + "x\n" for i in range(300)),
    "heading-run": "#" * 100_000 + " x\n" + "# h\n" * 10_000,
    "table-pipes": "| a |\n|---|\n" + "|" * 100_000 + "\n",
    "table-many-rows": "| T | V |\n|---|---|\n" + "| `a` | 5 s |\n" * 2_000,
    "table-wide": "|" + " a |" * 1_000 + "\n|" + "---|" * 1_000 + "\n" + ("|" + " `x` |" * 1_000 + "\n") * 10,
    "unclosed-fence": "```\n" + "x\n" * 50_000,
    "long-line-words": "# T\n\n" + "word " * 200_000 + "The limit is 5 requests.\n",
    "long-line-code": "# T\n\n" + "`a` " * 20_000 + "\n",
    "long-sentence-numbers": "# T\n\nafter " + "1 " * 50_000 + "requests.\n",
    "nul-and-controls": "# T\n\n" + "a\x00b\x01c\x1b[31m `\x00` " * 10_000,
    "crlf-and-cr": "# T\r\n\r\n| T |\r|---|\r| `a` |\r" * 2_000,
}

FORMS = [
    TableClaim(table="T"),
    TableClaim(table="a", column="a"),
    TableClaim(table="T", column="V", rows=(("a", "f"),)),
    SectionClaim(section="T"),
    SectionClaim(section="T", code_spans=r"^[a-z]+$"),
    SectionClaim(section="T", list=True),
    PhraseClaim(template="limit is {value} requests"),
    PhraseClaim(template="after {value} requests", section="T"),
    MentionsClaim(),
]


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_claim_form_over_a_pathological_shape_is_bounded(name):
    text = SHAPES[name]
    start = time.perf_counter()
    doc = parse_document("hostile.md", text)
    for form in FORMS:
        try:
            claim = read_claim(doc, form)
        except (ClaimNotFound, AmbiguousClaim, PatternError) as exc:
            assert exc.location is not None and exc.location.path == "hostile.md"
            continue
        for item in claim.items:
            assert item.location is not None and item.location.path == "hostile.md"
            assert item.span is None or 0 <= item.span[0] <= item.span[1] <= len(text)
    elapsed = time.perf_counter() - start
    assert elapsed < BOUND, f"{name}: {elapsed:.2f}s"


def _tree(write, root, doc: str) -> None:
    write(root, {
        "src/limits.py": "LIMIT = 5\nNAMES = {'a': 1}\n",
        "docs/limits.md": doc.encode("utf-8"),
        "driftguard.yaml": """
            version: 1
            facts:
              limit: {file: src/limits.py, constant: LIMIT}
            rules:
              - {id: limit, fact: limit, doc: docs/limits.md, phrase: 'limit is {value} requests'}
            """,
    })


def test_a_claim_on_a_multi_megabyte_line_is_still_read(repo, write, cli):
    _tree(write, repo, "# Limits\n\n" + "word " * 600_000 + "The limit is 5 requests.\n")
    start = time.perf_counter()
    run = cli(repo, "check")
    assert time.perf_counter() - start < BOUND
    assert run.code == 0, run.out
    _tree(write, repo, "# Limits\n\n" + "word " * 600_000 + "The limit is 6 requests.\n")
    run = cli(repo, "check")
    assert run.code == 1 and "docs/limits.md:3: limit:" in run.out


def test_thousands_of_nested_quotes_never_pass_a_claim_they_bury(repo, write, cli):
    """markdown-it stops reading containers 20 deep; a claim below that is reported gone, never passed."""
    _tree(write, repo, ">" * 5_000 + " The limit is 5 requests.\n")
    start = time.perf_counter()
    run = cli(repo, "check")
    assert time.perf_counter() - start < BOUND
    assert run.code == 1
    assert "docs/limits.md: limit: the document no longer states it" in run.out


def test_a_claim_beside_deep_nesting_is_read(repo, write, cli):
    _tree(write, repo, "The limit is 5 requests.\n\n" + "> " * 50_000 + "x\n\n" + "".join("  " * i + "- y\n" for i in range(500)))
    run = cli(repo, "check")
    assert run.code == 0, run.out
