"""references report only with evidence that a span names this repository's code: its
shape (a call, a known package's member, a source path under a folder the tree has) or
its history (the code held it when the line was written); names the documents define
and ``instance.member`` resolve; the hint names the commit that removed a name and what
it added; nothing outside the root is read; driftguard's own reports keep nothing alive."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from driftguard.cli import main
from tests.helpers import check, commit_all, new_repo, write_tree

CODE = """\
MAX_TURNS = 8


class DevEnvironment:
    def fetch_module(self):
        return None


def load_file(path):
    return path
"""

DOC = """\
# Guide

Turns stop at `MAX_TURNS`. Call `load_file()` to read one.

Drop `NET_RAW` and set `customRequestHeaders` in the proxy; write `dns-credentials.env`
and `alerts.yml`, see `other-repo/internal/thing.go` and `AWS_REGION`.

Use `environment.fetch_module` on the instance, and `build.assetsInlineLimit`.
"""

OPTIONS = "# Options\n\n## `build.assetsInlineLimit`\n\nInline below this size.\n"

CONFIG = """\
version: 1
facts:
  code: {file: 'src/**/*.py', symbols: true}
rules:
  - id: refs
    fact: code
    doc: 'docs/*.md'
    references: true
"""


def _tree(root: Path, code: str = CODE, doc: str = DOC, config: str = CONFIG) -> Path:
    return write_tree(root, {"src/app/core.py": code, "docs/guide.md": doc, "docs/options.md": OPTIONS,
                             "driftguard.yaml": config})


def test_spans_with_no_evidence_are_not_reported_and_strict_reports_them(tmp_path, capsys):
    root = _tree(tmp_path)
    code, out = check(capsys, root)
    assert code == 0, out
    code, out = check(capsys, _tree(tmp_path, config=CONFIG.replace("references: true", "references: {strict: true}")))
    assert code == 1
    for name in ("NET_RAW", "customRequestHeaders", "dns-credentials.env", "alerts.yml", "AWS_REGION"):
        assert f"`{name}`" in out


def test_names_the_documents_define_and_instance_members_resolve_even_under_strict(tmp_path, capsys):
    root = _tree(tmp_path, config=CONFIG.replace("references: true", "references: {strict: true}"))
    code, out = check(capsys, root)
    assert "`build.assetsInlineLimit`" not in out and "`environment.fetch_module`" not in out


@pytest.mark.parametrize(("span", "why"), [
    ("`useWorkloadResources()`", "a call"),
    ("`core.reload`", "a member of a module the code declares"),
    ("`src/app/gone.py`", "a source path under a folder the repository has"),
])
def test_a_span_shaped_as_this_repositorys_code_is_reported(tmp_path, capsys, span, why):
    root = _tree(tmp_path, doc=DOC + f"\nAlso {span}.\n")
    code, out = check(capsys, root)
    assert code == 1, why
    assert f"docs/guide.md:10: refs: {span}" in out


def test_a_name_the_code_held_when_the_line_was_written_is_reported_with_its_rename(tmp_path, capsys):
    root = _tree(tmp_path)
    new_repo(root)
    commit_all(root, "First")
    (root / "src/app/core.py").write_text(CODE.replace("MAX_TURNS", "MAX_TURN_LIMIT").replace("load_file",
                                                                                            "load_config_file"))
    renamed = commit_all(root, "Rename loader")
    code, out = check(capsys, root)
    assert code == 1
    assert (f"docs/guide.md:3: refs: `MAX_TURNS` names nothing in the symbols of `code` or elsewhere in the "
            f"repository; removed in {renamed} (2026-04-02, 'Rename loader'), which added `MAX_TURN_LIMIT`") in out
    assert "`load_file()` names nothing" in out and "which added `load_config_file`" in out
    assert "NET_RAW" not in out  # never in the code: not this project's


def test_a_name_only_vendored_code_held_is_no_evidence(tmp_path, capsys):
    root = _tree(tmp_path)
    write_tree(root, {"vendor/cloud/auth.go": 'package auth\n\nconst env = "AWS_REGION"\n'})
    new_repo(root)
    commit_all(root, "Vendor a cloud SDK")  # the guide's line is written while the SDK is vendored
    (root / "vendor/cloud/auth.go").unlink()
    commit_all(root, "Drop the SDK")
    code, out = check(capsys, root)
    assert "AWS_REGION" not in out, out  # another project's name, not this one's code gone stale
    code, out = check(capsys, root, "--format", "json")
    skipped = [s for r in json.loads(out)["rules"] for s in r["skipped"]]
    assert any("`AWS_REGION`" in s for s in skipped)


def test_a_deleted_name_says_the_commit_and_a_moved_file_names_its_new_place(tmp_path, capsys):
    root = _tree(tmp_path, doc=DOC + "\nThe loader lives in `src/app/core.py`.\n")
    new_repo(root)
    commit_all(root, "First")
    (root / "src/app/core.py").write_text(CODE.replace("MAX_TURNS = 8\n", ""))
    deleted = commit_all(root, "Drop the turn cap")
    (root / "src/app/core.py").rename(root / "src/app/engine.py")
    (root / "src/lib").mkdir()
    (root / "src/app/engine.py").rename(root / "src/lib/core.py")
    commit_all(root, "Move the core")
    code, out = check(capsys, root)
    assert code == 1
    assert f"`MAX_TURNS` names nothing in the symbols of `code` or elsewhere in the repository; removed in {deleted}" \
           in out
    assert "`src/app/core.py` names no file or folder of the repository; a file of that name: `src/lib/core.py`" \
           in out


def test_a_warm_run_asks_git_nothing(tmp_path, capsys, monkeypatch):
    root = _tree(tmp_path)
    new_repo(root)
    commit_all(root, "First")
    (root / "src/app/core.py").write_text(CODE.replace("MAX_TURNS", "MAX_TURN_LIMIT"))
    commit_all(root, "Rename")
    first = check(capsys, root)
    calls: list[list[str]] = []
    real = subprocess.run

    def counting(args, *rest, **kw):  # type: ignore[no-untyped-def]
        calls.append(list(args))
        return real(args, *rest, **kw)

    monkeypatch.setattr(subprocess, "run", counting)
    assert check(capsys, root) == first
    assert [c[1] for c in calls if c[0] == "git"] == ["ls-files", "rev-parse"]  # no blame, grep, log or show


def test_a_path_never_leads_outside_the_root(tmp_path, capsys):
    outside = write_tree(tmp_path / "outside", {"secret.py": "X = 1\n"})
    root = _tree(tmp_path / "repo", doc=DOC + "\nSee `../../outside/secret.py`, `docs/../../../outside/secret.py`, "
                                         "`link/secret.py` and `docs/../../outside/*.py`.\n",
                 config=CONFIG.replace("references: true", "references: {strict: true}"))
    (root / "link").symlink_to(outside, target_is_directory=True)
    code, out = check(capsys, root)
    assert code == 1
    for span in ("../../outside/secret.py", "docs/../../../outside/secret.py", "link/secret.py",
                 "docs/../../outside/*.py"):
        assert f"`{span}` names no file or folder of the repository" in out


def test_driftguards_own_reports_keep_no_stale_name_alive(tmp_path, capsys):
    root = _tree(tmp_path, code=CODE.replace("MAX_TURNS", "MAX_TURN_LIMIT"),
                 config=CONFIG.replace("references: true", "references: {strict: true}"))
    for fmt, name in (("sarif", "driftguard.sarif"), ("json", "report.json")):
        assert main(["check", "--config", str(root / "driftguard.yaml"), "--format", fmt, "--output",
                     str(root / name)]) == 1
        capsys.readouterr()
    assert "MAX_TURNS" in (root / "driftguard.sarif").read_text()
    json.loads((root / "report.json").read_text())
    (root / "driftguard.yaml").write_text(CONFIG.replace("references: true", "references: {strict: true}")
                                          + "baseline: known.json\n")
    assert main(["baseline", "--update", "--config", str(root / "driftguard.yaml")]) == 0
    assert "MAX_TURNS" in (root / "known.json").read_text()
    (root / "driftguard.yaml").write_text(CONFIG.replace("references: true", "references: {strict: true}"))
    capsys.readouterr()
    code, out = check(capsys, root)
    assert code == 1 and "`MAX_TURNS` names nothing" in out


def test_report_lists_what_it_did_not_judge_and_why(tmp_path, capsys):
    root = _tree(tmp_path)
    assert main(["report", "--config", str(root / "driftguard.yaml")]) == 0
    out = capsys.readouterr().out
    assert "not judged (" in out
    assert "docs/guide.md:5: `NET_RAW`: no evidence it names this repository's code" in out


def test_a_warm_run_reads_no_repository_file_and_a_change_rereads_its_folder(tmp_path, capsys, monkeypatch):
    from driftguard.judging import repository

    root = _tree(tmp_path, config=CONFIG.replace("references: true", "references: {strict: true}"))
    write_tree(root, {"deploy/compose.yml": "cap_drop: [NET_RAW]\n", "deploy/notes.txt": "AWS_REGION\n",
                      "scripts/run.sh": "echo customRequestHeaders\n"})
    first = check(capsys, root)
    assert first[0] == 1 and "`NET_RAW`" not in first[1] and "`dns-credentials.env`" in first[1]
    read: list[str] = []
    real = repository.read_names

    def counting(root: Path, max_file_size: int, path: str) -> frozenset[str]:
        read.append(path)
        return real(root, max_file_size, path)

    monkeypatch.setattr(repository, "read_names", counting)
    assert check(capsys, root) == first
    assert read == []
    (root / "deploy/compose.yml").write_text("cap_drop: [NET_ADMIN]\n")
    code, out = check(capsys, root)
    assert sorted(read) == ["deploy/compose.yml", "deploy/notes.txt"]
    assert "`NET_RAW`" in out and "`NET_RAW`" not in first[1]


TS_CODE = """\
export class Response {
  iterBytes(): void {}
}

