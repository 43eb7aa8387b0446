"""Map facts (``flags`` and ``env`` with ``defaults: true``, ``query`` with ``@name``) judged
against a table entry by entry, one entry taken as a scalar with ``entry:``, keys as a set
with any other form, and ``ignore:`` on facts and rules; read through a toy language so
the engine is tested apart from any one reader."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from driftguard import languages
from driftguard.cli import main
from driftguard.config.loader import FactSpec, load_config
from driftguard.config.specs import Flags, Selector
from driftguard.model import ConfigError, Fact, Item, Location, Value
from driftguard.quantities import read_value
from driftguard.sources import base
from driftguard.sources.mutation import SELFTEST, Edit
from tests.helpers import check, write_tree

_FLAG = re.compile(r"^flag (\S+)(?: = (.*))?$", re.M)


class FlagsReader:
    """``flag NAME = DEFAULT`` lines: ``flags`` names, or with defaults a map name -> default."""

    def parse(self, path: str, text: str) -> str:
        return text

    def extract(self, tree: object, selector: Selector, path: str) -> Sequence[Item]:
        if not isinstance(selector, Flags):
            raise base.unsupported("Flagfile", selector, path, ["flags"])
        text, items = str(tree), []
        for m in _FLAG.finditer(text):
            line = Location(path, text.count("\n", 0, m.start()) + 1)
            if selector.defaults:
                value = Value.string(m.group(2)) if m.group(2) is not None else Value.string("")
                items.append(Item(value, line, label=m.group(1)))
            else:
                items.append(Item(Value.string(m.group(1)), line))
        return items

    declaration = staticmethod(base.no_declaration)
    skipped = staticmethod(base.nothing_skipped)
    problems = staticmethod(base.no_problems)

    def add_member(self, text: str, spec: FactSpec, fact: Fact) -> Edit:
        return Edit(text + f"flag {SELFTEST} = 1\n", f"added flag {SELFTEST}", text.count("\n") + 1, (SELFTEST,))

    def change_scalar(self, text: str, spec: FactSpec, fact: Fact) -> Edit:
        entry = fact.items[0]
        new = text.replace(f"flag {entry.label} = {entry.value.data}", f"flag {entry.label} = 99")
        return Edit(new, f"changed {entry.label} to 99", None, ("99",))


@pytest.fixture(autouse=True)
def flagfile() -> Iterator[None]:
    languages.register(languages.Language("Flagfile", (".flags",), FlagsReader()))
    yield
    languages.unregister("Flagfile")


SOURCE = "flag storage.tsdb.path = data/\nflag storage.tsdb.retention.time = 15d\nflag web.listen-address = :9090\n" \
         "flag help\n"

CONFIG = """\
version: 1
facts:
  flag_defaults:
    file: cmd/main.flags
    flags: {defaults: true}
    ignore: [--help]
  flag_names:
    file: cmd/main.flags
    flags: true
rules:
  - id: flags-table
    fact: flag_defaults
    doc: docs/cli.md
    table: Flag
    column: Default
  - id: retention
    fact: flag_defaults
    entry: storage.tsdb.retention.time
    doc: docs/cli.md
    phrase: 'kept for {value} by default'
  - id: flag-list
    fact: flag_names
    doc: docs/cli.md
    section: Every flag
    code_spans: '^--([\\w.-]+)$'
    ignore: [--help, --version]
"""

DOC = """\
# CLI

| Flag | Description | Default |
|---|---|---|
| `--storage.tsdb.path` | where blocks go | `data/` |
| `--storage.tsdb.retention.time` | how long | `15d` |
| `--web.listen-address` | where to listen | `:9090` |

Samples are kept for 15 days by default.

## Every flag

