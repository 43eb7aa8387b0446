"""``check``, ``report`` and ``facts``: judge the rules, or show what the facts read."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from driftguard.commands.common import ExitCode, cache_for, emit, given_paths, load
from driftguard.model import ConfigError, DriftguardError, Location

if TYPE_CHECKING:
    from driftguard.config.loader import Config


def cmd_check(args: argparse.Namespace) -> int:
    from driftguard.judging.engine import Engine, rules_touching
    from driftguard.reporters import CHECK_FORMATS, renderer

    config = load(args)
    rules = None
    if args.paths:
        rules = rules_touching(config, given_paths(args.paths, config, "check"))
        if not rules:
            print(f"driftguard: no rule reads {', '.join(args.paths)}; nothing to judge", file=sys.stderr)
    result = Engine(config, cache_for(args)).run(rules)
    emit(args, renderer(CHECK_FORMATS, args.format)(result))
    return result.exit_code


def cmd_report(args: argparse.Namespace) -> int:
    from driftguard.judging.engine import Engine
    from driftguard.reporters import REPORT_FORMATS, renderer

    result = Engine(load(args), cache_for(args)).run()
    emit(args, renderer(REPORT_FORMATS, args.format)(result))
    return result.exit_code


def cmd_facts(args: argparse.Namespace) -> int:
    from driftguard.judging.engine import Engine

    if args.file or args.select:
        config = one_selector(args)
    else:
        config = load(args, require_rules=False)
    unknown = [n for n in args.names if n not in config.facts]
    if unknown:
        print(f"driftguard: error: unknown fact(s): {', '.join(unknown)}; known: {', '.join(config.facts)}",
              file=sys.stderr)
        return ExitCode.ERROR
    engine = Engine(config, cache_for(args))
    lines, code = [], ExitCode.CLEAN
    for name in args.names or list(config.facts):
        spec = config.facts[name]
        try:
            fact = engine.fact(spec)
        except DriftguardError as exc:
            lines.append(f"{name}: error: {exc}")
            code = ExitCode.ERROR
            continue
        kind = "scalar" if fact.scalar else f"{'map' if spec.map else 'set'} of {len(fact.items)}"
        lines.append(f"{name} ({kind}) from {spec.file}:")
        for item in fact.items:
            text = f"  [{item.value.text}]" if item.value.text and item.value.text != item.value.canonical else ""
            key = f"{item.label} = " if spec.map else ""
            lines.append(f"  {item.location}: {key}{item.value.canonical}{text}")
        lines += [f"  note: {note}" for note in engine.left_out(spec)]
        lines += [f"  warning: {warning}" for warning in fact.warnings]
    emit(args, "\n".join(lines) + "\n")
    return code


def one_selector(args: argparse.Namespace) -> Config:
    """A config of one fact, ``--select`` (a fact's selector as YAML) over ``--file``, with no
    config file: what a selector reads, tried before a rule is written."""
    from driftguard.config import yamlsafe
    from driftguard.config.loader import Config, fact_of

    if not (args.file and args.select):
        raise ConfigError("--file and --select go together: --file PATH --select 'constants: {type: State}'")
    root = Path(args.root or ".").resolve()
    body = yamlsafe.load(args.select, "--select")
    if not isinstance(body, dict):
        raise ConfigError(f"--select: expected a selector such as 'constants: {{type: State}}', got {args.select!r}",
                          Location("--select"))
    body["file"] = args.file
    return Config(path=root / "--select", root=root, facts={"selected": fact_of("--select", body, root)}, rules=())
