"""Fuzzing the readers (derandomized, 1000 examples each).

- the markdown claim reader (``parse_document`` + ``read_claim`` for every claim form)
  on generated markdown raises only ClaimNotFound or PatternError;
- the Go and Python fact readers on mutated fixture sources, for every selector
  kind, return facts or raise ParseError, FactNotFound or AmbiguousFact.

The quantity reader's own property ("arbitrary text raises only QuantityError",
1000 examples) lives in tests/engine/test_quantities.py
(``test_parse_quantity_on_arbitrary_text_raises_only_its_own_error``); it is not
repeated here. tests/engine/test_go_reader.py fuzzes nine Go facts with 200
examples; the Go test here covers every selector kind with 1000.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftguard.config.specs import (
    Call,
    Constant,
    Constants,
    MapKeys,
    MentionsClaim,
    PhraseClaim,
    SectionClaim,
    StringMethod,
    TableClaim,
)
from driftguard.documents.claims import read_claim
from driftguard.documents.reader import parse_document
from driftguard.model import (
    AmbiguousClaim,
    AmbiguousFact,
    ClaimNotFound,
    FactNotFound,
    Item,
    Kind,
    ParseError,
    PatternError,
)
from driftguard.sources import go, python

REPO = Path(__file__).resolve().parents[2]
PULSE = REPO / "tests" / "fixtures" / "pulse"
FUZZ = settings(derandomize=True, max_examples=1000, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- markdown ------------------------------------------------------------------------

BLOCKS = st.sampled_from([
    "# T\n", "## T\n", "# Limits\n", "### a\n", "T\n===\n", "| T | V |\n|---|---|\n", "| `a` | 5 s |\n",
    "| a | ten minutes |\n", "| x |\n", "|---|\n", "| T |\n|:-:|\n", "- `x`\n", "- plain item\n", "1. `o`\n",
    "  - `nested`\n", "> ", "> - `q`\n", "```\n`not code`\n```\n", "    indented `code`\n", "\n", "\n\n",
    "<div>\n| T |\n</div>\n", "[ref]: /url\n", "---\n", "***\n",
])
INLINE = st.sampled_from([
    "The limit is 5 requests.", "after ten minutes", "after 1h30m requests", "limit is 75% requests",
    "`a`", "``b``", "`c d`", "`", "*", "**", "_", "[", "]", "(", ")", "![x](y)", "<b>", "&amp;", "\\",
    "|", " ", "e.g. ", "Cap. ", "\t", "\r\n", "\r", "\x00", "\ufeff", "é", "1,000", "−5", "twenty-four",
])
LINE = st.lists(INLINE, max_size=8).map(lambda parts: "".join(parts) + "\n")
MARKDOWN = st.lists(st.one_of(BLOCKS, LINE), max_size=25).map("".join)

FORMS = [
    TableClaim(table="T"),
    TableClaim(table="T", column="V"),
    TableClaim(table="T", column="Missing"),
    TableClaim(table="T", section="Limits"),
    TableClaim(table="T", column="V", rows=(("a", "f"), ("x", "g"))),
    SectionClaim(section="T"),
    SectionClaim(section="T", code_spans=r"^[a-z]+$"),
    SectionClaim(section="Limits", code_spans=r"(a|b)+"),
    SectionClaim(section="T", list=True),
    PhraseClaim(template="limit is {value} requests"),
    PhraseClaim(template="after {value}", section="T"),
    MentionsClaim(),
    MentionsClaim(section="Limits"),
]


def _check_item(item: Item, text: str, lines: int) -> None:
    assert item.location is not None and item.location.path == "fuzz.md"
    assert item.location.line is None or 1 <= item.location.line <= lines
    assert item.span is None or 0 <= item.span[0] <= item.span[1] <= len(text)
    assert item.value.kind in (Kind.STRING, Kind.NUMBER, Kind.DURATION)


@FUZZ
@given(text=MARKDOWN)
def test_the_claim_reader_on_generated_markdown_never_crashes(text: str) -> None:
    doc = parse_document("fuzz.md", text)
    lines = text.count("\n") + text.count("\r") + 1
    for form in FORMS:
        try:
            claim = read_claim(doc, form)
        except (ClaimNotFound, AmbiguousClaim, PatternError) as exc:
            assert exc.location is not None and exc.location.path == "fuzz.md"
            continue
        assert claim.location.path == "fuzz.md"
        for item in claim.items:
            _check_item(item, text, lines)


# -- mutated sources ---------------------------------------------------------------

MUTATION = st.tuples(
    st.floats(0, 1),  # where
    st.integers(0, 40),  # how many characters to cut
    st.text(alphabet="(){}[]\"'`/*\\\n\t =:,.;+-#@019xA_", max_size=5),  # what to insert
    st.sampled_from(["splice", "drop-line", "dup-line", "dedent-line"]),
)


def mutate(source: str, mutation: tuple[float, int, str, str]) -> str:
    at, cut, insert, how = mutation
    i = int(at * len(source))
    if how == "splice":
        return source[:i] + insert + source[i + cut:]
    start = source.rfind("\n", 0, i) + 1
    end = source.find("\n", i)
    end = len(source) if end < 0 else end + 1
    line = source[start:end]
    if how == "drop-line":
        return source[:start] + source[end:]
    if how == "dup-line":
        return source[:end] + line + source[end:]
    return source[:start] + line.lstrip(" \t") + source[end:]


def _check_facts(items: list[Item], rel: str, source: str) -> None:
    lines = source.count("\n") + 1
    for item in items:
        assert isinstance(item, Item)
        assert item.value.kind in (Kind.STRING, Kind.NUMBER, Kind.DURATION, Kind.BOOL)
        assert item.location is not None and item.location.path == rel
        assert item.location.line is not None and 1 <= item.location.line <= lines


GO_FACTS = [
    ("internal/ai/chat/fsm.go", Constants(type="SessionState")),
    ("internal/ai/chat/fsm.go", Constants(type="SessionState", values="names")),
    ("internal/ai/chat/fsm.go", Constant("RecoveryTTL")),
    ("internal/agentcapabilities/tool_call.go", StringMethod("ToolCallKind")),
    ("internal/agentcapabilities/tool_call.go", Constants(type="ToolCallKind")),
    ("internal/agentcapabilities/errors.go", Constants(name="^AgentErrCode")),
    ("internal/agentcapabilities/tool_names.go", Constants(name="ToolName$", values="names")),
    ("internal/agentcapabilities/invocation.go", MapKeys("registryInvocationDescriptors")),
    ("internal/agentcapabilities/invocation.go", MapKeys("legacyToolAliases", resolve=True)),
    ("internal/agentcapabilities/tool_call.go", MapKeys("writeVerbs")),
    ("internal/ai/patrol_signals.go", Constants(type="SignalType")),
    ("internal/ai/patrol_signals.go", Constant("signalBackupStaleThreshold")),
    ("internal/ai/findings.go", Constant("maxInvestigationAttempts")),
    ("internal/ai/chat/agentic.go", Constant("maxLookGateBlocks")),
    ("internal/ai/chat/agentic.go", Call("make", arg=1, within="executeWithTools", where=((0, "chan struct{}"),))),
]
GO_SOURCES = {rel: (PULSE / rel).read_text(encoding="utf-8") for rel, _ in GO_FACTS}


@FUZZ
@given(which=st.integers(0, len(GO_FACTS) - 1), mutation=MUTATION)
def test_the_go_reader_on_mutated_sources_reads_or_reports(which: int, mutation) -> None:
    rel, selector = GO_FACTS[which]
    source = mutate(GO_SOURCES[rel], mutation)
    try:
        items = go.extract(go.parse(rel, source), selector, rel)
    except (ParseError, FactNotFound, AmbiguousFact) as exc:
        assert exc.location is not None and exc.location.path == rel
        return
    assert items
    _check_facts(items, rel, source)


def test_an_unresolvable_go_map_key_names_the_file() -> None:
    rel = "internal/agentcapabilities/invocation.go"
    try:
        go.extract(go.parse(rel, GO_SOURCES[rel]), MapKeys("registryInvocationDescriptors", resolve=True), rel)
    except FactNotFound as exc:
        assert exc.location is not None and exc.location.path == rel
    else:  # pragma: no cover - the keys are constants of another file
        raise AssertionError("expected FactNotFound")


PY_FACTS = [
    ("reference_impl/ai/chat/fsm.py", Constants(type="SessionState")),
    ("reference_impl/agentcapabilities/tool_call.py", Constants(type="ToolCallKind", values="names")),
    ("reference_impl/agentcapabilities/tool_call.py", StringMethod("ToolCallKind")),
    ("reference_impl/ai/chat/fsm.py", Constant("RECOVERY_TTL")),
    ("reference_impl/agentcapabilities/invocation.py", MapKeys("TOOL_REGISTRY", resolve=True)),
    ("reference_impl/agentcapabilities/invocation.py", MapKeys("TOOL_REGISTRY")),
    ("reference_impl/agentcapabilities/tool_names.py", Constants(name="^(PULSE|PATROL)_")),
    ("reference_impl/ai/chat/agentic.py", Call("asyncio.Semaphore", within="AgenticLoop")),
    ("reference_impl/ai/chat/agentic.py", Constant("MAX_LOOK_GATE_BLOCKS")),
    ("reference_impl/agentcapabilities/errors.py", Constants(type="AgentErrorCode")),
    ("reference_impl/agentcapabilities/errors.py", StringMethod("AgentErrorCode")),
    ("reference_impl/ai/findings.py", Constant("INVESTIGATION_COOLDOWN")),
    ("reference_impl/ai/patrol_signals/types.py", Constants(type="SignalType")),
    ("reference_impl/ai/patrol_signals/types.py", Constant("SIGNAL_STORAGE_WARNING_PERCENT")),
]
PY_SOURCES = {rel: (REPO / rel).read_text(encoding="utf-8") for rel, _ in PY_FACTS}


def test_every_python_fuzz_fact_reads_from_the_unmutated_source() -> None:
    """The fuzz starts from sources where each selector finds its fact (or knows why not)."""
    for rel, selector in PY_FACTS:
        try:
            items = python.extract(python.parse(rel, PY_SOURCES[rel]), selector, rel)
        except FactNotFound:
            assert isinstance(selector, StringMethod), (rel, selector)  # not every Enum has __str__ cases
            continue
        _check_facts(items, rel, PY_SOURCES[rel])
    for rel, selector in GO_FACTS:
        _check_facts(go.extract(go.parse(rel, GO_SOURCES[rel]), selector, rel), rel, GO_SOURCES[rel])


# python.parse's ast.parse warns on mutated sources ("\\/", "1for"); see test_hostile_files.py
@pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore:invalid escape sequence:DeprecationWarning")
@FUZZ
@given(which=st.integers(0, len(PY_FACTS) - 1), mutation=MUTATION)
def test_the_python_reader_on_mutated_sources_reads_or_reports(which: int, mutation) -> None:
    rel, selector = PY_FACTS[which]
    source = mutate(PY_SOURCES[rel], mutation)
    try:
        items = python.extract(python.parse(rel, source), selector, rel)
    except (ParseError, FactNotFound, AmbiguousFact) as exc:
        assert exc.location is not None and exc.location.path == rel
        return
    assert items
    _check_facts(items, rel, source)
