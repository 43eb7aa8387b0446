"""Where a check's time goes: import times, engine phases, cProfile hot spots.

``phases(config, root)`` runs this file in a fresh interpreter, which imports
each heavy library on its own clock, wraps driftguard's stages with exclusive
timers (a stage's time excludes the stages it calls) and runs ``check``.
``import_times`` reads ``python -X importtime``; ``hot_spots`` reads cProfile.
"""

from __future__ import annotations

import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TRACKED = ("yaml", "markdown_it", "tree_sitter", "tree_sitter_go", "libcst")


def import_times(argv_tail: list[str]) -> dict[str, Any]:
    """From ``-X importtime``: ``groups``, ms per library (its top-most imports'
    cumulative time), driftguard's own modules (their cumulative minus the
    libraries inside) and the start-up modules; ``own_top``, driftguard's
    modules with the most self time."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "driftguard", *argv_tail],
                          capture_output=True, text=True)
    nodes = []  # (depth, name, self_us, cumulative_us), in the post-order importtime prints
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, cumulative, name = line[len("import time:"):].split("|")
        depth = (len(name) - len(name.lstrip()) - 1) // 2
        nodes.append((depth, name.strip(), int(own), int(cumulative)))
    groups: dict[str, float] = {}
    stack: list[str] = []  # roots of the enclosing imports, outermost first
    for depth, name, _own, cum in reversed(nodes):  # pre-order: parents before children
        del stack[depth:]
        root = name.split(".")[0]
        if root in TRACKED and not any(r in TRACKED for r in stack):
            groups[root] = groups.get(root, 0.0) + cum / 1000
        elif depth == 0:
            key = "driftguard (own modules)" if root == "driftguard" else "interpreter start-up modules"
            groups[key] = groups.get(key, 0.0) + cum / 1000
        stack.append(root)
    if "driftguard (own modules)" in groups:
        groups["driftguard (own modules)"] -= sum(v for k, v in groups.items() if k in TRACKED)
    own_top = sorted(((n, o) for _, n, o, _ in nodes if n.startswith("driftguard")), key=lambda x: -x[1])[:6]
    return {"groups": {k: round(v, 1) for k, v in groups.items()},
            "own_top": [{"module": n, "self_ms": round(o / 1000, 1)} for n, o in own_top]}


def hot_spots(argv_tail: list[str], top: int = 12) -> list[dict[str, Any]]:
    """The functions with the most exclusive time under cProfile."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "prof"
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "driftguard", *argv_tail],
                       capture_output=True)
        stats = pstats.Stats(str(out))
        rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]  # type: ignore[attr-defined]
    return [{"function": f"{Path(f).name}:{line}({fn})", "calls": nc, "tottime_ms": round(tt * 1000, 1),
             "cumtime_ms": round(ct * 1000, 1)} for (f, line, fn), (_cc, nc, tt, ct, _) in rows]


def phases(config: Path, root: Path | None = None) -> dict[str, float]:
    """Milliseconds per stage of one check, measured in a fresh interpreter."""
    argv = [sys.executable, __file__, str(config)] + ([str(root)] if root else [])
    proc = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- the child ---------------------------------------------------------------------

class _Clock:
    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self.stack: list[float] = []  # time spent in nested stages, per open stage

    def wrap(self, owner: Any, attr: str, label: str) -> None:
        inner: Callable[..., Any] = getattr(owner, attr)

        def timed(*args: Any, **kwargs: Any) -> Any:
            self.stack.append(0.0)
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent = time.perf_counter() - start
                nested = self.stack.pop()
                self.totals[label] = self.totals.get(label, 0.0) + spent - nested
                if self.stack:
                    self.stack[-1] += spent

        setattr(owner, attr, timed)


def _child(config: str, root: str | None) -> None:
    t0 = time.perf_counter()
    result: dict[str, float] = {}

    def step(label: str, action: Callable[[], object]) -> None:
        start = time.perf_counter()
        action()
        result[label] = (time.perf_counter() - start) * 1000

    uses_python = ".py" in Path(config).read_text(encoding="utf-8")
    step("import yaml", lambda: __import__("yaml"))
    step("import markdown_it", lambda: __import__("markdown_it"))
    step("import tree_sitter + tree_sitter_go", lambda: (__import__("tree_sitter"), __import__("tree_sitter_go")))
    if uses_python:
        step("import libcst", lambda: __import__("libcst"))
    modules = ["driftguard.cli", "driftguard.config.loader", "driftguard.judging.engine", "driftguard.documents.reader",
               "driftguard.documents.claims", "driftguard.quantities", "driftguard.sources.go", "driftguard.reporters.text"]
    if uses_python:
        modules.append("driftguard.sources.python")
    step("import driftguard modules", lambda: [__import__(m) for m in modules])

    from driftguard.config import loader as config_mod
    from driftguard.documents import claims
    from driftguard.documents import reader as documents
    from driftguard.judging import engine, workspace
    from driftguard.sources import go
    from driftguard.sources.go import reader as go_reader

    clock = _Clock()
    clock.wrap(config_mod, "load_config", "config: YAML + validation")
    clock.wrap(workspace.Workspace, "_read", "read files")
    clock.wrap(go, "parse", "Go: tree-sitter parse")
    clock.wrap(go_reader, "build_index", "Go: declaration index")
    clock.wrap(go, "extract", "Go: extract facts")
    if uses_python:
        from driftguard.sources import python
        from driftguard.sources.python import tree as python_tree

        clock.wrap(python, "parse", "Python: libcst parse")
        clock.wrap(python_tree.PyTree, "_index_positions", "Python: positions (codegen pass)")
        clock.wrap(python, "extract", "Python: extract facts")
    clock.wrap(documents, "parse_document", "markdown: parse document")
    clock.wrap(claims, "read_claim", "claims: read claim")
    for name in ("compare_set", "compare_scalar", "compare_rows"):
        clock.wrap(engine, name, "compare")
    from driftguard.cli import main

    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        saved, sys.stdout = sys.stdout, sink
        try:
            main(["check", "--config", config] + (["--root", root] if root else []))
        finally:
            sys.stdout = saved
    run = (time.perf_counter() - start) * 1000
    result.update({k: v * 1000 for k, v in clock.totals.items()})
    staged = sum(v * 1000 for v in clock.totals.values())
    result["other (rule loop, reporting)"] = run - staged
    result["total in process"] = (time.perf_counter() - t0) * 1000
    print(json.dumps({k: round(v, 1) for k, v in result.items()}))


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
