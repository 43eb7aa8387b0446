"""Columns on long lines: every reader gives 1-based character columns, checked
against a naive count on the text, for ASCII and non-ASCII lines alike."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftguard.config.loader import load_config
from driftguard.config.specs import Constants, Pattern
from driftguard.judging.engine import Engine
from driftguard.model import Item
from driftguard.sources import go, python, text
from driftguard.sources.go import reader as go_reader

PREFIXES = {
    "ascii": "",
    "accented": 'const S = "été"; ',
    "wide": 'const S = "☃ 雪 😀 é"; ',
}


def go_line(names: list[str], prefix: str = "") -> str:
    """One line declaring ``names`` as consts of type K (tree-sitter-go wants the ``;)``)."""
    body = "; ".join(f'{n} K = "v{n}"' for n in names)
    return f"package p; type K int; {prefix}const ({body};);\n"


def naive(source: str, needles: list[str]) -> list[tuple[int, int]]:
    """(line, column) of each needle, found in order: the characters before it on its line, plus one."""
    out, at = [], 0
    for needle in needles:
        at = source.index(needle, at)
        line_start = max(source.rfind("\n", 0, at), source.rfind("\r", 0, at)) + 1
        out.append((source.count("\n", 0, at) + 1, at - line_start + 1))
        at += len(needle)
    return out


def positions(items: list[Item]) -> list[tuple[int, int]]:
    return [(i.location.line or 0, i.location.column or 0) for i in items if i.location is not None]


def names(count: int) -> list[str]:
    return [f"Name{i:05d}" for i in range(count)]


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
def test_go_columns_on_one_long_line_match_a_naive_count(prefix: str) -> None:
    wanted = names(3000)
    source = go_line(wanted, prefix)
    items = go.extract(go.parse("k.go", source), Constants(type="K"), "k.go")
    assert [i.value.data for i in items] == [f"v{n}" for n in wanted]
    assert positions(items) == naive(source, [f"{n} K" for n in wanted])
    assert positions(items)[-1][1] > 60_000


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
def test_go_columns_on_separate_lines_match_a_naive_count(prefix: str) -> None:
    wanted = names(200)
    source = f"package p\ntype K int\n{prefix}\nconst (\n" + "".join(
        f'\t{n} K = "é{n}"\n' for n in wanted) + ")\n"
    items = go.extract(go.parse("k.go", source), Constants(type="K"), "k.go")
    assert positions(items) == naive(source, [f"{n} K" for n in wanted])


def test_a_non_ascii_line_after_long_ascii_lines_counts_only_its_own_characters() -> None:
    wanted = names(400)
    lines = ["package p", "type K int", "// " + "x" * 5000, 'const S = "' + "é" * 3000 + '"']
    source = "\n".join(lines) + "\n" + go_line(wanted, "é ").split("; ", 2)[2]
    items = go.extract(go.parse("k.go", source), Constants(type="K"), "k.go")
    assert positions(items) == naive(source, [f"{n} K" for n in wanted])
    assert {line for line, _ in positions(items)} == {5}


_CHARS = st.characters(codec="utf-8", exclude_characters='"\\\n\r', exclude_categories=["Cc", "Cs"])


@settings(deadline=None, max_examples=150)
@given(st.lists(st.text(_CHARS, max_size=12), min_size=1, max_size=30), st.sampled_from([1, 2, 7, 1024]))
def test_go_columns_match_a_naive_count_for_any_string_values(values: list[str], block: int) -> None:
    """Property: consts on one line with arbitrary UTF-8 string values, for several block sizes."""
    wanted = [f"C{i}" for i in range(len(values))]
    body = "; ".join(f'{n} K = "{v}"' for n, v in zip(wanted, values))
    source = f"package p; type K int; const ({body};);\n"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(go_reader, "_BLOCK", block)
        items = go.extract(go.parse("k.go", source), Constants(type="K", values="names"), "k.go")
    assert [i.value.data for i in items] == wanted
    assert positions(items) == naive(source, [f"{n} K" for n in wanted])


@settings(deadline=None, max_examples=200)
@given(st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60),
       st.sampled_from([1, 2, 3, 5, 1024]))
def test_char_offsets_equal_the_length_of_the_decoded_prefix(source: str, block: int) -> None:
    data = source.encode("utf-8")
    boundaries = [len(source[:k].encode("utf-8")) for k in range(len(source) + 1)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(go_reader, "_BLOCK", block)
        chars = go_reader.CharOffsets(data)
        assert [chars(b) for b in boundaries] == list(range(len(source) + 1))


def test_a_char_offset_reads_at_most_one_block_after_the_table_is_built() -> None:
    data = ("é" + "x" * 200_000).encode("utf-8")
    chars = go_reader.CharOffsets(data)
    chars(0)
    read: list[int] = []
    count = chars._continuations

    def counting(start: int, end: int) -> int:
        read.append(end - start)
        return count(start, end)

    chars._continuations = counting  # type: ignore[method-assign]
    assert chars(len(data)) == 200_001
    assert read and max(read) < go_reader._BLOCK


@pytest.mark.parametrize("prefix", ["", 'S = "été ☃"; '], ids=["ascii", "non-ascii"])
def test_python_and_pattern_columns_on_one_long_line_match_a_naive_count(prefix: str) -> None:
    wanted = names(2000)
    source = prefix + "; ".join(f"{n} = {i}" for i, n in enumerate(wanted)) + "\n"
    py_items = python.extract(python.parse("k.py", source), Constants(name="^Name"), "k.py")
    assert [i.value.data for i in py_items] == list(range(len(wanted)))
    assert positions(py_items) == naive(source, [f"{n} =" for n in wanted])
    txt_items = text.extract(text.parse("k.txt", source), Pattern(r"(Name\d+) ="), "k.txt")
    assert [i.value.data for i in txt_items] == wanted
    assert positions(txt_items) == naive(source, [f"{n} =" for n in wanted])


def test_the_engine_gives_character_columns_on_a_long_non_ascii_line(
        tree: Callable[[dict[str, str | bytes]], Path]) -> None:
    wanted = names(2000)
    source = go_line(wanted, PREFIXES["wide"])
    root = tree({
        "k.go": source.encode("utf-8"),
        "d.md": "# T\n\n| Name |\n|---|\n" + "".join(f"| v{n} |\n" for n in wanted),
        "driftguard.yaml": f"""
            version: 1
            max_file_size: {len(source.encode("utf-8")) + 1}
            facts:
              ks: {{file: k.go, constants: {{type: K}}}}
            rules:
              - {{id: r, fact: ks, doc: d.md, table: Name}}
            """,
    })
    engine = Engine(load_config(root / "driftguard.yaml"))
    fact = engine.fact(engine.config.facts["ks"])
    assert positions(list(fact.items)) == naive(source, [f"{n} K" for n in wanted])
    assert [r.status.value for r in engine.run().rules] == ["pass"]
