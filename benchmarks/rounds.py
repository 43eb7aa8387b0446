"""Whole processes timed in turn: one round runs every command once, in order.

A round is a mapping of names to ``Run``s, built afresh for each round (so a cold run
can have a fresh cache folder every time). The first round is a warm-up (page cache,
bytecode cache, the warm runs' fact cache) and is not counted; the figures are the
medians of the ``repeat`` rounds after it, so each command is measured beside the
others under the same load and a ratio between two of them holds when the machine's
speed drifts. Every run is ``python peak.py MARK ARGV...``: interpreter start is
included, and the peak memory is the child's own (``VmHWM``, see ``peak.py``).

Children run with a bytecode cache of their own (``PYTHONPYCACHEPREFIX`` in the work
folder, ``PYTHONDONTWRITEBYTECODE`` dropped), as an installed package has ``.pyc``
files; under pytest that also caches its assertion rewriting of the plugin's package
(pytest rewrites every module of a distribution that declares a ``pytest11`` plugin).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Run:
    argv: list[str]  # after the interpreter: ["-m", "driftguard", ...] or [SCRIPT, ...]
    cwd: Path
    env: dict[str, str]
    codes: tuple[int, ...] = (0, 1)  # the exit codes that are not a failure of the run


def child_env(repo: Path, work: Path, bytecode: bool = True, **extra: str) -> dict[str, str]:
    """The environment of a child running the driftguard checkout ``repo``; without
    ``bytecode`` the environment's own bytecode setting is left as it is."""
    env = {**os.environ, "PYTHONPATH": str(repo), **extra}
    if bytecode:
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    for name in ("DRIFTGUARD_NO_CACHE", "DRIFTGUARD_JOBS", "PYTEST_ADDOPTS"):
        if name not in extra:
            env.pop(name, None)
    return env


def timed(run: Run) -> tuple[float, int, str]:
    """Seconds, peak kB and standard output of one run."""
    with tempfile.TemporaryDirectory() as tmp:
        mark = Path(tmp) / "peak"
        start = time.perf_counter()
        done = subprocess.run([sys.executable, str(BENCH / "peak.py"), str(mark), *run.argv], cwd=run.cwd,
                              env=run.env, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        if done.returncode not in run.codes:
            raise SystemExit(f"{' '.join(run.argv)} exited {done.returncode}:\n{done.stdout[-1500:]}"
                             f"{done.stderr[-1500:]}")
        return seconds, int(mark.read_text()), done.stdout


def rounds(make: Callable[[int], dict[str, Run]], repeat: int) -> dict[str, Any]:
    """Median seconds and peak MB of each run over ``repeat`` rounds after a warm-up round,
    and each run's standard output (of the last round)."""
    seconds: dict[str, list[float]] = {}
    peaks: dict[str, list[int]] = {}
    outputs: dict[str, str] = {}
    for i in range(repeat + 1):
        for name, run in make(i).items():
            s, kb, outputs[name] = timed(run)
            if i:
                seconds.setdefault(name, []).append(s)
                peaks.setdefault(name, []).append(kb)
    return {"median_s": {k: round(statistics.median(v), 3) for k, v in seconds.items()},
            "peak_mb": {k: round(statistics.median(v) / 1024, 1) for k, v in peaks.items()},
            "outputs": outputs}


def ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else float("inf")
