"""Hostile file contents: not UTF-8, NUL bytes, over the size limit, Go and Python
syntax errors on the path to a fact, tables without the column, empty documents.
Each gets exit 2 with file and line, or the finding that names what is wrong."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from driftguard.config.loader import DEFAULT_MAX_FILE_SIZE

GO = """
package fsm

type State string

const (
	StateIdle State = "IDLE"
	StateBusy State = "BUSY"
)

const TTL = 10 * time.Minute
"""

PY = """
from enum import Enum


class State(str, Enum):
    IDLE = "IDLE"
    BUSY = "BUSY"


TTL_SECONDS = 600
"""

DOC = """
# Machine

| State | Meaning |
|---|---|
| `IDLE` | idle |
| `BUSY` | busy |

Entries expire after ten minutes.
"""

CONFIG = """
version: 1
facts:
  go_states: {file: src/fsm.go, constants: {type: State}}
  go_ttl: {file: src/fsm.go, constant: TTL}
  py_states: {file: src/fsm.py, constants: {type: State}}
rules:
  - {id: go-states, fact: go_states, doc: docs/machine.md, table: State}
  - {id: go-ttl, fact: go_ttl, doc: docs/machine.md, phrase: 'expire after {value}'}
  - {id: py-states, fact: py_states, doc: docs/machine.md, table: State}