`--storage.tsdb.path`, `--storage.tsdb.retention.time`, `--web.listen-address`, `--help` and `--version`.
"""


def _tree(tmp_path: Path, doc: str = DOC, source: str = SOURCE, config: str = CONFIG) -> Path:
    return write_tree(tmp_path, {"driftguard.yaml": config, "cmd/main.flags": source, "docs/cli.md": doc})


def test_a_map_fact_against_its_table_entry_by_entry_passes_when_they_agree(tmp_path, capsys):
    code, out = check(capsys, _tree(tmp_path))
    assert code == 0, out


def test_a_changed_default_in_the_table_names_the_row_line_and_both_values(tmp_path, capsys):
    code, out = check(capsys, _tree(tmp_path, DOC.replace("| `15d` |", "| `30d` |")))
    assert code == 1
    assert "docs/cli.md:6: flags-table: row '--storage.tsdb.retention.time' of the 'Flag' table, column 'Default' " \
           "says '30d'" in out
    assert "the code has `15d`" in out


def test_a_flag_the_table_lacks_and_a_row_the_code_lacks_are_each_named(tmp_path, capsys):
    doc = DOC.replace("| `--web.listen-address` | where to listen | `:9090` |\n",
                      "| `--web.external-url` | public URL | |\n")
    code, out = check(capsys, _tree(tmp_path, doc))
    assert code == 1
    assert "docs/cli.md:3: flags-table: `web.listen-address` is declared in code but has no row" in out
    assert "docs/cli.md:7: flags-table: `--web.external-url` has a row in the 'Flag' table" in out


def test_a_default_string_reads_as_the_quantity_the_document_states(tmp_path, capsys):
    code, out = check(capsys, _tree(tmp_path, DOC.replace("| `15d` |", "| 15 days |")))
    assert code == 0, out


def test_entry_takes_one_value_of_a_map_as_a_scalar(tmp_path, capsys):
    code, out = check(capsys, _tree(tmp_path, DOC.replace("kept for 15 days", "kept for 10 days")))
    assert code == 1
    assert "docs/cli.md:9: retention: the sentence 'kept for {value} by default' says '10 days'" in out


def test_an_entry_the_map_lacks_is_fact_not_found_listing_the_entries(tmp_path, capsys):
    config = CONFIG.replace("entry: storage.tsdb.retention.time", "entry: storage.retention")
    code, out = check(capsys, _tree(tmp_path, config=config))
    assert code == 1
    assert "no entry 'storage.retention' (its entries: storage.tsdb.path, storage.tsdb.retention.time" in out


def test_a_map_fact_with_a_set_form_compares_its_keys(tmp_path, capsys):
    config = CONFIG.replace("fact: flag_names", "fact: flag_defaults")
    doc = DOC.replace("`--web.listen-address`, `--help`", "`--help`")
    code, out = check(capsys, _tree(tmp_path, doc, config=config))
    assert code == 1
    assert "flag-list: `web.listen-address` is declared in code but missing from section 'Every flag'" in out


def test_ignore_leaves_members_out_on_both_sides(tmp_path, capsys):
    config = CONFIG.replace("    ignore: [--help, --version]\n", "")
    code, out = check(capsys, _tree(tmp_path, config=config))
    assert code == 1
    assert "`version` is stated in section 'Every flag' but not declared in code" in out
    assert "`help` is stated" not in out  # the code declares help


def test_a_fact_ignore_drops_the_member_from_the_fact(tmp_path, capsys):
    assert main(["facts", "--config", str(_tree(tmp_path) / "driftguard.yaml"), "flag_defaults"]) == 0
    out = capsys.readouterr().out
    assert "storage.tsdb.path" in out and "help" not in out.replace("flag_defaults", "")


def test_entry_on_a_fact_that_is_no_map_is_a_config_error_at_its_line(tmp_path):
    config = CONFIG.replace("    fact: flag_defaults\n    entry:", "    fact: flag_names\n    entry:")
    with pytest.raises(ConfigError, match=r"rules\[1\].entry: fact 'flag_names' is not a map") as caught:
        load_config(_tree(tmp_path, config=config) / "driftguard.yaml")
    assert caught.value.location is not None and caught.value.location.line == 18


def test_a_map_fact_with_a_scalar_form_and_no_entry_is_a_config_error(tmp_path):
    config = CONFIG.replace("    entry: storage.tsdb.retention.time\n", "")
    with pytest.raises(ConfigError, match=r"fact 'flag_defaults' is a map; name one of its entries with `entry:`"):
        load_config(_tree(tmp_path, config=config) / "driftguard.yaml")


def test_fix_rewrites_a_stale_default_in_its_cell(tmp_path, capsys):
    root = _tree(tmp_path, DOC.replace("| `15d` |", "| `30d` |"))
    assert main(["fix", "--config", str(root / "driftguard.yaml")]) == 0, capsys.readouterr()
    assert "| `15d` |" in (root / "docs/cli.md").read_text()


def test_selftest_changes_an_entry_on_each_side_and_adds_a_flag_and_a_row(tmp_path, capsys):
    root = _tree(tmp_path)
    code = main(["selftest", "--config", str(root / "driftguard.yaml")])
    out = capsys.readouterr().out
    assert code == 0, out
    for label in ("code: new member (flag_defaults)", "code: value changed (flag_defaults, storage.tsdb.path)",
                  "doc: row '--storage.tsdb.path' changed", "doc: new table row"):
        assert label in out


def test_file_exclude_leaves_matching_files_out(tmp_path):
    config = CONFIG.replace("    file: cmd/main.flags\n    flags: true",
                            "    file: {include: 'cmd/*.flags', exclude: ['cmd/*_extra.flags']}\n    flags: true")
    root = _tree(tmp_path, config=config)
    (root / "cmd/other_extra.flags").write_text("flag x\n")
    spec = load_config(root / "driftguard.yaml").facts["flag_names"]
    assert spec.files == ("cmd/main.flags",)
    assert spec.file == "cmd/*.flags (excluding cmd/*_extra.flags)"


def test_an_exclude_that_leaves_nothing_is_a_config_error(tmp_path):
    config = CONFIG.replace("    file: cmd/main.flags\n    flags: true",
                            "    file: {include: 'cmd/*.flags', exclude: ['cmd/**']}\n    flags: true")
    with pytest.raises(ConfigError, match=r"facts.flag_names.file.exclude: leaves none of the 1 files"):
        load_config(_tree(tmp_path, config=config) / "driftguard.yaml")


def test_the_json_report_lists_each_entry_with_its_key(tmp_path, capsys):
    root = _tree(tmp_path)
    assert main(["report", "--config", str(root / "driftguard.yaml"), "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    rule = next(r for r in record["rules"] if r["id"] == "flags-table")
    assert {c["value"] for c in rule["claims"]} >= {"data/", "15d", ":9090"}


def test_read_value_of_a_go_style_duration_is_a_duration():
    assert read_value("15d").kind.value == "duration"
