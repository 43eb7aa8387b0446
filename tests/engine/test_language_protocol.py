"""A language declares itself: a toy language registered from this file alone is read,
judged, cached never, mutated by the selftest, and its test files are left out of globs."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from driftguard import languages
from driftguard.cli import main
from driftguard.config.loader import FactSpec, load_config
from driftguard.config.specs import Constant, Constants, Selector
from driftguard.judging.fingerprints import libraries
from driftguard.model import Fact, FactNotFound, Item, Kind, Location, Value
from driftguard.sources import base, load_reader, reader_name
from driftguard.sources.mutation import SELFTEST, CannotApply, Edit
from tests.helpers import write_tree

_ENUM = re.compile(r"^enum (\w+): (.*)$", re.M)
_CONST = re.compile(r"^const (\w+) = (\d+)$", re.M)


class ToyReader:
    """Reads ``enum NAME: A, B`` (``constants: {type: NAME}``) and ``const NAME = 4`` (``constant``)."""

    def parse(self, path: str, text: str) -> str:
        return text

    def extract(self, tree: object, selector: Selector, path: str) -> Sequence[Item]:
        text = str(tree)
        if isinstance(selector, Constants):
            for m in _ENUM.finditer(text):
                if m.group(1) == selector.type:
                    line = text.count("\n", 0, m.start()) + 1
                    return [Item(Value.string(v.strip()), Location(path, line)) for v in m.group(2).split(",")]
            raise FactNotFound(f"no enum {selector.type}", Location(path))
        if isinstance(selector, Constant):
            for m in _CONST.finditer(text):
                if m.group(1) == selector.name:
                    line = text.count("\n", 0, m.start()) + 1
                    return [Item(Value(Kind.NUMBER, int(m.group(2))), Location(path, line))]
            raise FactNotFound(f"no const {selector.name}", Location(path))
        raise base.unsupported("Toy", selector, path, ["constants", "constant"])

    declaration = staticmethod(base.no_declaration)
    skipped = staticmethod(base.nothing_skipped)

    def problems(self, tree: object, path: str) -> list[tuple[int, str]]:
        """Lines starting ``!!`` do not parse."""
        return [(n, f"`{line}` does not parse") for n, line in enumerate(str(tree).split("\n"), 1)
                if line.startswith("!!")]

    def add_member(self, text: str, spec: FactSpec, fact: Fact) -> Edit:
        line = fact.items[-1].location.line if fact.items[-1].location else None
        lines = text.split("\n")
        if line is None:
            raise CannotApply("no line")
        lines[line - 1] += f", {SELFTEST}"
        return Edit("\n".join(lines), f"added {SELFTEST} to the enum", line, (SELFTEST,))

    def change_scalar(self, text: str, spec: FactSpec, fact: Fact) -> Edit:
        old = fact.items[0].value.data
        assert isinstance(spec.selector, Constant)
        new = _CONST.sub(lambda m: f"const {m.group(1)} = {int(old) + 1}" if m.group(1) == spec.selector.name
                         else m.group(0), text)
        return Edit(new, f"changed {spec.selector.name} to {int(old) + 1}", None, (str(int(old) + 1),))


TOY = languages.Language("Toy", (".toy",), ToyReader(), test_files=("*_spec.toy",), partial=True)


@pytest.fixture
def toy() -> Iterator[languages.Language]:
    languages.register(TOY)
    yield TOY
    languages.unregister("Toy")


CONFIG = """\
version: 1
facts:
  colours:
    file: 'src/*.toy'
    constants: {type: Colour}
  limit:
    file: src/paint.toy
    constant: LIMIT
rules:
  - id: colours
    fact: colours
    doc: docs/colours.md
    table: Colour
  - id: limit
    fact: limit
    doc: docs/colours.md
    phrase: 'at most {value} coats'
"""

DOC = """\
# Colours

| Colour | Meaning |
|---|---|
| `red` | warm |
| `blue` | cold |

