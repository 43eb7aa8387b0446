"""Every rule `discover` emits can fail: proving, the screenful, best first, progress."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import yaml

from driftguard.config.loader import load_config
from driftguard.discover import LIMIT, discover, render_config
from driftguard.discover.prove import prove
from driftguard.selftest import run_selftest
from tests.helpers import edit, judge, run_cli

ERRORS_GO = 'package e\n\nconst (\n\tErrNotFound = "not_found"\n\tErrBadInput = "bad_input"\n\tErrTimeout = "timed_out"\n)\n'
ERRORS_DOC = ("# Errors\n\n## Codes\n\nA lookup answers `not_found`, a parse `bad_input`, a slow upstream "
              "`timed_out`.\n")


def _limits_tree(tree, count: int) -> Path:
    """``count`` constants, each stated by one sentence with a different amount of evidence."""
    consts = "\n".join(f"MAX_WIDGET{i}_SLOTS = {100 + i}" for i in range(count))
    doc = "\n\n".join(f"Widget{i} holds up to {100 + i} slots" + (f" (`MAX_WIDGET{i}_SLOTS`)" if i % 2 else "") + "."
                      for i in range(count))
    return tree({"limits.py": consts + "\n", "docs/limits.md": "# Limits\n\n" + doc + "\n"})


def test_a_default_run_proposes_a_screenful_best_first(tree) -> None:
    root = _limits_tree(tree, LIMIT + 6)
    found = discover(root)
    assert len(found.proposals) == LIMIT and found.more == 6
    confidences = [p.confidence for p in found.proposals]
    assert confidences == sorted(confidences, reverse=True)
    named = [p for p in found.proposals if p.basis.startswith("the sentence names")]
    assert len(named) == (LIMIT + 6) // 2 and found.proposals[:len(named)] == tuple(named)  # named ones first
    text = render_config(found)
    assert "6 more candidates below these were not shown; `driftguard discover --all`" in text
    ids = [line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("  - id: ")]
    assert ids == [p.id for p in found.proposals]


def test_no_limit_proves_and_lists_every_candidate(tree) -> None:
    root = _limits_tree(tree, LIMIT + 6)
    found = discover(root, limit=None)
    assert len(found.proposals) == LIMIT + 6 and found.more == 0
    (root / "driftguard.yaml").write_text(render_config(found), encoding="utf-8")
    result = run_selftest(load_config(root / "driftguard.yaml"))
    assert result.ok and all(r.can_fail for r in result.rules)


def test_progress_is_told_each_file_scanned_and_each_rule_proved(tree) -> None:
    root = tree({"e/errors.go": ERRORS_GO, "docs/errors.md": ERRORS_DOC, "notes.md": "# Notes\n"})
    messages: list[str] = []
    found = discover(root, progress=messages.append)
    assert sorted(m for m in messages if m.startswith("scanned ")) == [
        "scanned docs/errors.md", "scanned e/errors.go", "scanned notes.md"]
    assert [m for m in messages if not m.startswith("scanned ")] == [f"proved {p.id}" for p in found.proposals]
    assert found.proposals  # the Codes section


def test_progress_from_worker_processes_comes_back_per_file(tree) -> None:
    files = {f"pkg{i}/errors.go": ERRORS_GO.replace("package e", f"package p{i}") for i in range(6)}
    root = tree({**files, "docs/errors.md": ERRORS_DOC})
    messages: list[str] = []
    discover(root, jobs=2, prove=False, progress=messages.append)
    assert sorted(messages) == sorted(f"scanned {rel}" for rel in [*files, "docs/errors.md"])


def test_a_rule_selftest_cannot_show_to_fail_becomes_a_commented_suggestion(tree) -> None:
    root = tree({"e/errors.go": ERRORS_GO, "docs/errors.md": ERRORS_DOC})
    found = discover(root)
    (section,) = found.proposals
    assert section.claim.span_regex == "^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$"  # a shape, not the three values
    frozen = replace(section, id="codes-frozen",
                     claim=replace(section.claim, code_spans="^(?:bad_input|not_found|timed_out)$"))
    proof = prove(root, [frozen, section])
    assert proof.kept == [section] and not proof.dropped
    ((suggestion, why),) = proof.unproven
    assert suggestion is frozen and why.startswith("doc: new code span: not applicable")
    shown = replace(found, proposals=tuple(proof.kept), suggestions=tuple(proof.unproven))
    text = render_config(shown)
    config = yaml.safe_load(text)
    assert [r["id"] for r in config["rules"]] == [section.id]  # the suggestion is not a rule
    assert "# --- codes-frozen: doc: new code span: not applicable" in text
    block = "\n".join(line[2:] for line in text.splitlines()[text.splitlines().index(
        next(line for line in text.splitlines() if line.startswith("# --- codes-frozen"))) + 1:]
        if line.startswith("# ") and not line.startswith("# ---"))
    suggested = yaml.safe_load(block)  # uncommented, it is a config of its own with the facts it needs
    assert suggested["rules"][0]["code_spans"] == "^(?:bad_input|not_found|timed_out)$"
    assert set(suggested["facts"]) == {f.name for f in frozen.facts}


def test_a_proposal_that_fails_on_the_tree_is_dropped_with_the_engines_reason(tree) -> None:
    root = tree({"e/errors.go": ERRORS_GO, "docs/errors.md": ERRORS_DOC})
    (section,) = discover(root).proposals
    broken = replace(section, id="codes-elsewhere", claim=replace(section.claim, section="Nowhere"))
    proof = prove(root, [broken])
    assert not proof.kept and not proof.unproven
    ((dropped, why),) = proof.dropped
    assert dropped is broken and "Nowhere" in why


def test_every_emitted_rule_passes_and_catches_a_new_document_value(tree) -> None:
    root = tree({"e/errors.go": ERRORS_GO, "docs/errors.md": ERRORS_DOC})
    (root / "driftguard.yaml").write_text(render_config(discover(root)), encoding="utf-8")
    assert judge(root).ok
    doc = root / "docs/errors.md"
    edit(doc, "`timed_out`.", "`timed_out` or `rate_limited`.")
    findings = judge(root).findings
    assert [(f.kind.kind, f.value) for f in findings] == [("missing-in-code", "rate_limited")]
    assert re.search(r"rate_limited", findings[0].message)


def test_the_all_flag_writes_every_proposal_from_the_command_line(tree, capsys) -> None:
    root = _limits_tree(tree, LIMIT + 3)
    default = run_cli(capsys, "discover", "--root", str(root), "--jobs", "1")
    everything = run_cli(capsys, "discover", "--root", str(root), "--jobs", "1", "--all")
    assert (default.code, everything.code) == (0, 0)
    count = [len(re.findall(r"^  - id: ", out, re.M)) for out in (default.out, everything.out)]
    assert count == [LIMIT, LIMIT + 3]
