"""A claim form declares what the stages need: ``to_config`` inverts ``from_config``,
and no stage asks ``isinstance`` of a claim form."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.config.loader import load_config
from driftguard.config.specs import (
    CLAIM_KEYS,
    BlockClaim,
    Form,
    HeadingsClaim,
    ItemsClaim,
    LinksClaim,
    MentionsClaim,
    PhraseClaim,
    ReferencesClaim,
    SectionClaim,
    SnippetClaim,
    TableClaim,
    TextClaim,
)
from driftguard.discover.emit import yaml_entry
from tests.helpers import write_tree

PACKAGE = Path(__file__).resolve().parents[2] / "driftguard"
STAGES = ("judging", "fix", "selftest", "discover", "coverage", "reporters")

FACTS = """\
version: 1
facts:
  names:
    file: a.py
    constants: {name: '^N'}
  limit:
    file: a.py
    constant: LIMIT
rules:
"""


def _round_trip(tmp_path: Path, form: Form) -> Form:
    """``form`` written as a rule with ``to_config`` and read back by the loader."""
    body = form.to_config()
    if form.facts == "none":
        fact = []
    elif form.labelled:
        fact = []
    else:
        fact = [f"fact: {'limit' if form.scalar else 'names'}"]
    lines = ["  - id: r", "    doc: d.md", *(f"    {line}" for line in fact),
             *(f"    {line}" for key, value in body.items() for line in yaml_entry(key, value))]
    write_tree(tmp_path, {"a.py": "N1 = 'x'\nLIMIT = 3\n", "d.md": "# D\n",
                          "driftguard.yaml": FACTS + "\n".join(lines) + "\n"})
    return load_config(tmp_path / "driftguard.yaml").rules[0].claim


EXAMPLES = [
    TableClaim(table="State"),
    TableClaim(table="Kind", column="Meaning", section="Tools"),
    TableClaim(table="Threshold", column="Default", rows=(("Storage warning", "limit"), ("High CPU", "limit"))),
    SectionClaim(section="Errors", code_spans=r"^[a-z_]+$"),
    SectionClaim(section="Levels", list=True),
    PhraseClaim(template="expire after {value}"),
    PhraseClaim(template="at most {value} blocks", section="The gate"),
    MentionsClaim(),
    MentionsClaim(section="Codes"),
    ReferencesClaim(),
    ReferencesClaim(bare=True, ignore=("^NET_",), repository=False),
    LinksClaim(),
    TextClaim(regex=r"retention of (\d+ days)"),
    TextClaim(regex=r"`(\w+)=", section="Settings", blocks=True),
    TextClaim(regex=r"at most (\d+)", one=True),
    HeadingsClaim(level=3, match="^`([^`]+)`"),
    HeadingsClaim(section="Options"),
    ItemsClaim(),
    ItemsClaim(match="^(\\w+)", section="Levels"),
    BlockClaim(lang="yaml", path="global.scrape_timeout"),
    BlockClaim(lang="yaml", keys="global", section="Configuration"),
    BlockClaim(lang="sh", flags=True),
    SnippetClaim(),
]


@pytest.mark.parametrize("form", EXAMPLES, ids=repr)
def test_to_config_is_read_back_as_the_same_form(tmp_path, form):
    assert _round_trip(tmp_path, form) == form


def test_every_registered_form_has_an_example_here():
    assert {type(form) for form in EXAMPLES} == set(CLAIM_KEYS.values())


_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).filter(
    lambda t: t.strip() == t and "{value}" not in t)


@settings(max_examples=40, deadline=None)
@given(table=_TEXT, column=st.none() | _TEXT, section=st.none() | _TEXT)
def test_any_table_form_survives_the_round_trip(tmp_path_factory, table, column, section):
    form = TableClaim(table=table, column=column, section=section)
    assert _round_trip(tmp_path_factory.mktemp("t"), form) == form


@settings(max_examples=40, deadline=None)
@given(before=_TEXT, after=st.just("") | _TEXT)
def test_any_phrase_survives_the_round_trip(tmp_path_factory, before, after):
    form = PhraseClaim(template=f"{before} {{value}} {after}".strip())
    assert _round_trip(tmp_path_factory.mktemp("p"), form) == form


def _isinstance_of_forms(source: str, name: str) -> list[str]:
    forms = {cls.__name__ for cls in CLAIM_KEYS.values()} | {"Form"}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance" and len(node.args) == 2:
            named = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            if named & forms:
                found.append(f"{name}:{node.lineno}")
    return found


def test_no_stage_asks_isinstance_of_a_claim_form():
    found = [hit for stage in STAGES for path in sorted((PACKAGE / stage).rglob("*.py"))
             for hit in _isinstance_of_forms(path.read_text(encoding="utf-8"), path.name)]
    assert found == []


def test_the_isinstance_probe_finds_one_when_there_is_one():
    assert _isinstance_of_forms("def f(form):\n    return isinstance(form, (TableClaim, int))\n", "x.py") == ["x.py:2"]
