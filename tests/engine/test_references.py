"""references: every symbol and path a document names resolves, or the finding says
what is closest and where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftguard.cli import main
from driftguard.documents.references import Shape, shape_of
from tests.helpers import run_cli, write_tree

LOOP = '''
def build_blocked_output(reason):
    return {"blocked": reason}


class Session:
    def reset(self):
        self.state = "READING"


MAX_TURNS = 8
ERROR_CODE = "resource_not_found"
STATE_FILE = "ai_sessions.json"
'''

GUIDE = """# Guide

Call `build_blocked_output()` when a tool is refused; `Session.reset()` clears it.
The loop stops after `MAX_TURNS` turns and reports `resource_not_found`.
Sessions are kept in `ai_sessions.json`; the loop lives in `src/loop.py`.
Set `PULSE_DATA_DIR` to move them; see `deploy/pulse.service`.

```python
blocked_output()  # code blocks are never read
```

Routes such as `/api/state`, flags such as `--dry-run`, URLs `https://x.example/a.go` and
`{placeholder}` or `a = b` are not references, nor is `grafana/grafana`.
"""

CONFIG = """
version: 1
facts:
  symbols:
    file: 'src/**/*.py'
    symbols: true
rules:
  - id: references
    fact: symbols
    doc: 'docs/*.md'
    references: {strict: true}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = write_tree(tmp_path, {
        "src/loop.py": LOOP,
        "docs/guide.md": GUIDE,
        "deploy/pulse.service": "[Service]\nEnvironment=PULSE_DATA_DIR=/var/lib/pulse\n",
        "driftguard.yaml": CONFIG,
    })
    monkeypatch.chdir(root)
    return root


def test_a_document_whose_references_resolve_passes(project, capsys):
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 0, out


def test_a_renamed_function_is_reported_with_the_closest_symbol(project, capsys):
    guide = project / "docs/guide.md"
    guide.write_text(GUIDE.replace("`build_blocked_output()`", "`blocked_output()`"))
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 1
    assert ("docs/guide.md:3: references: `blocked_output()` names nothing in the symbols of `symbols`"
            in out)
    assert "closest: `build_blocked_output` (src/loop.py:1)" in out


def test_a_renamed_method_and_constant_are_reported(project, capsys):
    (project / "src/loop.py").write_text(LOOP.replace("def reset", "def clear").replace("MAX_TURNS", "TURN_LIMIT"))
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 1
    assert "docs/guide.md:3: references: `Session.reset()` names nothing" in out
    assert "docs/guide.md:4: references: `MAX_TURNS` names nothing" in out


def test_a_moved_file_is_reported_and_a_glob_must_match(project, capsys):
    (project / "src/loop.py").rename(project / "src/agent.py")
    guide = project / "docs/guide.md"
    guide.write_text(GUIDE + "\nHandlers live in `src/handlers/*.py`.\n")
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 1
    assert "docs/guide.md:5: references: `src/loop.py` names no file or folder of the repository" in out
    assert "`src/handlers/*.py` names no file" in out


def test_a_name_used_elsewhere_in_the_repository_is_not_drift(project, capsys):
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert "PULSE_DATA_DIR" not in out
    (project / "deploy/pulse.service").write_text("[Service]\n")
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 1 and "docs/guide.md:6: references: `PULSE_DATA_DIR` names nothing" in out


def test_repository_false_resolves_only_against_the_symbols(project, capsys):
    cfg = project / "driftguard.yaml"
    cfg.write_text(CONFIG.replace("references: {strict: true}", "references: {repository: false, strict: true}"))
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 1 and "`PULSE_DATA_DIR` names nothing" in out


def test_ignore_leaves_spans_alone(project, capsys):
    (project / "deploy/pulse.service").write_text("[Service]\n")
    cfg = project / "driftguard.yaml"
    cfg.write_text(CONFIG.replace("references: {strict: true}", "references: {ignore: ['^PULSE_'], strict: true}"))
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 0, out


def test_a_sentence_that_places_a_symbol_in_the_wrong_file_is_reported(project, capsys):
    (project / "src/other.py").write_text("def helper():\n    pass\n")
    guide = project / "docs/guide.md"
    guide.write_text(GUIDE + "\n`build_blocked_output()` in `src/other.py` builds it.\n")
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 1
    assert ("`build_blocked_output` is not defined in `src/other.py`; the code defines it in src/loop.py:1"
            in out)
    guide.write_text(GUIDE + "\n`build_blocked_output()` (`src/loop.py`) builds it.\n")
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 0, out


