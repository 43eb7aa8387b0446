"""The ``query`` selector end to end: one fixture project per language
(``tests/fixtures/query/<language>``: a source, a guide and the config guarding it),
checked clean, with drift, by the selftest and through the cache; and the errors a
config can make (a bad query, an unknown language, a grammar package not installed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from driftguard.config.specs import Query
from driftguard.judging.fingerprints import libraries, library_fingerprint
from driftguard.sources import load_reader, reader_name
from driftguard.sources.query import grammars
from tests.helpers import run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "query"
LANGUAGES = ("rust", "java", "c", "cpp", "ruby")

DRIFT = {
    # language: (document edits, what the check must report)
    "rust": ([("| `Slow` | slowly |\n", ""), ("port 8080", "port 8081")],
             ["docs/guide.md:5: modes: ", "`Slow`", "docs/guide.md:10: port: ", "'8081'"]),
    "java": ([("| `DEFAULT_HOST` | where the client connects |", "| `DEFAULT_PORT` | where the client connects |"),
              ("up to 5 times", "up to 3 times")],
             ["docs/guide.md:6: constants: ", "`DEFAULT_PORT`", "docs/guide.md:9: retries: ", "'3'"]),
    "c": ([("| `LOG_WARN` | 2 |\n", "| `LOG_WARN` | 2 |\n| `LOG_ERROR` | 3 |\n"), ("at most 64", "at most 128")],
          ["docs/guide.md:10: levels: ", "`LOG_ERROR`", "docs/guide.md:12: max-conn: ", "'128'"]),
    "cpp": ([("| `Info` | the usual |\n", ""), ("port is 8080", "port is 8000")],
            ["docs/guide.md:3: levels: ", "`Info`", "docs/guide.md:8: port: ", "'8000'"]),
    "ruby": ([("| `timeout` | 30 |\n", "| `timeout` | 30 |\n| `workers` | 4 |\n"),
              ("| `host` | localhost |", "| `host` | example.org |")],
             ["docs/guide.md:8: options: ", "`workers`", "docs/guide.md:6: host: ", "'example.org'"]),
}


def _project(tmp_path: Path, language: str, edits: list[tuple[str, str]] = ()) -> Path:
    root = tmp_path / language
    shutil.copytree(FIXTURES / language, root)
    guide = root / "docs" / "guide.md"
    text = guide.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    guide.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_reads_its_facts_and_passes_a_clean_guide(tmp_path, capsys, language):
    root = _project(tmp_path, language)
    code, out = run_cli(capsys, "check", "--config", str(root / "driftguard.yaml")).outcome
    assert code == 0, out
    assert "2 rules: 2 passed" in out


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_fails_on_drift_naming_document_line_and_value(tmp_path, capsys, language):
    edits, expected = DRIFT[language]
    root = _project(tmp_path, language, edits)
    code, out = run_cli(capsys, "check", "--config", str(root / "driftguard.yaml")).outcome
    assert code == 1, out
    for part in expected:
        assert part in out, out


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_selftest_catches_a_new_member_and_a_changed_value_in_each_language(tmp_path, capsys, language):
    root = _project(tmp_path, language)
    code, out = run_cli(capsys, "selftest", "--config", str(root / "driftguard.yaml")).outcome
    assert code == 0, out
    assert "4 mutations (4 caught)" in out, out
    assert "code: new member" in out and "code: value changed" in out


def test_the_selftest_writes_the_new_member_beside_its_neighbours(tmp_path, capsys):
    root = _project(tmp_path, "rust")
    code, out = run_cli(capsys, "selftest", "--config", str(root / "driftguard.yaml")).outcome
    assert code == 0, out
    assert "added `CarefulSelftest = 3`" in out and "`8_080u16` -> `8_081u16`" in out, out
    assert (root / "src" / "mode.rs").read_text() == (FIXTURES / "rust" / "src" / "mode.rs").read_text()


def _config(root: Path, query: str, language: str = "rust") -> Path:
    config = root / "driftguard.yaml"
    text = (FIXTURES / "rust" / "driftguard.yaml").read_text()
    old = "'((enum_item name: (type_identifier) @_enum body: (enum_variant_list (enum_variant name: (identifier) " \
          "@value))) (#eq? @_enum \"Mode\"))'"
    assert old in text
    text = text.replace(old, "'" + query + "'").replace("language: rust\n", f"language: {language}\n", 1)
    config.write_text(text)
    return config


@pytest.mark.parametrize(("query", "language", "expected"), [
    ("(enum_varient name: (identifier) @value)", "rust",
     "the rust query does not compile: Invalid node type at row 0, column 1: enum_varient"),
    ("(enum_variant nom: (identifier) @value)", "rust", "Invalid field name at row 0, column 14: nom"),
    ("((enum_variant name: (identifier) @value) (#is-upper? @value))", "rust",
     "uses the predicate `#is-upper?`, which driftguard does not apply (tree-sitter would keep every match)"),
    ("(enum_variant name: (identifier) @values)", "rust", "the query captures no `@value` (it captures @values)"),
    ("(enum_variant name: (identifier) @value)", "rusty",
     "no tree-sitter grammar is known for language 'rusty' (did you mean 'rust'?); `query` reads c, cpp, go,"),
])
def test_a_query_the_grammar_refuses_is_a_config_error_naming_the_fact_and_file(tmp_path, capsys, query, language,
                                                                                  expected):
    root = _project(tmp_path, "rust")
    code, out = run_cli(capsys, "check", "--config", str(_config(root, query, language))).outcome
    assert code == 2, out
    assert "docs/guide.md: modes: fact 'modes': " in out and expected in out and "(source: src/mode.rs)" in out, out
    assert "Traceback" not in out


def test_a_bad_regex_in_a_match_predicate_is_a_pattern_error(tmp_path, capsys):
    root = _project(tmp_path, "rust")
    code, out = run_cli(capsys, "check", "--config", str(_config(root, '((enum_variant name: (identifier) @value) (#match? @value "(F"))'))).outcome
    assert code == 2, out
    assert "invalid regular expression '(F': the #match? regex does not compile" in out


def test_a_grammar_package_not_installed_is_a_config_error_naming_the_package(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tree_sitter_ruby", None)  # importing it now raises ImportError
    monkeypatch.setattr(grammars, "_loaded", {})
    root = _project(tmp_path, "ruby")
    code, out = run_cli(capsys, "check", "--config", str(root / "driftguard.yaml")).outcome
    assert code == 2, out
    assert ("reading ruby needs the grammar package tree-sitter-ruby, which is not installed: "
            "pip install tree-sitter-ruby (or pip install 'driftguard[languages]' for every grammar)") in out
    assert "(source: lib/server.rb)" in out


def test_a_query_that_matches_nothing_is_fact_not_found_naming_the_query(tmp_path, capsys):
    root = _project(tmp_path, "rust")
    code, out = run_cli(capsys, "check", "--config", str(_config(root, "(union_item name: (type_identifier) @value)"))).outcome
    assert code == 1, out
    assert ("docs/guide.md: modes: fact 'modes': the rust query '(union_item name: (type_identifier) @value)' "
            "matches nothing") in out and "(source: src/mode.rs)" in out


def test_a_query_fact_is_read_by_the_query_reader_whatever_the_extension():
    selector = Query(language="c", query="(preproc_def name: (identifier) @value)")
    assert reader_name("include/config.h", selector) == "driftguard.sources.query:c"
    assert reader_name("src/main.go", selector) == "driftguard.sources.query:c"
    assert load_reader("driftguard.sources.query:c").extract.__module__ == "driftguard.sources.query.reader"


def test_the_cache_is_keyed_by_the_grammar_package_of_the_language():
    assert libraries("driftguard.sources.query:rust") == (("tree_sitter", "tree-sitter"),
                                                          ("tree_sitter_rust", "tree-sitter-rust"))
    assert libraries("driftguard.sources.query:c++") == libraries("driftguard.sources.query:cpp")
    assert libraries("driftguard.sources.query:tsx")[1] == ("tree_sitter_typescript", "tree-sitter-typescript")
    assert libraries("driftguard.sources.query:cobol") is None  # never cached
    found = library_fingerprint("driftguard.sources.query:ruby")
    assert found is not None and "tree-sitter-ruby=" in found and "tree-sitter=" in found


def test_a_grammar_upgrade_is_a_cache_miss(tmp_path, monkeypatch):
    from driftguard.judging import fingerprints
    from driftguard.judging.cache import FactCache

    cache, reader, calls = FactCache(tmp_path / "cache"), "driftguard.sources.query:rust", []
    selector = Query(language="rust", query="(enum_variant name: (identifier) @value)")

    def compute():
        calls.append(1)
        return ()

    for _ in range(2):
        cache.items(reader, "src/a.rs", "enum E { A }", selector, compute)
    assert len(calls) == 1  # the second read is a hit
    versions = dict(fingerprints._libraries)
    versions[reader] = versions[reader].replace("tree-sitter-rust=", "tree-sitter-rust=9")
    monkeypatch.setattr(fingerprints, "_libraries", versions)
    cache.items(reader, "src/a.rs", "enum E { A }", selector, compute)
    assert len(calls) == 2


PROBE = (
    "import sys\n"
    "from driftguard.cli import main\n"
    "code = main(['check', '--config', sys.argv[1], '--format', 'json'])\n"
    "print('IMPORTED', sorted(m for m in sys.modules if m.startswith('tree_sitter')))\n"
    "raise SystemExit(code)\n"
)


@pytest.mark.parametrize("language", ["rust", "c"])
def test_a_cached_second_run_gives_the_same_result_and_imports_no_tree_sitter(tmp_path, language):
    root = _project(tmp_path, language, DRIFT[language][0][:1])
    env = {**os.environ, "DRIFTGUARD_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("DRIFTGUARD_NO_CACHE", None)
    args = [sys.executable, "-c", PROBE, str(root / "driftguard.yaml")]
    cold = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    warm = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    assert cold.returncode == warm.returncode == 1, cold.stdout + cold.stderr
    cold_out, cold_imported = cold.stdout.rsplit("IMPORTED", 1)
    warm_out, warm_imported = warm.stdout.rsplit("IMPORTED", 1)
    assert f"tree_sitter_{language}" in cold_imported
    assert warm_imported.strip() == "[]", warm.stdout
    assert warm_out == cold_out