Paint at most 3 coats.
"""


def _tree(tmp_path: Path, doc: str = DOC) -> Path:
    return write_tree(tmp_path, {
        "driftguard.yaml": CONFIG,
        "src/paint.toy": "enum Colour: red, blue\nconst LIMIT = 3\n",
        "src/paint_spec.toy": "enum Colour: green\n",
        "docs/colours.md": doc,
    })


def test_a_registered_language_reads_its_files_and_judges_a_clean_rule(toy, tmp_path, capsys):
    root = _tree(tmp_path)
    assert main(["check", "--config", str(root / "driftguard.yaml")]) == 0, capsys.readouterr().out
    assert reader_name("src/paint.toy", Constants(type="Colour")) == toy.key
    assert isinstance(load_reader(toy.key), ToyReader)


def test_a_registered_language_fails_on_drift_naming_document_line_and_value(toy, tmp_path, capsys):
    root = _tree(tmp_path, DOC.replace("| `blue` | cold |", "| `blue` | cold |\n| `pink` | loud |")
                 .replace("at most 3 coats", "at most 4 coats"))
    assert main(["check", "--config", str(root / "driftguard.yaml")]) == 1
    out = capsys.readouterr().out
    assert "docs/colours.md:7: colours:" in out and "`pink`" in out
    assert "docs/colours.md:9: limit:" in out and "'4'" in out


def test_the_test_files_a_language_declares_stay_out_of_globs(toy, tmp_path):
    config = load_config(_tree(tmp_path) / "driftguard.yaml")
    assert config.facts["colours"].files == ("src/paint.toy",)


def test_a_reader_given_as_an_object_is_never_cached(toy):
    assert libraries(toy.key) is None
    assert libraries("driftguard.sources.go") == (("tree_sitter", "tree-sitter"), ("tree_sitter_go", "tree-sitter-go"))


def test_the_selftest_mutates_a_registered_language_through_its_reader(toy, tmp_path, capsys):
    root = _tree(tmp_path)
    assert main(["selftest", "--config", str(root / "driftguard.yaml")]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "code: new member (colours)" in out and "code: value changed (limit)" in out


def test_a_selector_the_language_lacks_is_a_config_error_naming_what_it_reads(toy, tmp_path, capsys):
    root = _tree(tmp_path)
    (root / "driftguard.yaml").write_text(CONFIG.replace("constants: {type: Colour}", "string_method: Colour"))
    assert main(["check", "--config", str(root / "driftguard.yaml")]) == 2
    out = "".join(capsys.readouterr())
    assert "the Toy reader does not read `string_method`; it reads `constants`, `constant`" in out


def test_unregistering_leaves_no_trace(tmp_path):
    languages.register(TOY)
    languages.unregister("Toy")
    assert languages.language_of("a.toy") is None
    assert reader_name("a.toy", Constants(type="X")) == "driftguard.sources.text"


@pytest.mark.parametrize(("pattern", "kept"), [
    ("pkg/*.go", ["pkg/a.go"]),
    ("pkg/*_test.go", ["pkg/a_test.go"]),
    ("lib/*.py", ["lib/mod.py"]),
    ("lib/test_*.py", ["lib/test_mod.py"]),
    ("web/**/*.ts", ["web/app.ts"]),
    ("web/**/*.spec.ts", ["web/app.spec.ts"]),
    ("web/*.tsx", ["web/view.tsx"]),
])
def test_globs_leave_out_each_languages_test_files_unless_they_name_them(tmp_path, pattern, kept):
    from driftguard.config import globs

    write_tree(tmp_path, dict.fromkeys([
        "pkg/a.go", "pkg/a_test.go", "lib/mod.py", "lib/test_mod.py", "lib/conftest.py", "web/app.ts",
        "web/app.spec.ts", "web/app.test.ts", "web/view.tsx", "web/view.test.tsx"], "x\n"))
    assert globs.expand(tmp_path, pattern) == kept


def test_a_part_that_does_not_parse_is_a_warning_naming_file_and_line_and_the_fact_is_still_read(
        toy, tmp_path, capsys, monkeypatch):
    root = _tree(tmp_path)
    (root / "src/paint.toy").write_text("enum Colour: red, blue\n!! new(string(out))\nconst LIMIT = 3\n")
    for _ in range(2):
        assert main(["check", "--config", str(root / "driftguard.yaml")]) == 0
        out = capsys.readouterr().out
        assert "src/paint.toy:2: warning: `!! new(string(out))` does not parse" in out
    assert main(["check", "--config", str(root / "driftguard.yaml"), "--format", "json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert warnings == [{"path": "src/paint.toy", "line": 2, "message": "`!! new(string(out))` does not parse"}]
    assert main(["check", "--config", str(root / "driftguard.yaml"), "--format", "github"]) == 0
    assert "::warning file=src/paint.toy,line=2,title=driftguard::`!! new(string(out))` does not parse" in (
        capsys.readouterr().out)


def test_a_clean_file_gives_no_warning(toy, tmp_path, capsys):
    assert main(["check", "--config", str(_tree(tmp_path) / "driftguard.yaml")]) == 0
    assert "warning" not in capsys.readouterr().out


def test_what_did_not_parse_is_cached_with_the_file_content(tmp_path):
    from driftguard.judging.cache import FactCache

    cache, calls = FactCache(tmp_path), []

    def compute() -> list[tuple[int, str]]:
        calls.append(1)
        return [(8, "`StateA State = \"A\" +` does not parse")]

    for _ in range(2):
        assert cache.problems("driftguard.sources.go", "a.go", "package a\n", compute) == compute()[:1]
    assert len(calls) == 3  # one miss, one hit, and the two direct calls above
    assert cache.problems("driftguard.sources.go", "a.go", "package b\n", lambda: []) == []
