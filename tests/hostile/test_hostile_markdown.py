"""Pathological markdown (``shapes.py``): every claim form over each shape reads the
document, never fails outside it, and does work linear in the document's size.

The work is counted, not timed (tests/work.py): the Python steps at two sizes of each
shape, where doubling the text may at most GROWTH-fold the steps. The shapes are kept
small here; ``benchmarks/hostile.py`` times them at the sizes markdown-it-py uses.
"""

from __future__ import annotations

import pytest

from driftguard.config.specs import MentionsClaim, PhraseClaim, SectionClaim, TableClaim
from driftguard.documents.claims import read_claim
from driftguard.documents.reader import parse_document
from driftguard.model import AmbiguousClaim, ClaimNotFound, PatternError
from tests.hostile.shapes import SHAPES
from tests.work import assert_linear

CHARS = 4000
"""The smaller of the two sizes each shape is read at."""

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


QUADRATIC = {
    # Known, in driftguard/documents/claims.py (not this change's to edit): strict, so the day
    # they are fixed these tests fail until the marks go.
    "crlf-and-cr": "n tables headed 'T': the ambiguity message asks _head_of, a scan of every heading, per table",
}

CHARS_FOR = {
    "long-line-code": CHARS // 8,  # quadratic from the start: kept short, it costs seconds per step
    "nul-and-controls": CHARS // 8,
    "long-line-code-phrase": CHARS // 8,
    "crlf-and-cr": CHARS * 4,  # the quadratic part passes a quarter of the work only past 10,000 characters
}


def _read_every_form(text: str) -> None:
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


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(reason=QUADRATIC[name], raises=AssertionError, strict=True))
    if name in QUADRATIC else name for name in sorted(SHAPES)])
def test_every_claim_form_over_a_pathological_shape_does_linear_work(name: str) -> None:
    shape = SHAPES[name]
    assert_linear(shape.build, _read_every_form, shape.size_for(CHARS_FOR.get(name, CHARS)))


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
    run = cli(repo, "check")
    assert run.code == 0, run.out
    _tree(write, repo, "# Limits\n\n" + "word " * 600_000 + "The limit is 6 requests.\n")
    run = cli(repo, "check")
    assert run.code == 1 and "docs/limits.md:3: limit:" in run.out


def test_checking_a_long_line_does_work_linear_in_its_length(repo, write, cli):
    def check_line(words: int) -> int:
        _tree(write, repo, "# Limits\n\n" + "word " * words + "The limit is 5 requests.\n")
        return cli(repo, "check").code

    assert_linear(lambda words: words, check_line, 20_000)


def test_thousands_of_nested_quotes_never_pass_a_claim_they_bury(repo, write, cli):
    """markdown-it stops reading containers 20 deep; a claim below that is reported gone, never passed."""
    _tree(write, repo, ">" * 5_000 + " The limit is 5 requests.\n")
    run = cli(repo, "check")
    assert run.code == 1
    assert "docs/limits.md:1: limit: the document no longer states it" in run.out


def test_checking_nested_quotes_does_work_linear_in_their_depth(repo, write, cli):
    def check_quotes(depth: int) -> int:
        _tree(write, repo, ">" * depth + " The limit is 5 requests.\n")
        return cli(repo, "check").code

    assert_linear(lambda depth: depth, check_quotes, 2_500)


def test_a_claim_beside_deep_nesting_is_read(repo, write, cli):
    _tree(write, repo, "The limit is 5 requests.\n\n" + "> " * 50_000 + "x\n\n" + "".join("  " * i + "- y\n" for i in range(500)))
    run = cli(repo, "check")
    assert run.code == 0, run.out
