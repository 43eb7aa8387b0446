"""The Pulse-like scale case: the Pulse fixtures grown to upstream's size.

``build(dest)`` copies ``tests/fixtures/pulse`` and pads each of its nine Go
files with generated functions and comments to about ``go_bytes`` bytes, and
grows the body of ``executeWithTools`` to about ``method_lines`` lines (its
semaphore ``make(chan struct{}, 4)`` stays the only such call). The three
documents get extra sections appended after their own. The shipped
``examples/pulse/driftguard.yaml`` runs on the result unchanged, with
``--root dest``.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from padding import go_filler, go_statements, markdown_filler

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "pulse"
CONFIG = REPO / "examples" / "pulse" / "driftguard.yaml"
METHOD = "func (a *AgenticLoop) executeWithTools("


def build(dest: Path, go_bytes: int = 300_000, doc_bytes: int = 20_000, method_lines: int = 1900,
          seed: int = 7) -> Path:
    """Write the scale tree into ``dest`` (created; must not exist) and return it."""
    shutil.copytree(FIXTURE, dest)
    rng = random.Random(seed)
    for path in sorted(dest.rglob("*.go")):
        used: set[str] = set()
        text = path.read_text(encoding="utf-8")
        if METHOD in text:
            text = _grow_method(text, rng, method_lines)
        missing = go_bytes - len(text.encode("utf-8"))
        if missing > 0:
            text = text.rstrip("\n") + "\n\n" + go_filler(rng, used, missing)
        path.write_text(text, encoding="utf-8")
    for path in sorted((dest / "docs").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        missing = doc_bytes - len(text.encode("utf-8"))
        if missing > 0:
            text = text.rstrip("\n") + "\n\n" + markdown_filler(rng, missing)
        path.write_text(text, encoding="utf-8")
    return dest


def _grow_method(text: str, rng: random.Random, lines: int) -> str:
    """Insert statements before the final ``return`` of executeWithTools."""
    start = text.index(METHOD)
    end = text.index("\n}\n", start)
    body = text[start:end]
    current = body.count("\n")
    at = start + body.rindex("\n\treturn ")
    extra: list[str] = []
    while current + len(extra) < lines:
        extra.append("")
        extra += go_statements(rng, rng.choice(["batch", "phase", "turn", "call"]), 4)
        extra += ["\tif len(calls) > 0 {",
                  "\t\tordered := make([]ToolResult, len(calls))",
                  "\t\tcopy(ordered, results)",
                  "\t\t_ = ordered",
                  "\t}"]
    return text[:at] + "\n" + "\n".join(extra) + text[at:]


def files_of(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())
