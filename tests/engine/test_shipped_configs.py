"""The two shipped configs: clean as shipped, and each injected drift fails naming the document and the value.

Every test works on a tree lent from one copy per session (``own_repository``, ``pulse``):
hard links to files copied once, an edited file made the test's own by ``edit``. The tests
also share one fact cache, keyed by each file's content: a test's edit is a miss of its own,
and the rest of the tree is parsed once per session, not once per test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import ROOT, SharedTree, check, commit_all, edit, new_repo, own

PULSE = ROOT / "tests" / "fixtures" / "pulse"
PULSE_CONFIG = "examples/pulse/driftguard.yaml"


@pytest.fixture(autouse=True)
def _one_cache(shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRIFTGUARD_CACHE_DIR", str(shared_cache))


@pytest.fixture(scope="module")
def shared_pulse(tmp_path_factory: pytest.TempPathFactory) -> SharedTree:
    """The Pulse-shaped fixture tree laid out as upstream, the config in examples/pulse/."""
    files = {p.relative_to(PULSE).as_posix(): p for p in PULSE.rglob("*") if p.is_file()}
    files[PULSE_CONFIG] = ROOT / PULSE_CONFIG
    return SharedTree(tmp_path_factory.mktemp("pulse"), files)


@pytest.fixture
def pulse(shared_pulse: SharedTree, tmp_path: Path) -> Iterator[Path]:
    yield shared_pulse.lend(tmp_path / "pulse")
    shared_pulse.assert_untouched()


OWN_DRIFTS = [
    # (file, old, new, document named, value named)
    ("reference_impl/ai/findings.py", "timedelta(minutes=20)", "timedelta(minutes=25)", "docs/PATROL_ARCHITECTURE.md",
     "25"),
    ("driftguard/coverage/__init__.py", '    "json": "driftguard.coverage.render:render_json",\n',
     '    "json": "driftguard.coverage.render:render_json",\n    "xml": "driftguard.coverage.render:render_json",\n',
     "docs/configuration.md", "xml"),
    ("reference_impl/ai/chat/fsm.py", '    VERIFYING = "VERIFYING"', '    DONE = "DONE"\n    VERIFYING = "VERIFYING"',
     "docs/ASSISTANT_SAFETY.md", "DONE"),
    ("reference_impl/ai/patrol_signals/types.py", '    GUEST_UNREACHABLE = "guest_unreachable"\n',
     '    GUEST_UNREACHABLE = "guest_unreachable"\n    ACTIVE_ALERT = "active_alert"\n',
     "docs/PATROL_ARCHITECTURE.md", "active_alert"),
    ("reference_impl/ai/patrol_signals/types.py", "SIGNAL_STORAGE_WARNING_PERCENT = 75.0", "SIGNAL_STORAGE_WARNING_PERCENT = 80.0",
     "docs/PATROL_ARCHITECTURE.md", "80"),
    ("docs/PATROL_ARCHITECTURE.md", "| High CPU | 70% |", "| High CPU | 65% |", "docs/PATROL_ARCHITECTURE.md", "65%"),
    ("reference_impl/ai/patrol_signals/types.py", "timedelta(hours=48)", "timedelta(hours=72)", "docs/PATROL_ARCHITECTURE.md", "72"),
    ("reference_impl/ai/chat/agentic.py", "asyncio.Semaphore(MAX_PARALLEL_TOOLS)", "asyncio.Semaphore(6)",
     "docs/ASSISTANT_ARCHITECTURE.md", "6"),
    ("reference_impl/ai/chat/agentic.py", "MAX_LOOK_GATE_BLOCKS = 2", "MAX_LOOK_GATE_BLOCKS = 3", "docs/ASSISTANT_ARCHITECTURE.md", "3"),
    ("docs/ASSISTANT_ARCHITECTURE.md", "`resource_not_found`", "`resource_missing`",
     "docs/ASSISTANT_ARCHITECTURE.md", "resource_missing"),
    ("docs/ASSISTANT_SAFETY.md", "| `VERIFYING` |", "| `DONE` | Finished. |\n| `VERIFYING` |",
     "docs/ASSISTANT_SAFETY.md", "DONE"),
    ("reference_impl/ai/findings.py", "MAX_INVESTIGATION_ATTEMPTS = 3", "MAX_INVESTIGATION_ATTEMPTS = 5",
     "docs/PATROL_ARCHITECTURE.md", "5"),
    ("reference_impl/ai/findings.py", "timedelta(hours=1)", "timedelta(hours=2)", "docs/PATROL_ARCHITECTURE.md", "2h"),
    ("reference_impl/ai/chat/fsm.py", "timedelta(minutes=10)", "timedelta(minutes=15)", "docs/ASSISTANT_SAFETY.md", "15"),
    ("docs/ASSISTANT_SAFETY.md", "expire after ten minutes", "expire after five minutes",
     "docs/ASSISTANT_SAFETY.md", "five minutes"),
]


def test_own_config_is_clean(own_repository: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(capsys, own_repository)
    assert code == 0, out
    assert re.fullmatch(r"driftguard: \d+ rules: \d+ passed\n", out)


@pytest.mark.parametrize("file, old, new, doc, value", OWN_DRIFTS, ids=[d[4] + "@" + d[0] for d in OWN_DRIFTS])
def test_own_config_catches_drift(
    own_repository: Path, capsys: pytest.CaptureFixture[str], file: str, old: str, new: str, doc: str, value: str,
) -> None:
    edit(own_repository / file, old, new, count=-1)
    code, out = check(capsys, own_repository)
    assert code == 1, out
    lines = [line for line in out.splitlines() if line.startswith(doc + ":")]
    assert any(value in line for line in lines), out


PULSE_DRIFTS = [
    ("internal/ai/chat/fsm.go", '\tStateVerifying SessionState = "VERIFYING"\n',
     '\tStateVerifying SessionState = "VERIFYING"\n\t// StateDone ends a session.\n\tStateDone SessionState = "DONE"\n',
     "docs/ASSISTANT_SAFETY.md", "DONE"),
    ("internal/ai/patrol_signals.go", '\tSignalGuestUnreachable SignalType = "guest_unreachable"\n',
     '\tSignalGuestUnreachable SignalType = "guest_unreachable"\n\tSignalActiveAlert      SignalType = "active_alert"\n',
     "docs/PATROL_ARCHITECTURE.md", "active_alert"),
    ("internal/ai/patrol_signals.go", "signalStorageWarningPercent  = 75.0", "signalStorageWarningPercent  = 85.0",
     "docs/PATROL_ARCHITECTURE.md", "85"),
    ("docs/PATROL_ARCHITECTURE.md", "| Storage warning | 75% |", "| Storage warning | 70% |",
     "docs/PATROL_ARCHITECTURE.md", "70%"),
    ("internal/ai/chat/agentic.go", "sem := make(chan struct{}, 4)", "sem := make(chan struct{}, 8)",
     "docs/ASSISTANT_ARCHITECTURE.md", "8"),
    ("docs/ASSISTANT_ARCHITECTURE.md", "`resource_not_found`", "`resource_gone`",
     "docs/ASSISTANT_ARCHITECTURE.md", "resource_gone"),
    ("docs/PATROL_ARCHITECTURE.md", "| `smart_failure` |", "| `disk_melted` | A disk melted. |\n| `smart_failure` |",
     "docs/PATROL_ARCHITECTURE.md", "disk_melted"),
    ("internal/ai/chat/fsm.go", "const RecoveryTTL = 10 * time.Minute", "const RecoveryTTL = 20 * time.Minute",
     "docs/ASSISTANT_SAFETY.md", "20"),
    ("internal/ai/chat/agentic.go", "AgenticLoop", "ChatLoop", "docs/ASSISTANT_ARCHITECTURE.md", "AgenticLoop"),
    ("pkg/proxmox/client.go", "GetCephStatus", "FetchCephStatus", "docs/PATROL_ARCHITECTURE.md",
     "Client.GetCephStatus()"),
    ("docs/ASSISTANT_ARCHITECTURE.md", "`AIAPI.chat()`", "`AIAPI.send()`", "docs/ASSISTANT_ARCHITECTURE.md",
     "AIAPI.send()"),
    ("docs/ASSISTANT_ARCHITECTURE.md", "`internal/agentcapabilities/errors.go`",
     "`internal/agentcapabilities/error_codes.go`", "docs/ASSISTANT_ARCHITECTURE.md",
     "internal/agentcapabilities/error_codes.go"),
    ("docs/ASSISTANT_SAFETY.md", "## Session states", "## Session lifecycle", "docs/ASSISTANT_ARCHITECTURE.md",
     "ASSISTANT_SAFETY.md#session-states"),
]


def test_pulse_config_is_clean_from_the_project_root(pulse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(capsys, pulse, config=PULSE_CONFIG)
    assert code == 0, out


def test_pulse_config_runs_with_root(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(capsys, ROOT, "--root", str(PULSE), config=PULSE_CONFIG)
    assert code == 0, out


@pytest.mark.parametrize("file, old, new, doc, value", PULSE_DRIFTS, ids=[d[4] + "@" + d[0] for d in PULSE_DRIFTS])
def test_pulse_config_catches_drift(
    pulse: Path, capsys: pytest.CaptureFixture[str], file: str, old: str, new: str, doc: str, value: str,
) -> None:
    commit_all(new_repo(pulse), "As checked out")  # a bare renamed name is reported on git's evidence
    edit(pulse / file, old, new, count=-1)
    code, out = check(capsys, pulse, config=PULSE_CONFIG)
    assert code == 1, out
    assert any(line.startswith(doc + ":") and value in line for line in out.splitlines()), out


def test_pulse_commented_out_constant_does_not_fail(pulse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(pulse / "internal/ai/patrol_signals.go", '\tSignalGuestUnreachable SignalType = "guest_unreachable"\n',
         '\tSignalGuestUnreachable SignalType = "guest_unreachable"\n\t// SignalActiveAlert SignalType = "active_alert"\n'
         '\t/* SignalOther SignalType = "other" */\n')
    edit(pulse / "internal/ai/findings.go", "\tmaxInvestigationAttempts", "\t// maxInvestigationAttempts = 9\n\tmaxInvestigationAttempts",
         count=-1)
    code, out = check(capsys, pulse, config=PULSE_CONFIG)
    assert code == 0, out


def test_rewrapped_sentences_do_not_fail(pulse: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = pulse / "docs/ASSISTANT_ARCHITECTURE.md"
    own(doc)
    text = doc.read_text(encoding="utf-8")
    start = text.index("## The look-before-asking gate")
    end = text.index("\n## ", start + 1)
    section = text[start:end]
    heading, _, body = section.partition("\n")
    rewrapped = "\n\n".join(" ".join(par.split()) for par in body.split("\n\n") if par.strip())
    words = rewrapped.split(" ")
    narrow = "\n".join(" ".join(words[i:i + 3]) for i in range(0, len(words), 3))
    doc.write_text(text[:start] + heading + "\n\n" + narrow + "\n" + text[end:], encoding="utf-8")
    code, out = check(capsys, pulse, config=PULSE_CONFIG)
    assert code == 0, out
