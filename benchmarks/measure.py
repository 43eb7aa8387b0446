"""Run a command in a fresh process and measure its wall time and peak memory.

Each measurement is one child process, so interpreter start is included.
A command is given without the interpreter (``["-m", "driftguard", ...]``).
With ``peak=True`` the child runs under ``peak.py``, which records the child's
own peak resident set (``ru_maxrss`` from ``os.wait4`` would also count the
pages the child inherited from this large parent before ``exec``); without,
the command runs bare and only its time is taken.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent


@dataclass
class Sample:
    seconds: float
    peak_kb: int
    exit_code: int


@dataclass
class Series:
    samples: list[Sample] = field(default_factory=list)

    @property
    def median_s(self) -> float:
        return statistics.median(s.seconds for s in self.samples)

    @property
    def median_kb(self) -> float:
        return statistics.median(s.peak_kb for s in self.samples)

    @property
    def exit_codes(self) -> list[int]:
        return sorted({s.exit_code for s in self.samples})


def run_once(command: list[str], peak: bool = True, cwd: Path = REPO) -> Sample:
    """Run ``python *command`` once with output discarded; its time and peak RSS (kB, 0 if not taken)."""
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryFile() as out:
        mark = Path(tmp) / "peak"
        argv = [sys.executable, *([str(BENCH / "peak.py"), str(mark)] if peak else []), *command]
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        elapsed = time.perf_counter() - start
        if proc.returncode not in (0, 1):
            out.seek(0)
            tail = out.read()[-2000:].decode("utf-8", "replace")
            raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}:\n{tail}")
        kb = int(mark.read_text()) if peak else 0
    return Sample(elapsed, kb, proc.returncode)


def series(command: list[str], repeat: int, warmup: int = 1, peak: bool = True) -> Series:
    """``repeat`` measured runs after ``warmup`` unmeasured ones (page cache, bytecode cache)."""
    for _ in range(warmup):
        run_once(command, peak)
    return Series([run_once(command, peak) for _ in range(repeat)])


def driftguard_argv(config: Path, root: Path | None = None) -> list[str]:
    argv = ["-m", "driftguard", "check", "--config", str(config)]
    return argv + (["--root", str(root)] if root else [])


def naive_argv(config: Path, root: Path | None = None) -> list[str]:
    argv = [str(BENCH / "naive.py"), "--config", str(config)]
    return argv + (["--root", str(root)] if root else [])


def interpreter_argv() -> list[str]:
    """The floor: an interpreter that starts and exits."""
    return ["-c", "pass"]
