"""reStructuredText pages are read into the same document model as markdown, so every
claim form, ``fix`` and ``selftest`` work on them; Sphinx roles and directives that
docutils does not know are read as text, never an error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.documents.formats import read_document
from driftguard.documents.model import Document, Prose
from tests.helpers import FIXTURES

FIXTURE = FIXTURES / "rst"
PAGE = "docs/config.rst"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    monkeypatch.chdir(root)
    return root


def _doc(text: str | None = None, path: str = PAGE) -> Document:
    return read_document(path, text if text is not None else (FIXTURE / path).read_text())


def _edit(root: Path, path: str, old: str, new: str) -> None:
    file = root / path
    text = file.read_text()
    assert old in text, old
    file.write_text(text.replace(old, new, 1))


def _check(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check"])
    return code, capsys.readouterr().out


def _exact(doc: Document, prose: Prose) -> bool:
    """Every character of the folded text leads back to the same character of the document."""
    return all(doc.text[slice(*prose.doc_span(i, i + 1))] == ch for i, ch in enumerate(prose.text) if ch != " ")


# -- the model ------------------------------------------------------------------


def test_sections_and_object_descriptions_are_headings_one_level_down():
    doc = _doc()
    levels = {h.text: (h.level, h.line) for h in doc.headings}
    assert levels["Configuration Handling"] == (1, 3)
    assert levels["Builtin Configuration Values"] == (2, 19)
    assert levels["DEBUG"] == (3, 24) and levels["TESTING"] == (3, 33)
    assert levels["max_content_length"] == (3, 39)
    assert levels["--debug"] == (3, 88) and levels["--port"] == (3, 92)
    debug = doc.section("DEBUG")
    assert debug is not None and debug.end_line == 32
    assert doc.text[debug.span[0]:debug.span[1]].startswith(".. py:data:: DEBUG")
    assert "Default: ``False``" in doc.text[debug.span[0]:debug.span[1]]
    assert "TESTING" not in doc.text[debug.body_start:debug.span[1]]
    values = doc.section("Builtin Configuration Values")
    assert values is not None and values.contains(doc.text.index("Default: ``False``"))


def test_every_part_is_placed_exactly():
    doc = _doc()
    assert all(doc.text[c.span[0]:c.span[1]] == c.text for c in doc.code_spans)
    assert all(doc.line_of(c.span[0]) == c.line for c in doc.code_spans)
    parts = [*doc.headings, *doc.sentences, *doc.paragraphs, *doc.list_items]
    parts += [c for t in doc.tables for row in (t.header, *(r.cells for r in t.rows)) for c in row]
    assert parts and all(_exact(doc, p) for p in parts)
    assert all(link.span and doc.text[link.span[0]:link.span[1]] == link.target for link in doc.links)


def test_tables_simple_grid_and_list_table_have_cells_and_rows():
    doc = _doc()
    tables = {t.columns[0]: t for t in doc.tables}
    assert tables["Backend"].columns == ("Backend", "Notes")
    assert [r.cells[0].code_texts for r in tables["Backend"].rows] == [("memory",), ("redis",), ("file",)]
    assert [(r.line, r.cells[1].text) for r in tables["Setting"].rows] == [(62, "4"), (64, "3")]
    assert [r.cells[0].code_texts for r in tables["Mode"].rows] == [("fast",), ("safe",)]
    assert tables["Mode"].rows[1].cells[1].text == "Runs every check."
    assert tables["Limit"].rows[0].cells[2].text == "MB"
    assert tables["Setting"].line == 59 and tables["Setting"].end_line == 65


def test_code_blocks_links_and_anchors():
    doc = _doc()
    assert [(b.lang, b.body, b.line) for b in doc.blocks] == [
        ("yaml", "debug: false\nport: 5000\n", 98), ("", 'app.config.from_envvar("SETTINGS")\n', 106)]
    assert doc.text[slice(*doc.blocks[0].body_span)] == "   debug: false\n   port: 5000"
    assert [(k.target, k.destination, k.line) for k in doc.links] == [
        ("deploying", "deploying.rst", 8), ("deploying.rst", "deploying.rst", 113), ("/deploying", "deploying.rst", 113)]
    names = {a.name for a in doc.anchors}
    assert {"configuration", "configuration-handling", "DEBUG", "TESTING", "confval-max_content_length",
            "cmdoption-sample-debug", "cmdoption-sample-port"} <= names


def test_sphinx_roles_and_directives_docutils_does_not_know_are_text(capsys):
    doc = _doc()
    text = " ".join(s.text for s in doc.sentences)
    assert "Press Ctrl-C to stop the server" in text  # :kbd:
    assert "The app.settings.Config object" in text  # :attr:`~app.settings.Config`
    assert "The Config class." in text  # the prose of ``.. versionadded:: 2.0``
    assert {"app.settings.Config", "load_config", "Config"} <= {c.text for c in doc.code_spans}
    assert not any("maxdepth" in p.text or p.text == "deploying" for p in doc.paragraphs)  # toctree
    strange = ".. weird:: x\n   :opt: 1\n\n   Body with :unknown:`role` and |sub|.\n\n.. include:: /etc/passwd\n"
    page = _doc("Title\n=====\n\n" + strange, "docs/strange.rst")
    assert [p.text for p in page.paragraphs] == ["Body with role and sub."]
    assert capsys.readouterr() == ("", "")


def test_a_description_option_reads_as_its_name_and_value():
    doc = _doc()
    section = doc.section("max_content_length")
    assert section is not None
    assert [s.text for s in doc.sentences if section.contains(s.span[0])][:2] == ["type: int", "default: 16"]


# -- the claim forms -------------------------------------------------------------


def test_every_rule_passes_on_the_clean_tree(project, capsys):
    code, out = _check(capsys)
    assert code == 0, out


@pytest.mark.parametrize("path,old,new,expected", [
    ("app/settings.py", "DEBUG = False", "DEBUG = True", "docs/config.rst:31: debug-default:"),
    ("app/settings.py", "REQUEST_TIMEOUT = 30", "REQUEST_TIMEOUT = 45", "docs/config.rst:16: timeout:"),
    ("app/settings.py", "WORKERS = 4", "WORKERS = 8", "docs/config.rst:62: limits: row 'Workers'"),
    ("app/settings.py", "MAX_CONTENT_LENGTH = 16", "MAX_CONTENT_LENGTH = 32",
     "docs/config.rst:41: max-length-default:"),
    ("docs/config.rst", "``redis``   Shared", "``redix``   Shared", "docs/config.rst:52: backends: `redix`"),
    ("docs/config.rst", "   * - ``safe``", "   * - ``slow``", "docs/config.rst:80: modes: `slow`"),
    ("app/cli.py", 'parser.add_argument("--port", default=5000)',
     'parser.add_argument("--port", default=5000)\nparser.add_argument("--reload")', "options: `reload`"),
    ("app/settings.py", '    FILE = "file"', '    FILE = "file"\n    S3 = "s3"', "backends-mentioned: `s3`"),
    ("app/settings.py", "def load_config(path):", "def read_config(path):", "docs/config.rst:26: references:"),
    ("docs/deploying.rst", "Back to :doc:`config`.", "Back to :doc:`config`.\nSee :doc:`gone`.",
     "docs/deploying.rst:5: links: `gone` does not exist"),
])
def test_each_claim_form_fails_naming_the_document_line_and_value(project, capsys, path, old, new, expected):
    _edit(project, path, old, new)
    code, out = _check(capsys)
    assert code == 1 and expected in out, out


# -- fix ------------------------------------------------------------------------


def test_fix_rewrites_a_paragraph_value_a_simple_cell_and_a_same_width_grid_cell(project, capsys):
    for old, new in (("DEBUG = False", "DEBUG = True"), ("REQUEST_TIMEOUT = 30", "REQUEST_TIMEOUT = 45"),
                     ("WORKERS = 4", "WORKERS = 8"), ("MAX_CONTENT_LENGTH = 16", "MAX_CONTENT_LENGTH = 32")):
        _edit(project, "app/settings.py", old, new)
    assert main(["fix"]) == 0, capsys.readouterr().out
    text = (project / PAGE).read_text()
    before = (FIXTURE / PAGE).read_text()
    for old, new in (("Default: ``False``\n\n.. py:data:: TESTING", "Default: ``True``\n\n.. py:data:: TESTING"),
                     ("after 30 seconds", "after 45 seconds"), ("| Workers     | 4       |", "| Workers     | 8       |"),
                     ("Max length  16     MB", "Max length  32     MB"), (":default: ``16``", ":default: ``32``")):
        before = before.replace(old, new)
    assert text == before
    assert main(["fix"]) == 0 and (project / PAGE).read_text() == text  # idempotent
    assert main(["check"]) == 0


def test_fix_refuses_a_grid_cell_that_would_change_width_and_rows_of_rst_tables(project, capsys):
    _edit(project, "app/settings.py", "RETRIES = 3", "RETRIES = 12")
    _edit(project, "app/settings.py", '    FILE = "file"', '    FILE = "file"\n    S3 = "s3"')
    assert main(["fix"]) == 1
    out = capsys.readouterr().out
    assert "'3' -> '12' would change the width of a grid table's cell" in out
    assert "fix adds rows to markdown tables only" in out
    assert (project / PAGE).read_text() == (FIXTURE / PAGE).read_text()


# -- selftest and the cache ------------------------------------------------------


def test_selftest_catches_every_mutation_of_the_rst_rules(project, capsys):
    code = main(["selftest"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "every rule caught every mutation" in out
    assert "added a row holding ``driftguard_selftest`` to the 'Backend' table" in out


def test_a_widened_simple_table_still_reads_as_the_same_table():
    from driftguard.selftest import doc_rst

    text = (FIXTURE / PAGE).read_text()
    doc = _doc(text)
    table = next(t for t in doc.tables if t.columns[0] == "Backend")
    new, line = doc_rst.add_row(text, table, 0, "selftest filler")
    again = next(t for t in _doc(new).tables if t.columns[0] == "Backend")
    assert [r.cells[0].text for r in again.rows][-1] == "driftguard_selftest" and line == again.rows[-1].line
    grid = next(t for t in doc.tables if t.columns[0] == "Setting")
    cell = grid.rows[0].cells[1]
    wide = doc_rst.refit(text, doc, cell.span, "driftguard_selftest")
    assert [r.cells[1].text for r in next(t for t in _doc(wide).tables if t.columns[0] == "Setting").rows] == [
        "driftguard_selftest", "3"]


def test_a_cached_check_of_rst_pages_imports_no_docutils(tmp_path):
    probe = ("import sys\nfrom driftguard.cli import main\n"
             "code = main(['check', '--config', sys.argv[1], '--root', sys.argv[2]])\n"
             "print(sorted(m for m in ('docutils', 'markdown_it') if m in sys.modules))\nraise SystemExit(code)\n")
    env = {**os.environ, "DRIFTGUARD_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DRIFTGUARD_NO_CACHE", None)
    args = [sys.executable, "-c", probe, str(FIXTURE / "driftguard.yaml"), str(FIXTURE)]
    cold = subprocess.run(args, capture_output=True, text=True, env=env, check=False, cwd=REPO)
    assert cold.returncode == 0 and "docutils" in cold.stdout, cold.stdout + cold.stderr
    warm = subprocess.run(args, capture_output=True, text=True, env=env, check=False, cwd=REPO)
    assert warm.returncode == 0 and warm.stdout.strip().splitlines()[-1] == "[]", warm.stdout + warm.stderr


@pytest.mark.parametrize("text", [
    "Title\n=====\n\na\x00b ``c``\u2028d ``e``\n",
    "\ufeffTitle\n=====\n\n* a\t``c``\n\n=====\t===\nA\tB\n=====\t===\n``e``\tx\n=====\t===\n",
    "Title\r\n=====\r\n\r\nsome ``c`` and\r\n``e``\r\n",
])
def test_nul_tabs_crlf_a_bom_and_other_line_separators_keep_spans_exact(text):
    doc = _doc(text, "docs/odd.rst")
    assert [(c.text, text[c.span[0]:c.span[1]]) for c in doc.code_spans] == [("c", "c"), ("e", "e")]
    assert [h.text for h in doc.headings] == ["Title"]


def test_a_page_nested_too_deeply_is_a_parse_error_not_a_crash():
    from driftguard.model import ParseError

    with pytest.raises(ParseError, match="nested too deeply"):
        _doc("".join("  " * i + "- x\n\n" for i in range(400)), "docs/deep.rst")
