"""Smoke test of benchmarks/links_peer.py: the generated tree is what the benchmark says it
is (every planted broken link, and only those, is reported by a links check; a third of the
pages hold no link). No timing is asserted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, check

sys.path.insert(0, str(ROOT / "benchmarks"))
import links_peer  # noqa: E402


def test_the_generated_tree_holds_exactly_the_planted_broken_links(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "tree"
    planted = links_peer.generate(root, pages=6, broken=3)
    config = links_peer._config(root, "docs/**/*.md", tmp_path)
    code, out = check(capsys, tmp_path, "--no-cache", config=config.name)
    assert code == 1, out
    assert links_peer._found(out, planted, lychee=False) == len(planted) == 3
    assert out.count(": links: ") == 3, out
    assert sum("](" not in p.read_text(encoding="utf-8") for p in (root / "docs").glob("*.md")) == 2
