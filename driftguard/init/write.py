"""Write the first config: compose it, refuse to overwrite what init did not write, and
put today's findings into the baseline so the config passes on the tree it was written for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from driftguard.config.loader import CONFIG_NAME, load_config
from driftguard.discover import LIMIT, discover
from driftguard.discover.emit import comment, config_parts, scalar
from driftguard.init.survey import Survey, survey
from driftguard.judging.baseline import NAME, baseline_text
from driftguard.judging.engine import Engine
from driftguard.model import ConfigError, Finding, Location

HEADER = "# driftguard.yaml written by `driftguard init`"
"""The first line of a config init wrote; ``init --force`` replaces only a file that has it."""


@dataclass(frozen=True)
class InitResult:
    config: Path
    baseline: Path
    survey: Survey
    rules: int
    known: tuple[Finding, ...]  # today's findings, written to the baseline


def init_config(root: Path, force: bool = False, jobs: int | None = None,
                progress: Callable[[str], None] | None = None) -> InitResult:
    """Write ``driftguard.yaml`` and ``driftguard.baseline.json`` at ``root``."""
    target = root / CONFIG_NAME
    if target.exists() and not _ours(target, force):
        raise ConfigError(f"{CONFIG_NAME} exists; init replaces only a config it wrote, and only with --force "
                          "(nothing was written)", Location(str(target)))
    found = survey(root)
    if not found.documents:
        raise ConfigError("no documents (markdown or reStructuredText) under the root: nothing to guard",
                          Location(str(root)))
    discovery = discover(root, jobs=jobs, limit=LIMIT, progress=progress)
    text = compose(found, *config_parts(discovery))
    baseline = root / NAME
    _write(target, text)
    config = load_config(target)
    result = Engine(config).run()
    known = tuple(f for f in result.findings if not f.is_error)
    _write(baseline, baseline_text(known))
    return InitResult(target, baseline, found, len({r.id for r in config.rules}), known)


def compose(found: Survey, facts: list[str], rules: list[str]) -> str:
    languages = ", ".join(f"{name} ({len(files)} files)" for name, files in sorted(found.sources.items()))
    out = [HEADER, comment("Edit freely: `driftguard init --force` replaces only a file that starts with that line."),
           comment(f"Languages found: {languages or 'none'}; documents: {len(found.documents)}."),
           "version: 1", f"baseline: {NAME}", "facts:"]
    globs = found.source_globs()
    if globs:
        out += ["  symbols:", comment("every name the sources define, for the references rule", "    "),
                "    file: [" + ", ".join(scalar(g) for g in globs) + "]", "    symbols: true"]
    out += facts or ([] if globs else ["  {}"])
    docs = found.document_globs()
    doc = scalar(docs[0]) if len(docs) == 1 else "[" + ", ".join(scalar(d) for d in docs) + "]"
    out += ["rules:",
            "  - id: links", "    why: every relative link and anchor of the documents points at something",
            f"    doc: {doc}", "    links: true",
            "  - id: references",
            "    why: a renamed function, a moved file or a deleted constant is caught where the documents name it",
            *(["    fact: symbols"] if globs else []), f"    doc: {doc}", "    references: true"]
    out += rules
    return "\n".join(out) + "\n"


def _ours(path: Path, force: bool) -> bool:
    try:
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    except (OSError, UnicodeDecodeError):
        return False
    return force and first == HEADER


def _write(path: Path, text: str) -> None:
    from driftguard.fix.write import atomic_write

    atomic_write(path, text.encode("utf-8"), 0o644)