def test_a_package_qualified_name_placed_in_its_own_file_is_where_it_says(tmp_path, monkeypatch, capsys):
    write_tree(tmp_path, {
        "internal/alerts/policy.go": "package alerts\n\ntype ThresholdPolicy struct{}\n",
        "docs/a.md": "# A\n\n`alerts.ThresholdPolicy` in `internal/alerts/policy.go` holds it.\n",
        "driftguard.yaml": CONFIG.replace("src/**/*.py", "internal/**/*.go"),
    })
    monkeypatch.chdir(tmp_path)
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 0, out
    (tmp_path / "docs/a.md").write_text("# A\n\n`alerts.ThresholdPolicy` in `internal/alerts/other.go` holds it.\n")
    (tmp_path / "internal/alerts/other.go").write_text("package alerts\n")
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 1 and "docs/a.md:3: references: `alerts.ThresholdPolicy` is not defined in " \
        "`internal/alerts/other.go`; the code defines it in internal/alerts/policy.go:3" in out


def test_bare_identifiers_are_checked_only_with_bare(project, capsys):
    guide = project / "docs/guide.md"
    guide.write_text(GUIDE + "\nThe `vanished_helper` is gone.\n")
    assert run_cli(capsys, "check", "--no-cache").outcome[0] == 0
    (project / "driftguard.yaml").write_text(CONFIG.replace("references: {strict: true}", "references: {bare: true, strict: true}"))
    code, out = run_cli(capsys, "check", "--no-cache").outcome
    assert code == 1 and "`vanished_helper` names nothing" in out


def test_json_report_lists_the_claims_read(project, capsys):
    assert main(["report", "--format", "json", "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)
    (rule,) = data["rules"]
    values = [c["value"] for c in rule["claims"]]
    assert "build_blocked_output()" in values and "src/loop.py" in values
    assert "/api/state" not in values and "blocked_output()" not in values
    assert all(c["doc"]["path"] == "docs/guide.md" and c["doc"]["line"] for c in rule["claims"])


@pytest.mark.parametrize("span, kind", [
    ("blocked_output()", "call"), ("Session.Reset()", "call"), ("pkg.Name", "dotted"), ("MAX_TURNS", "identifier"),
    ("sessionState", "identifier"), ("SessionState", "identifier"), ("internal/alerts/alerts.go", "path"),
    ("internal/api/*.go", "path"), ("README.md", "path"), ("../other.md", "path"),
])
def test_reference_shapes(span, kind):
    shape = shape_of(span)
    assert shape is not None and shape.kind == kind


@pytest.mark.parametrize("span", [
    "/api/v1", "--flag", "-x", "a = b", "http://x/y.go", "{id}", "<T>", "two words", "Session", "json", "1.5",
    "v1.2.3", "_test.go", "*.md", "~/.cache/x", "$HOME/x",
])
def test_not_references(span):
    assert shape_of(span) is None


def test_a_path_without_an_extension_must_start_at_the_top_of_the_tree():
    top = frozenset({"internal", "docs"})
    assert shape_of("internal/api", top=top) is not None
    assert shape_of("tools/list", top=top) is None
    assert shape_of("tools/list.go", top=top) is not None


def test_go_symbols_resolve_methods_and_a_renamed_method_is_reported(tmp_path, monkeypatch, capsys):
    root = write_tree(tmp_path, {
        "internal/a.go": 'package a\n\ntype Service struct {\n\tName string `json:"name"`\n}\n\n'
                         "func (s *Service) Reset() {}\n\nfunc NewService() *Service { return nil }\n",
        "docs/d.md": "# D\n\nCall `Service.Reset()` or `chat.NewService()`.\n",
        "driftguard.yaml": "version: 1\nfacts:\n  symbols: {file: 'internal/**/*.go', symbols: true}\n"
                           "rules:\n  - {id: references, fact: symbols, doc: 'docs/*.md', references: {strict: true}}\n",
    })
    monkeypatch.chdir(root)
    assert main(["check", "--no-cache"]) == 0, capsys.readouterr().out
    (root / "internal/a.go").write_text((root / "internal/a.go").read_text().replace("Reset()", "Restart()"))
    assert main(["check", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "docs/d.md:3: references: `Service.Reset()` names nothing" in out and "closest: `Service.Restart`" in out


@pytest.mark.parametrize("span", ["metrics.db", "audit.sqlite", "events.jsonl", "server.pem", "rows.csv"])
def test_a_data_file_name_is_a_path_not_a_dotted_name(span):
    assert shape_of(span) == Shape("path", span)


def test_a_data_file_resolves_only_as_a_file_or_a_literal_never_by_a_field_of_that_name(tmp_path, monkeypatch,
                                                                                         capsys):
    root = write_tree(tmp_path, {
        "internal/store.go": 'package store\n\ntype Store struct {\n\tdb string\n}\n\n'
                             'const file = "metrics.db"\n',
        "docs/a.md": "# A\n\nSamples go to `metrics.db`; audits to `bogus.db`.\n",
        "driftguard.yaml": "version: 1\nfacts:\n  code: {file: 'internal/*.go', symbols: true}\n"
                           "rules:\n  - {id: refs, fact: code, doc: docs/a.md, references: {strict: true}}\n",
    })
    monkeypatch.chdir(root)
    assert main(["check", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "docs/a.md:3: refs: `bogus.db` names no file or folder of the repository" in out
    assert "metrics.db" not in out