"""


@pytest.fixture
def base(repo, write):
    return write(repo, {"src/fsm.go": GO, "src/fsm.py": PY, "docs/machine.md": DOC, "driftguard.yaml": CONFIG})


def findings(cli, root):
    run = cli(root, "check", "--format", "json")
    return run.code, json.loads(run.out)["findings"]


def test_the_base_tree_passes(base, cli):
    run = cli(base, "check")
    assert run.code == 0, run.out


# -- bytes that are not text -------------------------------------------------------


@pytest.mark.parametrize(
    "rel, data, line, words",
    [
        ("src/fsm.go", GO.lstrip().encode().replace(b'"BUSY"', b'"BUSY\xff"'), 7, ["not valid UTF-8"]),
        ("docs/machine.md", DOC.lstrip().encode() + b"\n\xc3(\n", 10, ["not valid UTF-8"]),
        ("src/fsm.py", PY.lstrip().encode().replace(b"BUSY = ", b"BUSY = \x00"), 6, ["NUL byte"]),
        ("docs/machine.md", b"# Machine\n\n\x00\x01\x02 binary", 3, ["NUL byte"]),
        ("docs/machine.md", DOC.lstrip().encode("utf-16"), 1, ["NUL byte"]),
        ("src/fsm.go", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 3, ["NUL byte"]),
    ],
    ids=["go-bad-byte", "doc-bad-byte", "py-nul", "doc-binary", "doc-utf16", "go-png"],
)
def test_undecodable_files_are_read_errors_with_the_line(base, write, cli, rel, data, line, words):
    write(base, {rel: data})
    code, found = findings(cli, base)
    assert code == 2
    errors = [f for f in found if f["kind"] == "read-error"]
    assert errors, found
    for f in errors:
        where = f["source"] or f["doc"]
        assert where == {"path": rel, "line": line}
        assert all(w in f["message"] for w in words) and f["code"] == "DG201"


def test_a_byte_order_mark_is_not_an_error(base, write, cli):
    write(base, {"docs/machine.md": b"\xef\xbb\xbf" + DOC.lstrip().encode()})
    assert cli(base, "check").code == 0


# -- size ----------------------------------------------------------------------------


def test_a_file_over_max_file_size_is_refused(base, write, cli):
    write(base, {"driftguard.yaml": "max_file_size: 100\n" + CONFIG.lstrip()})
    run = cli(base, "check")
    assert run.code == 2
    size = len(DOC.lstrip().encode())
    assert f"docs/machine.md: go-states: file is {size} bytes, over the limit of 100 (max_file_size)" in run.out
    assert "fact 'go_states': file is" in run.out  # the Go source is over 100 bytes too


def test_the_default_limit_is_a_few_megabytes(base, write, cli):
    assert 1 << 20 <= DEFAULT_MAX_FILE_SIZE <= 16 << 20
    padding = b" " * (DEFAULT_MAX_FILE_SIZE - len(GO.lstrip()) + 1)
    write(base, {"src/fsm.go": GO.lstrip().encode() + padding})
    run = cli(base, "check")
    assert run.code == 2 and f"over the limit of {DEFAULT_MAX_FILE_SIZE} (max_file_size)" in run.out
    write(base, {"src/fsm.go": GO.lstrip().encode() + padding[:-1]})  # exactly at the limit: read
    assert cli(base, "check").code == 0


@pytest.mark.parametrize("value, words", [("0", "from 1 to"), ("'big'", "expected a whole number"),
                                          ("-5", "from 1 to"), ("true", "expected a whole number")])
def test_a_bad_max_file_size_is_a_config_error(base, write, cli, value, words):
    write(base, {"driftguard.yaml": f"max_file_size: {value}\n" + CONFIG.lstrip()})
    run = cli(base, "check")
    assert run.code == 2 and "driftguard.yaml:1: error:" in run.err and words in run.err


# -- syntax errors ---------------------------------------------------------------------


def test_go_syntax_error_on_the_path_names_line_and_column(base, write, cli):
    write(base, {"src/fsm.go": GO.replace('StateBusy State = "BUSY"', 'StateBusy State = "BUSY')})
    code, found = findings(cli, base)
    assert code == 2
    [err] = [f for f in found if f["rule"] == "go-states"]
    assert err["kind"] == "parse-error" and err["source"]["path"] == "src/fsm.go"
    assert err["source"]["line"] == 7
    assert "Go syntax error at line 7, column" in err["message"]
    assert not [f for f in found if f["rule"] == "go-ttl"]  # the error is off that fact's path


def test_go_missing_node_names_line_and_column(base, write, cli):
    write(base, {"src/fsm.go": GO.replace('"BUSY"\n)', '"BUSY"\n')})  # the const block never closes
    run = cli(base, "check")
    assert run.code == 2
    assert "go-states: fact 'go_states': Go syntax error at line" in run.out
    assert ", column " in run.out and "(source: src/fsm.go:" in run.out


@pytest.mark.parametrize(
    "source, line",
    [
        (PY.replace('BUSY = "BUSY"', 'BUSY = ("BUSY"'), 6),
        (PY.replace("class State(str, Enum):", "class State(str, Enum)"), 4),
        (PY + "\n    def broken(:\n", 12),
        ("\t" + PY.lstrip(), 1),
    ],
    ids=["unclosed", "no-colon", "later", "indent"],
)
def test_python_syntax_error_names_the_line(base, write, cli, source, line):
    write(base, {"src/fsm.py": source})
    code, found = findings(cli, base)
    assert code == 2
    [err] = [f for f in found if f["rule"] == "py-states"]
    assert err["kind"] == "parse-error" and err["code"] == "DG202"
    assert err["source"]["path"] == "src/fsm.py" and 1 <= err["source"]["line"] <= line + 1
    assert "not valid Python" in err["message"]


def test_a_python_source_with_warnings_adds_nothing_to_stderr(base, write):
    write(base, {"src/fsm.py": PY + "A = 0x1for\n"})  # a SyntaxWarning (invalid hexadecimal literal), then an error
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "DRIFTGUARD_DEBUG")}
    proc = subprocess.run([sys.executable, "-m", "driftguard", "check"], cwd=base, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "not valid Python" in proc.stdout
    assert proc.stderr == ""


@pytest.mark.parametrize("rel, source", [("src/fsm.go", ""), ("src/fsm.py", ""), ("src/fsm.go", "package fsm\n")])
def test_an_empty_source_is_fact_not_found_never_a_pass(base, write, cli, rel, source):
    write(base, {rel: source})
    code, found = findings(cli, base)
    assert code in (1, 2)
    assert any(f["kind"] in ("fact-not-found", "parse-error") and f["source"]["path"] == rel for f in found)


# -- documents that do not state the claim ---------------------------------------------


def test_a_table_without_the_column_names_the_table_line_and_its_columns(base, write, cli):
    write(base, {"driftguard.yaml": CONFIG.replace("table: State}", "table: State, column: Default}", 1)})
    code, found = findings(cli, base)
    assert code == 1
    [gone] = [f for f in found if f["rule"] == "go-states"]
    assert gone["kind"] == "claim-not-found" and gone["code"] == "DG104"
    assert gone["doc"] == {"path": "docs/machine.md", "line": 3}
    assert "no column 'Default'" in gone["message"] and "'State', 'Meaning'" in gone["message"]


@pytest.mark.parametrize("content", ["", "\n\n\n", "   \t\n", "\ufeff", "<!-- nothing -->\n"],
                         ids=["empty", "newlines", "blank", "bom", "comment"])
def test_an_empty_document_states_nothing(base, write, cli, content):
    write(base, {"docs/machine.md": content.encode("utf-8")})
    code, found = findings(cli, base)
    assert code == 1
    assert {f["rule"] for f in found} == {"go-states", "go-ttl", "py-states"}
    assert {f["kind"] for f in found} == {"claim-not-found"}
    assert all(f["doc"]["path"] == "docs/machine.md" for f in found)


def test_mentions_in_an_empty_document_are_all_missing(base, write, cli):
    write(base, {"docs/machine.md": b"", "driftguard.yaml": CONFIG + "  - {id: m, fact: go_states, doc: docs/machine.md, mentions: true}\n"})
    code, found = findings(cli, base)
    assert code == 1
    missing = sorted(f["value"] for f in found if f["rule"] == "m")
    assert missing == ["BUSY", "IDLE"]
