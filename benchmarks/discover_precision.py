"""Precision and recall of ``driftguard discover`` on service-shaped fixture repositories.

Each fixture under ``tests/fixtures/discover_<name>/`` holds a ``labels.yaml`` of its
true couplings, reviewed by hand: set couplings as (document, table title or section
heading, declaring file), scalar couplings as (document, the quantity, file, constant),
the quantity given by a regex whose group 1 is it (``at``) or by a table row label
(``row``). The fixture is copied to a temporary folder, discovered, and the emitted
config is run by the engine; every rule is reduced to what it read (its atoms).

- precision: the share of emitted rules that pass and whose every atom is labelled;
- recall: the share of labelled couplings some emitted rule reads.

Run ``python benchmarks/discover_precision.py`` (``--all`` to measure every proposal
rather than the default screenful, ``--markdown`` for the README table).
"""

from __future__ import annotations

import argparse
import inspect
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
NAMES = ("discover_orders", "discover_billing", "discover_gateway", "discover_relay", "discover_fetchkit",
         "discover_devkit")

Atom = tuple[object, ...]


@dataclass(frozen=True)
class Figures:
    fixture: str
    rules: int
    true_rules: int
    labelled: int
    found: int
    missing: tuple[Atom, ...]
    false: tuple[str, ...]  # ids of the rules that read something unlabelled

    @property
    def precision(self) -> float:
        return self.true_rules / self.rules if self.rules else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.labelled if self.labelled else 1.0


def labelled_atoms(root: Path) -> set[Atom]:
    """The fixture's labels as atoms: ``("set", doc, claim, file)`` and
    ``("scalar", doc, offset or row label, file, constant)``."""
    labels = yaml.safe_load((root / "labels.yaml").read_text(encoding="utf-8"))
    atoms: set[Atom] = {("set", s["doc"], s["claim"], s["file"]) for s in labels.get("sets", [])}
    for s in labels.get("scalars", []):
        if "row" in s:
            where: object = s["row"]
        else:
            text = (root / s["doc"]).read_text(encoding="utf-8")
            m = re.search(s["at"], text)
            if m is None:
                raise SystemExit(f"{root.name}: {s['at']!r} is not in {s['doc']}")
            where = m.start(1)
        atoms.add(("scalar", s["doc"], where, s["file"], s["constant"]))
    return atoms


def rule_atoms(config_path: Path) -> list[tuple[str, bool, set[Atom]]]:
    """``(rule id, passes, atoms)`` for each rule of the config, as the engine reads it."""
    from driftguard.config.loader import load_config
    from driftguard.config.specs import TableClaim
    from driftguard.judging.engine import Engine
    from driftguard.model import Status

    config = load_config(config_path)
    out = []
    for result in Engine(config).run().rules:
        rule = result.rule
        atoms: set[Atom] = set()
        if isinstance(rule.claim, TableClaim) and rule.claim.rows:
            for label, name in rule.claim.rows:
                spec = config.facts[name]
                atoms.add(("scalar", rule.doc, label, spec.file, constant_of(spec.selector)))
        elif rule.scalar:
            spec = config.facts[rule.facts[0]]
            for item in result.claim.items if result.claim else ():
                at = item.span[0] if item.span else None
                atoms.add(("scalar", rule.doc, at, spec.file, constant_of(spec.selector, rule.entry)))
        else:
            atoms |= {("set", rule.doc, target(rule.claim), config.facts[n].file) for n in rule.facts}
        out.append((rule.id, result.status is Status.PASS, atoms))
    return out


def constant_of(selector: object, entry: str | None = None) -> str:
    """How a label names the scalar a fact reads: ``NAME`` or ``NAME["key"]`` for a constant,
    ``Client(timeout)`` for a parameter's default, ``--log.level`` or ``$HOME`` for an entry of
    the flags or the environment, ``call:make@Loop.run`` for a call's argument by position,
    ``call:Timeouts(connect)@`` by keyword."""
    from driftguard.config.specs import Call, Constant, Default, Env, Flags

    if isinstance(selector, Constant):
        return selector.name + "".join(f'["{k}"]' if isinstance(k, str) else f"[{k}]" for k in selector.keys)
    if isinstance(selector, Default):
        return f"{selector.function}({selector.param})"
    if isinstance(selector, (Flags, Env)) and entry is not None:
        return ("--" if isinstance(selector, Flags) else "$") + entry
    if isinstance(selector, Call):
        keyword = f"({selector.arg})" if isinstance(selector.arg, str) else ""
        return f"call:{selector.function}{keyword}@{selector.within or ''}"
    return repr(selector)


def target(claim: object) -> object:
    """How a label names what a set rule reads: a table's title, a section's heading, or the form
    and its scope (``headings global``, ``items Options``, ``block global``)."""
    from driftguard.config.specs import BlockClaim, HeadingsClaim, ItemsClaim, TableClaim

    if isinstance(claim, TableClaim):
        return claim.table
    if isinstance(claim, HeadingsClaim):
        return " ".join(p for p in ("headings", claim.section) if p)
    if isinstance(claim, ItemsClaim):
        return " ".join(p for p in ("items", claim.section) if p)
    if isinstance(claim, BlockClaim):
        return " ".join(p for p in ("block", claim.keys, claim.section) if p)
    return getattr(claim, "section", None)


def measure(name: str, show_all: bool = False) -> Figures:
    """Discover one fixture in a temporary copy and score the emitted config."""
    from driftguard.discover import discover, render_config

    with tempfile.TemporaryDirectory(prefix=f"dg-{name}-") as tmp:
        root = Path(tmp) / name
        shutil.copytree(FIXTURES / name, root)
        labels = labelled_atoms(root)
        options = {"limit": None} if show_all and "limit" in inspect.signature(discover).parameters else {}
        found = discover(root, jobs=1, **options)
        config = root / "driftguard.yaml"
        config.write_text(render_config(found), encoding="utf-8")
        rules = rule_atoms(config) if found.proposals else []
    seen = set().union(*(atoms for _, _, atoms in rules)) if rules else set()
    false = tuple(rid for rid, ok, atoms in rules if not ok or not atoms <= labels)
    return Figures(name, len(rules), len(rules) - len(false), len(labels), len(labels & seen),
                   tuple(sorted(labels - seen, key=repr)), false)


def markdown(figures: list[Figures]) -> str:
    lines = ["| Fixture | Rules proposed | True | Precision | Labelled couplings | Found | Recall |",
             "|---|---|---|---|---|---|---|"]
    for f in figures:
        lines.append(f"| `{f.fixture}` | {f.rules} | {f.true_rules} | {f.precision:.2f} | {f.labelled} | "
                     f"{f.found} | {f.recall:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="measure every proposal, not the default screenful")
    parser.add_argument("--markdown", action="store_true", help="print the README table only")
    parser.add_argument("fixtures", nargs="*", default=list(NAMES))
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    figures = [measure(name, args.all) for name in args.fixtures]
    if args.markdown:
        print(markdown(figures))
        return 0
    for f in figures:
        print(f"{f.fixture}: {f.rules} rules, {f.true_rules} true: precision {f.precision:.2f}; "
              f"{f.found} of {f.labelled} labelled couplings: recall {f.recall:.2f}")
        for rid in f.false:
            print(f"  false: {rid}")
        for atom in f.missing:
            print(f"  missing: {atom}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
