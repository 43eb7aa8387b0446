"""``driftguard selftest``: mutate a temporary copy of each rule's files in the style
of their neighbours and prove that the rule catches the mutation."""

from __future__ import annotations

from driftguard.selftest.runner import (
    Outcome,
    RuleSelftest,
    SelftestResult,
    Verdict,
    render_selftest,
    run_selftest,
)

__all__ = ["Outcome", "RuleSelftest", "SelftestResult", "Verdict", "render_selftest", "run_selftest"]
