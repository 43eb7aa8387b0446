"""Extract one selector from many files across processes.

A ``symbols`` fact over thousands of files is a parse of each file and one walk
of its tree; the parsers hold the interpreter's lock, so only processes run
them side by side. Each worker gets the files' texts (read by the run's
``Workspace``, so the same safety rules hold) and sends back only the
extracted items, never a tree. A file a worker cannot read is left to the
serial path, which reports it; a pool that cannot start changes nothing but
the speed.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from driftguard.config.specs import Selector
from driftguard.model import DriftguardError, Item
from driftguard.sources import load_reader, reader_name

PARALLEL_FROM = 4 * 1024 * 1024
"""Bytes: below this the files are read in this process (a pool costs more to start)."""


def default_jobs() -> int:
    """``$DRIFTGUARD_JOBS`` when it is a positive whole number, else the usable CPUs; never
    more than the usable CPUs (more processes than CPUs only cost memory)."""
    usable = usable_cpus()
    explicit = os.environ.get("DRIFTGUARD_JOBS", "").strip()
    if explicit.isdigit() and int(explicit) > 0:
        return min(int(explicit), usable)
    return usable


def usable_cpus() -> int:
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # pragma: no cover - not on Linux
        return max(os.cpu_count() or 1, 1)


def pool_context() -> multiprocessing.context.BaseContext:
    """``fork`` where it is safe (no other threads), as it starts workers with the parsers loaded."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn" if "spawn" in methods else None)


def balanced(sizes: dict[str, int], count: int) -> list[list[str]]:
    """``count`` groups of about equal bytes: largest first, each to the lightest group."""
    bins: list[list[str]] = [[] for _ in range(max(count, 1))]
    loads = [0] * len(bins)
    for path in sorted(sizes, key=lambda p: (-sizes[p], p)):
        i = loads.index(min(loads))
        bins[i].append(path)
        loads[i] += sizes[path] + 2048  # a fixed cost per file, besides its bytes
    return [b for b in bins if b]


def extract_many(selector: Selector, texts: dict[str, str], jobs: int | None = None,
                 smallest: int | None = None) -> dict[str, Sequence[Item]]:
    """Path -> the items ``selector`` reads from it, for the files workers could read;
    empty when the files are too few or their characters fewer than ``smallest`` to be
    worth a pool (``PARALLEL_FROM`` unless given), or the pool fails."""
    workers = min(default_jobs() if jobs is None else jobs, usable_cpus(), len(texts))
    sizes = {path: len(text) for path, text in texts.items()}
    if workers < 2 or len(texts) < 2 or sum(sizes.values()) < (PARALLEL_FROM if smallest is None else smallest):
        return {}
    groups = balanced(sizes, workers * 4)
    out: dict[str, Sequence[Item]] = {}
    try:
        with ProcessPoolExecutor(max_workers=min(workers, len(groups)), mp_context=pool_context()) as pool:
            for done in pool.map(extract_group, [selector] * len(groups),
                                 [[(path, texts[path]) for path in group] for group in groups]):
                out.update(done)
    except Exception:  # noqa: BLE001 - any failure here: the serial path does it all, and reports
        return {}
    return out


def extract_group(selector: Selector, files: list[tuple[str, str]]) -> dict[str, Sequence[Item]]:
    out: dict[str, Sequence[Item]] = {}
    for path, text in files:
        module = reader_name(path, selector)
        try:
            reader = load_reader(module)
            found = reader.extract(reader.parse(path, text), selector, path)
        except (DriftguardError, RecursionError, MemoryError):
            continue  # the serial path reads it again and reports what went wrong
        out[path] = found if not isinstance(found, list) else tuple(found)
    return out