export function build(): void {}
"""

TS_CONFIG = CONFIG.replace("'src/**/*.py'", "'src/**/*.ts'")

TS_OPTIONS = "# Options\n\n## oxc\n\nTransforms.\n\n## build.rolldownOptions\n\nPassed on.\n"


@pytest.mark.parametrize(("span", "reported"), [
    ("`response.iterContent()`", True),  # a call on an instance of the code's type Response
    ("`Response.iterContent`", True),  # a member of a type the code declares
    ("`event.preventDefault()`", False),  # a call on something the code declares no type of
    ("`build.target`", False),  # build.ts is a module file, but a TypeScript path names no namespace
    ("`oxc.include`", False),  # an option under a heading the documents define
    ("`build.rolldownOptions.output.intro`", False),
])
def test_typescript_evidence_and_documented_options(tmp_path, capsys, span, reported):
    root = write_tree(tmp_path, {"src/build.ts": TS_CODE, "docs/guide.md": f"# Guide\n\nCall {span} here.\n",
                                 "docs/options.md": TS_OPTIONS, "driftguard.yaml": TS_CONFIG})
    code, out = check(capsys, root)
    assert (code, f"docs/guide.md:3: refs: {span} names nothing" in out) == ((1, True) if reported else (0, False)), out


def test_an_option_under_a_documented_heading_still_fails_when_its_head_is_a_code_type(tmp_path, capsys):
    options = TS_OPTIONS + "\n## Response\n\nWhat a request gives back.\n"
    root = write_tree(tmp_path, {"src/build.ts": TS_CODE, "docs/guide.md": "# Guide\n\nCall `Response.gone` here.\n",
                                 "docs/options.md": options, "driftguard.yaml": TS_CONFIG})
    code, out = check(capsys, root)
    assert code == 1 and "docs/guide.md:3: refs: `Response.gone` names nothing" in out, out


def test_a_call_a_bullet_names_is_judged_though_the_bullet_defines_it(tmp_path, capsys):
    doc = "# API\n\n* `load_file()`\n* `close()`\n"
    code, out = check(capsys, _tree(tmp_path, doc=doc))
    assert code == 1 and "docs/guide.md:4: refs: `close()` names nothing" in out, out
    assert "load_file" not in out
